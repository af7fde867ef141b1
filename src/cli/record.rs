//! `gpulab record`: run every lesson live and write a recording.

use super::load_whole_course;
use super::say::say_err;
use crate::analysis::claim_words::{detail_words, words};
use crate::analysis::margin::margin_words;
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::protocol::{JobKind, Reply, RunOptions};
use crate::model::results::{ClaimResult, LessonResult, Margin, Source};
use crate::session::client::{WorkerClient, WorkerFailure};
use crate::session::queue_news::QueueNews;
use crate::session::recording::{self, Recording};
use crate::session::{fold, knobs};
use anyhow::{Context, Result, bail};
use std::path::PathBuf;

/// `only`: the ids of the lessons to record, which replace their entries in the recording
/// already at the output path (every lesson when empty, and a new recording).
pub fn cmd_record(
    root: &CourseRoot,
    device: u32,
    out: Option<PathBuf>,
    only: &[String],
) -> Result<i32> {
    let mut lessons = load_whole_course(root)?;
    if let Some(unknown) = only.iter().find(|id| !lessons.iter().any(|l| &l.id == *id)) {
        let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
        bail!(
            "no lesson `{unknown}` to record (the course has: {})",
            ids.join(", ")
        );
    }
    if !only.is_empty() {
        lessons.retain(|l| only.contains(&l.id));
    }
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
        // Sized for this GPU where the lesson takes sizes from it; the recording keeps the
        // device's figures, so a replay reads the lesson at the same sizes.
        let sized = crate::session::source::device_sized(root, l, &dev)?;
        let l = sized.as_ref().unwrap_or(l);
        say_err!("· {} ({} variants)", l.id, l.variants.len());
        let mut result = fold::blank_result(l, Source::Live, Some(dev.clone()));
        let options = RunOptions {
            job: JobKind::Recording,
            ..RunOptions::default()
        };
        let res = fold::run_lesson(&mut client, l, &options, &mut result, progress());
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
            let (claim, detail) = (words(&c.claim), detail_words(&c.detail));
            match &c.margin {
                Some(m) => say_err!("  {mark} {claim}  {detail}  [{}]", margin_words(m)),
                None => say_err!("  {mark} {claim}  {detail}"),
            }
        }
        results.push(result);
    }
    say_margins(&results);
    let path = out.unwrap_or_else(|| recording::default_path(&root.recordings_dir(), &dev));
    if !only.is_empty() {
        results = with_the_rest(&path, &dev, results, &mut peak)?;
    }
    let rec = Recording::new(dev.clone(), peak, results);
    rec.write(&path)
        .with_context(|| format!("writing {}", path.display()))?;
    say_err!("wrote {} ({})", path.display(), rec.label());
    Ok(if failed > 0 { 1 } else { 0 })
}

/// The lessons just recorded, with every other lesson of the recording at `path` as it
/// was, in its order (new ones last). That recording must be of the same GPU: figures of
/// two devices in one file would be replayed as one machine's. Its copy peak stays where
/// this run measured none.
fn with_the_rest(
    path: &std::path::Path,
    dev: &crate::model::results::DeviceInfo,
    mut fresh: Vec<LessonResult>,
    peak: &mut crate::model::results::Peak,
) -> Result<Vec<LessonResult>> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "--lesson updates a recording, and {} cannot be read",
            path.display()
        )
    })?;
    let old = Recording::parse(&text).with_context(|| format!("reading {}", path.display()))?;
    if old.device.name != dev.name {
        bail!(
            "{} was recorded on {}, this GPU is {}: record every lesson here instead",
            path.display(),
            old.device.name,
            dev.name
        );
    }
    if peak.copy_gbps.is_none() {
        *peak = old.peak.clone();
    }
    let mut merged = Vec::new();
    for l in old.lessons {
        match fresh.iter().position(|f| f.lesson == l.lesson) {
            Some(i) => merged.push(fresh.remove(i)),
            None => merged.push(l),
        }
    }
    merged.extend(fresh);
    Ok(merged)
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
    let res = knobs::run_all(client, l, result, progress());
    if let Err(e) = &res {
        say_err!("  knob error: {e}");
    }
    res
}

/// What a recording says as it goes: each stage, each variant lost, the queue for the GPU.
fn progress() -> impl FnMut(&Reply) {
    let mut news = QueueNews::default();
    move |r| match r {
        Reply::Stage { variant, stage } => say_err!("  {variant} {stage}"),
        Reply::Lost { variant, error, .. } => say_err!("  {variant} lost: {error}"),
        _ => {
            if let Some((variant, words)) = news.words(r) {
                say_err!("  {variant} {words}");
            }
        }
    }
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

/// The timing claims of the whole recording, thinnest margin first: a claim that held by
/// less than its noise will fail on some learner's run, so the course restates it.
fn say_margins(results: &[LessonResult]) {
    let mut timed: Vec<(&str, &ClaimResult, Margin)> = results
        .iter()
        .flat_map(|r| r.expect.iter().map(move |c| (r.lesson.as_str(), c)))
        .filter_map(|(l, c)| c.margin.map(|m| (l, c, m)))
        .collect();
    if timed.is_empty() {
        return;
    }
    timed.sort_by(|x, y| {
        let slack = |m: &Margin| m.headroom_pct - m.noise_pct;
        slack(&x.2).total_cmp(&slack(&y.2))
    });
    let thin = timed.iter().filter(|t| !t.2.clear_of_noise()).count();
    say_err!(
        "timing claims: {} judged, {thin} within their noise; the thinnest:",
        timed.len()
    );
    for (lesson, c, m) in timed.iter().take(5) {
        say_err!("  {lesson}: {}  [{}]", c.claim, margin_words(m));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;
    use crate::model::results::{DeviceInfo, Peak};

    /// A lesson's result told apart from another's of the same id by `tag`.
    fn result(id: &str, dev: &DeviceInfo, tag: f64) -> LessonResult {
        let mut r = fold::blank_result(&LessonBuilder::new(id).build(), Source::Live, None);
        r.device = Some(dev.clone());
        r.peak.copy_gbps = Some(tag);
        r
    }

    #[test]
    fn a_lesson_recorded_alone_replaces_its_entry_and_keeps_the_others() {
        let h100 = DeviceInfo {
            name: "H100".into(),
            ..Default::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.json");
        let old_peak = Peak {
            copy_gbps: Some(3000.0),
            ..Default::default()
        };
        let old = vec![result("a", &h100, 1.0), result("b", &h100, 2.0)];
        Recording::new(h100.clone(), old_peak.clone(), old)
            .write(&path)
            .unwrap();
        let fresh = vec![result("b", &h100, 3.0), result("c", &h100, 4.0)];
        let mut peak = Peak::default();
        let merged = with_the_rest(&path, &h100, fresh, &mut peak).unwrap();
        let seen: Vec<(&str, f64)> = (merged.iter())
            .map(|r| (r.lesson.as_str(), r.peak.copy_gbps.unwrap()))
            .collect();
        assert_eq!(seen, [("a", 1.0), ("b", 3.0), ("c", 4.0)]);
        assert_eq!(peak, old_peak, "no peak measured: the recording's stays");

        let other = DeviceInfo {
            name: "A100".into(),
            ..Default::default()
        };
        let err = with_the_rest(&path, &other, vec![], &mut Peak::default()).unwrap_err();
        assert!(err.to_string().contains("was recorded on H100"), "{err}");
        let missing = dir.path().join("none.json");
        let err = with_the_rest(&missing, &h100, vec![], &mut Peak::default()).unwrap_err();
        assert!(err.to_string().contains("cannot be read"), "{err}");
    }
}
