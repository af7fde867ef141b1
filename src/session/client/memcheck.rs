//! Rerun one variant under compute-sanitizer's memcheck, to find the source line of a
//! fault: the worker itself runs under the sanitizer, on a few blocks (the first bad
//! access is what matters, and the sanitizer is many times slower), with a long timeout.
//! Kernels are compiled with -lineinfo, so the sanitizer names file and line.

use super::{WorkerClient, WorkerFailure};
use crate::model::Lesson;
use crate::model::protocol::{JobKind, Reply, Request, RunOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Blocks the variant is launched on under the sanitizer.
pub const MEMCHECK_BLOCKS: u32 = 4;

/// How long the sanitized worker may take to exit and write its log.
const MEMCHECK_GRACE: Duration = Duration::from_secs(60);

/// No word for this long under the sanitizer means it is stuck too.
const MEMCHECK_STALL: Duration = Duration::from_secs(600);

/// What memcheck found in one variant.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemcheckReport {
    /// Each error it reported, in its words ("Invalid __global__ write of size 4 bytes").
    pub errors: Vec<String>,
    /// The source lines its backtraces name, first seen first, with the line's text when it
    /// is the variant's own source.
    pub lines: Vec<SourceLine>,
    /// How the rerun ended for the variant, in words ("faulted: ..."), if it failed.
    pub outcome: Option<String>,
    /// The sanitizer's whole log, for when the parsing above missed something.
    pub log: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
    pub text: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum MemcheckError {
    #[error("lesson {lesson} has no variant `{variant}`")]
    NoVariant { lesson: String, variant: String },
    #[error("compute-sanitizer could not rerun the variant: {0}")]
    Worker(#[from] WorkerFailure),
    #[error("compute-sanitizer wrote no log at {path}: {source}")]
    Log {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Rerun `variant` of `lesson` on GPU `device` under the compute-sanitizer at `sanitizer`
/// (the worker's `Tools` reply says where it is), and say what it found.
pub fn memcheck(
    lesson: &Lesson,
    variant: &str,
    sanitizer: &Path,
    device: u32,
) -> Result<MemcheckReport, MemcheckError> {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("gpulab"));
    let tool = Sanitized {
        sanitizer,
        tool: "memcheck",
        worker: &exe,
        device,
    };
    let (v, log, outcome) = rerun(lesson, variant, &tool)?;
    let mut report = parse_log(&log, &v.source_path, &v.source);
    report.outcome = outcome;
    Ok(report)
}

/// Which sanitizer tool runs which worker program, on which GPU.
pub(super) struct Sanitized<'a> {
    pub(super) sanitizer: &'a Path,
    /// `memcheck` or `racecheck`.
    pub(super) tool: &'a str,
    /// The gpulab binary the sanitizer starts as the worker.
    pub(super) worker: &'a Path,
    pub(super) device: u32,
}

/// Run `variant` once, untimed and untraced, on a few blocks, in a worker under the
/// sanitizer's tool; its log, and how the run ended for the variant if it was lost.
pub(super) fn rerun<'l>(
    lesson: &'l Lesson,
    variant: &str,
    how: &Sanitized<'_>,
) -> Result<(&'l crate::model::Variant, String, Option<String>), MemcheckError> {
    let Some(v) = lesson.variant(variant) else {
        return Err(MemcheckError::NoVariant {
            lesson: lesson.id.clone(),
            variant: variant.into(),
        });
    };
    let log_path = std::env::temp_dir().join(format!(
        "gpulab-{}-{}-{variant}.log",
        how.tool,
        std::process::id()
    ));
    let mut client = sanitized_worker(how, &log_path);
    let req = Request::Run {
        lesson: Box::new(lesson.clone()),
        options: RunOptions {
            variants: vec![variant.into()],
            time: false,
            trace: false,
            max_blocks: MEMCHECK_BLOCKS,
            job: JobKind::Memcheck,
            ..RunOptions::default()
        },
    };
    // Only a loss counts: on a few blocks the output is incomplete, so "wrong output"
    // says nothing here.
    let mut outcome = None;
    let res = client.request(&req, MEMCHECK_STALL, |r| {
        if let Reply::Lost {
            variant: v, error, ..
        } = r
            && v == variant
        {
            outcome = Some(error.clone());
        }
    });
    if let Err(e) = res
        && outcome.is_none()
    {
        return Err(e.into());
    }
    // Closed, not killed: the sanitizer writes its log, summary and all, when the worker
    // leaves on its own; a run that ended cleanly would otherwise lose it.
    let _ = client.kill();
    let log = std::fs::read_to_string(&log_path).map_err(|source| MemcheckError::Log {
        path: log_path.clone(),
        source,
    })?;
    let _ = std::fs::remove_file(&log_path);
    Ok((v, log, outcome))
}

/// A worker that runs under the sanitizer's tool, which logs to `log`.
fn sanitized_worker(how: &Sanitized<'_>, log: &Path) -> WorkerClient {
    let args = [
        "--tool".to_string(),
        how.tool.to_string(),
        "--log-file".to_string(),
        log.display().to_string(),
        "--print-limit".to_string(),
        "20".to_string(),
        how.worker.display().to_string(),
        "worker".to_string(),
    ];
    // The sanitizer writes its log when the worker exits, so a faulted worker is let go
    // gently rather than killed.
    WorkerClient::with_command(how.sanitizer.into(), args.into())
        .on_device(how.device)
        .grace(MEMCHECK_GRACE)
        .without_memcheck_offer()
}

/// The errors and source lines in a memcheck log. A backtrace line reads
/// "=========     at copy(const float *, float *, int)+0x70 in kernels/c/c.cu:18".
pub fn parse_log(log: &str, source_path: &str, source: &str) -> MemcheckReport {
    let mut report = MemcheckReport {
        log: log.to_string(),
        ..Default::default()
    };
    for raw in log.lines() {
        let l = raw.trim_start_matches('=').trim();
        let said = [
            "Invalid ",
            "Program hit ",
            "Barrier error",
            "Malloc/Free error",
        ];
        if said.iter().any(|w| l.starts_with(w)) {
            if !report.errors.iter().any(|e| e == l) {
                report.errors.push(l.to_string());
            }
            continue;
        }
        let Some((file, line)) = l
            .strip_prefix("at ")
            .and_then(|rest| rest.rsplit_once(" in "))
            .and_then(|(_, at)| at.rsplit_once(':'))
            .and_then(|(f, n)| Some((f.to_string(), n.trim().parse::<u32>().ok()?)))
        else {
            continue;
        };
        let ours = file.ends_with(source_path) || source_path.ends_with(&file);
        let text = ours
            .then(|| source.lines().nth(line.saturating_sub(1) as usize))
            .flatten()
            .map(|t| t.trim().to_string());
        let found = SourceLine { file, line, text };
        if !report.lines.contains(&found) {
            report.lines.push(found);
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at copy(const float *, float *, int)+0x70 in kernels/corpus/corpus.cu:18
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0000000000 is out of bounds
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: cuLaunchKernel in libcuda.so.1 [0x2ff6f7]
=========
========= Invalid __global__ write of size 4 bytes
=========     at copy(const float *, float *, int)+0x70 in kernels/corpus/corpus.cu:18
========= ERROR SUMMARY: 2 errors
";

    #[test]
    fn the_faulting_source_line_is_named_with_its_text() {
        let source = (1..=20)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let r = parse_log(LOG, "kernels/corpus/corpus.cu", &source);
        assert_eq!(r.errors, vec!["Invalid __global__ write of size 4 bytes"]);
        assert_eq!(
            r.lines,
            vec![SourceLine {
                file: "kernels/corpus/corpus.cu".into(),
                line: 18,
                text: Some("line 18".into()),
            }]
        );
    }
}
