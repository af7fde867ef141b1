//! Which blocks a trace samples, and how the sampled blocks' totals stand for the grid: the
//! GPU tracer and the CPU interpreter sample and scale alike, so their figures compare.

use crate::model::Variant;
use crate::model::access::{AccessKind, Space};
use crate::model::results::MemoryStats;

/// Which blocks are traced: every `stride`-th cluster, at most `wanted` clusters, each
/// cluster whole (a launch without clusters has clusters of one block). Whole clusters,
/// so that the race analysis sees every block that may touch a traced block's shared
/// memory, and every block whose memory a traced block touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockSample {
    /// Blocks in the grid.
    pub total: u64,
    /// Clusters asked for.
    pub wanted: u64,
    /// Clusters apart.
    pub stride: u64,
    /// Blocks traced.
    pub traced: u64,
    /// Blocks in a cluster (1 without clusters).
    pub per: u64,
    /// The first traced cluster: `offset`, `offset + stride`, ... (below `stride`).
    pub offset: u64,
}

impl BlockSample {
    /// The sample of `v`'s grid: `asked` blocks when given (not 0), else the lesson's
    /// `trace_blocks`, in whole clusters.
    pub fn of(v: &Variant, lesson_blocks: u32, asked: u32) -> BlockSample {
        let per = u64::from(
            v.attrs
                .cluster
                .map_or(1, |c| c.iter().product::<u32>())
                .max(1),
        );
        let total = v.blocks();
        let clusters = (total / per).max(1);
        let blocks = if asked > 0 { asked } else { lesson_blocks }.max(1) as u64;
        let wanted = blocks.div_ceil(per);
        let stride = (clusters / wanted).max(1);
        let traced = clusters.div_ceil(stride).min(wanted) * per;
        BlockSample {
            total,
            wanted,
            stride,
            traced: traced.min(total),
            per,
            offset: 0,
        }
    }

    /// The same sample started at cluster `seed % stride` instead of the first: as many
    /// clusters where the grid holds them (one fewer where the last would fall past it).
    pub fn starting_anywhere(mut self, seed: u64) -> BlockSample {
        let clusters = (self.total / self.per).max(1);
        self.offset = seed % self.stride.max(1);
        let reach = (clusters - self.offset.min(clusters - 1)).div_ceil(self.stride.max(1));
        self.traced = (reach.min(self.wanted) * self.per).min(self.total);
        self
    }

