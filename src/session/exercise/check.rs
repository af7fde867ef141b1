//! `ex check`: the learner's kernel run as the lesson's `yours` variant through the same
//! worker requests and fold as any lesson, then judged by the exercise's checks. Its output
//! is compared at the lesson's size and at each extra size, with fresh inputs on every run
//! (the worker draws a new seed per run) and outputs poisoned before each launch. Without
//! a GPU only what the compiler reports is judged; the rest "needs a GPU".

use super::deciding::{self, Needs};
use super::kept_figures::{self, Kept, Measured};
use super::lesson::oracle;
use super::lesson::{Yours, compile_only, exercise_lesson};
use super::output::stopped;
use super::own_lines::report;
use super::report::{
    CORRECT_LINE, CheckLine, CheckReport, Mark, NEEDS_NVRTC, Target, line, progress, sizes_text,
};
use crate::model::Lesson;
use crate::model::exercise::{Exercise, SOLUTION, YOURS};
use crate::model::protocol::{JobKind, PIP_HINT, RunOptions};
use crate::model::results::{DeviceInfo, LessonResult, Source};
use crate::session::client::{WorkerClient, WorkerFailure};
use crate::session::fold::{self, Capabilities};
use crate::session::source::{self, Ask, Plan, Subject};

/// The timing budget of a quick check.
pub const QUICK_RUNS: u32 = 30;
pub const QUICK_MS: f64 = 150.0;

/// Check the learner's kernel; `say` hears what is happening.
pub fn check(
    client: &mut WorkerClient,
    (device, ask): (u32, Ask),
    t: &Target,
    yours: &Yours,
    say: impl FnMut(&str),
) -> Result<CheckReport, WorkerFailure> {
    check_with(client, (device, ask), t, yours, say, |_| {})
}

/// The words the correctness line has while the other sizes are still being checked.
pub const BEING_CHECKED: &str = "being checked at every size…";

/// `check`, handing `figures` the main run's report as soon as it is in, before the
/// output is checked at the other sizes: the learner sees their figures sooner. Its
/// correctness line is not yet judged, so it cannot pass.
pub fn check_with(
    client: &mut WorkerClient,
    (device, ask): (u32, Ask),
    t: &Target,
    yours: &Yours,
    say: impl FnMut(&str),
    figures: impl FnMut(&CheckReport),
) -> Result<CheckReport, WorkerFailure> {
    let mut report = check_planned(client, (device, ask), t, yours, say, figures)?;
    let kernel = &t.ex.yours.kernel;
    if let Some(e) = report.compile_error.as_mut()
        && let Some(words) = missing_kernel(yours, kernel, e)
    {
        *e = words;
    }
    Ok(report)
}

/// What NVRTC says of a kernel name the source does not declare: "identifier ... is
/// undefined" at whatever line its name lookup landed on (a comment, as often as not).
const NAME_LOOKUP_FAILED: &str = "Error in parsing name expression for lowered name lookup";

/// "no kernel named K in FILE", where the learner's file declares no `__global__` K and
/// NVRTC's compile failed looking the name up; None for any other compile error.
fn missing_kernel(yours: &Yours, kernel: &str, error: &str) -> Option<String> {
    let declared = crate::course::signature::find(yours.src, kernel).is_some();
    (!declared && error.contains(NAME_LOOKUP_FAILED)).then(|| {
        format!(
            "no kernel named {kernel} in {}: the check launches the `__global__` function \
             of that name",
            yours.path
        )
    })
}

