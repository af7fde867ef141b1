//! Which blocks a trace samples, and how the sampled blocks' totals stand for the grid: the
//! GPU tracer and the CPU interpreter sample and scale alike, so their figures compare.

use crate::model::Variant;
use crate::model::access::{AccessKind, Space};
use crate::model::results::MemoryStats;

/// Which blocks are traced: every `stride`-th, at most `wanted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockSample {
    pub total: u64,
    pub wanted: u64,
    pub stride: u64,
    pub traced: u64,
}

impl BlockSample {
    /// The sample of `v`'s grid: `asked` blocks when given (not 0), else the lesson's
    /// `trace_blocks`.
    pub fn of(v: &Variant, lesson_blocks: u32, asked: u32) -> BlockSample {
        let total = v.blocks();
        let wanted = if asked > 0 { asked } else { lesson_blocks }.max(1) as u64;
        let stride = (total / wanted).max(1);
        let traced = total.div_ceil(stride).min(wanted);
        BlockSample {
            total,
            wanted,
            stride,
            traced,
        }
    }

    /// The traced figures of the sample made the grid's: shared totals split by direction,
    /// every count scaled by blocks in the grid over blocks traced.
    pub fn scale_to_grid(&self, m: &mut MemoryStats) {
        m.traced_blocks = self.traced;
        m.total_blocks = self.total;
        split_shared(m);
        scale(m, self.total as f64 / self.traced.max(1) as f64);
    }
}

/// Shared-memory totals by direction, summed from the per-instruction figures; the loads
/// of an atomic's compare-and-swap loop are loads (the atomics have their own totals).
fn split_shared(m: &mut MemoryStats) {
    for i in m.instructions.iter() {
        if let Some(a) = &i.atomic {
            m.shared.ld.requests += a.loop_loads;
            m.shared.ld.wavefronts += a.loop_load_wavefronts;
            m.shared.ld.ideal_wavefronts += a.loop_load_ideal;
            continue;
        }
        if i.space != Space::Shared {
            continue;
        }
        let c = match i.kind {
            AccessKind::Load => &mut m.shared.ld,
            AccessKind::Store => &mut m.shared.st,
            // An atomic has its summary's figures; these are never without them.
            AccessKind::Atomic | AccessKind::Reduction => continue,
            // Counted apart, with the copies' totals.
            AccessKind::AsyncCopy | AccessKind::BulkCopy => continue,
        };
        c.requests += i.requests;
        c.wavefronts += i.wavefronts;
        c.ideal_wavefronts += i.ideal_wavefronts;
    }
}

/// Scale traced totals from the sampled blocks to the whole grid.
fn scale(m: &mut MemoryStats, k: f64) {
    let s = |x: &mut u64| *x = (*x as f64 * k).round() as u64;
    s(&mut m.shared.requests);
    s(&mut m.shared.wavefronts);
    s(&mut m.shared.ideal_wavefronts);
    for c in [&mut m.shared.ld, &mut m.shared.st] {
        s(&mut c.requests);
        s(&mut c.wavefronts);
        s(&mut c.ideal_wavefronts);
    }
    s(&mut m.global.requests);
    s(&mut m.global.sectors);
    s(&mut m.global.lines);
    s(&mut m.global.bytes_used);
    s(&mut m.constant.requests);
    s(&mut m.constant.distinct);
    s(&mut m.local.bytes);
    s(&mut m.cluster.requests);
    s(&mut m.cluster.sectors);
    s(&mut m.cluster.remote_requests);
    s(&mut m.texture.requests);
    s(&mut m.texture.texels);
    s(&mut m.texture.rows);
    let a = &mut m.atomics;
    s(&mut a.shared.requests);
    s(&mut a.shared.wavefronts);
    s(&mut a.shared.ideal_wavefronts);
    for c in [&mut a.global_atom, &mut a.global_red] {
        s(&mut c.requests);
        s(&mut c.sectors);
    }
    s(&mut a.updates);
    s(&mut a.addresses);
    let c = &mut m.copies;
    s(&mut c.global.requests);
    s(&mut c.global.sectors);
    s(&mut c.shared.requests);
    s(&mut c.shared.wavefronts);
    s(&mut c.shared.ideal_wavefronts);
    s(&mut c.bulk_requests);
    s(&mut c.bulk_sectors);
    s(&mut c.bulk_bytes);
}
