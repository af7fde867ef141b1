//! Whether `yours` computes the right output: at the lesson's size, at each of the
//! exercise's extra sizes with fresh inputs on every run (checks a trace judges are judged
//! there again, `sizes`), and, for a full check that passed on a GPU, once more on the
//! interpreter, which refuses what hardware forgives by luck. A wrong element of a 2-D
//! output is named by its row and column.

use super::kept_figures::{self, Measured};
use super::lesson::{Oracle, Yours, exercise_lesson};
use super::report::{
    CORRECT_LINE, CheckLine, Mark, REFUSED, Target, line, not_interpreted, sizes_text, yours_of,
};
use crate::model::exercise::{SOLUTION, YOURS};
use crate::model::protocol::{JobKind, RunOptions};
use crate::model::results::{LessonResult, Source, VariantResult};
use crate::model::{Lesson, Reference};
use crate::session::client::WorkerClient;
use crate::session::fold;
use crate::session::queue_news::queue_only;

/// The output at the lesson's size (the main run) and at each extra size, with `seeds`
/// fresh inputs at each: one line, failing at the first wrong output and saying where.
/// The first run at each size is traced too, and the checks a trace judges are judged
/// there again (`sizes`), into `lines`.
pub(super) fn correctness(
    client: &mut WorkerClient,
    t: &Target,
    yours: &Yours,
    (main, main_lesson): (&LessonResult, &Lesson),
    say: &mut impl FnMut(&str),
    lines: &mut [CheckLine],
) -> CheckLine {
    let main_at = main_lesson.problem.as_slice();
    if let Err(line) = judge_output(yours_of(main), &sizes_text(main_at), main_lesson) {
        return line;
    }
    let mut runs = 1;
    // The exercise's sizes, and its drawn one (fresh for this check) where it has one.
    let checked = t.ex.checked_sizes(super::sample::fresh_seed());
    for (j, sizes) in checked.iter().enumerate() {
        let drawn = j >= t.ex.sizes.len();
        let at = sizes_text(sizes);
        let sizes = &crate::session::source::keeping_device_figures(t.lesson, sizes);
        let sized = match crate::course::reload_sized(t.root, &t.lesson.file, sizes) {
            Ok(l) => l,
            Err(errs) => {
                let why = errs.first().map(|e| e.to_string()).unwrap_or_default();
                return line(
                    Mark::Fail,
                    format!("the lesson does not load at {at}: {why}"),
                );
            }
        };
        let Some(sx) = sized.exercises.iter().find(|e| e.id == t.ex.id) else {
            return line(Mark::Fail, format!("the exercise is gone at {at}"));
        };
        let variants = super::sizes::variants(t.ex, true);
        let l = exercise_lesson(&sized, sx, yours, Oracle::Solution, &variants[1..]);
        for seed in 0..t.ex.seeds {
            // The first run at a size is traced too (every block the buffer holds), where a
            // check is judged on the trace at every size, and timed where a time is.
            // Judging a deciding check, only what it needs (`deciding`).
            let needs = super::deciding::of(t);
            let traced =
                seed == 0 && super::sizes::traced(t.ex, true) && needs.is_none_or(|n| n.trace());
            let timed = seed == 0
                && super::sizes::timed_at_every_size(t.ex)
                && needs.is_none_or(|n| n.time());
            let measured = Measured { timed, traced };
            let mut r = fold::blank_result(&l, Source::Live, None);
            // The compared variants' figures at this size, kept by an earlier check of a
            // table (`kept_figures`): then only `yours` is traced and timed, in the same
            // blocks, the solution running as the oracle alone.
            let key = main.device.as_ref().map(|device| kept_figures::Key {
                lesson: &t.lesson.id,
                exercise: &t.ex.id,
                device,
                editing: false,
                at: &at,
            });
            // Not at a drawn size, which no other check meets again.
            let reuse = t.reuse.filter(|_| !t.quick && !drawn && (traced || timed));
            let kept = match (reuse, &key) {
                (Some(dir), Some(key)) => {
                    kept_figures::load(dir, key, &variants[1..], &r, measured)
                }
                _ => None,
            };
            let options = RunOptions {
                variants: if (traced || timed) && kept.is_none() {
                    variants.clone()
                } else {
                    vec![YOURS.into()]
                },
                time: timed,
                trace: traced,
                trace_blocks: super::sizes::SIZE_TRACE_BLOCKS,
                trace_records: super::sizes::SIZE_TRACE_RECORDS,
                // A grid wider than the sample is looked at anywhere, as at the lesson's size.
                sample_seed: (kept.as_ref())
                    .map_or_else(super::sample::fresh_sample_seed, |k| k.seed),
                guard: true,
                job: JobKind::ExerciseCheck,
                ..RunOptions::default()
            };
            say(&format!("checking the output at {at}"));
            // A failure is marked on the variant it struck, which is judged next.
            let _ = fold::run_lesson(client, &l, &options, &mut r, queue_only(&mut *say));
            // The solution, run first as the oracle, failed: the course's fault, said so
            // with its error rather than as a wrong answer of the learner's.
            if let Some(s) =
                (r.variants.iter()).find(|v| v.name == SOLUTION && v.correct == Some(false))
            {
                let why = s.error.as_deref().unwrap_or("it failed");
                return line(
                    Mark::NotMeasured,
                    format!("not judged at {at}: the solution itself fails there: {why}"),
                );
            }
            match (kept, reuse, &key) {
                (Some(k), _, _) => super::quick::splice(&l, &mut r, k.variants),
                (None, Some(dir), Some(key)) => {
                    // Kept only whole (every compared variant right, timed and traced as
                    // asked); a folder that cannot be written only costs the next check time.
                    let run = (&r, measured, options.sample_seed);
                    let _ = kept_figures::store(dir, key, &variants[1..], run);
                }
                _ => {}
            }
            if let Err(line) = judge_output(yours_of(&r), &at, &l) {
                return line;
            }
            if traced || timed {
                super::sizes::judge_at(t.ex, (&r, true), &at, lines);
            }
            runs += 1;
        }
    }
    let sizes: Vec<String> = (checked.iter().enumerate())
        .map(|(j, s)| match j >= t.ex.sizes.len() {
            true => format!("{} (drawn)", sizes_text(s)),
            false => sizes_text(s),
        })
        .collect();
    let detail = if sizes.is_empty() {
        "right at the lesson's size".to_string()
    } else {
        format!(
            "right in {runs} runs, each with fresh inputs: the lesson's size and {}",
            sizes.join("; ")
        )
    };
    line(Mark::Pass, detail)
}

