//! `gpulab run`: one lesson, live or from the recording, as a table or JSON.

use super::{RunArgs, find_lesson, load_course};
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{LessonResult, Source};
use crate::session::client::WorkerClient;
use crate::session::fold::{self, Capabilities};
use crate::session::recording;
use anyhow::{Result, bail};

/// Live figures when there is a GPU; otherwise the recording, with compile reports made
/// live when NVRTC is here.
pub fn result_for(
    root: &CourseRoot,
    lesson: &Lesson,
    device: u32,
    options: &RunOptions,
    replay: bool,
    mut progress: impl FnMut(&str),
) -> Result<LessonResult> {
    let rec = recording::newest(&root.recordings());
    let replayed = || {
        rec.as_ref()
            .and_then(|r| r.replay(lesson))
            .unwrap_or_else(|| fold::blank_result(lesson, Source::Recorded, None))
    };
    if replay {
        let mut r = replayed();
        fold::evaluate_claims(lesson, &mut r);
        return Ok(r);
    }
    let mut client = WorkerClient::new();
    let caps: Capabilities = fold::hello(&mut client, device)?;
    if let Some(dev) = caps.device.clone() {
        let mut result = fold::blank_result(lesson, Source::Live, Some(dev));
        let mut count = 0usize;
        let out = fold::run_lesson(&mut client, lesson, options, &mut result, |r| match r {
            Reply::Stage { variant, stage } => {
                count = 0;
                progress(&format!("{variant} {stage}"));
            }
            Reply::Sample { variant, .. } => {
                count += 1;
                if count.is_multiple_of(10) {
                    progress(&format!("{variant} timing: {count} runs"));
                }
            }
            _ => {}
        });
        // What was measured stands; the failure is already marked on its variant.
        if let Err(f) = out {
            progress(&format!("error: {f}"));
        }
        return Ok(result);
    }
    let why = caps.no_gpu.clone().unwrap_or_default();
    let mut result = replayed();
    match &rec {
        Some(r) => progress(&format!("no GPU here ({why}): figures {}", r.label())),
        None => progress(&format!("no GPU here ({why}) and no recording")),
    }
    if caps.nvrtc.is_some() {
        let arch = result
            .device
            .as_ref()
            .map(|d| d.arch())
            .unwrap_or_else(|| crate::model::protocol::FALLBACK_ARCH.into());
        progress(&format!(
            "compiling with NVRTC for {arch} (live compile reports)"
        ));
        fold::compile_lesson(&mut client, lesson, &arch, &mut result, |_| {})?;
    }
    fold::evaluate_claims(lesson, &mut result);
    Ok(result)
}

pub fn cmd_run(root: &CourseRoot, device: u32, a: &RunArgs) -> Result<i32> {
    let lessons = load_course(root)?;
    let lesson = find_lesson(&lessons, &a.lesson)?;
    for v in &a.variants {
        if lesson.variant(v).is_none() {
            let names: Vec<&str> = lesson.variants.iter().map(|v| v.name.as_str()).collect();
            bail!(
                "lesson {} has no variant '{v}'; it has: {}",
                lesson.id,
                names.join(", ")
            );
        }
    }
    let options = RunOptions {
        variants: a.variants.clone(),
        trace: !a.no_trace,
        time: !a.no_time,
        ..RunOptions::default()
    };
    let mut result = result_for(root, lesson, device, &options, a.replay, |m| {
        eprintln!("· {m}")
    })?;
    if !a.variants.is_empty() {
        result.variants.retain(|v| a.variants.contains(&v.name));
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", super::report::text_report(lesson, &result));
    }
    let failed = result.variants.iter().any(|v| v.correct == Some(false));
    Ok(if failed { 1 } else { 0 })
}
