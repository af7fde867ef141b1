//! Rerun one variant under compute-sanitizer's racecheck, the shared-memory hazard detector
//! that watches the kernel run: a second opinion beside the lab's own race analysis of the
//! trace, on the same few blocks a memcheck rerun uses.

use super::memcheck::{MemcheckError, Sanitized, rerun};
use crate::model::Lesson;
use std::path::Path;

/// What racecheck found in one variant.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RacecheckReport {
    /// The hazards its summary counts ("RACECHECK SUMMARY: 2 hazards displayed ..."); None
    /// when the log has no summary.
    pub hazards: Option<u64>,
    /// Each race it reported, in its words ("Race reported between Write access ...").
    pub races: Vec<String>,
    /// The lines of the variant's source its reports name, in order, each once.
    pub lines: Vec<u32>,
    /// How the rerun ended for the variant, in words, if it was lost.
    pub outcome: Option<String>,
    /// The whole log.
    pub log: String,
}

/// Rerun `variant` of `lesson` on GPU `device` under racecheck: the sanitizer at
/// `sanitizer` starts `worker` (the gpulab binary) as the worker.
pub fn racecheck(
    lesson: &Lesson,
    variant: &str,
    sanitizer: &Path,
    worker: &Path,
    device: u32,
) -> Result<RacecheckReport, MemcheckError> {
    let how = Sanitized {
        sanitizer,
        tool: "racecheck",
        worker,
        device,
    };
    let (v, log, outcome) = rerun(lesson, variant, &how)?;
    let mut report = parse_racecheck(&log, &v.source_path);
    report.outcome = outcome;
    Ok(report)
}

/// The summary, the race reports and the lines of `source_path` a racecheck log names. A
/// report reads "Error: Race reported between Write access at stencil+0x90 in
/// kernels/stencil/stencil.cu:36:stencil" with "and Read access at ... stencil.cu:46:...".
pub fn parse_racecheck(log: &str, source_path: &str) -> RacecheckReport {
    let mut report = RacecheckReport {
        log: log.to_string(),
        ..Default::default()
    };
    let file = source_path.rsplit('/').next().unwrap_or(source_path);
    for raw in log.lines() {
        let l = raw.trim_start_matches('=').trim();
        if let Some(rest) = l.strip_prefix("RACECHECK SUMMARY:") {
            report.hazards = rest.split_whitespace().next().and_then(|n| n.parse().ok());
        }
        let lower = l.to_ascii_lowercase();
        if lower.contains("race reported") || lower.contains("hazard detected") {
            report.races.push(l.to_string());
        }
        for (at, _) in l.match_indices(&format!("{file}:")) {
            let digits: String = l[at + file.len() + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse::<u32>()
                && !report.lines.contains(&n)
            {
                report.lines.push(n);
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    const RACY: &str = "========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at stencil+0x1a0 in /lab/kernels/stencil/stencil.cu:36:stencil
=========     and Read access at stencil+0x2b0 in /lab/kernels/stencil/stencil.cu:46:stencil [448 hazards]
=========
========= Error: Race reported between Write access at stencil+0x210 in /lab/kernels/stencil/stencil.cu:39:stencil
=========     and Read access at stencil+0x2b0 in /lab/kernels/stencil/stencil.cu:46:stencil [32 hazards]
=========
========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)
";

    #[test]
    fn races_their_count_and_both_lines_are_read() {
        let r = parse_racecheck(RACY, "kernels/stencil/stencil.cu");
        assert_eq!(r.hazards, Some(2));
        assert_eq!(r.races.len(), 2);
        assert!(r.races[0].starts_with("Error: Race reported between Write access"));
        assert_eq!(r.lines, [36, 46, 39]);
        let clean = "========= COMPUTE-SANITIZER\n\
                     ========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";
        let r = parse_racecheck(clean, "kernels/stencil/stencil.cu");
        assert_eq!((r.hazards, r.races.len(), r.lines.len()), (Some(0), 0, 0));
        assert_eq!(parse_racecheck("", "x.cu").hazards, None);
    }
}