/// `check_with` as the plan for this machine goes: live, on the CPU, or compiled only.
fn check_planned(
    client: &mut WorkerClient,
    (device, ask): (u32, Ask),
    t: &Target,
    yours: &Yours,
    mut say: impl FnMut(&str),
    mut figures: impl FnMut(&CheckReport),
) -> Result<CheckReport, WorkerFailure> {
    // The interpreter runs anywhere NVRTC does: `--cpu` asks nothing of this machine.
    let caps = match ask {
        Ask::Cpu => Capabilities::default(),
        _ => fold::hello(client, device)?,
    };
    let of = Subject::Exercise {
        lesson: t.lesson,
        ex: t.ex,
    };
    match source::plan(ask, &caps, of) {
        Plan::Live(dev) => {
            // Sized for this GPU, as a live run of the lesson is (an L2 flush larger than
            // this GPU's L2, not the H100's).
            let sized = source::device_sized(t.root, t.lesson, &dev).ok().flatten();
            let sized_ex = (sized.as_ref())
                .and_then(|l| l.exercises.iter().find(|e| e.id == t.ex.id).cloned());
            let t = match (&sized, &sized_ex) {
                (Some(lesson), Some(ex)) => &Target { lesson, ex, ..*t },
                _ => t,
            };
            Ok(live_check(client, t, yours, &dev, &mut say, &mut figures))
        }
        Plan::Interpreted => Ok(super::cpu::check_cpu(client, t, yours, say)),
        Plan::CompileHere { arch } => {
            let why = match fold::unmet(t.lesson, &caps) {
                Some(unmet) => format!("this lesson {unmet}"),
                None => caps.no_gpu_words(),
            };
            say(&format!(
                "{why}; compiling with NVRTC for {arch}, so checks that need a GPU \
                 are not judged"
            ));
            let l = compile_only(t.lesson, t.ex, yours);
            let mut result = fold::blank_result(&l, Source::Live, None);
            let out = fold::compile_lesson(client, &l, &arch, &mut result, |_| {});
            if let Err(f) = out {
                say(&format!("error: {f}"));
            }
            Ok(offline(t.ex, result))
        }
        Plan::Recorded => {
            say(&format!(
                "no GPU and no NVRTC here: nothing can be checked; each check says what \
                 would judge it (NVRTC: {PIP_HINT})"
            ));
            let l = compile_only(t.lesson, t.ex, yours);
            Ok(unjudged(t.ex, &l))
        }
    }
}

/// The check on this machine's GPU: the learner's kernel at the lesson's size beside the
/// variants it is compared with (their figures shown as soon as they are in), then the
/// output at every size.
fn live_check(
    client: &mut WorkerClient,
    t: &Target,
    yours: &Yours,
    dev: &DeviceInfo,
    say: &mut impl FnMut(&str),
    figures: &mut impl FnMut(&CheckReport),
) -> CheckReport {
    if !t.quick
        && let (Some(check), Some(needs)) = (t.deciding, deciding::of(t))
    {
        let decided = match needs {
            Needs::Interpreter => super::cpu::judge_deciding(client, t, yours, &mut *say),
            _ => live_runs(client, t, yours, dev, Some(needs), say, figures),
        };
        if deciding::failed(t, &decided) {
            return decided;
        }
        say(&format!(
            "`{check}` held on the runs that judge it: every check runs now"
        ));
    }
    let whole = Target {
        deciding: None,
        ..*t
    };
    live_runs(client, &whole, yours, dev, None, say, figures)
}