    /// A sample of fewer clusters, about `share` of these (at least one), spread over the
    /// grid as evenly: for a trace that would not fit whole. None when one cluster is all
    /// this sample traces already.
    pub fn fewer(&self, share: f64) -> Option<BlockSample> {
        let per = self.per.max(1);
        let clusters = self.traced.div_ceil(per);
        if clusters <= 1 {
            return None;
        }
        let wanted = ((clusters as f64 * share * 0.9).floor() as u64).clamp(1, clusters - 1);
        let all = self.total / per;
        let stride = (all / wanted).max(1);
        Some(BlockSample {
            total: self.total,
            wanted,
            stride,
            traced: (all.div_ceil(stride).min(wanted) * per).min(self.total),
            per,
            offset: 0,
        })
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
            // The tensor cores' loads are shared loads too; Nsight Compute's names keep
            // them apart (`op_ldsm`), the per-instruction figures do.
            AccessKind::Load | AccessKind::Matrix => &mut m.shared.ld,
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
    s(&mut c.global_bytes_used);
    s(&mut c.waits);
    s(&mut c.waits_in_flight);
    s(&mut m.calls);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::variant;

    fn grid(blocks: u32) -> Variant {
        let mut v = variant("v");
        v.grid = [blocks, 1, 1];
        v
    }

    #[test]
    fn the_lesson_sample_takes_every_stride_th_block_and_scales_by_the_stride() {
        // 16384 blocks, 2 wanted: blocks 0 and 8192, each standing for 8192.
        let s = BlockSample::of(&grid(16384), 2, 0);
        assert_eq!((s.stride, s.traced), (8192, 2));
        let mut m = MemoryStats::default();
        m.global.sectors = 574;
        s.scale_to_grid(&mut m);
        assert_eq!(m.global.sectors, 574 * 8192);
        assert_eq!((m.traced_blocks, m.total_blocks), (2, 16384));
    }

    #[test]
    fn a_sample_too_large_to_trace_whole_shrinks_to_fewer_whole_clusters() {
        let mut v = grid(256);
        v.attrs.cluster = Some([2, 1, 1]);
        let s = BlockSample::of(&v, 16, 0);
        assert_eq!((s.wanted, s.stride, s.traced), (8, 16, 16));
        // A third of the records fit: two clusters (of eight), spread over the grid.
        let f = s.fewer(1.0 / 3.0).unwrap();
        assert_eq!((f.wanted, f.stride, f.traced), (2, 64, 4));
        // Far too many: one cluster, never none.
        let one = s.fewer(1e-9).unwrap();
        assert_eq!((one.wanted, one.traced), (1, 2));
        assert_eq!(one.fewer(0.5), None);
    }

    #[test]
    fn a_sample_may_start_anywhere_below_its_stride() {
        let s = BlockSample::of(&grid(1000), 4, 0);
        assert_eq!((s.stride, s.traced, s.offset), (250, 4, 0));
        let t = s.starting_anywhere(1234);
        assert_eq!((t.offset, t.traced), (1234 % 250, 4));
        // 10 blocks, 4 wanted: every 2nd from block 1 is 1, 3, 5, 7 (9 is past the four).
        let s = BlockSample::of(&grid(10), 4, 0).starting_anywhere(1);
        assert_eq!((s.stride, s.offset, s.traced), (2, 1, 4));
        // 7 blocks, 4 wanted, stride 1: from block 5 only 5 and 6 are left.
        let s = BlockSample::of(&grid(7), 4, 0).starting_anywhere(5);
        assert_eq!(
            (s.stride, s.offset),
            (1, 0),
            "a stride of 1 leaves no room to move"
        );
        let s = BlockSample::of(&grid(9), 4, 0).starting_anywhere(7);
        assert_eq!((s.stride, s.offset, s.traced), (2, 1, 4));
    }

    #[test]
    fn a_cluster_launch_is_sampled_in_whole_clusters() {
        // 64 clusters of 4 blocks; 2 blocks asked for: one cluster, all four of its blocks.
        let mut v = grid(256);
        v.attrs.cluster = Some([4, 1, 1]);
        let s = BlockSample::of(&v, 2, 0);
        assert_eq!((s.wanted, s.stride, s.traced), (1, 64, 4));
        // 8 blocks asked: 2 clusters, 32 apart, 8 blocks.
        let s = BlockSample::of(&v, 8, 0);
        assert_eq!((s.wanted, s.stride, s.traced), (2, 32, 8));
        // Every block asked for: every cluster.
        let s = BlockSample::of(&v, 2, 256);
        assert_eq!((s.wanted, s.stride, s.traced), (64, 1, 256));
    }

    #[test]
    fn asking_for_the_grid_s_blocks_traces_every_block_and_scales_nothing() {
        // What `run --trace-blocks N` asks: an edge block's work (block 0's halo, the last
        // block's tail) counted once, not once per block it would stand for.
        for asked in [256, 1000] {
            let s = BlockSample::of(&grid(256), 2, asked);
            assert_eq!(
                (s.stride, s.traced, s.total),
                (1, 256, 256),
                "asked {asked}"
            );
            let mut m = MemoryStats::default();
            m.global.sectors = 36 * 8 * 256 - 4;
            m.copies.shared.wavefronts = 2;
            s.scale_to_grid(&mut m);
            assert_eq!(m.global.sectors, 36 * 8 * 256 - 4);
            assert_eq!(m.copies.shared.wavefronts, 2);
        }
        // Fewer asked than the grid: a sample again.
        let s = BlockSample::of(&grid(256), 2, 64);
        assert_eq!((s.stride, s.traced), (4, 64));
    }
}
