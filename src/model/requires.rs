//! What a lesson requires of the machine (`requires: { cc, gpus }`), and the words for a GPU
//! that lacks it.

use serde::{Deserialize, Serialize};

/// `requires: { cc: "9.0", gpus: 2 }`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Requires {
    /// Compute capability at least (major, minor).
    pub cc: Option<(u32, u32)>,
    pub gpus: Option<u32>,
}

impl Requires {
    /// What this device lacks, in words; None when it has all that is required.
    pub fn unmet(&self, cc: &str, gpus: u32) -> Option<String> {
        if let Some((maj, min)) = self.cc {
            let have = parse_cc(cc);
            if have.is_none_or(|h| h < (maj, min)) {
                return Some(format!(
                    "needs compute capability {maj}.{min}, this GPU has {cc}"
                ));
            }
        }
        match self.gpus {
            Some(n) if gpus < n => Some(format!("needs {n} GPUs, this machine has {gpus}")),
            _ => None,
        }
    }

    /// `arch`, raised to the compute capability required: code written for a newer GPU
    /// (clusters need sm_90) would not compile for an older target.
    pub fn arch_for(&self, arch: &str) -> String {
        let Some((maj, min)) = self.cc else {
            return arch.to_string();
        };
        let digits: String = (arch.strip_prefix("sm_").unwrap_or(arch).chars())
            .take_while(char::is_ascii_digit)
            .collect();
        match digits.parse::<u32>() {
            Ok(n) if n >= maj * 10 + min => arch.to_string(),
            _ => format!("sm_{maj}{min}"),
        }
    }
}

/// `"9.0"` as (9, 0).
pub fn parse_cc(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmet_capabilities_are_named_with_what_the_device_has() {
        let r = Requires {
            cc: Some((9, 0)),
            gpus: Some(2),
        };
        assert_eq!(
            r.unmet("8.6", 2).as_deref(),
            Some("needs compute capability 9.0, this GPU has 8.6")
        );
        assert_eq!(
            r.unmet("9.0", 1).as_deref(),
            Some("needs 2 GPUs, this machine has 1")
        );
        assert_eq!(r.unmet("10.0", 2), None);
        assert_eq!(Requires::default().unmet("7.5", 1), None);
    }
}
