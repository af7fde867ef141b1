//! Bulk copies (the TMA's `cp.async.bulk` into shared memory) as the race analysis reads
//! them. A copy's bytes land when the phase of the mbarrier it completes on completes: a
//! thread may touch them only once it waited on that phase (an acquire), or met a thread
//! that had: at a `__syncwarp()` with it, or at a block barrier after its wait. Any other
//! access of the destination (the issuing thread's own included) races with the copy. A
//! thread the bytes landed for hands them on by arriving on another mbarrier: a wait on that
//! one's phase orders them too (a producer that waits for the copy, then signals a `full`
//! barrier its consumers wait on without arriving themselves).
//!
//! A copy may also land over what other warps read or wrote of its destination before it
//! was issued, in the block interval it is issued in (a stage of a ring refilled before
//! every reader is done with it, or read by a warp that never waited): `races` judges the
//! issue against those accesses. Not followed: an order between them that an mbarrier
//! holding fewer than the block's warps makes (a ring's `empty` barrier that only the
//! consumers arrive on): such a refill is judged as if nothing ordered it.

use super::race_events::SharedEvent;
use super::race_intervals::FastMap;
use crate::model::results::{Race, RaceKind, RaceScope};

/// Each block's bulk copies, the newest into each range of bytes.
#[derive(Default)]
pub(super) struct BulkCopies {
    by_block: FastMap<u32, Vec<Copy>>,
    /// By (block, barrier): the copies (by destination start) a thread they had landed for
    /// released by arriving on it.
    relayed: FastMap<(u32, u64), Vec<u64>>,
}

struct Copy {
    /// The destination's shared bytes, `lo..hi`.
    lo: u64,
    hi: u64,
    /// The shared offset of the mbarrier it completes on.
    bar: u64,
    line: Option<u32>,
    /// The warp that issued it.
    warp: u32,
    /// By warp: the lanes ordered after the bytes landed (they waited on the phase, or met
    /// a lane that had at a `__syncwarp()`).
    seen: Vec<(u32, u32)>,
    /// The first block interval in which every lane is ordered after the bytes landed: the
    /// one after a waiter's, which the block barrier it passes next begins.
    after: Option<u32>,
    /// The barrier's phase it completes on, as the log counts them.
    phase: u64,
}

impl Copy {
    fn seen(&self, warp: u32) -> u32 {
        (self.seen.iter().find(|(w, _)| *w == warp)).map_or(0, |(_, l)| *l)
    }

    fn see(&mut self, warp: u32, lanes: u32) {
        match self.seen.iter_mut().find(|(w, _)| *w == warp) {
            Some((_, l)) => *l |= lanes,
            None => self.seen.push((warp, lanes)),
        }
    }
}

/// A lane's destination and barrier, as the record logs them: barrier << 32 | destination.
fn parts(a: u64) -> (u64, u64) {
    (a & 0xffff_ffff, a >> 32)
}

impl BulkCopies {
    /// Whether `block` issued any bulk copy: only then does an access need its intervals.
    pub(super) fn holds(&self, block: u32) -> bool {
        self.by_block.contains_key(&block)
    }

    /// The copies the lanes of `e` issue, each `e.width` bytes, on the phase `phase` gives
    /// of their barrier and bytes: each takes the place of any older copy into bytes it
    /// writes.
    pub(super) fn issue(&mut self, e: &SharedEvent, mut phase: impl FnMut(u64, u64) -> u64) {
        let copies = self.by_block.entry(e.block).or_default();
        for l in (0..32).filter(|l| e.mask >> l & 1 == 1) {
            let (dst, bar) = parts(e.addrs[l]);
            let hi = dst + u64::from(e.width);
            copies.retain(|c| c.hi <= dst || c.lo >= hi);
            copies.push(Copy {
                lo: dst,
                hi,
                bar,
                line: e.line,
                warp: e.warp,
                seen: Vec::new(),
                after: None,
                phase: phase(bar, u64::from(e.width)),
            });
        }
    }

