//! The optional lesson keys beyond the first format: `__constant__` symbols filled from a
//! buffer, the comparison tolerance, figures a kernel measures itself, and the capability a
//! lesson requires (docs/lesson-format.md). Each has a default that means "as before", so
//! recordings made before these keys existed still read.

use serde::{Deserialize, Serialize};

/// `constants: [{ symbol, from }]` on a variant: before its launches, the worker copies
/// buffer `buffer`'s host data into the module's `__constant__` variable `symbol`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstantFill {
    pub symbol: String,
    /// Index into `Lesson::buffers` (an input, never an output).
    pub buffer: usize,
}

/// How far a float output may be from the reference and still be right:
/// |got − want| ≤ abs + rel × max(|got|, |want|). NaN never passes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tolerance {
    pub rel: f64,
    pub abs: f64,
}

impl Default for Tolerance {
    /// Enough for the same function computed in another order by a few operations.
    fn default() -> Self {
        Tolerance {
            rel: 1e-4,
            abs: 1e-6,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Summary {
    Median,
    Mean,
    Min,
    Max,
}

impl Summary {
    pub const ALL: [(&'static str, Summary); 4] = [
        ("median", Summary::Median),
        ("mean", Summary::Mean),
        ("min", Summary::Min),
        ("max", Summary::Max),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("?", |(n, _)| n)
    }
}

/// `measures: [{ name, from, summary, per, unit }]`: a figure the kernel writes into an
/// output buffer (clock64 deltas, say), summarised over the buffer's elements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measure {
    pub name: String,
    /// Index into `Lesson::buffers`; such a buffer holds timings and is not compared.
    pub buffer: usize,
    pub summary: Summary,
    /// The divisor `per` evaluated for each variant, in `Lesson::variants` order (1 where
    /// none was given): a define may change how many accesses one figure covers.
    pub divisors: Vec<f64>,
    pub unit: String,
}

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

/// A measured figure in a result: the summary of its buffer divided by `per`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub value: f64,
    pub unit: String,
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
