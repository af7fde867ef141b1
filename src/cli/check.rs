//! `gpulab check`: validate lessons, and compile their kernels when NVRTC is here.

use crate::course::bundle::CourseRoot;
use crate::model::protocol::FALLBACK_ARCH;
use crate::model::results::Source;
use crate::session::client::WorkerClient;
use crate::session::fold;
use anyhow::{Context, Result};
use std::path::PathBuf;

pub fn cmd_check(root: &CourseRoot, paths: &[PathBuf]) -> Result<i32> {
    let (lessons, errors) = if paths.is_empty() {
        crate::course::load_course(root)
    } else {
        let mut all = Vec::new();
        let mut errs = Vec::new();
        for p in paths {
            let files: Vec<PathBuf> = if p.is_dir() {
                let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                    .with_context(|| format!("reading {}", p.display()))?
                    .flatten()
                    .map(|e| e.path())
                    .filter(|f| f.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                    .collect();
                v.sort();
                v
            } else {
                vec![p.clone()]
            };
            for f in files {
                let text = std::fs::read_to_string(&f)
                    .with_context(|| format!("reading {}", f.display()))?;
                let dir = f
                    .parent()
                    .map(|d| d.to_path_buf())
                    .unwrap_or_else(|| PathBuf::from("."));
                match crate::course::load_file(
                    &CourseRoot::Dir(dir),
                    &f.display().to_string(),
                    &text,
                ) {
                    Ok(l) => all.push(l),
                    Err(e) => errs.extend(e),
                }
            }
        }
        (all, errs)
    };
    for e in &errors {
        println!("{e}");
    }
    let mut compile_errors = 0;
    if crate::cuda::discover::ensure_nvrtc().is_ok() && !lessons.is_empty() {
        let mut client = WorkerClient::new();
        for l in &lessons {
            let mut result = fold::blank_result(l, Source::Live, None);
            fold::compile_lesson(&mut client, l, FALLBACK_ARCH, &mut result, |_| {})?;
            for v in &result.variants {
                if let Some(e) = &v.error {
                    compile_errors += 1;
                    println!("{} (variant {}):\n{e}", l.file, v.name);
                }
            }
        }
        println!("compiled every variant with NVRTC for {FALLBACK_ARCH}");
    } else if !lessons.is_empty() {
        println!(
            "NVRTC not found: kernels not compiled ({})",
            crate::cuda::discover::PIP_HINT
        );
    }
    let problems = errors.len() + compile_errors;
    if problems == 0 {
        println!("{} lesson(s) OK", lessons.len());
        Ok(0)
    } else {
        println!("{problems} problem(s)");
        Ok(1)
    }
}
