//! `ex check --cpu`: the learner's kernel on the CPU interpreter, no GPU needed. Its memory
//! checks are judged on the traced figures at the lesson's size, exactly as a GPU's trace
//! gives them; its output is checked at the lesson's `problem_cpu` and at each of the
//! exercise's sizes, with fresh inputs, against the reference; checks about times need a
//! GPU and say so.

use super::kept_figures::{self, Kept, Measured};
use super::lesson::{Oracle, Yours, exercise_lesson, oracle};
use super::output::judge_output;
use super::own_lines::RACE_LINE;
use super::own_lines::report;
use super::report::{
    CORRECT_LINE, CheckLine, CheckReport, Mark, Target, line, sizes_text, yours_of,
};
use crate::model::Lesson;
use crate::model::exercise::{Exercise, YOURS};
use crate::model::protocol::RunOptions;
use crate::model::results::{DeviceInfo, LessonResult, Perturbing};
use crate::session::client::{WorkerClient, WorkerFailure};
use crate::session::fold;
use crate::session::source::Plan;

/// Check the learner's kernel on the CPU interpreter; `say` hears what is happening.
pub fn check_cpu(
    client: &mut WorkerClient,
    t: &Target,
    yours: &Yours,
    mut say: impl FnMut(&str),
) -> CheckReport {
    say("checking on the CPU interpreter: outputs and memory traces, no times");
    let ex = t.ex;
    let small = at_sizes(t, yours, &t.lesson.problem_cpu, &[]).ok();
    // Checked at the CPU size against the solution (a lesson's reference kernel need not
    // handle that size), the main lesson has the solution as its reference too, so the
    // sizes fit it variant for variant.
    let main_oracle = match small {
        Some(_) => Oracle::Solution,
        None => oracle(ex.solution_reference),
    };
    let main = exercise_lesson(t.lesson, ex, yours, main_oracle, &ex.compared());
    // The compared variants' traces kept by an earlier check of a table (`--reuse-figures`,
    // as on a GPU): then only `yours` is traced, in the same blocks, the solution running
    // at the CPU size as the oracle alone.
    let device = interpreter();
    let key = kept_key(t, &device, "");
    let compared = ex.compared();
    let earlier = kept(t, (&key, &compared), &main);
    if let (Some(_), Some(dir)) = (&earlier, t.reuse) {
        say(&format!(
            "the compared variants traced by an earlier check on the CPU interpreter (kept \
             in {}): only yours runs now",
            dir.display()
        ));
    }
    let mut variants = vec![YOURS.to_string()];
    if earlier.is_none() {
        variants.extend(compared.iter().cloned());
    }
    let mut options = RunOptions {
        variants,
        guard: false,
        // Blocks drawn anywhere in the grid, as on a GPU (`check::main_options`), but only
        // the lesson's few where a GPU's check follows (a time to judge): the interpreter
        // runs every traced block, and a GPU's wide sample would cost it seconds a check.
        // Where the CPU judges every check, as widely as a GPU.
        trace_blocks: match super::sample::judged_whole_on_cpu(ex) {
            true => super::sample::main_trace_blocks(t.lesson),
            false => 0,
        },
        sample_seed: super::sample::fresh_sample_seed(),
        // A figure the kernel times must be what its clock read: a constant, or one made
        // up from anything but the clock, does not grow when the clock runs faster.
        clock_checked: true,
        // ... and a figure a check judges per access must count each access's timed
        // load at its time: one scaled by 7/8 grows with a faster clock all the same.
        delays_checked: (ex.checks.iter())
            .filter_map(|c| c.measure().map(str::to_string))
            .collect(),
        // Warps handing values over through shared memory with nothing ordering them come
        // out right in one order of turns only: the output is checked in the other too.
        order_checked: true,
        // A compare-and-swap made once loses updates where another thread's lands first:
        // the output is checked with such swaps failing too.
        swaps_checked: true,
        // Where a check judges how much of what yours reads from a space reaches the
        // output, yours runs again, a load site at a time, with those values perturbed.
        perturb: perturbings(ex),
        ..RunOptions::default()
    };
    if let Some(k) = &earlier {
        options.sample_seed = k.seed;
    }
    let progress = super::report::progress(&mut say);
    let (mut result, outcome) = interpret(client, &main, &options, small.as_ref(), progress);
    if let Err(f) = outcome {
        say(&format!("error: {f}"));
    }
    keep_or_splice(
        t,
        (&key, &compared),
        (&main, &mut result),
        earlier,
        options.sample_seed,
    );
    let mut r = report(ex, result, false);
    let at = sizes_text(&t.lesson.problem_cpu);
    let main_at = (&r.result, at.as_str(), small.as_ref().unwrap_or(&main));
    if r.compile_error.is_none()
        && let Some(line) = super::output::stopped(t, &r.lines, main_at)
    {
        r.lines.insert(0, line);
        return r;
    }
    if r.compile_error.is_none() {
        // Where the CPU judges every check, the lesson's own size too: traced whole, its
        // output is checked there as at the other sizes; sampled, it is left to a GPU.
        let whole = super::sample::judged_whole_on_cpu(ex);
        let (traced, grid) = lesson_grid_traced(&main, &r);
        let lesson_size = (whole && grid > 0 && traced >= grid).then_some(&t.lesson.problem);
        let mut lines = std::mem::take(&mut r.lines);
        let first = correctness(
            client,
            t,
            yours,
            (&r, small.as_ref().unwrap_or(&main)),
            (&mut say, lesson_size.map(|p| p.as_slice())),
            &mut lines,
        );
        // Refused at some size (a texture fetch its blocks make there): the trace at the
        // lesson's size, whose sample may have met no fetch, judges nothing either.
        if super::report::refused_line(&first) {
            super::own_lines::leave_to_gpu(ex, &mut lines);
        }
        let sampled = first.mark == Mark::Pass && whole && lesson_size.is_none();
        r.lines = lines;
        r.lines.insert(0, first);
        if sampled {
            r.lines.insert(1, lesson_size_line(t, (traced, grid)));
        }
    }
    r
}