/// `live_check`'s runs: all of them (`needs` None), or only those judging the deciding
/// check, which stop once it has failed.
fn live_runs(
    client: &mut WorkerClient,
    t: &Target,
    yours: &Yours,
    dev: &DeviceInfo,
    needs: Option<Needs>,
    say: &mut impl FnMut(&str),
    figures: &mut impl FnMut(&CheckReport),
) -> CheckReport {
    say(&format!("running on {}", dev.name));
    let editing = t.quick.then(|| super::quick::editing_size(t)).flatten();
    let (lesson, ex) = match &editing {
        Some((l, e)) => (l, e),
        None => (t.lesson, t.ex),
    };
    // A full check times the solution beside `yours`, for the instructor's summary.
    let mut keep = ex.compared();
    if !t.quick && !keep.iter().any(|n| n == SOLUTION) {
        keep.push(SOLUTION.to_string());
    }
    let main = exercise_lesson(lesson, ex, yours, oracle(ex.solution_reference), &keep);
    let plan = Plan::Live(dev.clone());
    let mut result = plan.blank(&main).expect("a live run fills a result");
    let key = format!(
        "{}|{}|{}|{}",
        t.lesson.id,
        t.ex.id,
        dev.name,
        editing.is_some()
    );
    let kept_key = kept_figures::Key {
        lesson: &t.lesson.id,
        exercise: &t.ex.id,
        device: dev,
        editing: editing.is_some(),
        at: "",
    };
    // What this run measures: everything, or what the deciding check needs.
    let measured = needs.map_or(
        Measured {
            timed: true,
            traced: !t.quick,
        },
        |n| Measured {
            timed: n.time(),
            traced: n.trace(),
        },
    );
    let reuse = t.reuse.filter(|_| !t.quick);
    let earlier = match reuse {
        _ if t.quick => super::quick::compared_earlier(&key).map(|variants| Kept {
            seed: super::sample::fresh_sample_seed(),
            measured,
            variants,
        }),
        Some(dir) => kept_figures::load(dir, &kept_key, &keep, &result, measured),
        None => None,
    };
    if let (Some(dir), Some(_)) = (reuse, &earlier) {
        say(&format!(
            "{} timed and traced by an earlier check on this GPU (kept in {}): only yours \
             runs now",
            keep.join(", "),
            dir.display()
        ));
    }
    // An output alone needs no compared variant (the solution runs as the oracle still).
    let unmeasured = !measured.timed && !measured.traced;
    let mut options = main_options(t, earlier.is_some() || unmeasured);
    options.time = measured.timed;
    options.trace = measured.traced;
    if let Some(k) = &earlier {
        // `yours` traced in the blocks the kept figures were: they compare as one run's.
        options.sample_seed = k.seed;
    }
    let out = fold::run_lesson(client, &main, &options, &mut result, progress(&mut *say));
    if let Err(f) = out {
        say(&format!("error: {f}"));
    }
    match earlier {
        Some(k) => super::quick::splice(&main, &mut result, k.variants),
        None if t.quick => super::quick::remember_compared(&key, t.ex, &result),
        None => {
            let run = (&result, measured, options.sample_seed);
            if let Some(dir) = reuse.filter(|_| !unmeasured)
                && let Err(e) = kept_figures::store(dir, &kept_key, &keep, run)
            {
                say(&format!(
                    "could not keep the figures in {}: {e}",
                    dir.display()
                ));
            }
        }
    }
    let mut report = report(t.ex, result.clone(), true);
    if report.compile_error.is_none() {
        let mut early = report.clone();
        let pending = line(Mark::NotMeasured, BEING_CHECKED.into());
        early.lines.insert(0, pending);
        figures(&early);
        if t.quick {
            super::quick::trace_yours(client, &main, &mut result, &mut *say);
            report = self::report(t.ex, result, true);
        }
        let at = sizes_text(&lesson.problem);
        // Judging the deciding check, only its failure stops the check: another's would
        // leave the deciding one unjudged.
        let stop = needs.is_none() || deciding::failed(t, &report);
        if stop && let Some(line) = stopped(t, &report.lines, (&report.result, &at, lesson)) {
            report.lines.insert(0, line);
            return report;
        }
        if needs.is_some() && !deciding::at_sizes(t) {
            return report;
        }
        let main_at = (&report.result, lesson);
        let mut lines = std::mem::take(&mut report.lines);
        let line = super::output::correctness(client, t, yours, main_at, &mut *say, &mut lines);
        report.lines = lines;
        report.lines.insert(0, line);
        // A whole check that passed on the GPU is judged again on the interpreter, which
        // runs every access strictly; so is a deciding check the GPU has not failed, as
        // the whole check would judge it (a time only the GPU judges).
        let strict = match needs {
            None => report.lines.iter().all(|l| l.mark != Mark::Fail),
            Some(n) => n != Needs::Time && !deciding::failed(t, &report),
        };
        if !t.quick && strict {
            super::cpu::strictly(client, t, yours, &mut *say, &mut report.lines);
        }
    }
    report
}

