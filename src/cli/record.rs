//! `gpulab record`: run every lesson live and write a recording.

use super::load_whole_course;
use super::say::say_err;
use crate::analysis::claim_words::{detail_words, words};
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{LessonResult, Source};
use crate::session::client::{WorkerClient, WorkerFailure};
use crate::session::recording::{self, Recording};
use crate::session::{fold, knobs};
use anyhow::{Context, Result, bail};
use std::path::PathBuf;

pub fn cmd_record(root: &CourseRoot, device: u32, out: Option<PathBuf>) -> Result<i32> {
    let lessons = load_whole_course(root)?;
    let mut client = WorkerClient::new().on_device(device);
    let caps = fold::hello(&mut client, device)?;
    let Some(dev) = caps.device.clone() else {
        bail!(
            "recording needs a GPU: {}",
            caps.no_gpu.unwrap_or_else(|| "none found".into())
        );
    };
    let mut results = Vec::new();
    let mut peak = Default::default();
    let mut failed = 0;
    for l in &lessons {
        say_err!("· {} ({} variants)", l.id, l.variants.len());
        let mut result = fold::blank_result(l, Source::Live, Some(dev.clone()));
        let res = fold::run_lesson(
            &mut client,
            l,
            &RunOptions::default(),
            &mut result,
            |r| match r {
                Reply::Stage { variant, stage } => say_err!("  {variant} {stage}"),
                Reply::Lost { variant, error, .. } => say_err!("  {variant} lost: {error}"),
                _ => {}
            },
        );
        if let Err(e) = &res {
            say_err!("  error: {e}");
        }
        let knobs = record_knobs(&mut client, l, &mut result, res.is_ok());
        // This machine cannot run it: a recording made where it could is kept for replay.
        if let Some(why) = unmet_everywhere(&result) {
            say_err!("  not recorded here: {why}");
            continue;
        }
        // A variant lost on the way fails the recording as much as a run that stopped.
        let wrong = |v| crate::analysis::describe::wrong_without_race(v);
        let all = result.variants.iter().chain(&result.knobs);
        if res.is_err() || knobs.is_err() || all.into_iter().any(wrong) {
            failed += 1;
        }
        if result.peak.copy_gbps.is_some() {
            peak = result.peak.clone();
        }
        for c in &result.expect {
            let mark = match c.holds {
                Some(true) => "✓",
                Some(false) => "✗",
                None => "?",
            };
            say_err!("  {mark} {}  {}", words(&c.claim), detail_words(&c.detail));
        }
        results.push(result);
    }
    let rec = Recording::new(dev.clone(), peak, results);
    let path = out.unwrap_or_else(|| recording::default_path(&root.recordings_dir(), &dev));
    rec.write(&path)
        .with_context(|| format!("writing {}", path.display()))?;
    say_err!("wrote {} ({})", path.display(), rec.label());
    Ok(if failed > 0 { 1 } else { 0 })
}

/// Every value of every knob of `l`, once its own variants ran (a lesson that stopped has
/// nothing to turn).
fn record_knobs(
    client: &mut WorkerClient,
    l: &Lesson,
    result: &mut LessonResult,
    ran: bool,
) -> Result<(), WorkerFailure> {
    if l.knobs.is_empty() || !ran || unmet_everywhere(result).is_some() {
        return Ok(());
    }
    let values: usize = l.knobs.iter().map(|k| k.settings.len()).sum();
    say_err!("  knobs: {values} settings");
    let res = knobs::run_all(client, l, result, |r| match r {
        Reply::Stage { variant, stage } => say_err!("  {variant} {stage}"),
        Reply::Lost { variant, error, .. } => say_err!("  {variant} lost: {error}"),
        _ => {}
    });
    if let Err(e) = &res {
        say_err!("  knob error: {e}");
    }
    res
}

/// Why no variant of the lesson ran here, when none did for want of a capability.
fn unmet_everywhere(result: &LessonResult) -> Option<String> {
    let first = result.variants.first()?.unmet.clone()?;
    result
        .variants
        .iter()
        .all(|v| v.unmet.is_some())
        .then_some(first)
}
