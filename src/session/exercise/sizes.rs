//! An exercise's figures at every size it is checked at, not only the lesson's: a kernel
//! that takes the taught path only where the size is a multiple of its tile (and falls
//! back to an untiled loop elsewhere) passes checks judged at one size. At each extra size
//! `yours` is traced (every block, as far as the trace buffer goes) beside the solution
//! where a check names it, and every check whose figure a trace or the compiler gives is
//! judged again; one that fails there fails, saying where. Checks on times and on the
//! lesson's own variants are judged at the lesson's size only (those variants need not run
//! at a ragged size, and a time at a small size says little), but for an exercise that
//! asks for its times at every size (`times_at_every_size`): its technique shows in no
//! count, and only a time tells a kernel that takes it at the lesson's size alone.

use super::own_lines::RACE_LINE;
use super::report::{CheckLine, Mark};
use crate::analysis::claims::evaluate;
use crate::model::claim::{Claim, ClaimKind, CmpOp, Metric};
use crate::model::exercise::{Exercise, SOLUTION, YOURS};
use crate::model::results::{LessonResult, VariantResult};

/// Blocks traced at an extra size: the whole grid of the small sizes an exercise gives,
/// a wide sample of a large one (the tracer shrinks it to whole clusters that fit).
pub const SIZE_TRACE_BLOCKS: u32 = 4096;

/// The most records a GPU trace at an extra size takes (`RunOptions::trace_records`):
/// past it the sample is fewer whole clusters, as wide as this many records allow.
pub const SIZE_TRACE_RECORDS: u32 = 1 << 20;

/// Whether `c` is judged again at every extra size: a figure of the trace or the compile
/// report, of `yours` alone or against the solution. A total (sectors, requests, bytes)
/// grows with the size, so against a number it is judged at every size only where the
/// claim asks whether there is any (`== 0`, `> 0`); against the solution, always.
pub fn at_every_size(c: &Claim) -> bool {
    // A figure only the CPU interpreter makes is made once, at the CPU size.
    let traced = |m: &Metric| {
        !matches!(
            m,
            Metric::TimeMs | Metric::Gbps | Metric::Gflops | Metric::PctOfPeak | Metric::Occupancy
        ) && !m.judged_on_cpu()
    };
    match &c.kind {
        ClaimKind::Metric {
            metric, op, value, ..
        } => traced(metric) && (!total(*metric) || presence(*op, *value)),
        ClaimKind::MetricRatio { b, metric, .. } => traced(metric) && (b == YOURS || b == SOLUTION),
        ClaimKind::Makes { .. } => true,
        _ => false,
    }
}

/// Whether `c` is judged again at every extra size of `ex` on a GPU (`gpu`) or on the CPU
/// interpreter: as `at_every_size`; on a GPU a time too, where the exercise asks for it;
/// on the interpreter a figure its trace counts without a rerun (`counted`).
pub fn judged_at_every_size(ex: &Exercise, c: &Claim, gpu: bool) -> bool {
    at_every_size(c)
        || match gpu {
            true => ex.times_at_every_size && timed(c),
            false => counted(c),
        }
}

/// A figure only the interpreter makes, in every trace of it (no rerun with values
/// perturbed), of `yours` alone or against the solution: `calls.work_pct`. A kernel that
/// leaves its function half the work at every size but the one a check first runs at is
/// judged at the others too.
fn counted(c: &Claim) -> bool {
    let by_trace = |m: &Metric| m.judged_on_cpu() && m.perturbing().is_none();
    match &c.kind {
        ClaimKind::Metric { metric, .. } => by_trace(metric),
        ClaimKind::MetricRatio { metric, b, .. } => {
            by_trace(metric) && (b == YOURS || b == SOLUTION)
        }
        _ => false,
    }
}

/// A claim on a time or a rate worked out from it, of `yours` alone or against the
/// solution (the lesson's own variants need not run at a ragged size).
fn timed(c: &Claim) -> bool {
    let time = |m: &Metric| m.is_timing();
    let ours = |b: &str| b == YOURS || b == SOLUTION;
    match &c.kind {
        ClaimKind::Ratio { b, .. } | ClaimKind::Within { b, .. } => ours(b),
        ClaimKind::Metric { metric, .. } => time(metric),
        ClaimKind::MetricRatio { metric, b, .. } => time(metric) && ours(b),
        _ => false,
    }
}

