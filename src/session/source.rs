//! Where a lesson's figures come from on this machine: live when there is a GPU; otherwise
//! the recording, with compile reports made live when NVRTC is here. The CLI and the UI both
//! decide it here, so `gpulab run` and the lab never disagree about what they show.

use super::client::{WorkerClient, WorkerFailure};
use super::fold::{self, Capabilities};
use super::recording::Recording;
use crate::model::Lesson;
use crate::model::protocol::{FALLBACK_ARCH, Reply, RunOptions};
use crate::model::results::{DeviceInfo, LessonResult, Source};

/// What to do for a lesson once the worker has said what this machine has.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// A GPU is here: measure live on it.
    Live(DeviceInfo),
    /// No GPU but NVRTC: the recording's timings beside compile reports made now for `arch`.
    CompileHere { arch: String },
    /// Neither: the recording alone.
    Recorded,
}

/// The recorded figures of `lesson`, claims judged; blank and marked `Source::None` when
/// the recording lacks it, so nothing claims to be recorded that was not.
pub fn recorded(rec: Option<&Recording>, lesson: &Lesson) -> LessonResult {
    let mut r = rec
        .and_then(|r| r.replay(lesson))
        .unwrap_or_else(|| fold::blank_result(lesson, Source::None, None));
    fold::evaluate_claims(lesson, &mut r);
    r
}

/// The plan for a lesson whose figures are `shown` until then: a live compile targets the
/// GPU the recording was made on, so its reports sit beside timings of the same code.
/// A GPU that lacks what the lesson requires counts as none for it: the recording is shown.
pub fn plan(caps: &Capabilities, lesson: &Lesson, shown: &LessonResult) -> Plan {
    if let Some(d) = &caps.device
        && fold::unmet(lesson, caps).is_none()
    {
        return Plan::Live(d.clone());
    }
    if caps.nvrtc.is_none() {
        return Plan::Recorded;
    }
    let arch = shown
        .device
        .as_ref()
        .map(|d| d.arch())
        .unwrap_or_else(|| FALLBACK_ARCH.into());
    Plan::CompileHere { arch }
}

/// A blank live result on `device`, filled in as the run's replies come.
pub fn live(lesson: &Lesson, device: DeviceInfo) -> LessonResult {
    fold::blank_result(lesson, Source::Live, Some(device))
}

/// The figures `gpulab run` and `gpulab render` show, saying what happens through `say`. A
/// failed run or compile still gives its result, the failure marked on its variant; only a
/// worker that cannot say what this machine has is an error.
pub fn figures(
    rec: Option<&Recording>,
    lesson: &Lesson,
    device: u32,
    options: &RunOptions,
    replay: bool,
    mut say: impl FnMut(&str),
) -> Result<LessonResult, WorkerFailure> {
    let shown = recorded(rec, lesson);
    if replay {
        return Ok(shown);
    }
    let mut client = WorkerClient::new();
    if options.cpu.is_some() {
        return Ok(interpreted(&mut client, lesson, options, &mut say));
    }
    let caps = fold::hello(&mut client, device)?;
    let (result, outcome) = match plan(&caps, lesson, &shown) {
        Plan::Live(dev) => {
            let mut result = live(lesson, dev);
            let out = fold::run_lesson(&mut client, lesson, options, &mut result, tell(&mut say));
            (result, out)
        }
        plan => {
            say_recorded(rec, &caps, lesson, &mut say);
            let mut result = shown;
            let mut out = Ok(());
            if let Plan::CompileHere { arch } = plan {
                say(&format!(
                    "compiling with NVRTC for {arch} (live compile reports; `--cpu` runs the \
                     kernels on the CPU interpreter instead)"
                ));
                out = fold::compile_lesson(&mut client, lesson, &arch, &mut result, |_| {});
            }
            (result, out)
        }
    };
    // What was measured stands; the failure is already marked on its variant.
    if let Err(f) = outcome {
        say(&format!("error: {f}"));
    }
    Ok(result)
}

/// A run on the CPU interpreter (no GPU needed): checked outputs and traced figures, no
/// times; a worker failure is marked on its variant.
pub fn interpreted(
    client: &mut WorkerClient,
    lesson: &Lesson,
    options: &RunOptions,
    say: &mut impl FnMut(&str),
) -> LessonResult {
    say("running on the CPU interpreter: outputs and memory traces, no times");
    let mut result = fold::blank_result(lesson, Source::Interpreted, None);
    if let Err(f) = fold::run_lesson(client, lesson, options, &mut result, tell(say)) {
        say(&format!("error: {f}"));
    }
    result
}

fn say_recorded(
    rec: Option<&Recording>,
    caps: &Capabilities,
    lesson: &Lesson,
    say: &mut impl FnMut(&str),
) {
    let why = match fold::unmet(lesson, caps) {
        Some(unmet) => format!("no live run: this lesson {unmet}"),
        None => format!("no GPU here ({})", caps.no_gpu.clone().unwrap_or_default()),
    };
    match rec {
        Some(r) => say(&format!("{why}: figures {}", r.label())),
        None => say(&format!("{why}, and no recording")),
    }
}

/// A live run's progress in a few words: each stage, and every tenth timing sample.
fn tell(say: &mut impl FnMut(&str)) -> impl FnMut(&Reply) + '_ {
    let mut count = 0usize;
    move |r| match r {
        Reply::Stage { variant, stage } => {
            count = 0;
            say(&format!("{variant} {stage}"));
        }
        Reply::Sample { variant, .. } => {
            count += 1;
            if count.is_multiple_of(10) {
                say(&format!("{variant} timing: {count} runs"));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;

    fn caps(cc: &str) -> Capabilities {
        Capabilities {
            device: Some(DeviceInfo {
                name: "Test GPU".into(),
                cc: cc.into(),
                ..Default::default()
            }),
            no_gpu: None,
            nvrtc: Some("13.0".into()),
        }
    }

    #[test]
    fn a_gpu_without_the_required_capability_shows_the_recording() {
        let mut lesson = LessonBuilder::new("clusters").variant("a").build();
        lesson.requires.cc = Some((9, 0));
        let shown = recorded(None, &lesson);
        assert!(matches!(plan(&caps("9.0"), &lesson, &shown), Plan::Live(_)));
        assert!(matches!(
            plan(&caps("8.6"), &lesson, &shown),
            Plan::CompileHere { .. }
        ));
        let mut said = Vec::new();
        say_recorded(None, &caps("8.6"), &lesson, &mut |s: &str| {
            said.push(s.to_string())
        });
        assert!(
            said[0].contains("this lesson needs compute capability 9.0"),
            "{said:?}"
        );
    }
}
