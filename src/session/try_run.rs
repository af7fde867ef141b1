//! A tried kernel's run (`gpulab try`), for the command line and the lab alike: where its
//! figures come from is `source::plan`'s answer (`Subject::Try`), as for any lesson, except
//! that a try has no recording to fall back on, so without a GPU it runs on the CPU
//! interpreter; the request is `Plan::request`'s, its outputs checked at the try's CPU
//! sizes against what the try names (or not at all).

use super::source::Plan;
use crate::course::tried::lesson::{Checked, Tried};
use crate::model::protocol::{Request, RunOptions};
use crate::model::results::LessonResult;

/// What a variant says when nothing is compared.
pub const NOT_COMPARED: &str = "outputs not compared: no reference (--reference names one)";

/// `base` for the try: outputs checked only where there is something to check them against.
pub fn options(tried: &Tried, base: RunOptions) -> RunOptions {
    RunOptions {
        check: tried.checked != Checked::Nothing,
        ..base
    }
}

/// The request that carries `plan` out; on the interpreter the outputs are checked at the
/// try's CPU sizes (not at all when nothing is compared).
pub fn request(plan: &Plan, tried: &Tried, options: &RunOptions) -> Option<Request> {
    plan.request(&tried.lesson, options, tried.sized.as_ref())
}

/// The result as the try's reference has it: where nothing is compared, no variant is
/// called correct (the lesson's nominal reference ran unchecked, as did the rest), and
/// each says so.
pub fn finish(tried: &Tried, result: &mut LessonResult) {
    if tried.checked != Checked::Nothing {
        return;
    }
    for v in &mut result.variants {
        if v.error.is_some() || v.unmet.is_some() {
            continue;
        }
        if v.correct == Some(true) {
            v.correct = None;
        }
        let ran = v.ptxas.is_some() || v.memory.is_some() || v.time_ms.is_some();
        if v.correct.is_none() && ran {
            v.check = Some(NOT_COMPARED.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;
    use crate::model::results::{DeviceInfo, Source};
    use crate::session::fold::{self, Capabilities};
    use crate::session::source::{Ask, Subject};

    /// Where the try runs, as `gpulab try` (`cpu`: `--cpu`) asks the plan.
    fn plan(caps: &Capabilities, t: &Tried, cpu: bool) -> Plan {
        crate::session::source::plan(Ask::run(cpu), caps, Subject::Try(&t.lesson))
    }

    fn tried(checked: Checked) -> Tried {
        let lesson = LessonBuilder::new("try").variant("a").variant("b").build();
        Tried {
            sized: Some(lesson.clone()),
            lesson,
            checked,
            files: Vec::new(),
        }
    }

    #[test]
    fn without_a_gpu_a_try_runs_on_the_interpreter_and_with_one_live() {
        let t = tried(Checked::Variant("a".into()));
        let none = Capabilities {
            nvrtc: Some("13.0".into()),
            ..Default::default()
        };
        assert_eq!(plan(&none, &t, false), Plan::Interpreted);
        let gpu = Capabilities {
            device: Some(DeviceInfo {
                cc: "9.0".into(),
                ..Default::default()
            }),
            ..none
        };
        assert!(matches!(plan(&gpu, &t, false), Plan::Live(_)));
        assert_eq!(plan(&gpu, &t, true), Plan::Interpreted);
        // Checked on the interpreter at the CPU sizes.
        let req = request(&Plan::Interpreted, &t, &options(&t, RunOptions::default()));
        let Some(Request::Run { options: o, .. }) = req else {
            panic!("{req:?}")
        };
        assert!(o.check && o.cpu.unwrap().check.is_some() && !o.time);
    }

    #[test]
    fn with_no_reference_nothing_is_called_correct() {
        let mut t = tried(Checked::Nothing);
        t.sized = None;
        let o = options(&t, RunOptions::default());
        assert!(!o.check);
        let mut r = fold::blank_result(&t.lesson, Source::Live, None);
        r.variants[0].correct = Some(true);
        r.variants[0].ptxas = Some(Default::default());
        r.variants[1].ptxas = Some(Default::default());
        finish(&t, &mut r);
        for v in &r.variants {
            assert_eq!(v.correct, None, "{}", v.name);
            assert_eq!(v.check.as_deref(), Some(NOT_COMPARED));
        }
        let mut checked = fold::blank_result(&t.lesson, Source::Live, None);
        checked.variants[0].correct = Some(true);
        finish(&tried(Checked::Variant("a".into())), &mut checked);
        assert_eq!(checked.variants[0].correct, Some(true));
    }
}
