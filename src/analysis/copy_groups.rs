//! Whether a kernel's asynchronous copies overlap its work: each warp's copies since its
//! last commit, and its committed groups, followed through `cp.async.commit_group` and
//! `cp.async.wait_group N`, and at every wait that has copies to wait for whether work is
//! left in flight (PTX's completion rule: the wait completes all but the newest N groups):
//! at least half as many bytes as the wait completes. A double buffer waits for tile k with
//! tile k + 1's copies in flight; one buffer, or two with `wait_group 0`, never leaves any;
//! nor does one that keeps a token copy (a word a turn, committed as a group of its own)
//! in flight beside a tile it waits for whole. An empty group (a commit with no copy since
//! the last) is no copy in flight, and a warp with nothing pending (its lanes issued no
//! copy: 16-byte copies leave some idle) is not counted; nor is a wait that completes no
//! copy (the same wait again, with only a token copy pending: it waits for nothing).
//! A copy's bytes are those its global side reads (`copied`): a lane of source size 0 only
//! zero-fills its shared bytes, and a copy of nothing kept pending beside the work is no
//! copy in flight.
//!
//! The waits alone can be gamed by splitting one tile into several groups drained in turn
//! before the work: each wait but the last leaves a later group of the same tile in
//! flight, and no copy overlaps any work. So the shared reads are followed too: a read
//! overlaps a copy when its warp has at least half as many bytes in flight as its last
//! wait completed (a double buffer sums tile k with tile k + 1 in flight; a token copy
//! kept pending beside the work is not a tile's worth). A warp that never copies (16-byte
//! copies of a tile need fewer lanes than the block has) reads what the block's copying
//! warps brought in: its reads overlap when theirs, taken together, have that much in
//! flight.
//!
//! Reads in flight can still be met with half a tile: issue half of each tile a turn ahead
//! and the other half right before the wait that completes it, and half a tile is always in
//! flight beside the reads, though the late half's whole latency is waited out. So the
//! bytes are followed too: a copy's bytes are overlapped when its warp made a shared read
//! between issuing them and the wait that completes them (the work a copy hides), and the
//! share of the completed bytes so overlapped is what a double buffer raises (every tile's
//! but the first). A warp that reads nothing (a producer warp that only copies) has its
//! bytes overlapped by any read of its block in that time.

use super::race_events::{Op, SharedEvent};
use super::race_intervals::FastMap;
use std::collections::VecDeque;

/// A group's bytes, and how many of them a shared read has overlapped since they were
/// issued.
#[derive(Default, Clone, Copy)]
struct Bytes {
    all: u64,
    overlapped: u64,
}

#[derive(Default)]
struct Groups {
    /// Bytes copied since the warp's last commit.
    open: u64,
    /// Bytes in each committed group, oldest first.
    committed: VecDeque<u64>,
    /// The open group's and each committed group's bytes, as `open` and `committed`, with
    /// those a read has overlapped.
    open_bytes: Bytes,
    committed_bytes: VecDeque<Bytes>,
    /// Whether the warp has made a shared read.
    reads: bool,
    /// Bytes the warp's last counted wait completed.
    last_done: u64,
    /// Whether the warp's lanes have copied any bytes.
    copies: bool,
}

/// A block's copying warps taken together: their bytes in flight, and what their last
/// counted waits completed.
#[derive(Default)]
struct Block {
    pending: u64,
    last_done: u64,
    /// The warps that have copied, each once.
    warps: Vec<u32>,
}

impl Block {
    fn in_flight(&self) -> bool {
        self.pending > 0 && 2 * self.pending >= self.last_done
    }
}

impl Groups {
    /// Whether the warp's copies in flight are a tile's worth: at least half of what its
    /// last wait completed.
    fn in_flight(&self) -> bool {
        let pending = self.open + self.committed.iter().sum::<u64>();
        pending > 0 && 2 * pending >= self.last_done
    }
}