/// The words the line about the lesson's own size is known by.
pub const LESSON_SIZE_LINE: &str = "yours right in every block at the lesson's size";

/// Blocks of `yours` the main run traced at the lesson's size, and blocks in its grid there.
fn lesson_grid_traced(main: &Lesson, r: &CheckReport) -> (u64, u64) {
    let grid = (main.variants.iter())
        .find(|v| v.name == YOURS)
        .map_or(0, |v| v.blocks());
    let traced = yours_of(&r.result)
        .and_then(|v| v.memory.as_ref())
        .map_or(0, |m| m.traced_blocks);
    (traced, grid)
}

/// Where no check needs a GPU, the lesson's own size still does when its grid is wider
/// than the trace there: the interpreter checks the output at smaller sizes and traces a
/// sample of the blocks there, without a count of what the others did (a GPU's trace has
/// one, `trace::census`, and its check compares the whole output). A kernel that goes
/// wrong only in blocks the sample left out, at that size alone (a barrier skipped in one
/// block of 4096 above 2^21 words), would pass.
fn lesson_size_line(t: &Target, (traced, grid): (u64, u64)) -> CheckLine {
    CheckLine {
        check: LESSON_SIZE_LINE.into(),
        mark: Mark::NeedsGpu,
        detail: format!(
            "needs a GPU: at {} the interpreter traced {traced} of {grid} blocks and \
             compared no output; a GPU's check runs every block there",
            sizes_text(&t.lesson.problem)
        ),
        at: None,
    }
}

/// `cpu` with each of `sizes` put over it.
fn over_cpu(cpu: &[(String, i64)], sizes: &[(String, i64)]) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = (cpu.iter())
        .filter(|(k, _)| !sizes.iter().any(|(s, _)| s == k))
        .cloned()
        .collect();
    out.extend(sizes.iter().cloned());
    out
}

/// Why the exercise's lesson is not there at some sizes, in words for the check's line.
#[derive(Debug, thiserror::Error)]
enum NotAtSizes {
    #[error("no sizes are given")]
    NoSizes,
    /// The loader's first problem, at its file:line:col.
    #[error("{0}")]
    DoesNotLoad(String),
    #[error("the exercise is gone at these sizes")]
    Gone,
}

