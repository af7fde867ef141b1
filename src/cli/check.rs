//! `gpulab check`: validate lessons, and compile their kernels when the worker has NVRTC.

use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::protocol::{FALLBACK_ARCH, PIP_HINT};
use crate::model::results::Source;
use crate::session::client::WorkerClient;
use crate::session::fold;
use anyhow::Result;
use std::path::PathBuf;

pub fn cmd_check(root: &CourseRoot, paths: &[PathBuf]) -> Result<i32> {
    let (lessons, errors) = if paths.is_empty() {
        crate::course::load_course(root)
    } else {
        crate::course::load::check_paths(paths)
    };
    for e in &errors {
        println!("{e}");
    }
    let compile_errors = if lessons.is_empty() {
        0
    } else {
        compile_all(&lessons)?
    };
    let problems = errors.len() + compile_errors;
    if problems == 0 {
        println!("{} lesson(s) OK", lessons.len());
        Ok(0)
    } else {
        println!("{problems} problem(s)");
        Ok(1)
    }
}

/// Compile every variant in the worker, printing each failure; how many failed. Without
/// NVRTC nothing is compiled, and the learner is told how to get it.
fn compile_all(lessons: &[Lesson]) -> Result<usize> {
    let mut client = WorkerClient::new();
    if client.toolkit()?.nvrtc.is_err() {
        println!("NVRTC not found: kernels not compiled ({PIP_HINT})");
        return Ok(0);
    }
    let mut failed = 0;
    for l in lessons {
        let mut result = fold::blank_result(l, Source::Live, None);
        fold::compile_lesson(&mut client, l, FALLBACK_ARCH, &mut result, |_| {})?;
        for v in &result.variants {
            if let Some(e) = &v.error {
                failed += 1;
                println!("{} (variant {}):\n{e}", l.file, v.name);
            }
        }
    }
    println!("compiled every variant with NVRTC for {FALLBACK_ARCH}");
    Ok(failed)
}