/// The waits of every warp of a trace, and those that left copies in flight.
#[derive(Default)]
pub struct CopyGroups {
    warps: FastMap<(u32, u32), Groups>,
    blocks: FastMap<u32, Block>,
    pub waits: u64,
    pub waits_in_flight: u64,
    /// Shared read requests (not a copy's), and those made with a tile's worth of the
    /// warp's copies in flight.
    pub reads: u64,
    pub reads_in_flight: u64,
    /// The bytes the waits completed, and those a shared read overlapped between their
    /// issue and that wait.
    pub completed_bytes: u64,
    pub overlapped_bytes: u64,
}

impl CopyGroups {
    /// A copy's global side: the bytes its lanes read (a lane that only zero-fills its
    /// shared bytes reads none, and takes no part in the record). Counted from the reads,
    /// not the shared writes: a copy of source size 0 kept in flight beside the work moves
    /// nothing, however many bytes it fills.
    pub fn copied(&mut self, block: u32, warp: u32, bytes: u64) {
        let w = self.warps.entry((block, warp)).or_default();
        w.open += bytes;
        w.open_bytes.all += bytes;
        let first = !w.copies && bytes > 0;
        w.copies |= bytes > 0;
        let b = self.blocks.entry(block).or_default();
        b.pending += bytes;
        if first {
            b.warps.push(warp);
        }
    }