    /// A wait of the lanes of `e` that found the phase of the barrier at `bar` complete
    /// (`phase`, where the log tells which), in the block interval `interval` (theirs
    /// before any barrier the wait makes): the bytes of the copies that complete on it or
    /// an earlier phase, or that a thread relayed through it, have landed for them. A copy
    /// of a later phase has not: a wait on a phase that completed before the copy was
    /// issued returns at once.
    pub(super) fn waited(
        &mut self,
        e: &SharedEvent,
        (bar, phase): (u64, Option<u64>),
        interval: u32,
    ) {
        let Some(copies) = self.by_block.get_mut(&e.block) else {
            return;
        };
        let relayed = self.relayed.get(&(e.block, bar));
        let through = |c: &Copy| relayed.is_some_and(|r| r.contains(&c.lo));
        let on = |c: &Copy| c.bar == bar && phase.is_none_or(|p| c.phase <= p);
        for c in copies.iter_mut().filter(|c| on(c) || through(c)) {
            c.see(e.warp, e.mask);
            c.after = Some(c.after.map_or(interval + 1, |a| a.min(interval + 1)));
        }
    }

    /// An arrival of the lanes of `e` (one that releases) on the barrier at `bar`, each lane
    /// in the block interval `passed[lane]`: the copies landed for any of them go with it.
    pub(super) fn arrived(&mut self, e: &SharedEvent, bar: u64, passed: &[u32; 32]) {
        let Some(copies) = self.by_block.get(&e.block) else {
            return;
        };
        let landed = |c: &&Copy| {
            (0..32)
                .filter(|&l| e.mask >> l & 1 == 1)
                .any(|l| c.seen(e.warp) >> l & 1 == 1 || c.after.is_some_and(|a| passed[l] >= a))
        };
        let carried: Vec<u64> = copies.iter().filter(landed).map(|c| c.lo).collect();
        if carried.is_empty() {
            return;
        }
        let to = self.relayed.entry((e.block, bar)).or_default();
        for lo in carried {
            if !to.contains(&lo) {
                to.push(lo);
            }
        }
    }

    /// The lanes of `e` met at a `__syncwarp()`: those ordered after a copy's bytes order
    /// the others.
    pub(super) fn synced(&mut self, e: &SharedEvent) {
        let Some(copies) = self.by_block.get_mut(&e.block) else {
            return;
        };
        for c in copies.iter_mut() {
            if c.seen(e.warp) & e.mask != 0 {
                c.see(e.warp, e.mask);
            }
        }
    }

    /// A read, write or atomic of the lanes of `e`, each lane in the block interval
    /// `passed[lane]`: a race with each copy whose bytes it touches unordered.
    pub(super) fn access(&self, e: &SharedEvent, passed: &[u32; 32], met: &mut Vec<Race>) {
        let Some(copies) = self.by_block.get(&e.block) else {
            return;
        };
        for c in copies {
            let ordered =
                |l: usize| c.seen(e.warp) >> l & 1 == 1 || c.after.is_some_and(|a| passed[l] >= a);
            let width = u64::from(e.width.max(1));
            let racing: Vec<usize> = (0..32)
                .filter(|&l| e.mask >> l & 1 == 1)
                .filter(|&l| e.addrs[l] < c.hi && e.addrs[l] + width > c.lo)
                .filter(|&l| !ordered(l))
                .collect();
            let Some(&first) = racing.first() else {
                continue;
            };
            met.push(Race {
                scope: RaceScope::Copy,
                kind: match e.op {
                    super::race_events::Op::Read => RaceKind::WriteRead,
                    _ => RaceKind::WriteWrite,
                },
                first_line: c.line,
                second_line: e.line,
                block: e.block,
                offset: e.addrs[first],
                first_warp: c.warp,
                second_warp: e.warp,
                count: racing.len() as u64,
                lanes: None,
                first_block: None,
                partial_barrier: None,
            });
        }
    }
}
