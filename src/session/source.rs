//! Where a lesson's figures come from on this machine: live when there is a GPU; the CPU
//! interpreter when a run is asked for without one (or with `--cpu`); otherwise the
//! recording, with compile reports made live when NVRTC is here. The CLI, the lab, the
//! exercise checks and `gpulab try` all decide it in `plan`, start from the blank result
//! `Plan::blank` gives and send the request `Plan::request` builds, so `gpulab run`,
//! `gpulab ex check`, `gpulab try` and the lab never disagree about what they show.

use super::client::{WorkerClient, WorkerFailure};
use super::fold::{self, Capabilities};
use super::queue_news::QueueNews;
use super::recording::Recording;
use crate::course::CourseError;
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::exercise::Exercise;
use crate::model::protocol::{CpuRun, Reply, Request, RunOptions};
use crate::model::results::{DeviceInfo, LessonResult, Source};
use crate::model::sizes::CheckSizes;
use crate::model::target::{Gpus, target};

/// What to do for a lesson once the worker has said what this machine has.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// A GPU is here: measure live on it.
    Live(DeviceInfo),
    /// The kernels on the CPU interpreter: outputs checked at the lesson's CPU size (if it
    /// has one) and accesses traced, no times.
    Interpreted,
    /// No GPU but NVRTC: the recording's timings beside compile reports made now for `arch`.
    CompileHere { arch: String },
    /// Neither: the recording alone.
    Recorded,
}

/// What the learner asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// The lesson's figures (`gpulab run`, `gpulab render`): live where a GPU can run it,
    /// else the recording's.
    Figures,
    /// A run (`r` in the lab): live, else on the CPU interpreter where NVRTC is here and
    /// the lesson gives a CPU size, else the recording's figures.
    Run,
    /// The CPU interpreter whatever this machine has (`--cpu`).
    Cpu,
}

impl Ask {
    /// A run, on the CPU interpreter where `cpu` (`--cpu`) asks for it.
    pub fn run(cpu: bool) -> Ask {
        if cpu { Ask::Cpu } else { Ask::Run }
    }
}

/// What a plan is made for: beside the ask and the machine, what decides where its figures
/// come from.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// A lesson whose figures, until a run replaces them, were measured on `shown` (the
    /// recording's GPU; None: nothing recorded). A compile here targets that GPU, so its
    /// reports sit beside timings of the same code.
    Lesson {
        lesson: &'a Lesson,
        shown: Option<&'a DeviceInfo>,
    },
    /// Exercise `ex` of `lesson`: its own sizes (`sizes_cpu`, else `sizes`) are somewhere
    /// the interpreter can check its output too, so an exercise on a lesson with no CPU
    /// size is still checked on the CPU. Nothing recorded stands for a learner's kernel: a
    /// compile targets the default.
    Exercise {
        lesson: &'a Lesson,
        ex: &'a Exercise,
    },
    /// A tried kernel (`gpulab try`): it has no recording to fall back on, so without a
    /// GPU it runs on the CPU interpreter (its callers have made sure NVRTC is here).
    Try(&'a Lesson),
}

impl Subject<'_> {
    fn lesson(&self) -> &Lesson {
        match self {
            Subject::Lesson { lesson, .. } | Subject::Exercise { lesson, .. } => lesson,
            Subject::Try(lesson) => lesson,
        }
    }

    /// Whether the interpreter has a size to check outputs at.
    fn has_cpu_size(&self) -> bool {
        let ex_sizes = match self {
            Subject::Exercise { ex, .. } => !super::exercise::cpu_sizes(ex).is_empty(),
            _ => false,
        };
        !self.lesson().problem_cpu.is_empty() || ex_sizes
    }

    fn shown(&self) -> Option<&DeviceInfo> {
        match self {
            Subject::Lesson { shown, .. } => *shown,
            _ => None,
        }
    }
}

/// Where the figures of `of` come from on a machine that has `caps`, for what the learner
/// asked (`ask`): the one place it is decided, for a lesson's run (`gpulab run`, the lab's
/// `r`, knobs and compile reports), an exercise's check (`gpulab ex check`, the lab's
/// checks on save) and a try (`gpulab try`, in the lab or not). A GPU that lacks what the
/// lesson requires counts as none for it: the recording is shown.
pub fn plan(ask: Ask, caps: &Capabilities, of: Subject) -> Plan {
    let lesson = of.lesson();
    if ask == Ask::Cpu {
        return Plan::Interpreted;
    }
    if let Some(d) = &caps.device
        && fold::unmet(lesson, caps).is_none()
    {
        return Plan::Live(d.clone());
    }
    if matches!(of, Subject::Try(_)) && caps.device.is_none() {
        return Plan::Interpreted;
    }
    if caps.nvrtc.is_none() {
        return Plan::Recorded;
    }
    if ask == Ask::Run && caps.device.is_none() && of.has_cpu_size() {
        return Plan::Interpreted;
    }
    // No GPU here runs it: a compile targets the GPU the figures shown were measured on.
    let shown = Gpus {
        shown: of.shown(),
        ..Default::default()
    };
    Plan::CompileHere {
        arch: target(Some(lesson), &shown).arch,
    }
}

