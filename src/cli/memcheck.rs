//! `gpulab run LESSON --variant V --memcheck`: rerun one variant under compute-sanitizer
//! and show the source lines it names.

use super::say::{say, say_err};
use super::{RunArgs, find_lesson, open_course};
use crate::course::bundle::CourseRoot;
use crate::session::client::{self, MEMCHECK_BLOCKS, WorkerClient};
use anyhow::{Result, bail};

pub fn cmd_memcheck(root: &CourseRoot, device: u32, a: &RunArgs) -> Result<i32> {
    let course = open_course(root)?;
    let lesson = find_lesson(&course, &a.lesson)?;
    let [variant] = a.variants.as_slice() else {
        bail!("--memcheck reruns one variant: name it with one --variant");
    };
    let Some(sanitizer) = WorkerClient::new().toolkit()?.compute_sanitizer else {
        bail!("compute-sanitizer not found: it comes with the CUDA toolkit (see `gpulab doctor`)");
    };
    say_err!("· rerunning {variant} under compute-sanitizer on {MEMCHECK_BLOCKS} blocks (slow)");
    let report = client::memcheck(lesson, variant, &sanitizer, device)?;
    if let Some(o) = &report.outcome {
        say!("{variant}: {o}\n");
    }
    if report.errors.is_empty() && report.lines.is_empty() {
        say!("memcheck found no bad access in {variant} on {MEMCHECK_BLOCKS} blocks");
        if report.outcome.is_none() {
            return Ok(0);
        }
        // The variant failed but nothing in the log was recognised: show the log itself
        // rather than hide what the sanitizer said.
        let tail: Vec<&str> = report.log.lines().rev().take(30).collect();
        say!("compute-sanitizer's log ends:");
        for l in tail.iter().rev() {
            say!("  {l}");
        }
        return Ok(1);
    }
    for e in &report.errors {
        say!("memcheck: {e}");
    }
    for l in &report.lines {
        match &l.text {
            Some(t) => say!("  at {}:{}\n  {:>5} | {t}", l.file, l.line, l.line),
            None => say!("  at {}:{}", l.file, l.line),
        }
    }
    Ok(1)
}