/// The exercise's lesson at `sizes`, with the variants of `keep` beside `yours`, or why
/// there is none.
fn at_sizes(
    t: &Target,
    yours: &Yours,
    sizes: &[(String, i64)],
    keep: &[String],
) -> Result<Lesson, NotAtSizes> {
    if sizes.is_empty() {
        return Err(NotAtSizes::NoSizes);
    }
    let sized = crate::course::reload_sized(t.root, &t.lesson.file, sizes).map_err(|errs| {
        NotAtSizes::DoesNotLoad(errs.first().map(|e| e.to_string()).unwrap_or_default())
    })?;
    let sx = (sized.exercises.iter())
        .find(|e| e.id == t.ex.id)
        .ok_or(NotAtSizes::Gone)?;
    Ok(exercise_lesson(&sized, sx, yours, Oracle::Solution, keep))
}

/// Right at the lesson's CPU size (the main run) and at every extra size of the exercise;
/// at each of them the checks a trace judges are judged again (`sizes`), into `lines`: the
/// main run traced the lesson's own size, a sample of its blocks, so a kernel that took the
/// taught path only in most blocks of a large grid could pass there; at the CPU's sizes
/// every block is traced.
fn correctness(
    client: &mut WorkerClient,
    t: &Target,
    yours: &Yours,
    (main, small): (&CheckReport, &Lesson),
    (say, lesson_size): (&mut impl FnMut(&str), Option<&[(String, i64)]>),
    lines: &mut [CheckLine],
) -> CheckLine {
    let mut checked = Vec::new();
    if !t.lesson.problem_cpu.is_empty() {
        let at = sizes_text(&t.lesson.problem_cpu);
        if let Err(l) = judge_output(yours_of(&main.result), &at, small) {
            return l;
        }
        if super::sizes::traced(t.ex, false)
            && let Err(l) = at_size(client, t, yours, &t.lesson.problem_cpu, say, lines)
        {
            return l;
        }
        checked.push(at);
    }
    let mut all = super::sizes::cpu_sizes(t.ex);
    all.extend(lesson_size.map(<[_]>::to_vec));
    for sizes in &all {
        // The exercise's size over the lesson's CPU sizes: `n: 70001` names the count it
        // varies; the rest (rounds, say) stay at the CPU's, not the GPU lesson's.
        let sizes = &over_cpu(&t.lesson.problem_cpu, sizes);
        if let Err(l) = at_size(client, t, yours, sizes, say, lines) {
            return l;
        }
        checked.push(sizes_text(sizes));
    }
    if checked.is_empty() {
        return CheckLine {
            check: CORRECT_LINE.into(),
            mark: Mark::NeedsGpu,
            detail:
                "needs a GPU (no CPU size: the lesson gives no problem_cpu, the exercise no sizes)"
                    .into(),
            at: None,
        };
    }
    line(
        Mark::Pass,
        format!(
            "right on the CPU interpreter, fresh inputs at {}",
            checked.join("; ")
        ),
    )
}