/// Whether the first run at an extra size of `ex` is timed.
pub fn timed_at_every_size(ex: &Exercise) -> bool {
    ex.times_at_every_size && ex.checks.iter().any(timed)
}

/// A figure that counts the whole grid's work, and so grows with the problem's size.
fn total(m: Metric) -> bool {
    matches!(
        m,
        Metric::GlobalSectors
            | Metric::GlobalRequests
            | Metric::GlobalLoadRequests
            | Metric::GlobalStoreRequests
            | Metric::LocalBytes
            | Metric::ClusterRemoteRequests
            | Metric::ClusterRemoteSectors
            | Metric::ClusterRemoteBlocks
            | Metric::SharedRaces
            | Metric::GlobalAtomicRequests
            | Metric::AtomicUpdates
            | Metric::CopyGlobalRequests
            | Metric::CopyBulkRequests
    )
}

/// Whether `figure op value` asks only whether there is any: none (`== 0`, `<= 0`, `< 1`)
/// or some (`> 0`, `>= 1`, `!= 0`).
fn presence(op: CmpOp, value: f64) -> bool {
    match op {
        CmpOp::Eq | CmpOp::Le | CmpOp::Ne => value == 0.0,
        CmpOp::Lt | CmpOp::Ge => value > 0.0 && value <= 1.0,
        CmpOp::Gt => value == 0.0,
    }
}

/// The variants the first run at an extra size runs: `yours`, and the solution and the
/// lesson's variants where a check judged there compares with them (on a GPU, `gpu`, the
/// time checks too where the exercise asks for them).
pub fn variants(ex: &Exercise, gpu: bool) -> Vec<String> {
    let mut v = vec![YOURS.to_string()];
    for c in (ex.checks.iter()).filter(|c| judged_at_every_size(ex, c, gpu)) {
        for name in c.variants() {
            if !v.iter().any(|n| n == name) {
                v.push(name.to_string());
            }
        }
    }
    // The solution first after `yours`: it is the oracle at a size the lesson's variants
    // may not handle.
    if let Some(i) = v.iter().position(|n| n == SOLUTION) {
        let s = v.remove(i);
        v.insert(1, s);
    }
    v
}

/// Whether the checks judged at every size need a trace there (or only the output), on a
/// GPU (`gpu`) or on the interpreter.
pub fn traced(ex: &Exercise, gpu: bool) -> bool {
    (ex.checks.iter()).any(|c| at_every_size(c) || (!gpu && counted(c)))
}

