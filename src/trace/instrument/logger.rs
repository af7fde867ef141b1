//! The logger's text for one module, and the header facts that decide it: the target
//! (sm_70 at least, for `match.any.sync`) and whether the cluster instructions the logger
//! uses to name a `shared::cluster` address's block (sm_90, PTX 7.8) may be written.

use super::InstrumentError;
use super::statements::strip_comment;

const LOGGER_PTX: &str = include_str!("../logger.ptx");
const CLUSTER_MARK: &str = "\t//@cluster";

/// What the module's header allows the logger to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Features {
    pub(super) cluster: bool,
}

/// The logger for a module with `features`: the cluster lines kept (unmarked) or left out.
/// Left out, the code still flows: they form a section that only a cluster address enters.
pub(super) fn text(features: Features) -> String {
    let mut out = String::with_capacity(LOGGER_PTX.len());
    for line in LOGGER_PTX.lines() {
        match line.strip_suffix(CLUSTER_MARK) {
            Some(code) if features.cluster => out.push_str(code),
            Some(_) => continue,
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

fn sm_number(arch: &str) -> Option<u32> {
    let digits: String = arch
        .trim_start_matches("sm_")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

fn version(rest: &str) -> Option<(u32, u32)> {
    let (major, minor) = rest.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.trim().parse().ok()?))
}

/// The 1-based line after which the logger goes (the last of `.version`, `.target` and
/// `.address_size`, which must precede every other directive), and what the header allows.
pub(super) fn header_end(ptx: &str) -> Result<(usize, Features), InstrumentError> {
    let mut end = None;
    let mut ptx_version = None;
    let mut sm = None;
    for (idx, line) in ptx.lines().enumerate() {
        let code = strip_comment(line).trim();
        if let Some(rest) = code.strip_prefix(".target") {
            let arch = rest
                .trim()
                .split([',', ' '])
                .next()
                .unwrap_or("")
                .to_string();
            sm = sm_number(&arch);
            if sm.is_some_and(|sm| sm < 70) {
                return Err(InstrumentError::OldTarget(arch));
            }
            end = Some(idx + 1);
        } else if let Some(rest) = code.strip_prefix(".version") {
            ptx_version = version(rest);
            end = end.map(|_| idx + 1).or(end);
        } else if code.starts_with(".address_size") {
            end = end.map(|_| idx + 1).or(end);
        } else if !code.is_empty() && end.is_some() {
            break;
        }
    }
    let end = end.ok_or(InstrumentError::NoTarget)?;
    let cluster = sm.is_some_and(|s| s >= 90) && ptx_version.is_some_and(|v| v >= (7, 8));
    Ok((end, Features { cluster }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_lines_need_sm_90_and_ptx_7_8() {
        let h = |v: &str, t: &str| {
            header_end(&format!(
                ".version {v}\n.target {t}\n.address_size 64\n\n.visible"
            ))
            .unwrap()
        };
        assert_eq!(h("9.0", "sm_90"), (3, Features { cluster: true }));
        assert_eq!(h("9.0", "sm_90a").1, Features { cluster: true });
        assert_eq!(h("7.7", "sm_90").1, Features { cluster: false });
        assert_eq!(h("9.0", "sm_80").1, Features { cluster: false });
        let with = text(Features { cluster: true });
        let without = text(Features { cluster: false });
        assert!(with.contains("getctarank.u64") && !with.contains("//@cluster"));
        assert!(!without.contains("getctarank.") && !without.contains("%cluster_ctarank"));
        assert!(without.contains("$__gpulab_ranked:"));
    }
}