/// `yours` at `sizes` on the interpreter, right there (or the line that says it is not),
/// and, where the checks judged at every size need a trace, traced (every block of a
/// small grid) beside the solution where one compares with it, those checks judged again
/// into `lines`.
fn at_size(
    client: &mut WorkerClient,
    t: &Target,
    yours: &Yours,
    sizes: &[(String, i64)],
    say: &mut impl FnMut(&str),
    lines: &mut [CheckLine],
) -> Result<(), CheckLine> {
    let at = sizes_text(sizes);
    let variants = super::sizes::variants(t.ex, false);
    let l = at_sizes(t, yours, sizes, &variants[1..]).map_err(|why| {
        line(
            Mark::Fail,
            format!("the lesson does not load at {at}: {why}"),
        )
    })?;
    let traced = super::sizes::traced(t.ex, false);
    let device = interpreter();
    let key = kept_key(t, &device, &at);
    let compared = &variants[1..];
    let earlier = traced.then(|| kept(t, (&key, compared), &l)).flatten();
    let options = RunOptions {
        variants: if traced && earlier.is_none() {
            variants.clone()
        } else {
            vec![YOURS.into()]
        },
        trace: traced,
        trace_blocks: super::sizes::SIZE_TRACE_BLOCKS,
        sample_seed: (earlier.as_ref()).map_or_else(super::sample::fresh_sample_seed, |k| k.seed),
        // At every size: a swap made once only in a ragged last pass is there alone.
        swaps_checked: true,
        ..RunOptions::default()
    };
    say(&format!(
        "checking the output at {at} on the CPU interpreter"
    ));
    let (mut r, _) = interpret(client, &l, &options, Some(&l), |_| {});
    if traced {
        keep_or_splice(
            t,
            (&key, compared),
            (&l, &mut r),
            earlier,
            options.sample_seed,
        );
    }
    // The trace judged before the output: a race that makes the output wrong at this size
    // is named as the race it is, beside the wrong output.
    if traced {
        super::sizes::judge_at(t.ex, (&r, false), &at, lines);
    }
    judge_output(yours_of(&r), &at, &l)
}

/// The interpreter as the machine kept figures were made on (`kept_figures::Key`): its
/// traces are kept apart from any GPU's, and from another build's.
fn interpreter() -> DeviceInfo {
    DeviceInfo {
        name: format!(
            "the CPU interpreter of gpulab {}",
            env!("CARGO_PKG_VERSION")
        ),
        ..DeviceInfo::default()
    }
}

/// What the interpreter's kept figures hold: traces, never times.
const TRACED: Measured = Measured {
    timed: false,
    traced: true,
};

/// Where the kept traces of `t`'s exercise at the sizes `at` ("" the lesson's) are found.
fn kept_key<'a>(t: &'a Target, device: &'a DeviceInfo, at: &'a str) -> kept_figures::Key<'a> {
    kept_figures::Key {
        lesson: &t.lesson.id,
        exercise: &t.ex.id,
        device,
        editing: false,
        at,
    }
}

/// What an earlier check kept of `lesson`'s compared variants' traces, where this check
/// reuses figures (`--reuse-figures`).
fn kept(
    t: &Target,
    (key, names): (&kept_figures::Key, &[String]),
    lesson: &Lesson,
) -> Option<Kept> {
    let dir = t.reuse.filter(|_| !t.quick)?;
    let blank = Plan::Interpreted.blank(lesson)?;
    kept_figures::load(dir, key, names, &blank, TRACED)
}

/// The kept traces put in `result` in place of the variants this run left out, or this
/// run's kept for the next check (only whole: no compared variant wrong, each traced; a
/// folder that cannot be written costs the next check time, not this one its verdict).
fn keep_or_splice(
    t: &Target,
    (key, names): (&kept_figures::Key, &[String]),
    (lesson, result): (&Lesson, &mut LessonResult),
    earlier: Option<Kept>,
    seed: u32,
) {
    match (earlier, t.reuse.filter(|_| !t.quick)) {
        (Some(k), _) => super::quick::splice(lesson, result, k.variants),
        (None, Some(dir)) => {
            let _ = kept_figures::store(dir, key, names, (result, TRACED, seed));
        }
        (None, None) => {}
    }
}

/// `lesson` on the CPU interpreter as its plan runs it (`Plan::Interpreted`: the blank
/// result it fills and the request it sends), outputs checked at `sized`'s sizes: this
/// check is reached through the plan (`source::plan`), or after a check on a GPU, whose
/// passes the interpreter judges again (`output::strictly`).
fn interpret(
    client: &mut WorkerClient,
    lesson: &Lesson,
    options: &RunOptions,
    sized: Option<&Lesson>,
    on_reply: impl FnMut(&crate::model::protocol::Reply),
) -> (LessonResult, Result<(), WorkerFailure>) {
    let plan = Plan::Interpreted;
    let mut result = (plan.blank(lesson)).expect("an interpreted run fills a result");
    let req = (plan.request(lesson, options, sized)).expect("an interpreted run is a request");
    let outcome = fold::request(client, &req, lesson, &mut result, on_reply);
    (result, outcome)
}

