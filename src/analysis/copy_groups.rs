//! Whether a kernel's asynchronous copies overlap its work: each warp's copies since its
//! last commit, and its committed groups, followed through `cp.async.commit_group` and
//! `cp.async.wait_group N`, and at every wait that has copies to wait for whether a group
//! with copies in it is left in flight (PTX's completion rule: the wait completes all but
//! the newest N groups). A double buffer waits for tile k with tile k + 1's copies in
//! flight; one buffer, or two with `wait_group 0`, never leaves any. An empty group (a
//! commit with no copy since the last) is no copy in flight, and a warp with nothing
//! pending (its lanes issued no copy: 16-byte copies leave some idle) is not counted.

use super::race_intervals::FastMap;
use super::races::{Op, SharedEvent};
use std::collections::VecDeque;

#[derive(Default)]
struct Groups {
    /// Copies issued since the warp's last commit.
    open: u64,
    /// Copies in each committed group, oldest first.
    committed: VecDeque<u64>,
}

/// The waits of every warp of a trace, and those that left copies in flight.
#[derive(Default)]
pub struct CopyGroups {
    warps: FastMap<(u32, u32), Groups>,
    pub waits: u64,
    pub waits_in_flight: u64,
}

impl CopyGroups {
    pub fn push(&mut self, e: &SharedEvent) {
        match e.op {
            Op::CopyWrite => self.warps.entry((e.block, e.warp)).or_default().open += 1,
            Op::CopyCommit => {
                let w = self.warps.entry((e.block, e.warp)).or_default();
                let open = std::mem::take(&mut w.open);
                w.committed.push_back(open);
            }
            Op::CopyWait { groups, all } => {
                let w = self.warps.entry((e.block, e.warp)).or_default();
                if all {
                    let open = std::mem::take(&mut w.open);
                    w.committed.push_back(open);
                }
                if w.committed.iter().all(|&n| n == 0) {
                    // Nothing pending: nothing to wait for, nothing to overlap.
                    return;
                }
                while w.committed.len() > groups as usize {
                    w.committed.pop_front();
                }
                self.waits += 1;
                if w.committed.iter().any(|&n| n > 0) {
                    self.waits_in_flight += 1;
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

    fn run(ops: &[Op]) -> (u64, u64) {
        let mut c = CopyGroups::default();
        ops.iter().for_each(|&op| c.push(&ev(op)));
        (c.waits, c.waits_in_flight)
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
}
