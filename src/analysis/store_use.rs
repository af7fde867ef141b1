//! Whether a kernel's shared stores are read: each store request of the traced blocks, and
//! whether any of its words is read (by any lane of the block) before another store
//! overwrites it. A tree in shared memory reads every level it writes; stores made only to
//! bring a count of shared requests up to a solution's, into words nobody reads, are not.
//! A block's own shared memory only: a store through the cluster's window, and a word
//! another block reads through it, are left out.

use super::race_events::{Op, SharedEvent};
use super::race_intervals::FastMap;
use crate::model::access::words_of;

#[derive(Default)]
pub struct StoreUse {
    /// Each (block, word)'s last store not yet read: its index in `read`.
    last: FastMap<(u32, u64), u32>,
    /// Per store request, whether a word of it was read.
    read: Vec<bool>,
}

impl StoreUse {
    pub fn push(&mut self, e: &SharedEvent) {
        if e.remote || !matches!(e.op, Op::Write | Op::Read) {
            return;
        }
        let store = self.read.len() as u32;
        if e.op == Op::Write {
            self.read.push(false);
        }
        for lane in (0..32).filter(|l| e.mask >> l & 1 == 1) {
            for w in words_of(e.addrs[lane], e.width) {
                match e.op {
                    Op::Write => {
                        self.last.insert((e.block, w), store);
                    }
                    _ => {
                        if let Some(s) = self.last.remove(&(e.block, w)) {
                            self.read[s as usize] = true;
                        }
                    }
                }
            }
        }
    }

    /// Store requests, and those with a word read.
    pub fn counts(&self) -> (u64, u64) {
        let read = self.read.iter().filter(|&&r| r).count();
        (self.read.len() as u64, read as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(op: Op, first: u64) -> SharedEvent {
        SharedEvent {
            block: 0,
            warp: 0,
            op,
            line: None,
            mask: u32::MAX,
            width: 4,
            addrs: std::array::from_fn(|l| first + 4 * l as u64),
            remote: false,
            order: Default::default(),
        }
    }

    #[test]
    fn a_store_counts_as_read_when_a_word_of_it_is_read_before_it_is_overwritten() {
        let mut u = StoreUse::default();
        // A level of a tree: stored, then read.
        u.push(&ev(Op::Write, 1024));
        u.push(&ev(Op::Read, 1024));
        // A decoy: stored into scratch nobody reads.
        u.push(&ev(Op::Write, 4096));
        // Stored, overwritten, then read: the first store was never read.
        u.push(&ev(Op::Write, 2048));
        u.push(&ev(Op::Write, 2048));
        u.push(&ev(Op::Read, 2048));
        // One lane of a store read is enough.
        u.push(&ev(Op::Write, 8192));
        u.push(&SharedEvent {
            mask: 1,
            ..ev(Op::Read, 8192)
        });
        assert_eq!(u.counts(), (5, 3));
        // Another block's words are its own.
        let mut b = StoreUse::default();
        b.push(&ev(Op::Write, 1024));
        b.push(&SharedEvent {
            block: 1,
            ..ev(Op::Read, 1024)
        });
        assert_eq!(b.counts(), (1, 0));
    }
}
