//! Where an exercise check's trace looks, and how widely: blocks drawn by a hash with a
//! seed of the check's own (`RunOptions::sample_seed`), so that a kernel that takes the
//! taught path only in some of its blocks cannot know which are looked at; at the lesson's
//! size, as many as the records allow on a GPU, and the lesson's few on the CPU
//! interpreter except where it judges every check.

use crate::model::Lesson;
use crate::model::exercise::Exercise;

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
/// trace at the lesson's size must then look as widely as a GPU's (`main_trace_blocks`),
/// not at the lesson's few blocks, and it checks the output at every size a GPU does, the
/// lesson's own where that trace took its every block; a wider grid there is left to a
/// GPU (`cpu::LESSON_SIZE_LINE`).
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

/// A seed for the traced sample of one check (`RunOptions::sample_seed`), never 0.
pub fn fresh_sample_seed() -> u32 {
    (fresh_seed() as u32).max(1)
}

/// A seed drawn afresh from the process's random hasher keys (new ones each call) and the
/// time, so no kernel can know it: a check's sample, a run's drawn arguments.
pub fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    h.write_u128(now.map_or(0, |d| d.as_nanos()));
    h.finish()
}
