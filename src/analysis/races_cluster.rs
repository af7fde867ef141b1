//! Races between the blocks of a cluster over one block's shared memory (distributed shared
//! memory), and a block's exit while another block may still use its memory.
//!
//! Only a cluster barrier orders two blocks' accesses: a thread's accesses before its k-th
//! `barrier.cluster.arrive` happen before every thread's accesses after its k-th
//! `barrier.cluster.wait`. So each warp counts its arrives and waits, an access keeps the
//! arrives its warp had made, and a later access by another block is ordered after it when
//! that block's warp has waited as many times as the arrive that released the earlier
//! one: the first arrive after it that is not `.relaxed` (a relaxed arrive orders the
//! threads' progress, not their memory). A block's barriers (`__syncthreads()`) order
//! nothing between blocks.
//!
//! A block's shared memory ends when its last warp exits. Another block's access to it is
//! safe only if the owner waits on a cluster barrier the accessor arrived at after the
//! access: each block's most waits, at the end, against the most arrives another block had
//! made at an access of its memory.
//!
//! Pairs of accesses by one block are the block-scope analysis' to judge, and are left out.

use super::race_intervals::FastMap;
use super::races::{Op, SharedEvent};
use crate::model::results::{Race, RaceKind, RaceScope};

/// How a launch's blocks group into clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterGeom {
    pub grid: [u32; 3],
    pub dims: [u32; 3],
}

impl ClusterGeom {
    /// The geometry of a launch, None when its clusters are single blocks (nothing to
    /// order between blocks).
    pub fn of(grid: [u32; 3], cluster: Option<[u32; 3]>) -> Option<ClusterGeom> {
        let dims = cluster?.map(|c| c.max(1));
        (dims.iter().product::<u32>() > 1).then_some(ClusterGeom { grid, dims })
    }

    fn coords(&self, block: u32) -> [u32; 3] {
        let [gx, gy, _] = self.grid.map(|g| g.max(1));
        [block % gx, block / gx % gy, block / (gx * gy)]
    }

    /// The linear index of the cluster `block` is in, and its rank there.
    pub fn place(&self, block: u32) -> (u32, u32) {
        let [x, y, z] = self.coords(block);
        let [cx, cy, cz] = self.dims;
        let [gx, gy, _] = self.grid.map(|g| g.max(1));
        let (nx, ny) = (gx.div_ceil(cx), gy.div_ceil(cy));
        let cluster = x / cx + y / cy * nx + z / cz * nx * ny;
        let rank = x % cx + cx * (y % cy + cy * (z % cz));
        (cluster, rank)
    }

    /// The linear index of the block of `rank` in `cluster`.
    pub fn block(&self, cluster: u32, rank: u32) -> u32 {
        let [cx, cy, cz] = self.dims;
        let [gx, gy, _] = self.grid.map(|g| g.max(1));
        let (nx, ny) = (gx.div_ceil(cx), gy.div_ceil(cy));
        let (kx, ky, kz) = (cluster % nx, cluster / nx % ny, cluster / (nx * ny));
        let (rx, ry, rz) = (rank % cx, rank / cx % cy, rank / (cx * cy));
        let (x, y, z) = (kx * cx + rx, ky * cy + ry, kz * cz + rz);
        x + gx * (y + gy * z)
    }
}

/// One warp's access of a word of some block's shared memory.
#[derive(Clone, Copy)]
struct Touch {
    block: u32,
    warp: u32,
    /// The cluster arrives its warp had made before the access.
    arrived: u32,
    line: Option<u32>,
    bytes: u8,
    atomic: bool,
}

#[derive(Default)]
struct Word {
    write: Option<Touch>,
    /// The reads since the last write, the latest per block.
    reads: Vec<Touch>,
}

#[derive(Default, Clone)]
struct Phase {
    arrived: u32,
    waited: u32,
    /// The arrives (1-based) that were `.relaxed`, which release nothing.
    relaxed: Vec<u32>,
}

impl Phase {
    /// The arrive that releases an access made after `arrived` arrives: the first later
    /// one that is not relaxed; u32::MAX while there is none yet.
    fn release(&self, arrived: u32) -> u32 {
        (arrived + 1..=self.arrived)
            .find(|k| !self.relaxed.contains(k))
            .unwrap_or(u32::MAX)
    }
}

/// The furthest another block got into the cluster's phases when it used a block's memory.
#[derive(Clone, Copy)]
struct Use {
    by: u32,
    warp: u32,
    arrived: u32,
    line: Option<u32>,
    write: bool,
    offset: u64,
}

pub(super) struct ClusterRaces {
    geom: ClusterGeom,
    phases: FastMap<(u32, u32), Phase>,
    /// (cluster, rank of the owner, word) → its accesses.
    words: FastMap<(u32, u32, u64), Word>,
    /// Owner block → the use of its memory by another block latest in the phases.
    uses: FastMap<u32, Use>,
    met: Vec<Race>,
}

impl ClusterRaces {
    pub(super) fn new(geom: ClusterGeom) -> ClusterRaces {
        ClusterRaces {
            geom,
            phases: FastMap::default(),
            words: FastMap::default(),
            uses: FastMap::default(),
            met: Vec::new(),
        }
    }

    pub(super) fn arrive(&mut self, block: u32, warp: u32, relaxed: bool) {
        let p = self.phases.entry((block, warp)).or_default();
        p.arrived += 1;
        if relaxed {
            p.relaxed.push(p.arrived);
        }
    }