impl Plan {
    /// The result a run of this plan fills in, blank: on its GPU, or the interpreter's;
    /// None where nothing runs (a compile beside the recording, the recording alone), and
    /// the figures shown until then stay (a compile's reports join them).
    pub fn blank(&self, lesson: &Lesson) -> Option<LessonResult> {
        match self {
            Plan::Live(device) => Some(fold::blank_result(
                lesson,
                Source::Live,
                Some(device.clone()),
            )),
            Plan::Interpreted => Some(fold::blank_result(lesson, Source::Interpreted, None)),
            Plan::CompileHere { .. } | Plan::Recorded => None,
        }
    }

    /// The request that carries the plan out for `lesson` with `options`; `sized` is the
    /// lesson at its CPU size, where outputs are checked on the interpreter. None: the
    /// recording alone, nothing to ask the worker.
    pub fn request(
        &self,
        lesson: &Lesson,
        options: &RunOptions,
        sized: Option<&Lesson>,
    ) -> Option<Request> {
        let lesson = Box::new(lesson.clone());
        match self {
            Plan::Live(_) => Some(Request::Run {
                lesson,
                options: options.clone(),
            }),
            Plan::Interpreted => Some(Request::Run {
                lesson,
                options: interpreted(options, sized),
            }),
            Plan::CompileHere { arch } => Some(Request::Compile {
                lesson,
                arch: arch.clone(),
            }),
            Plan::Recorded => None,
        }
    }
}

/// `options` for a run on the CPU interpreter: no times, outputs checked at `sized`'s
/// sizes when there is one.
pub fn interpreted(options: &RunOptions, sized: Option<&Lesson>) -> RunOptions {
    RunOptions {
        time: false,
        cpu: Some(CpuRun {
            check: sized.map(CheckSizes::of),
        }),
        ..options.clone()
    }
}

/// `lesson` read again at its CPU size (`problem_cpu`), where the interpreter checks its
/// outputs; None when it gives none (the interpreter then only traces).
pub fn cpu_sized(root: &CourseRoot, lesson: &Lesson) -> Result<Option<Lesson>, CourseError> {
    if lesson.problem_cpu.is_empty() {
        return Ok(None);
    }
    match crate::course::reload_sized(root, &lesson.file, &lesson.problem_cpu) {
        Ok(l) => Ok(Some(l)),
        Err(mut errs) => Err(errs.swap_remove(0)),
    }
}

/// `lesson` read again with the figures `device` reports (its L2's size, its SMs, ...),
/// where the lesson sizes its problem from them (`gpu_l2_bytes` and the like in
/// `problem`); None when it names none, or `device` has the values it was read with. A
/// live run on an H200 then streams past the H200's L2, not the H100's.
pub fn device_sized(
    root: &CourseRoot,
    lesson: &Lesson,
    device: &DeviceInfo,
) -> Result<Option<Lesson>, CourseError> {
    if !sized_otherwise(lesson, device) {
        return Ok(None);
    }
    match crate::course::reload_sized(root, &lesson.file, &device_figures(lesson, device)) {
        Ok(l) => Ok(Some(l)),
        Err(mut errs) => Err(errs.swap_remove(0)),
    }
}

/// `sizes`, and the GPU's figures `lesson` was read with that `sizes` does not set: a
/// lesson read for this GPU (`device_sized`) and then read again at an exercise's size
/// stays sized for this GPU.
pub fn keeping_device_figures(lesson: &Lesson, sizes: &[(String, i64)]) -> Vec<(String, i64)> {
    let mut out = sizes.to_vec();
    for (name, value) in &lesson.problem {
        if crate::course::device_sizes::is_device_name(name)
            && !sizes.iter().any(|(n, _)| n == name)
        {
            out.push((name.clone(), *value));
        }
    }
    out
}

/// Whether `device` would size `lesson` otherwise than it was read: it names a figure of
/// the GPU that `device` has another value of. Nothing is read to say so.
pub fn sized_otherwise(lesson: &Lesson, device: &DeviceInfo) -> bool {
    device_figures(lesson, device)
        .iter()
        .any(|f| !lesson.problem.iter().any(|p| p == f))
}

