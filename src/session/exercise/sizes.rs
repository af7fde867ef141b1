//! An exercise's figures at every size it is checked at, not only the lesson's: a kernel
//! that takes the taught path only where the size is a multiple of its tile (and falls
//! back to an untiled loop elsewhere) passes checks judged at one size. At each extra size
//! `yours` is traced (every block, as far as the trace buffer goes) beside the solution
//! where a check names it, and every check whose figure a trace or the compiler gives is
//! judged again; one that fails there fails, saying where. Checks on times and on the
//! lesson's own variants are judged at the lesson's size only: those variants need not run
//! at a ragged size, and a time at a small size says little.

use super::check::{CheckLine, Mark};
use super::own_lines::RACE_LINE;
use crate::analysis::claims::evaluate;
use crate::model::Lesson;
use crate::model::claim::{Claim, ClaimKind, CmpOp, Metric};
use crate::model::exercise::{Exercise, SOLUTION, YOURS};
use crate::model::results::{LessonResult, VariantResult};

/// Blocks traced at an extra size: the whole grid of the small sizes an exercise gives,
/// a wide sample of a large one (the tracer shrinks it to whole clusters that fit).
pub const SIZE_TRACE_BLOCKS: u32 = 4096;

/// Clusters (blocks, without clusters) an exercise check traces at the lesson's size, at
/// least (the lesson may ask for more), drawn anywhere in the grid
/// (`RunOptions::sample_seed`): a kernel that leaves the taught path in one block of eight
/// is in nearly every such sample ((7/8)^64 is 0.02%), where a lesson's few strided blocks
/// would miss it most of the time. Within `MAIN_TRACE_RECORDS`.
pub const MAIN_TRACE_CLUSTERS: u32 = 64;

/// The most records the trace at the lesson's size takes before its sample shrinks to
/// fewer clusters: about two and a half seconds of analysis per variant where eight checks
/// share a 16-core host (2^19 took five, and the live table of every answer half a minute
/// more than its five). A kernel whose blocks log many records is traced in fewer of them:
/// broadcast's blocks, 65,536 records each, in four or so.
pub const MAIN_TRACE_RECORDS: u32 = 1 << 18;

/// Whether the CPU interpreter judges every check of `ex` (none is about a time): its
/// verdict there is the exercise's whole verdict, so its trace at the lesson's size must
/// look as widely as a GPU's (`main_trace_blocks`), not at the lesson's few blocks.
pub fn judged_whole_on_cpu(ex: &Exercise) -> bool {
    !ex.checks
        .iter()
        .any(|c| crate::analysis::claims::needs_gpu(&c.kind))
}

/// Blocks to ask an exercise check's trace at `l`'s size for: `MAIN_TRACE_CLUSTERS` of its
/// largest cluster, or the lesson's own sample where that is wider.
pub fn main_trace_blocks(l: &Lesson) -> u32 {
    let per = (l.variants.iter())
        .filter_map(|v| v.attrs.cluster)
        .map(|c| c.iter().product::<u32>())
        .max()
        .unwrap_or(1);
    l.trace_blocks
        .max(MAIN_TRACE_CLUSTERS.saturating_mul(per.max(1)))
}

/// A seed for the traced sample of one check (`RunOptions::sample_seed`), never 0: drawn
/// afresh from the process's random hasher keys, so no kernel can know it.
pub fn fresh_sample_seed() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    h.write_u128(now.map_or(0, |d| d.as_nanos()));
    (h.finish() as u32).max(1)
}

/// The most records a GPU trace at an extra size takes (`RunOptions::trace_records`):
/// past it the sample is fewer whole clusters, as wide as this many records allow.
pub const SIZE_TRACE_RECORDS: u32 = 1 << 20;

/// Whether `c` is judged again at every extra size: a figure of the trace or the compile
/// report, of `yours` alone or against the solution. A total (sectors, requests, bytes)
/// grows with the size, so against a number it is judged at every size only where the
/// claim asks whether there is any (`== 0`, `> 0`); against the solution, always.
pub fn at_every_size(c: &Claim) -> bool {
    let traced = |m: &Metric| {
        !matches!(
            m,
            Metric::TimeMs | Metric::Gbps | Metric::Gflops | Metric::PctOfPeak | Metric::Occupancy
        )
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

/// A figure that counts the whole grid's work, and so grows with the problem's size.
fn total(m: Metric) -> bool {
    matches!(
        m,
        Metric::GlobalSectors
            | Metric::GlobalRequests
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

/// The variants an extra size runs: `yours`, and the solution where a check judged there
/// compares with it.
pub fn variants(ex: &Exercise) -> Vec<String> {
    let mut v = vec![YOURS.to_string()];
    let solution = (ex.checks.iter())
        .filter(|c| at_every_size(c))
        .any(|c| c.variants().contains(&SOLUTION));
    if solution {
        v.push(SOLUTION.to_string());
    }
    v
}

/// Whether the checks judged at every size need a trace there (or only the output).
pub fn traced(ex: &Exercise) -> bool {
    ex.checks.iter().any(at_every_size)
}

/// Judge the checks again on `result`, a run at `at`: a check that held at the lesson's
/// size and fails here (or is not measured here) is marked so in `lines`, with the size.
/// The race line fails too where `yours` races at this size.
pub fn judge_at(ex: &Exercise, result: &LessonResult, at: &str, lines: &mut [CheckLine]) {
    for c in ex.checks.iter().filter(|c| at_every_size(c)) {
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
}