    pub(super) fn wait(&mut self, block: u32, warp: u32) {
        self.phases.entry((block, warp)).or_default().waited += 1;
    }

    /// An access of the block's own shared memory (`remote` false: every lane's address is
    /// an offset in it) or through the cluster's window (each lane's address is the target
    /// block's rank << 32 | the offset in its memory).
    pub(super) fn access(&mut self, e: &SharedEvent) {
        let (cluster, own) = self.geom.place(e.block);
        let (arrived, waited) = (self.phases.get(&(e.block, e.warp)))
            .map(|p| (p.arrived, p.waited))
            .unwrap_or_default();
        let write = matches!(e.op, Op::Write | Op::CopyWrite | Op::Atomic);
        let atomic = e.op == Op::Atomic;
        let me = |bytes| Touch {
            block: e.block,
            warp: e.warp,
            arrived,
            line: e.line,
            bytes,
            atomic,
        };
        let phases = &self.phases;
        // An earlier access is ordered before this one when this warp has waited at the
        // arrive that released it.
        let ordered = |t: &Touch| {
            let release =
                (phases.get(&(t.block, t.warp))).map_or(u32::MAX, |p| p.release(t.arrived));
            waited >= release
        };
        let mut met = std::mem::take(&mut self.met);
        for l in (0..32).filter(|l| e.mask >> l & 1 == 1) {
            let (rank, offset) = match e.remote {
                true => ((e.addrs[l] >> 32) as u32, e.addrs[l] & 0xffff_ffff),
                false => (own, e.addrs[l]),
            };
            if rank != own {
                let owner = self.geom.block(cluster, rank);
                let now = Use {
                    by: e.block,
                    warp: e.warp,
                    arrived,
                    line: e.line,
                    write,
                    offset,
                };
                let u = self.uses.entry(owner).or_insert(now);
                if arrived > u.arrived {
                    *u = now;
                }
            }
            let end = offset + u64::from(e.width.max(1));
            for word in offset / 4..end.div_ceil(4) {
                let lo = offset.max(word * 4) - word * 4;
                let hi = end.min(word * 4 + 4) - word * 4;
                let bytes = ((1u8 << hi) - 1) & !((1u8 << lo) - 1);
                let w = self.words.entry((cluster, rank, word)).or_default();
                let races = |t: &Touch| {
                    t.block != e.block
                        && t.bytes & bytes != 0
                        && !(t.atomic && atomic)
                        && !ordered(t)
                };
                if let Some(t) = w.write.filter(races) {
                    let kind = if write {
                        RaceKind::WriteWrite
                    } else {
                        RaceKind::WriteRead
                    };
                    tally(&mut met, (kind, RaceScope::Cluster), &t, e, word * 4);
                }
                if write && let Some(t) = w.reads.iter().find(|t| races(t)).copied() {
                    tally(
                        &mut met,
                        (RaceKind::ReadWrite, RaceScope::Cluster),
                        &t,
                        e,
                        word * 4,
                    );
                }
                let t = me(bytes);
                if write {
                    w.write = Some(t);
                    w.reads.clear();
                } else if let Some(r) = w.reads.iter_mut().find(|r| r.block == t.block) {
                    if t.arrived >= r.arrived {
                        *r = t;
                    }
                } else {
                    w.reads.push(t);
                }
            }
        }
        self.met = met;
    }

    pub(super) fn drain(&mut self) -> std::vec::Drain<'_, Race> {
        self.met.drain(..)
    }

    /// At the trace's end: the blocks whose memory another block used after the owner's
    /// last cluster wait could order it (the owner may exit first).
    pub(super) fn exits(&self) -> Vec<Race> {
        let mut waited: FastMap<u32, u32> = FastMap::default();
        for (&(block, _), p) in &self.phases {
            let w = waited.entry(block).or_default();
            *w = (*w).max(p.waited);
        }
        let mut out: Vec<Race> = Vec::new();
        for (&owner, u) in &self.uses {
            let owner_waited = waited.get(&owner).copied().unwrap_or(0);
            let release =
                (self.phases.get(&(u.by, u.warp))).map_or(u32::MAX, |p| p.release(u.arrived));
            if owner_waited >= release {
                continue;
            }
            let kind = if u.write {
                RaceKind::WriteWrite
            } else {
                RaceKind::ReadWrite
            };
            let race = Race {
                scope: RaceScope::Exit,
                kind,
                first_line: u.line,
                second_line: None,
                block: owner,
                offset: u.offset,
                first_warp: u.warp,
                second_warp: 0,
                count: 1,
                lanes: None,
                first_block: Some(u.by),
                partial_barrier: None,
            };
            match out.iter_mut().find(|r| r.first_line == race.first_line) {
                Some(r) => r.count += 1,
                None => out.push(race),
            }
        }
        out.sort_by_key(|r| (r.first_line, r.block));
        out
    }
}

fn tally(
    met: &mut Vec<Race>,
    (kind, scope): (RaceKind, RaceScope),
    first: &Touch,
    e: &SharedEvent,
    offset: u64,
) {
    let same =
        |r: &&mut Race| r.kind == kind && r.first_line == first.line && r.second_line == e.line;
    match met.iter_mut().find(same) {
        Some(r) => r.count += 1,
        None => met.push(Race {
            scope,
            kind,
            first_line: first.line,
            second_line: e.line,
            block: e.block,
            offset,
            first_warp: first.warp,
            second_warp: e.warp,
            count: 1,
            lanes: None,
            first_block: Some(first.block),
            partial_barrier: None,
        }),
    }
}