/// The figures of `device` that `lesson`'s problem names.
fn device_figures(lesson: &Lesson, device: &DeviceInfo) -> Vec<(String, i64)> {
    crate::course::device_sizes::device_sizes(device)
        .into_iter()
        .filter(|(name, _)| lesson.problem.iter().any(|(n, _)| n == name))
        .collect()
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

/// The figures `gpulab run` and `gpulab render` show, saying what happens through `say`. A
/// failed run or compile still gives its result, the failure marked on its variant; only a
/// worker that cannot say what this machine has, or a CPU size that does not load, is an
/// error.
pub fn figures(
    (root, rec): (&CourseRoot, Option<&Recording>),
    lesson: &Lesson,
    (device, ask): (u32, Ask),
    options: &RunOptions,
    replay: bool,
    mut say: impl FnMut(&str),
) -> Result<LessonResult, FiguresError> {
    let shown = recorded(rec, lesson);
    if replay {
        return Ok(shown);
    }
    let mut client = WorkerClient::new();
    // `--cpu` asks nothing of this machine: the interpreter runs anywhere NVRTC does.
    let caps = match ask {
        Ask::Cpu => Capabilities::default(),
        _ => fold::hello(&mut client, device)?,
    };
    let of = Subject::Lesson {
        lesson,
        shown: shown.device.as_ref(),
    };
    let plan = plan(ask, &caps, of);
    // A live run runs the lesson as sized for this GPU.
    let on_device = match &plan {
        Plan::Live(dev) => device_sized(root, lesson, dev)?,
        _ => None,
    };
    let lesson = on_device.as_ref().unwrap_or(lesson);
    let sized = match plan {
        Plan::Interpreted => cpu_sized(root, lesson)?,
        _ => None,
    };
    match &plan {
        Plan::Live(_) => {}
        Plan::Interpreted => {
            say("running on the CPU interpreter: outputs and memory traces, no times")
        }
        Plan::CompileHere { arch } => {
            say_recorded(rec, &caps, lesson, &mut say);
            say(&format!(
                "compiling with NVRTC for {arch} (live compile reports; `--cpu` runs the \
                 kernels on the CPU interpreter instead)"
            ));
        }
        Plan::Recorded => say_recorded(rec, &caps, lesson, &mut say),
    }
    // A run says how it goes; a compile beside the recording goes quietly.
    let blank = plan.blank(lesson);
    let progress = blank.is_some();
    let mut result = blank.unwrap_or(shown);
    if let Some(req) = plan.request(lesson, options, sized.as_ref()) {
        let outcome = {
            let mut told = tell(&mut say);
            fold::request(&mut client, &req, lesson, &mut result, |r| {
                if progress {
                    told(r)
                }
            })
        };
        // What was measured stands; the failure is already marked on its variant.
        if let Err(f) = outcome {
            say(&format!("error: {f}"));
        }
    }
    Ok(result)
}

/// Why `figures` has none to give.
#[derive(Debug, thiserror::Error)]
pub enum FiguresError {
    #[error(transparent)]
    Worker(#[from] WorkerFailure),
    /// The lesson read again at its CPU size, or at this GPU's figures, did not load.
    #[error("{0}")]
    Resized(#[from] CourseError),
}

fn say_recorded(
    rec: Option<&Recording>,
    caps: &Capabilities,
    lesson: &Lesson,
    say: &mut impl FnMut(&str),
) {
    let why = match fold::unmet(lesson, caps) {
        Some(unmet) => format!("no live run: this lesson {unmet}"),
        None => caps.no_gpu_words(),
    };
    match rec {
        Some(r) => say(&format!("{why}; figures {}", r.label_of(&lesson.id))),
        None => say(&format!("{why}, and no recording")),
    }
}

/// A live run's progress in a few words: each stage, every tenth timing sample, and the
/// queue for the GPU as it moves.
fn tell(say: &mut impl FnMut(&str)) -> impl FnMut(&Reply) + '_ {
    let mut count = 0usize;
    let mut news = QueueNews::default();
    move |r| match r {
        Reply::Queue { .. } => {
            if let Some((variant, words)) = news.words(r) {
                say(&format!("{variant} {words}"));
            }
        }
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

    #[test]
    fn an_exercise_size_keeps_the_gpus_figures_the_lesson_was_read_with() {
        let mut l = LessonBuilder::new("x").build();
        l.problem = vec![
            ("gpu_l2_bytes".into(), 62914560),
            ("n".into(), 1 << 20),
            ("gpu_sms".into(), 132),
        ];
        let at = keeping_device_figures(&l, &[("n".into(), 1000), ("gpu_sms".into(), 8)]);
        assert_eq!(
            at,
            [
                ("n".to_string(), 1000),
                ("gpu_sms".to_string(), 8),
                ("gpu_l2_bytes".to_string(), 62914560)
            ]
        );
    }

    /// Why a run shows the recording, in one pair of brackets at most (#35 item 16): the
    /// driver's reason has its own, and read "no GPU here (no NVIDIA driver (libcuda.so.1
    /// not found)): figures …".
    #[test]
    fn no_gpu_says_why_without_nesting_brackets() {
        let caps = Capabilities {
            no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
            ..Default::default()
        };
        let mut said = Vec::new();
        let l = LessonBuilder::new("x").build();
        say_recorded(None, &caps, &l, &mut |s| said.push(s.to_string()));
        assert_eq!(
            said,
            ["no GPU here: no NVIDIA driver (libcuda.so.1 not found), and no recording"]
        );
        assert_eq!(Capabilities::default().no_gpu_words(), "no GPU here");
    }

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

    /// What each caller once decided again around `plan` (the exercise check, the try, the
    /// knobs of `gpulab run`), now decided in it: an exercise's own sizes are a CPU size
    /// for a run, a try without a GPU runs on the interpreter, a compile targets the shown
    /// figures' GPU, and `--cpu` interprets whatever the machine has.
    #[test]
    fn one_plan_for_a_lesson_an_exercise_and_a_try() {
        let (course, _) = crate::course::load_course(&CourseRoot::Bundled);
        let mut lesson = (course.iter())
            .find(|l| l.exercises.iter().any(|e| !e.sizes.is_empty()))
            .expect("an exercise with sizes")
            .clone();
        lesson.problem_cpu.clear();
        lesson.requires = Default::default();
        let mut ex = lesson.exercises[0].clone();
        ex.sizes = vec![vec![("n".into(), 1000)]];
        ex.sizes_cpu = None;
        let nvrtc = Capabilities {
            nvrtc: Some("13.0".into()),
            ..Default::default()
        };
        let a100 = DeviceInfo {
            cc: "8.0".into(),
            ..Default::default()
        };
        let as_lesson = Subject::Lesson {
            lesson: &lesson,
            shown: Some(&a100),
        };
        let as_exercise = Subject::Exercise {
            lesson: &lesson,
            ex: &ex,
        };
        let as_try = Subject::Try(&lesson);
        // No GPU, NVRTC: a run of a lesson with no CPU size compiles beside the recording,
        // for the recording's GPU; an exercise with sizes of its own runs on the CPU.
        assert_eq!(
            plan(Ask::Run, &nvrtc, as_lesson),
            Plan::CompileHere {
                arch: "sm_80".into()
            }
        );
        assert_eq!(plan(Ask::Run, &nvrtc, as_exercise), Plan::Interpreted);
        assert_eq!(
            plan(Ask::Figures, &nvrtc, as_exercise),
            Plan::CompileHere {
                arch: crate::model::protocol::FALLBACK_ARCH.into()
            }
        );
        let mut no_sizes = ex.clone();
        no_sizes.sizes_cpu = Some(Vec::new());
        let bare = Subject::Exercise {
            lesson: &lesson,
            ex: &no_sizes,
        };
        assert!(matches!(
            plan(Ask::Run, &nvrtc, bare),
            Plan::CompileHere { .. }
        ));
        // Neither a GPU nor NVRTC: the recording, but a try has none and interprets.
        let nothing = Capabilities::default();
        assert_eq!(plan(Ask::Run, &nothing, as_lesson), Plan::Recorded);
        assert_eq!(plan(Ask::Run, &nothing, as_exercise), Plan::Recorded);
        assert_eq!(plan(Ask::Run, &nothing, as_try), Plan::Interpreted);
        // A GPU: live, unless `--cpu`.
        let gpu = caps("9.0");
        for of in [as_lesson, as_exercise, as_try] {
            assert!(matches!(plan(Ask::Run, &gpu, of), Plan::Live(_)));
            assert_eq!(plan(Ask::Cpu, &gpu, of), Plan::Interpreted);
        }
        // The blank result each plan's run fills: none where nothing runs.
        let live = plan(Ask::Run, &gpu, as_lesson).blank(&lesson).unwrap();
        assert_eq!((live.source, live.device.is_some()), (Source::Live, true));
        let cpu = Plan::Interpreted.blank(&lesson).unwrap();
        assert_eq!((cpu.source, cpu.device), (Source::Interpreted, None));
        assert_eq!(Plan::Recorded.blank(&lesson), None);
    }

    #[test]
    fn a_gpu_without_the_required_capability_shows_the_recording() {
        let mut lesson = LessonBuilder::new("clusters").variant("a").build();
        lesson.requires.cc = Some((9, 0));
        let shown = recorded(None, &lesson);
        let of = Subject::Lesson {
            lesson: &lesson,
            shown: shown.device.as_ref(),
        };
        assert!(matches!(
            plan(Ask::Figures, &caps("9.0"), of),
            Plan::Live(_)
        ));
        assert!(matches!(
            plan(Ask::Figures, &caps("8.6"), of),
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