/// `known`: the compared variants' figures (and, in a full check, the solution's) are
/// known already: only `yours` is timed.
fn main_options(t: &Target, known: bool) -> RunOptions {
    let (ex, quick) = (t.ex, t.quick);
    let mut variants = vec![YOURS.to_string()];
    if !known {
        variants.extend(ex.compared());
        if !quick && !variants.iter().any(|n| n == SOLUTION) {
            variants.push(SOLUTION.to_string());
        }
    }
    let full = RunOptions::default();
    RunOptions {
        variants,
        guard: true,
        // A save is checked at the lesson's size with the inputs of the save before (each
        // launch still poisons the outputs); the other sizes get fresh ones every time.
        keep_inputs: quick,
        // While the learner edits the figures come first; the trace follows (trace_yours).
        trace: !quick,
        max_runs: if quick { QUICK_RUNS } else { full.max_runs },
        max_ms: if quick { QUICK_MS } else { full.max_ms },
        job: JobKind::ExerciseCheck,
        // A wide sample, drawn afresh anywhere in the grid: a kernel that takes the taught
        // path only in the blocks a sample usually holds cannot count on them.
        trace_blocks: super::sample::main_trace_blocks(t.lesson),
        trace_records: super::sample::MAIN_TRACE_RECORDS,
        sample_seed: super::sample::fresh_sample_seed(),
        ..full
    }
}

/// What each check needs where neither a GPU nor NVRTC is: every check is listed (none
/// silently left out), each saying whether NVRTC would let the CPU interpreter judge it or
/// only a GPU can (times, and everything of a lesson with no CPU size).
pub fn unjudged(ex: &Exercise, l: &Lesson) -> CheckReport {
    // The claims as the interpreter would judge them with no figures: which need a GPU.
    let mut probe = fold::blank_result(l, Source::Interpreted, None);
    fold::evaluate_claims(l, &mut probe);
    // The interpreter runs at a CPU size, and never a texture fetch.
    let cpu_sizes = super::sizes::cpu_sizes(ex);
    let runs_on_cpu = (!l.problem_cpu.is_empty() || !cpu_sizes.is_empty()) && l.textures.is_empty();
    let cpu = format!("{NEEDS_NVRTC} ({PIP_HINT}), or a GPU");
    let needs = |gpu_only: bool| match gpu_only || !runs_on_cpu {
        true => "needs a GPU".to_string(),
        false => cpu.clone(),
    };
    let mut r = report(ex, fold::blank_result(l, Source::None, None), false);
    let correct = CheckLine {
        check: CORRECT_LINE.into(),
        mark: Mark::NeedsGpu,
        detail: needs(false),
        at: None,
    };
    let checks = probe.expect.iter().map(|c| CheckLine {
        check: c.claim.clone(),
        mark: Mark::NeedsGpu,
        detail: needs(c.needs_gpu),
        at: None,
    });
    r.lines = std::iter::once(correct).chain(checks).collect();
    r
}

/// Without a GPU: the correctness line needs one, and so does every check the compile
/// report cannot judge.
fn offline(ex: &Exercise, result: LessonResult) -> CheckReport {
    let mut r = report(ex, result, false);
    if r.compile_error.is_none() {
        r.lines.insert(
            0,
            CheckLine {
                check: CORRECT_LINE.into(),
                mark: Mark::NeedsGpu,
                detail: "needs a GPU".into(),
                at: None,
            },
        );
    }
    r
}

#[cfg(test)]
mod tests {
    use super::{Yours, missing_kernel};
    use crate::course::bundle::CourseRoot;
    use crate::session::exercise::output::located;