    pub fn push(&mut self, e: &SharedEvent) {
        match e.op {
            Op::CopyCommit => {
                let w = self.warps.entry((e.block, e.warp)).or_default();
                let open = std::mem::take(&mut w.open);
                w.committed.push_back(open);
                let bytes = std::mem::take(&mut w.open_bytes);
                w.committed_bytes.push_back(bytes);
            }
            Op::CopyWait { groups, all } => {
                let w = self.warps.entry((e.block, e.warp)).or_default();
                if all {
                    let open = std::mem::take(&mut w.open);
                    w.committed.push_back(open);
                    let bytes = std::mem::take(&mut w.open_bytes);
                    w.committed_bytes.push_back(bytes);
                }
                // The bytes this wait completes, overlapped or not, whatever it counts as.
                while w.committed_bytes.len() > groups as usize {
                    let b = w.committed_bytes.pop_front().unwrap_or_default();
                    self.completed_bytes += b.all;
                    self.overlapped_bytes += b.overlapped;
                }
                if w.committed.iter().all(|&n| n == 0) {
                    // Nothing pending: nothing to wait for, nothing to overlap.
                    return;
                }
                let mut done = 0;
                while w.committed.len() > groups as usize {
                    done += w.committed.pop_front().unwrap_or(0);
                }
                if done == 0 {
                    // It completes no copy: a wait for nothing, which a kernel could repeat
                    // with a token copy pending to make its waits look overlapped.
                    return;
                }
                self.waits += 1;
                let b = self.blocks.entry(e.block).or_default();
                b.pending = b.pending.saturating_sub(done);
                b.last_done = b.last_done - w.last_done + done;
                w.last_done = done;
                let left: u64 = w.committed.iter().sum();
                if left > 0 && 2 * left >= done {
                    self.waits_in_flight += 1;
                }
            }
            Op::Read => {
                self.reads += 1;
                // The bytes in flight now are overlapped: the reader's own, and those of
                // the block's warps that read nothing themselves.
                let (block, reader) = (e.block, e.warp);
                self.warps.entry((block, reader)).or_default().reads = true;
                let warps = self.blocks.get(&block).map_or(&[][..], |b| &b.warps[..]);
                for wp in warps {
                    let Some(w) = self.warps.get_mut(&(block, *wp)) else {
                        continue;
                    };
                    if *wp == reader || !w.reads {
                        let over = |x: &mut Bytes| x.overlapped = x.all;
                        over(&mut w.open_bytes);
                        w.committed_bytes.iter_mut().for_each(over);
                    }
                }
                let overlaps = match self.warps.get(&(e.block, e.warp)) {
                    Some(w) if w.copies => w.in_flight(),
                    _ => self.blocks.get(&e.block).is_some_and(Block::in_flight),
                };
                if overlaps {
                    self.reads_in_flight += 1;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(op: Op) -> SharedEvent {
        SharedEvent {
            block: 0,
            warp: 0,
            op,
            line: None,
            mask: u32::MAX,
            width: 4,
            addrs: [0; 32],
            remote: false,
            order: Default::default(),
        }
    }

    /// As both tracers log a copy: its global side (the bytes its lanes read), then its
    /// shared write.
    fn push(c: &mut CopyGroups, e: &SharedEvent) {
        if e.op == Op::CopyWrite {
            c.copied(
                e.block,
                e.warp,
                u64::from(e.width) * u64::from(e.mask.count_ones()),
            );
        }
        c.push(e);
    }

    fn run(ops: &[Op]) -> (u64, u64) {
        let mut c = CopyGroups::default();
        ops.iter().for_each(|&op| push(&mut c, &ev(op)));
        (c.waits, c.waits_in_flight)
    }

    #[test]
    fn a_token_copy_in_flight_beside_a_tile_waited_for_whole_is_no_overlap() {
        let (commit, wait) = (
            Op::CopyCommit,
            Op::CopyWait {
                groups: 1,
                all: false,
            },
        );
        // Each turn: a tile of 8 requests of every lane, committed; one lane's word into a
        // scratch array, committed as a group of its own; wait_group 1 completes the tile
        // and leaves the word in flight.
        let mut c = CopyGroups::default();
        for _ in 0..3 {
            (0..8).for_each(|_| push(&mut c, &ev(Op::CopyWrite)));
            push(&mut c, &ev(commit));
            push(
                &mut c,
                &SharedEvent {
                    mask: 1,
                    ..ev(Op::CopyWrite)
                },
            );
            push(&mut c, &ev(commit));
            push(&mut c, &ev(wait));
        }
        assert_eq!((c.waits, c.waits_in_flight), (3, 0));
        // The next tile in flight, as a double buffer keeps it: every wait overlaps.
        let mut c = CopyGroups::default();
        (0..8).for_each(|_| push(&mut c, &ev(Op::CopyWrite)));
        push(&mut c, &ev(commit));
        for _ in 0..3 {
            (0..8).for_each(|_| push(&mut c, &ev(Op::CopyWrite)));
            push(&mut c, &ev(commit));
            push(&mut c, &ev(wait));
        }
        assert_eq!((c.waits, c.waits_in_flight), (3, 3));
    }

    #[test]
    fn a_double_buffer_waits_with_the_next_tiles_copies_in_flight_and_one_buffer_never() {
        let (copy, commit) = (Op::CopyWrite, Op::CopyCommit);
        let wait = |groups| Op::CopyWait { groups, all: false };
        // Two tiles: copy tile 0, then per turn copy the next, commit, wait_group 1; the
        // last turn commits an empty group.
        let double = [
            copy,
            commit,
            copy,
            commit,
            wait(1),
            copy,
            commit,
            wait(1),
            commit,
            wait(1),
        ];
        assert_eq!(run(&double), (3, 2));
        // One tile: copy, commit, wait_group 0, every turn.
        let single = [copy, commit, wait(0), copy, commit, wait(0)];
        assert_eq!(run(&single), (2, 0));
        // Two tiles declared, waited with wait_all: nothing left in flight.
        let all = [
            copy,
            commit,
            copy,
            Op::CopyWait {
                groups: 0,
                all: true,
            },
        ];
        assert_eq!(run(&all), (1, 0));
        // A warp whose lanes copy nothing (wider copies by fewer lanes) waits on empty
        // groups: not counted either way.
        let idle = [commit, wait(1), commit, wait(1)];
        assert_eq!(run(&idle), (0, 0));
    }

    fn reads(ops: &[Op]) -> (u64, u64) {
        let mut c = CopyGroups::default();
        ops.iter().for_each(|&op| push(&mut c, &ev(op)));
        (c.reads, c.reads_in_flight)
    }

    #[test]
    fn reads_overlap_a_tiles_copies_in_flight_not_groups_drained_before_them() {
        let (copy, commit, read) = (Op::CopyWrite, Op::CopyCommit, Op::Read);
        let wait = |groups| Op::CopyWait { groups, all: false };
        // A double buffer of two turns: tile 1 in flight while tile 0 is read, nothing
        // while tile 1 is (its turn commits an empty group).
        let double = [
            copy,
            copy,
            commit,
            copy,
            copy,
            commit,
            wait(1),
            read,
            read,
            commit,
            wait(1),
            read,
            read,
        ];
        assert_eq!(reads(&double), (4, 2));
        // One tile split into three groups drained by wait_group 2, 1, 0 before its reads:
        // two of three waits leave copies in flight, and no read overlaps any.
        let split = [
            copy,
            commit,
            copy,
            commit,
            copy,
            copy,
            commit,
            wait(2),
            wait(1),
            wait(0),
            read,
            read,
        ];
        assert_eq!(run(&split).1, 2);
        assert_eq!(reads(&split), (2, 0));
        // A token copy kept pending beside a tile waited for whole is not a tile's worth.
        let mut token = vec![copy, copy, copy, commit, wait(0)];
        token.extend([Op::CopyWrite, commit, read, read]);
        let mut c = CopyGroups::default();
        for (i, &op) in token.iter().enumerate() {
            let mask = if i == 5 { 1 } else { u32::MAX };
            push(&mut c, &SharedEvent { mask, ..ev(op) });
        }
        assert_eq!((c.reads, c.reads_in_flight), (2, 0));
    }

    #[test]
    fn waits_that_complete_no_copy_are_not_counted() {
        let (copy, commit) = (Op::CopyWrite, Op::CopyCommit);
        let wait = |groups| Op::CopyWait { groups, all: false };
        // One tile waited for whole, then a token copy committed and the same wait_group 1
        // made again and again with it pending: those waits complete nothing.
        let mut padded = vec![copy, copy, commit, wait(0), copy, commit];
        padded.extend([wait(1); 100]);
        assert_eq!(run(&padded), (1, 0));
    }

    #[test]
    fn a_zero_filled_copy_in_flight_beside_the_work_moves_nothing() {
        let (commit, wait) = (
            Op::CopyCommit,
            Op::CopyWait {
                groups: 1,
                all: false,
            },
        );
        // The whole input staged and waited for first; then, every turn, a copy of source
        // size 0 in every lane (shared writes, no global read), committed, and wait_group 1
        // with it pending beside the reads.
        let mut c = CopyGroups::default();
        (0..8).for_each(|_| push(&mut c, &ev(Op::CopyWrite)));
        push(
            &mut c,
            &ev(Op::CopyWait {
                groups: 0,
                all: true,
            }),
        );
        for _ in 0..4 {
            c.push(&ev(Op::CopyWrite));
            c.push(&ev(commit));
            c.push(&ev(wait));
            c.push(&ev(Op::Read));
        }
        assert_eq!((c.waits, c.waits_in_flight), (1, 0));
        assert_eq!((c.reads, c.reads_in_flight), (4, 0));
        // The same turns with the copies reading their words: every later wait and read
        // overlaps one.
        let mut c = CopyGroups::default();
        (0..8).for_each(|_| push(&mut c, &ev(Op::CopyWrite)));
        push(
            &mut c,
            &ev(Op::CopyWait {
                groups: 0,
                all: true,
            }),
        );
        for _ in 0..4 {
            (0..8).for_each(|_| push(&mut c, &ev(Op::CopyWrite)));
            c.push(&ev(commit));
            c.push(&ev(wait));
            c.push(&ev(Op::Read));
        }
        assert_eq!(c.reads_in_flight, 4);
    }

    #[test]
    fn a_warp_that_copies_nothing_reads_what_the_blocks_copying_warps_have_in_flight() {
        let (commit, wait) = (
            Op::CopyCommit,
            Op::CopyWait {
                groups: 1,
                all: false,
            },
        );
        let at = |warp, op| SharedEvent { warp, ..ev(op) };
        // 16-byte copies of a tile need only warp 0's lanes: it keeps tile k + 1 in
        // flight while warp 1, which copies nothing but commits and waits alike, sums
        // tile k beside it.
        let turns = |next_in_flight: bool| {
            let mut c = CopyGroups::default();
            (0..4).for_each(|_| push(&mut c, &at(0, Op::CopyWrite)));
            for warp in [0, 1] {
                push(&mut c, &at(warp, commit));
            }
            for _ in 0..3 {
                if next_in_flight {
                    (0..4).for_each(|_| push(&mut c, &at(0, Op::CopyWrite)));
                }
                for warp in [0, 1] {
                    push(&mut c, &at(warp, commit));
                    push(
                        &mut c,
                        &at(
                            warp,
                            if next_in_flight {
                                wait
                            } else {
                                Op::CopyWait {
                                    groups: 0,
                                    all: false,
                                }
                            },
                        ),
                    );
                }
                push(&mut c, &at(1, Op::Read));
                if !next_in_flight {
                    (0..4).for_each(|_| push(&mut c, &at(0, Op::CopyWrite)));
                }
            }
            (c.reads, c.reads_in_flight)
        };
        assert_eq!(turns(true), (3, 3));
        // The same block waiting for everything before its reads overlaps none of them.
        assert_eq!(turns(false), (3, 0));
    }

    #[test]
    fn the_bytes_a_read_overlaps_are_those_issued_before_it_and_completed_after() {
        let (copy, commit, read) = (Op::CopyWrite, Op::CopyCommit, Op::Read);
        let wait = Op::CopyWait {
            groups: 1,
            all: false,
        };
        let half = |c: &mut CopyGroups, warp| {
            push(
                c,
                &SharedEvent {
                    warp,
                    mask: 0xffff,
                    ..ev(copy)
                },
            )
        };
        // A double buffer over four tiles: tile 0 alone is waited for with nothing read.
        let mut c = CopyGroups::default();
        push(&mut c, &ev(copy));
        push(&mut c, &ev(commit));
        for k in 0..4 {
            if k < 3 {
                push(&mut c, &ev(copy));
            }
            push(&mut c, &ev(commit));
            push(&mut c, &ev(wait));
            push(&mut c, &ev(read));
        }
        assert_eq!((c.overlapped_bytes, c.completed_bytes), (3 * 128, 4 * 128));
        // Half of each tile copied a turn ahead, the other half right before its wait:
        // half a tile in flight at every read, half the bytes overlapped.
        let mut c = CopyGroups::default();
        half(&mut c, 0);
        push(&mut c, &ev(commit));
        for k in 0..4 {
            half(&mut c, 0);
            push(&mut c, &ev(commit));
            if k < 3 {
                half(&mut c, 0);
            }
            push(&mut c, &ev(commit));
            push(&mut c, &ev(wait));
            push(&mut c, &ev(read));
        }
        assert_eq!((c.overlapped_bytes, c.completed_bytes), (3 * 64, 8 * 64));
        assert_eq!((c.reads, c.reads_in_flight), (4, 3));
        // A producer warp (0) that reads nothing: the sums of warp 1 between its copy of
        // the next tile and its wait for it overlap its bytes.
        let at = |warp, op| SharedEvent { warp, ..ev(op) };
        let mut c = CopyGroups::default();
        push(&mut c, &at(0, copy));
        push(&mut c, &at(0, commit));
        for k in 0..4 {
            if k < 3 {
                push(&mut c, &at(0, copy));
            }
            push(&mut c, &at(0, commit));
            push(&mut c, &at(0, wait));
            push(&mut c, &at(1, read));
        }
        assert_eq!((c.overlapped_bytes, c.completed_bytes), (3 * 128, 4 * 128));
    }
}