pub(super) fn judge_output(
    v: Option<&VariantResult>,
    at: &str,
    lesson: &Lesson,
) -> Result<(), CheckLine> {
    // A lesson with no problem sizes (an image's, say) has nothing to name its one size by.
    let at = if at.is_empty() {
        "the lesson's size"
    } else {
        at
    };
    match v {
        Some(v) if v.correct == Some(true) => Ok(()),
        Some(v) if not_interpreted(v) => Err(CheckLine {
            check: CORRECT_LINE.into(),
            mark: Mark::NeedsGpu,
            detail: refused(v),
            at: None,
        }),
        // Yours ran, but nothing could say what its output should be: the reference (an
        // exercise's solution sampling a texture) runs only on a GPU. Not wrong: unjudged.
        Some(v) if v.correct.is_none() && v.error.is_none() && v.failure.is_none() => {
            Err(CheckLine {
                check: CORRECT_LINE.into(),
                mark: Mark::NeedsGpu,
                detail: format!(
                    "needs a GPU: at {at}, {}",
                    v.check
                        .as_deref()
                        .unwrap_or("no reference output to compare with")
                ),
                at: None,
            })
        }
        Some(v) => {
            let why = v
                .error
                .as_deref()
                .unwrap_or("the output does not match the reference");
            let why = located(lesson, why);
            Err(line(Mark::Fail, format!("wrong at {at}: {why}")))
        }
        None => Err(line(Mark::NotMeasured, format!("not run at {at}"))),
    }
}

/// The rows and columns of a 2-D output: the reference's, else those of an `n x n`
/// buffer of a lesson with a size `n`.
fn shape_of(lesson: &Lesson, buffer: usize) -> Option<(u64, u64)> {
    match lesson.reference {
        // `to` holds the transpose: cols rows of `rows` elements.
        Reference::Transpose { to, rows, cols, .. } if to == buffer => Some((cols, rows)),
        Reference::Sgemm { to, rows, cols, .. } if to == buffer => Some((rows, cols)),
        _ => {
            let n = lesson.problem.iter().find(|(k, _)| k == "n")?.1;
            let len = lesson.buffers.get(buffer)?.len;
            (n > 1 && (n as u64).checked_mul(n as u64) == Some(len)).then_some((n as u64, n as u64))
        }
    }
}

/// `why` with the row and column of the first wrong element where the output is 2-D:
/// `out[1057] = 0.5, expected 0.25` says `out[1057] (row 33, col 1)`.
pub(super) fn located(lesson: &Lesson, why: &str) -> String {
    let mut out = why.to_string();
    for (j, b) in lesson.buffers.iter().enumerate() {
        let head = format!("{}[", b.name);
        let Some(at) = out.find(&head) else { continue };
        // The name must start a word: `out[` inside `in_out[` is another buffer.
        if out[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &out[at + head.len()..];
        let Some(close) = rest.find(']') else {
            continue;
        };
        let (Ok(i), Some((_, cols))) = (rest[..close].parse::<u64>(), shape_of(lesson, j)) else {
            continue;
        };
        let end = at + head.len() + close + 1;
        out.insert_str(end, &format!(" (row {}, col {})", i / cols, i % cols));
        break;
    }
    out
}

/// `REFUSED` with the interpreter's first reason (its error's first line names the
/// refusal, the next ones each instruction it does not run).
fn refused(v: &VariantResult) -> String {
    let mut lines = v.error.as_deref().unwrap_or_default().lines().skip(1);
    match lines.next().map(str::trim) {
        Some(first) if lines.next().is_some() => format!("{REFUSED}: {first}; …"),
        Some(first) => format!("{REFUSED}: {first}"),
        None => REFUSED.into(),
    }
}

/// The correctness line of a check stopped early (`Target::fail_fast`), or None when no
/// check has failed yet: the output of the run made (`main`, at `at`) is judged, the other
/// sizes are not run.
pub(super) fn stopped(
    t: &Target,
    lines: &[CheckLine],
    (main, at, lesson): (&LessonResult, &str, &Lesson),
) -> Option<CheckLine> {
    let failed = lines.iter().find(|l| l.mark == Mark::Fail)?;
    if !t.fail_fast {
        return None;
    }
    Some(
        match super::output::judge_output(yours_of(main), at, lesson) {
            Err(wrong) => wrong,
            Ok(()) => line(
                Mark::NotMeasured,
                format!(
                    "right at {at}; not checked at the other sizes: `{}` failed already \
                 (--fail-fast)",
                    failed.check
                ),
            ),
        },
    )
}
