//! Which blocks a trace samples, and how the sampled blocks' totals stand for the grid: the
//! GPU tracer and the CPU interpreter sample and scale alike, so their figures compare.

use crate::model::Variant;
use crate::model::access::{AccessKind, Space};
use crate::model::results::MemoryStats;

/// Which blocks are traced, in whole clusters (a launch without clusters has clusters of
/// one block): every `stride`-th cluster from the first, at most `wanted` (a lesson's
/// sample, the same blocks every run, so recordings compare), or, with a `seed`, the
/// clusters whose hash with the seed is at most `below`, about `wanted` of them anywhere in
/// the grid (an exercise check's: a kernel that takes the taught path only in some blocks
/// cannot know which are looked at). Whole clusters, so that the race analysis sees every
/// block that may touch a traced block's shared memory, and every block whose memory a
/// traced block touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockSample {
    /// Blocks in the grid.
    pub total: u64,
    /// Clusters asked for.
    pub wanted: u64,
    /// Clusters apart (a strided sample).
    pub stride: u64,
    /// Blocks traced.
    pub traced: u64,
    /// Blocks in a cluster (1 without clusters).
    pub per: u64,
    /// 0: the strided sample; else the hash's seed (the logger's prologue draws the same
    /// clusters from it and `below`: `mix`).
    pub seed: u32,
    /// A seeded sample traces the clusters whose hash is at most this: about
    /// `wanted / clusters` of the hash's range.
    pub below: u32,
    /// Clusters traced besides the sample, by linear index (`NO_CLUSTER`: none): where a
    /// census saw blocks outside the sample run code no traced block ran, the first
    /// cluster that ran it (`with_extra`).
    pub extra: [u32; EXTRA],
}

/// Clusters a sample may add (`BlockSample::extra`), as logger.ptx's prologue reads them.
pub const EXTRA: usize = 8;

/// An unused entry of `BlockSample::extra`.
pub const NO_CLUSTER: u32 = u32::MAX;

