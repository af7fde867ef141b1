//! `gpulab run`: one lesson, live or from the recording, as a table or JSON.

use super::say::{say, say_err, say_part};
use super::{Format, RunArgs, find_lesson, open_course};
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::protocol::RunOptions;
use crate::model::results::{LessonResult, VariantResult};
use crate::session::client::WorkerClient;
use crate::session::recording;
use crate::session::source::{self, Ask};
use anyhow::{Result, bail};

pub fn cmd_run(root: &CourseRoot, device: u32, a: &RunArgs) -> Result<i32> {
    if a.memcheck {
        return super::memcheck::cmd_memcheck(root, device, a);
    }
    let format = match (a.format, a.json) {
        (Some(f), _) => f,
        (None, true) => Format::Json,
        (None, false) => Format::Text,
    };
    if format == Format::NcuCsv && a.no_trace {
        bail!("--format ncu-csv writes the traced counters: leave out --no-trace");
    }
    let course = open_course(root)?;
    let lesson = find_lesson(&course, &a.lesson)?;
    let resized = super::run_knobs::at_sizes(root, lesson, &a.sizes, a.cpu)?;
    let lesson = resized.as_ref().unwrap_or(lesson);
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
        cold_l2: a.cold_l2,
        trace_blocks: a.trace_blocks.unwrap_or(0),
        sample_seed: a.trace_seed.unwrap_or(0),
        ..RunOptions::default()
    };
    let ask = if a.cpu {
        super::needs_nvrtc_for_cpu(&mut WorkerClient::new())?;
        Ask::Cpu
    } else {
        Ask::Figures
    };
    let rec = recording::newest(&root.recordings());
    let mut result = source::figures(
        (root, rec.as_ref()),
        lesson,
        (device, ask),
        &options,
        a.replay,
        |m| say_err!("· {m}"),
    )?;
    if a.knobs {
        super::run_knobs::run_knobs(root, (device, a), lesson, &mut result)?;
    }
    if !a.variants.is_empty() {
        only_variants(lesson, &mut result, &a.variants);
    }
    match format {
        Format::Json => say!("{}", serde_json::to_string_pretty(&result)?),
        Format::Text if a.knobs => say_part!("{}", super::report::text_report(lesson, &result)),
        Format::Text => {
            // The table shows knob settings only where this run was asked for them.
            let mut shown = result.clone();
            shown.knobs.clear();
            say_part!("{}", super::report::text_report(lesson, &shown));
        }
        Format::NcuCsv => say_part!("{}", super::ncu_csv::ncu_csv(Some(lesson), &result)),
    }
    // Knob settings run here (`--knobs`) fail the run as its variants do.
    let knob_failed = a.knobs && result.knobs.iter().any(failed_one);
    Ok(if failed(&result) || knob_failed { 1 } else { 0 })
}

/// A wrong output (unless a race the trace found explains it), and also an error with no
/// check at all (a compile error), fails the run.
pub(super) fn failed(result: &LessonResult) -> bool {
    result.variants.iter().any(failed_one)
}

fn failed_one(v: &VariantResult) -> bool {
    crate::analysis::describe::wrong_without_race(v) || (v.correct.is_none() && v.error.is_some())
}

/// Keep the chosen variants and the claims about them: a claim is about its subject, the
/// variant it names first, so a comparison with another variant stays with its subject.
fn only_variants(lesson: &Lesson, result: &mut LessonResult, names: &[String]) {
    result.variants.retain(|v| names.contains(&v.name));
    // `expect` is the lesson's claims in the lesson's order, one result each.
    let about: Vec<bool> = lesson
        .expect
        .iter()
        .map(|c| names.iter().any(|n| n == c.subject()))
        .collect();
    let mut keep = about.into_iter();
    result.expect.retain(|_| keep.next().unwrap_or(false));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;
    use crate::model::results::Source;
    use crate::session::fold::blank_result;

    #[test]
    fn a_compile_error_fails_the_run() {
        let l = LessonBuilder::new("x").variant("a").variant("b").build();
        let mut r = blank_result(&l, Source::Live, None);
        r.variants[0].correct = Some(true);
        assert!(!failed(&r), "a variant not run is no failure");
        r.variants[1].error = Some("k.cu(1): error: expected a \";\"".into());
        assert!(failed(&r), "a compile error is a failure");
    }
}
