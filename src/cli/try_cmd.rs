//! `gpulab try FILE.cu...`: the learner's own kernels as one lesson made in memory from
//! their `// gpulab:` headers (`course::tried::lesson`), opened in the lab, or run once for a
//! script (`--json`, `--report`) through the same plan, worker and fold as `gpulab run`.

use super::TryArgs;
use super::args::Format;
use super::say::{say, say_err, say_part};
use crate::course::CourseError;
use crate::course::tried::lesson::{self as try_lesson, Tried};
use crate::model::protocol::{PIP_HINT, Reply, RunOptions};
use crate::model::results::{LessonResult, Source};
use crate::session::client::WorkerClient;
use crate::session::fold::{self, Capabilities};
use crate::session::source::{self, Ask, Plan, Subject};
use crate::session::try_run;
use anyhow::{Result, anyhow, bail};

pub fn cmd_try(device: u32, a: &TryArgs) -> Result<i32> {
    let format = match (a.format, a.json, a.report) {
        (Some(f), _, _) => f,
        (None, true, _) => Format::Json,
        (None, _, true) => Format::Text,
        (None, false, false) => {
            let tried = try_lesson::build(&a.spec()).map_err(problems)?;
            return super::try_lab::open(device, a, tried);
        }
    };
    if format == Format::NcuCsv && a.no_trace {
        bail!("--format ncu-csv writes the traced counters: it needs the trace (drop --no-trace)");
    }
    let tried = try_lesson::build(&a.spec()).map_err(problems)?;
    let result = run(device, &tried, a)?;
    match format {
        Format::Json => say!("{}", serde_json::to_string_pretty(&result)?),
        Format::Text => {
            say!("{}", tried.checked_words());
            say_part!("{}", super::report::text_report(&tried.lesson, &result));
        }
        Format::NcuCsv => say_part!("{}", super::ncu_csv::ncu_csv(Some(&tried.lesson), &result)),
    }
    Ok(if super::run::failed(&result) { 1 } else { 0 })
}

/// Every problem of the try, one a line, each at its `file:line:col`.
pub(super) fn problems(errs: Vec<CourseError>) -> anyhow::Error {
    let lines: Vec<String> = errs.iter().map(ToString::to_string).collect();
    anyhow!("{}", lines.join("\n"))
}

/// Run the try once, live on the GPU or on the CPU interpreter, saying how it goes on
/// stderr; its figures, a failed variant marked on itself.
fn run(device: u32, tried: &Tried, a: &TryArgs) -> Result<LessonResult> {
    let mut client = WorkerClient::new();
    let caps = if a.cpu {
        super::needs_nvrtc_for_cpu(&mut client)?;
        Capabilities::default()
    } else {
        fold::hello(&mut client, device)?
    };
    if caps.device.is_none() && !a.cpu && caps.nvrtc.is_none() {
        bail!(
            "{}, and no NVRTC for the CPU interpreter to run the kernel on: get it with: \
             {PIP_HINT}",
            caps.no_gpu_words()
        );
    }
    let lesson = &tried.lesson;
    let plan = source::plan(Ask::run(a.cpu), &caps, Subject::Try(lesson));
    let options = try_run::options(
        tried,
        RunOptions {
            trace: !a.no_trace,
            time: !a.no_time,
            ..RunOptions::default()
        },
    );
    // A try is always run, live or on the interpreter (it has no requirement a GPU could
    // lack); were it not, nothing recorded would stand for it.
    let mut result =
        (plan.blank(lesson)).unwrap_or_else(|| fold::blank_result(lesson, Source::None, None));
    let names: Vec<&str> = lesson.variants.iter().map(|v| v.name.as_str()).collect();
    let place = match &plan {
        Plan::Live(dev) => format!("live on {}", dev.name),
        _ => "on the CPU interpreter: outputs and memory traces, no times".into(),
    };
    say_err!(
        "· try {} {place}; {}",
        names.join(", "),
        tried.checked_words()
    );
    if let Some(req) = try_run::request(&plan, tried, &options) {
        let mut count = 0usize;
        let outcome = fold::request(&mut client, &req, lesson, &mut result, |r| match r {
            Reply::Stage { variant, stage } => {
                count = 0;
                say_err!("· {variant} {stage}");
            }
            Reply::Sample { variant, .. } => {
                count += 1;
                if count.is_multiple_of(10) {
                    say_err!("· {variant} timing: {count} runs");
                }
            }
            _ => {}
        });
        // What was measured stands; the failure is already marked on its variant.
        if let Err(f) = outcome {
            say_err!("· error: {f}");
        }
    }
    try_run::finish(tried, &mut result);
    Ok(result)
}