/// The hash a seeded sample draws clusters by: MurmurHash3's 32-bit finaliser of the
/// cluster's linear index (as a u32, as the logger computes it) plus the seed. The logger's
/// prologue (logger.ptx) computes the same, instruction for instruction.
pub fn mix(cluster: u32, seed: u32) -> u32 {
    let mut h = cluster.wrapping_add(seed);
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// Seeds a seeded sample tries before it keeps the last: each is one pass over the grid's
/// clusters, and nearly every seed draws a count within a factor of two of the one asked.
const SEEDS_TRIED: u32 = 64;

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
        let blocks = if asked > 0 { asked } else { lesson_blocks }.max(1) as u64;
        BlockSample::strided(v.blocks(), per, blocks.div_ceil(per))
    }

    /// Every cluster of a grid of `total` blocks in clusters of `per`.
    pub fn every(total: u64, per: u64) -> BlockSample {
        BlockSample::strided(total, per.max(1), u64::MAX)
    }

    fn strided(total: u64, per: u64, wanted: u64) -> BlockSample {
        let clusters = (total / per).max(1);
        let stride = (clusters / wanted.max(1)).max(1);
        let traced = clusters.div_ceil(stride).min(wanted) * per;
        BlockSample {
            total,
            wanted,
            stride,
            traced: traced.min(total),
            per,
            seed: 0,
            below: 0,
            extra: [NO_CLUSTER; EXTRA],
        }
    }

    /// Clusters in the grid.
    fn all(&self) -> u64 {
        (self.total / self.per.max(1)).max(1)
    }

    /// About as many clusters, drawn by a hash of each cluster's index and `seed` (0 is
    /// taken as 1: 0 means the strided sample). Where `seed` draws fewer than half or more
    /// than twice the clusters asked for (a small sample's count varies widely), the next
    /// seeds are tried, so a sample is never empty.
    pub fn hashed(self, seed: u32) -> BlockSample {
        self.drawn(seed, u64::MAX)
    }

    /// A seeded sample from `seed` on; where it stands in for one that would not fit
    /// (`fewer_than` clusters), of no more clusters than it asks for, so that the trace made
    /// again fits the first time (the count a seed draws varies about the one asked).
    fn drawn(mut self, seed: u32, fewer_than: u64) -> BlockSample {
        let all = self.all();
        let share = (u128::from(self.wanted.min(all)) << 32) / u128::from(all);
        self.below = u32::try_from(share.saturating_sub(1)).unwrap_or(u32::MAX);
        self.seed = seed.max(1);
        if self.wanted >= all {
            // Every cluster, whatever the seed.
            self.traced = self.total;
            return self;
        }
        let hi = match fewer_than {
            u64::MAX => self.wanted * 2,
            _ => self.wanted.min(fewer_than.saturating_sub(1)),
        };
        let range = (self.wanted / 2).max(1)..=hi.max(1);
        for _ in 0..SEEDS_TRIED {
            let n = self.clusters().len() as u64;
            self.traced = (n * self.per).min(self.total);
            if range.contains(&n) {
                break;
            }
            self.seed = self.seed.wrapping_add(0x9e37_79b9).max(1);
        }
        self
    }

    /// This sample with `clusters` traced too (as many as fit, with those it adds
    /// already): each counted in `traced` once, whether the sample had it or not.
    pub fn with_extra(mut self, clusters: &[u32]) -> BlockSample {
        for &c in clusters {
            let free = self.extra.iter().position(|&e| e == NO_CLUSTER);
            if u64::from(c) >= self.all() || self.traces(u64::from(c)) {
                continue;
            }
            let Some(at) = free else { break };
            self.extra[at] = c;
            self.traced = (self.traced + self.per).min(self.total);
        }
        self
    }

    /// Whether the cluster with linear index `c` is traced.
    pub fn traces(&self, c: u64) -> bool {
        if self.extra.iter().any(|&e| u64::from(e) == c) {
            return true;
        }
        self.sampled(c)
    }

    /// Whether the sample (without its extra clusters) traces cluster `c`.
    fn sampled(&self, c: u64) -> bool {
        match self.seed {
            0 => {
                let stride = self.stride.max(1);
                c.is_multiple_of(stride) && c / stride < self.wanted
            }
            seed => mix(c as u32, seed) <= self.below,
        }
    }

    /// The traced clusters' linear indices, in order.
    pub fn clusters(&self) -> Vec<u64> {
        let all = self.all();
        let mut out: Vec<u64> = if self.seed == 0 {
            let stride = self.stride.max(1);
            (0..self.wanted)
                .map(|k| k * stride)
                .take_while(|&c| c < all)
                .collect()
        } else {
            (0..all).filter(|&c| self.sampled(c)).collect()
        };
        out.extend(
            self.extra
                .iter()
                .filter(|&&e| e != NO_CLUSTER)
                .map(|&e| u64::from(e)),
        );
        out.sort_unstable();
        out.dedup();
        out
    }

    /// A sample of fewer clusters, about `share` of these (at least one), spread over the
    /// grid as evenly (or drawn by the next seeds), with the clusters added to it: for a
    /// trace that would not fit whole. None when one cluster besides those added is all
    /// this sample traces already.
    pub fn fewer(&self, share: f64) -> Option<BlockSample> {
        let per = self.per.max(1);
        let clusters = self.traced.div_ceil(per);
        if clusters <= 1 {
            return None;
        }
        let wanted = ((clusters as f64 * share * 0.9).floor() as u64).clamp(1, clusters - 1);
        let s = BlockSample::strided(self.total, per, wanted);
        let s = match self.seed {
            0 => s,
            seed => s.drawn(seed.wrapping_add(1), clusters),
        };
        // The clusters a census added stay: they ran what no other traced block ran. None
        // if they are all that is left to shrink.
        let s = s.with_extra(&self.extra);
        (s.traced < self.traced).then_some(s)
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
    s(&mut m.cluster.remote_sectors);
    s(&mut m.cluster.remote_words);
    s(&mut m.cluster.remote_blocks);
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
    s(&mut c.reads);
    s(&mut c.reads_in_flight);
    s(&mut c.completed_bytes);
    s(&mut c.overlapped_bytes);
    s(&mut m.calls);
    s(&mut m.shuffles);
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
    fn the_hash_is_murmur3_s_finaliser() {
        // fmix32's published values; the logger's prologue computes the same.
        assert_eq!(mix(0, 0), 0);
        assert_eq!(mix(1, 0), 0x514e_28b7);
        assert_eq!(mix(0, 1), mix(1, 0));
    }

    #[test]
    fn a_seeded_sample_draws_about_as_many_clusters_from_anywhere_in_the_grid() {
        let s = BlockSample::of(&grid(32768), 64, 0).hashed(12345);
        let c = s.clusters();
        assert!((32..=128).contains(&c.len()), "{} clusters", c.len());
        assert_eq!(s.traced, c.len() as u64);
        assert!(c.iter().all(|&c| s.traces(c)));
        assert_eq!((0..32768).filter(|&c| s.traces(c)).count(), c.len());
        // Not every stride-th: the blocks drawn fall in every eighth of the grid and on
        // every residue mod 8.
        for k in 0..8 {
            assert!(c.iter().any(|&b| b * 8 / 32768 == k), "none in eighth {k}");
            assert!(c.iter().any(|&b| b % 8 == k), "none = {k} mod 8");
        }
        // Another seed, another draw.
        assert_ne!(
            s.clusters(),
            BlockSample::of(&grid(32768), 64, 0).hashed(999).clusters()
        );
    }

    #[test]
    fn a_cheat_in_a_share_of_the_blocks_is_in_nearly_every_seeded_sample() {
        // What a stride or an offset cannot promise: blocks the kernel picks (1 in 8, or
        // the last 5%) are in the sample whatever the kernel's pattern.
        let (mut eighth, mut tail) = (0, 0);
        for seed in 1..=400u32 {
            let c = BlockSample::of(&grid(32768), 64, 0)
                .hashed(seed.wrapping_mul(0x2545_f491))
                .clusters();
            eighth += u32::from(c.iter().any(|&b| b % 8 == 7));
            tail += u32::from(c.iter().any(|&b| b >= 32768 * 95 / 100));
        }
        // Missed by about (7/8)^64, 0.02% of samples, and 0.95^64, 4% (19% at the fewest
        // clusters a sample keeps, 32).
        assert_eq!(eighth, 400);
        assert!(tail >= 300, "the last 5% in {tail} of 400 samples");
    }

    #[test]
    fn clusters_added_to_a_sample_are_traced_and_counted_once() {
        let s = BlockSample::of(&grid(4096), 4, 0).hashed(11);
        let outside: Vec<u32> = (0..4096u32)
            .filter(|&c| !s.traces(u64::from(c)))
            .take(10)
            .collect();
        let inside = s.clusters()[0] as u32;
        let e = s.with_extra(&[outside[0], inside, outside[0], outside[1], 5000]);
        assert!(e.traces(u64::from(outside[0])) && e.traces(u64::from(outside[1])));
        // One already traced, one twice and one past the grid add nothing.
        assert_eq!(e.traced, s.traced + 2);
        assert_eq!(e.clusters().len() as u64, e.traced);
        // A sample that shrinks keeps what was added, down to one cluster besides.
        let f = e.fewer(0.1).expect("fewer sampled clusters");
        assert!(f.traces(u64::from(outside[0])) && f.traces(u64::from(outside[1])));
        assert_eq!(f.clusters().len() as u64, f.traced);
        let one = BlockSample::of(&grid(4096), 1, 0).hashed(11);
        let one = one.with_extra(&[outside[0]]);
        assert_eq!(one.traced, 2);
        assert_eq!(
            one.fewer(0.1),
            None,
            "only the sample's one cluster could go"
        );
        // No more than the logger reads.
        let full = s.with_extra(&outside);
        assert_eq!(full.traced, s.traced + EXTRA as u64);
        assert!(!full.traces(u64::from(outside[EXTRA])));
    }

    #[test]
    fn a_seeded_sample_is_never_empty_and_takes_a_small_grid_whole() {
        for seed in 0..200 {
            let s = BlockSample::of(&grid(10), 1, 0).hashed(seed);
            assert!((1..=2).contains(&s.traced), "seed {seed}: {}", s.traced);
            assert_eq!(s.clusters().len() as u64, s.traced);
        }
        let s = BlockSample::of(&grid(3), 4, 0).hashed(7);
        assert_eq!((s.traced, s.clusters()), (3, vec![0, 1, 2]));
        // Fewer: the next seeds, no more clusters than the share asked for, so that the
        // trace made again fits at once (a draw of up to twice as many would not).
        for seed in 1..200 {
            let s = BlockSample::of(&grid(4096), 64, 0).hashed(seed);
            let f = s.fewer(0.25).unwrap();
            let most = (s.traced as f64 * 0.25 * 0.9).floor() as u64;
            assert!(
                (1..=most).contains(&f.traced),
                "{} then {}",
                s.traced,
                f.traced
            );
            assert_ne!(f.seed, 0);
            assert_eq!(f.clusters().len() as u64, f.traced);
        }
    }

    #[test]
    fn a_seeded_cluster_sample_takes_whole_clusters() {
        let mut v = grid(1024);
        v.attrs.cluster = Some([4, 1, 1]);
        let s = BlockSample::of(&v, 32, 0).hashed(77);
        assert_eq!(s.traced, s.clusters().len() as u64 * 4);
        assert!(s.clusters().iter().all(|&c| c < 256));
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