/// A GPU gives some wrong kernels the right output by the luck of its hardware: a read
/// past the end of an input whose words are then masked off, a shuffle from a lane that
/// has exited, shared memory read before any thread wrote it. The interpreter refuses
/// each of them (it poisons what was never written and checks every access), so a full
/// check that passed on the GPU also runs the output and race checks there, at the CPU's
/// sizes, and fails where it fails. Where the interpreter cannot run the kernel (textures,
/// say), the GPU's word stands.
///
/// The CPU's sizes are sizes this check is made at too: a trace's checks that fail there
/// (every block traced, `cpu::correctness`) fail here, so a kernel that leaves the taught
/// path only at a size the GPU does not run is not passed. Those judged at the lesson's
/// size stand as the GPU traced them.
pub(super) fn strictly(
    client: &mut WorkerClient,
    t: &Target,
    yours: &Yours,
    say: &mut impl FnMut(&str),
    lines: &mut Vec<CheckLine>,
) {
    say("checking the output again on the CPU interpreter, which runs every access strictly");
    let cpu = super::cpu::check_cpu(client, t, yours, |_| {});
    // A figure only the interpreter makes is its verdict, pass or fail.
    let cpu_only: Vec<&str> = (t.ex.checks.iter())
        .filter(|c| c.metric().is_some_and(|m| m.judged_on_cpu()))
        .map(|c| c.text.as_str())
        .collect();
    for c in (cpu.lines.iter()).filter(|c| cpu_only.contains(&c.check.as_str())) {
        if let Some(l) = lines.iter_mut().find(|l| l.check == c.check) {
            l.mark = c.mark;
            l.detail = format!("on the CPU interpreter: {}", c.detail);
        }
    }
    let failed = (cpu.lines.iter()).filter(|c| c.mark == Mark::Fail);
    for c in
        failed.filter(|c| [CORRECT_LINE, RACE_LINE].contains(&c.check.as_str()) || c.at.is_some())
    {
        let detail = format!(
            "on the CPU interpreter, which runs every access strictly: {}",
            c.detail
        );
        match lines.iter_mut().find(|l| l.check == c.check) {
            Some(l) => {
                l.mark = Mark::Fail;
                l.detail = detail;
            }
            // The GPU gave no line of it (a kernel that faulted there has no trace to
            // judge its races on): the interpreter's verdict is the line.
            None => lines.push(CheckLine {
                mark: Mark::Fail,
                detail,
                ..c.clone()
            }),
        }
    }
}

/// The deciding check of `t` judged on the CPU interpreter, the only maker of its figure
/// (a full GPU check takes it from there too, `output::strictly`).
pub(super) fn judge_deciding(
    client: &mut WorkerClient,
    t: &Target,
    yours: &Yours,
    say: &mut impl FnMut(&str),
) -> CheckReport {
    let mut r = super::cpu::check_cpu(client, t, yours, &mut *say);
    for l in (r.lines.iter_mut()).filter(|l| l.mark == Mark::Fail) {
        l.detail = format!("on the CPU interpreter: {}", l.detail);
    }
    r
}

/// Each space and kind of site the exercise's checks perturb, once: the interpreter runs
/// the variant again for each.
fn perturbings(ex: &Exercise) -> Vec<Perturbing> {
    let mut asked: Vec<Perturbing> = Vec::new();
    for p in (ex.checks.iter()).filter_map(|c| c.metric()?.perturbing()) {
        if !asked.contains(&p) {
            asked.push(p);
        }
    }
    asked
}

#[cfg(test)]
mod tests {
    use super::over_cpu;

    #[test]
    fn an_exercise_size_replaces_only_the_counts_it_names() {
        let cpu = [("n".to_string(), 512), ("rounds".to_string(), 16)];
        let ex = [("n".to_string(), 70001)];
        let mut got = over_cpu(&cpu, &ex);
        got.sort();
        assert_eq!(
            got,
            [("n".to_string(), 70001), ("rounds".to_string(), 16)],
            "rounds stays at the CPU's size, not the GPU lesson's 256"
        );
        assert_eq!(over_cpu(&[], &ex), ex);
    }
}