    fn lesson(id: &str) -> crate::model::Lesson {
        let (lessons, errors) = crate::course::load_course(&CourseRoot::Bundled);
        assert!(errors.is_empty(), "{errors:?}");
        lessons.into_iter().find(|l| l.id == id).unwrap()
    }

    #[test]
    fn a_wrong_output_where_no_size_is_named_says_the_lessons_size() {
        let t = lesson("texture");
        let v = crate::model::results::VariantResult {
            name: "yours".into(),
            correct: Some(false),
            ..Default::default()
        };
        let line = crate::session::exercise::output::judge_output(Some(&v), "", &t).unwrap_err();
        assert!(
            line.detail.starts_with("wrong at the lesson's size: "),
            "{}",
            line.detail
        );
    }

    #[test]
    fn a_wrong_element_of_a_2d_output_says_its_row_and_column() {
        let t = lesson("shared-transpose");
        let n = t.problem.iter().find(|(k, _)| k == "n").unwrap().1 as u64;
        let why = format!(
            "out[{}] = 0.5, expected 0.25 (3 of 9 elements wrong)",
            n + 7
        );
        assert_eq!(
            located(&t, &why),
            format!(
                "out[{}] (row 1, col 7) = 0.5, expected 0.25 (3 of 9 elements wrong)",
                n + 7
            )
        );
        // A 1-D output, and words that name no element, are left as they are.
        let c = lesson("global-coalescing");
        assert_eq!(
            located(&c, "out[5] = 1, expected 2"),
            "out[5] = 1, expected 2"
        );
        assert_eq!(located(&t, "the kernel faulted"), "the kernel faulted");
    }

    #[test]
    fn with_neither_a_gpu_nor_nvrtc_the_checks_nvrtc_would_judge_are_counted() {
        let course = crate::course::load_course(&CourseRoot::Bundled).0;
        let ex_of = |id: &str| {
            let l = course
                .iter()
                .find(|l| l.exercises.iter().any(|e| e.id == id));
            let l = l.unwrap();
            (
                l.exercises.iter().find(|e| e.id == id).unwrap().clone(),
                l.clone(),
            )
        };
        // Its traced checks run on the interpreter; its times and speed need a GPU.
        let (ex, l) = ex_of("coalesce-copy");
        let r = super::unjudged(&ex, &l);
        let n = r.nvrtc_would_judge();
        assert!(n >= 2 && n < r.lines.len(), "{n} of {}", r.lines.len());
        // Textures need a GPU whatever NVRTC does: NVRTC is not offered (the lab's words
        // for both: ui::exercise's tests).
        let (ex, l) = ex_of("sample-texture");
        let r = super::unjudged(&ex, &l);
        assert_eq!(r.nvrtc_would_judge(), 0);
    }

    #[test]
    fn a_file_without_the_kernel_is_said_so_not_at_a_comment_line() {
        let nvrtc = "k.cu:2: error: identifier \"copy_mine\" is undefined\n      2 | // note\n\
                     k.cu:2: error: Error in parsing name expression for lowered name lookup. \
                     Input name expression was: \" copy_mine\"\n";
        let without = Yours {
            src: "// note\n// copy_mine comes later\n__global__ void other(float* x) {}\n",
            path: "work/coalesce-copy.cu",
        };
        let words = missing_kernel(&without, "copy_mine", nvrtc).unwrap();
        assert!(
            words.starts_with("no kernel named copy_mine in work/coalesce-copy.cu"),
            "{words}"
        );
        let with = Yours {
            src: "extern \"C\" __global__ void copy_mine(float* x) { oops; }\n",
            path: "work/coalesce-copy.cu",
        };
        assert_eq!(
            missing_kernel(&with, "copy_mine", nvrtc),
            None,
            "declared: NVRTC's words"
        );
        let other = "k.cu:1: error: expected a \";\"\n";
        assert_eq!(missing_kernel(&without, "copy_mine", other), None);
    }
}