/// The sizes the CPU interpreter checks `ex`'s output at, beside the lesson's CPU size:
/// its `sizes_cpu` (the GPU's `sizes` where it gives none), and every size a GPU checks
/// too where the CPU judges every check (`judged_whole_on_cpu`: no check needs a
/// GPU) or where a check's figure only the interpreter's trace makes (`counted`: a GPU
/// check takes it from the interpreter, `output::strictly`). A kernel that goes wrong only
/// in the grid of a GPU's size (a barrier skipped only where there are 900 to 1,000
/// blocks, a fence only below half a million words) would otherwise pass; a stencil or a
/// sum at a million points takes the interpreter a few seconds.
pub fn cpu_sizes(ex: &Exercise) -> Vec<Vec<(String, i64)>> {
    let mut out = ex.sizes_cpu.clone().unwrap_or_else(|| ex.sizes.clone());
    if super::sample::judged_whole_on_cpu(ex) || ex.checks.iter().any(counted) {
        for s in &ex.sizes {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
    }
    out
}

/// Judge the checks again on `result`, a run at `at`: a check that held at the lesson's
/// size and fails here (or is not measured here) is marked so in `lines`, with the size.
/// The race line fails too where `yours` races at this size.
pub fn judge_at(
    ex: &Exercise,
    (result, gpu): (&LessonResult, bool),
    at: &str,
    lines: &mut [CheckLine],
) {
    for c in (ex.checks.iter()).filter(|c| judged_at_every_size(ex, c, gpu)) {
        let r = evaluate(c, result);
        let mark = match r.holds {
            Some(true) => continue,
            Some(false) => Mark::Fail,
            None => Mark::NotMeasured,
        };
        let Some(line) = lines.iter_mut().find(|l| l.check == c.text) else {
            continue;
        };
        // The first size a check fails at is the one it names.
        if line.mark == Mark::Pass || (line.mark == Mark::NotMeasured && mark == Mark::Fail) {
            line.mark = mark;
            line.detail = format!("at {at}: {}", r.detail);
            line.at = Some(at.to_string());
        }
    }
    let yours = result.variants.iter().find(|v| v.name == YOURS);
    if let Some(why) = yours.and_then(race_at) {
        match lines.iter_mut().find(|l| l.check == RACE_LINE) {
            Some(line) if line.mark != Mark::Fail => {
                line.mark = Mark::Fail;
                line.detail = format!("at {at}: {why}");
                line.at = Some(at.to_string());
            }
            _ => {}
        }
    }
}

/// The first race of `v`'s trace, in a learner's words.
fn race_at(v: &VariantResult) -> Option<String> {
    let mem = v.memory.as_ref()?;
    mem.races.first().map(crate::analysis::race_words::race_why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::claims::parse_claim;

    fn claim(text: &str) -> Claim {
        parse_claim(text, &["yours", "solution", "naive"]).unwrap()
    }

    #[test]
    fn trace_and_compile_checks_are_judged_at_every_size_and_times_are_not() {
        for (text, every) in [
            ("yours global.sectors_per_request <= 4", true),
            ("yours global.requests at most 1.1x solution", true),
            ("yours makes shared loads", true),
            ("yours stack_frame == 0", true),
            ("yours local.bytes == 0", true),
            ("yours cluster.remote_requests > 0", true),
            ("yours global.sectors >= 1572864", false),
            ("yours cluster.remote_requests <= 16384", false),
            ("yours global.requests less than naive by >= 13.6x", false),
            ("yours faster than naive by >= 2x", false),
            ("yours time_ms at most 1.15x solution", false),
            ("yours pct_of_peak >= 85", false),
        ] {
            assert_eq!(at_every_size(&claim(text)), every, "{text}");
        }
    }

    #[test]
    fn an_exercise_that_asks_for_times_at_every_size_judges_those_against_the_solution() {
        let root = crate::course::bundle::CourseRoot::Bundled;
        let (lessons, _) = crate::course::load_course(&root);
        let any = lessons.iter().flat_map(|l| &l.exercises).next().unwrap();
        let ex = |times: bool, checks: &[&str]| Exercise {
            times_at_every_size: times,
            checks: checks.iter().map(|t| claim(t)).collect(),
            ..any.clone()
        };
        let checks = [
            "yours faster than naive by >= 2x",
            "yours faster than solution by >= 0.87x",
            "yours pct_of_peak >= 150",
            "yours global.sectors at most 1.1x solution",
        ];
        let judged = |e: &Exercise| -> Vec<bool> {
            e.checks
                .iter()
                .map(|c| judged_at_every_size(e, c, true))
                .collect()
        };
        let asks = ex(true, &checks);
        assert_eq!(judged(&asks), [false, true, true, true]);
        assert!(timed_at_every_size(&asks));
        // On a GPU the solution runs there for the times; the slow variant never does.
        assert_eq!(variants(&asks, true), [YOURS, SOLUTION]);
        let plain = ex(false, &checks);
        assert_eq!(judged(&plain), [false, false, false, true]);
        assert!(!timed_at_every_size(&plain));
        let times_only = ex(true, &checks[..3]);
        assert_eq!(variants(&times_only, true), [YOURS, SOLUTION]);
        // The CPU times nothing: only the trace's checks ask for a variant there.
        assert_eq!(variants(&times_only, false), [YOURS]);
    }

    #[test]
    fn the_cpu_checks_every_gpu_size_where_it_judges_every_check() {
        let root = crate::course::bundle::CourseRoot::Bundled;
        let (lessons, _) = crate::course::load_course(&root);
        let any = lessons.iter().flat_map(|l| &l.exercises).next().unwrap();
        let n = |v: i64| vec![("n".to_string(), v)];
        let ex = |checks: &[&str]| Exercise {
            checks: checks.iter().map(|t| claim(t)).collect(),
            sizes: vec![n(1000003), n(4099)],
            sizes_cpu: Some(vec![n(4099), n(700)]),
            ..any.clone()
        };
        // No check needs a GPU: a size only a GPU would check is checked on the CPU too.
        let whole = ex(&["yours global.sectors at most 1.1x solution"]);
        assert_eq!(cpu_sizes(&whole), [n(4099), n(700), n(1000003)]);
        // A time follows on a GPU, which checks the large size itself.
        let timed = ex(&[
            "yours global.sectors at most 1.1x solution",
            "yours faster than naive by >= 2x",
        ]);
        assert_eq!(cpu_sizes(&timed), [n(4099), n(700)]);
        // ... but a figure only the interpreter's trace makes is made at the GPU's sizes too.
        let fenced = ex(&[
            "yours global.unfenced_handover_words == 0",
            "yours faster than naive by >= 2x",
        ]);
        assert_eq!(cpu_sizes(&fenced), [n(4099), n(700), n(1000003)]);
        let no_cpu_list = Exercise {
            sizes_cpu: None,
            ..timed
        };
        assert_eq!(cpu_sizes(&no_cpu_list), [n(1000003), n(4099)]);
    }

    #[test]
    fn a_drawn_size_follows_the_fixed_ones_fresh_each_check_over_its_whole_range() {
        let root = crate::course::bundle::CourseRoot::Bundled;
        let (lessons, _) = crate::course::load_course(&root);
        let any = lessons.iter().flat_map(|l| &l.exercises).next().unwrap();
        let n = |v: i64| vec![("n".to_string(), v)];
        let (lo, hi) = (1_000_000, 200_000_000);
        let ex = Exercise {
            sizes: vec![n(1000003), n(4099)],
            drawn_size: vec![crate::model::exercise::DrawnSize {
                name: "n".into(),
                lo,
                hi,
            }],
            ..any.clone()
        };
        let drawn: Vec<i64> = (0..400u64)
            .map(|seed| {
                let s = ex.checked_sizes(seed.wrapping_mul(0x2545_f491_4f6c_dd1d));
                assert_eq!(s.len(), 3);
                assert_eq!(s[..2], [n(1000003), n(4099)]);
                assert_eq!(s[2].len(), 1);
                s[2][0].1
            })
            .collect();
        assert!(drawn.iter().all(|&v| (lo..=hi).contains(&v)), "{drawn:?}");
        // Evenly in the logarithm: about half below the range's geometric middle (about
        // 14 million), and some in each tenth of it, the lowest (1 to 1.7 million) too.
        let below = drawn.iter().filter(|&&v| v < 14_142_136).count();
        assert!(
            (140..260).contains(&below),
            "{below} of 400 below the middle"
        );
        assert!(drawn.iter().any(|&v| v < 1_700_000), "{drawn:?}");
        assert!(drawn.iter().any(|&v| v > 117_000_000), "{drawn:?}");
        // Another seed, another size: a kernel cannot know it.
        let distinct: std::collections::HashSet<_> = drawn.iter().collect();
        assert!(distinct.len() > 390, "{} distinct of 400", distinct.len());
        // None drawn: the fixed sizes alone.
        let fixed = Exercise {
            drawn_size: Vec::new(),
            ..ex
        };
        assert_eq!(fixed.checked_sizes(7), [n(1000003), n(4099)]);
    }

    #[test]
    fn the_interpreters_own_count_of_work_in_functions_is_judged_at_every_cpu_size() {
        let root = crate::course::bundle::CourseRoot::Bundled;
        let (lessons, _) = crate::course::load_course(&root);
        let any = lessons.iter().flat_map(|l| &l.exercises).next().unwrap();
        let ex = Exercise {
            checks: vec![
                claim("yours calls.work_pct at least 0.9x solution"),
                claim("yours shared.feeds_output_pct == 100"),
            ],
            ..any.clone()
        };
        let judged = |gpu| -> Vec<bool> {
            (ex.checks.iter())
                .map(|c| judged_at_every_size(&ex, c, gpu))
                .collect()
        };
        // Every interpreter trace counts it; a figure made by a rerun with values
        // perturbed is made once, and a GPU's trace counts neither.
        assert_eq!(judged(false), [true, false]);
        assert_eq!(judged(true), [false, false]);
        assert!(traced(&ex, false) && !traced(&ex, true));
        assert_eq!(variants(&ex, false), [YOURS, SOLUTION]);
        assert_eq!(variants(&ex, true), [YOURS]);
    }
}
