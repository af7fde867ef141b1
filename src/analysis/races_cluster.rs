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
//! A release store that an acquire load of another block reads (both strong at cluster
//! scope or wider) orders too: what the storing warp did up to the store happens before what
//! the loading warp does after the load, and the owner's exit comes after that load. The
//! load is taken to read the latest write before it in the trace, which is the value an
//! acquire that ends a spin loop saw. The flag itself is no race: two strong accesses at a
//! scope that holds both blocks never are (`races::Order`), unless both are relaxed loads
//! or stores, which order nothing, as between a block's warps: blocks that hand data to
//! each other by `ld/st.relaxed.cluster` with no barrier race; and so does a load of a word
//! another block left by an atomic with no release semantics (atomicExch, atomicAdd).
//!
//! Pairs of accesses by one block are the block-scope analysis' to judge, and are left out.

use super::race_events::{Op, Order, SharedEvent};
use super::race_intervals::FastMap;
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
    /// An atomic or a load or store strong at cluster scope or wider.
    strong: bool,
    /// A strong store with release semantics.
    release: bool,
    /// A relaxed load or store (not an atomic): strong, yet nothing ordered with another
    /// relaxed one (`Order::relaxed`).
    relaxed: bool,
    /// An atomic with no release semantics: nothing orders a later load of it.
    unreleased: bool,
    /// A load.
    load: bool,
    /// The warp's count of accesses when it made this one.
    seq: u64,
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
    /// The warp's accesses so far.
    seq: u64,
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

/// A warp's latest use of another block's memory.
#[derive(Clone, Copy)]
struct Use {
    arrived: u32,
    seq: u64,
    /// The cluster analysis' count of accesses when it was made: the trace's order.
    tick: u64,
    line: Option<u32>,
    write: bool,
    offset: u64,
}

/// A warp of a block: (block, warp).
type WarpId = (u32, u32);

pub(super) struct ClusterRaces {
    geom: ClusterGeom,
    phases: FastMap<(u32, u32), Phase>,
    /// (cluster, rank of the owner, word) → its accesses.
    words: FastMap<(u32, u32, u64), Word>,
    /// (owner block, user warp) → that warp's latest use of the owner's memory.
    uses: FastMap<(u32, WarpId), Use>,
    /// (acquiring warp, releasing warp) → the latest access of the releasing warp ordered
    /// before the acquiring warp's later accesses by a release store it read.
    synced: FastMap<(WarpId, WarpId), u64>,
    tick: u64,
    met: Vec<Race>,
}

impl ClusterRaces {
    pub(super) fn new(geom: ClusterGeom) -> ClusterRaces {
        ClusterRaces {
            geom,
            phases: FastMap::default(),
            words: FastMap::default(),
            uses: FastMap::default(),
            synced: FastMap::default(),
            tick: 0,
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
        let me_warp = (e.block, e.warp);
        let phase = self.phases.entry(me_warp).or_default();
        phase.seq += 1;
        let (arrived, waited, seq) = (phase.arrived, phase.waited, phase.seq);
        self.tick += 1;
        let write = matches!(e.op, Op::Write | Op::CopyWrite | Op::Atomic);
        let order = match e.op {
            // An atomic with no scope named is strong at `.gpu` scope.
            Op::Atomic if e.order.strong.is_none() => Order::of("atom"),
            _ => e.order,
        };
        let strong = order.spans_cluster();
        let relaxed = e.op != Op::Atomic && order.relaxed();
        let unreleased = e.op == Op::Atomic && !order.release;
        let me = |bytes| Touch {
            block: e.block,
            warp: e.warp,
            arrived,
            line: e.line,
            bytes,
            strong,
            release: strong && order.release && write,
            relaxed,
            unreleased,
            load: !write,
            seq,
        };
        let (phases, synced) = (&self.phases, &self.synced);
        // An earlier access is ordered before this one when this warp has waited at the
        // arrive that released it, or has read a release store its warp made after it.
        let ordered = |t: &Touch| {
            let release =
                (phases.get(&(t.block, t.warp))).map_or(u32::MAX, |p| p.release(t.arrived));
            waited >= release
                || synced
                    .get(&(me_warp, (t.block, t.warp)))
                    .is_some_and(|&s| s >= t.seq)
        };
        let mut acquired: Vec<(WarpId, u64)> = Vec::new();
        let mut met = std::mem::take(&mut self.met);
        for l in (0..32).filter(|l| e.mask >> l & 1 == 1) {
            let (rank, offset) = match e.remote {
                true => ((e.addrs[l] >> 32) as u32, e.addrs[l] & 0xffff_ffff),
                false => (own, e.addrs[l]),
            };
            if rank != own {
                let owner = self.geom.block(cluster, rank);
                let now = Use {
                    arrived,
                    seq,
                    tick: self.tick,
                    line: e.line,
                    write,
                    offset,
                };
                // Named by its first use in its latest phase; safe only if its latest is.
                let u = self.uses.entry((owner, me_warp)).or_insert(now);
                if arrived > u.arrived {
                    *u = now;
                }
                u.seq = seq;
            }
            let end = offset + u64::from(e.width.max(1));
            for word in offset / 4..end.div_ceil(4) {
                let lo = offset.max(word * 4) - word * 4;
                let hi = end.min(word * 4 + 4) - word * 4;
                let bytes = ((1u8 << hi) - 1) & !((1u8 << lo) - 1);
                let w = self.words.entry((cluster, rank, word)).or_default();
                let races = |t: &Touch| {
                    // Strong accesses that still order nothing: two relaxed ones, or a
                    // load and an atomic with no release semantics.
                    let unordered = (t.relaxed && relaxed)
                        || (t.unreleased && !write)
                        || (unreleased && t.load);
                    t.block != e.block
                        && t.bytes & bytes != 0
                        && !(t.strong && strong && !unordered)
                        && !ordered(t)
                };
                // An acquire load reads the latest write: a release store of another
                // block's warp orders that warp's accesses up to it before this warp's next.
                if !write
                    && strong
                    && order.acquire
                    && let Some(t) = w.write.filter(|t| t.release && t.block != e.block)
                {
                    acquired.push(((t.block, t.warp), t.seq));
                }
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
        for (from, s) in acquired {
            let k = self.synced.entry((me_warp, from)).or_default();
            *k = (*k).max(s);
        }
    }

    pub(super) fn drain(&mut self) -> std::vec::Drain<'_, Race> {
        self.met.drain(..)
    }

    /// At the trace's end: the blocks whose memory another block used after the owner's
    /// last cluster wait could order it (the owner may exit first), unless a warp of the
    /// owner read a release store the user made after its use. One use a block is named:
    /// the latest in the cluster's phases, the first in the trace among those.
    pub(super) fn exits(&self) -> Vec<Race> {
        let mut waited: FastMap<u32, u32> = FastMap::default();
        for (&(block, _), p) in &self.phases {
            let w = waited.entry(block).or_default();
            *w = (*w).max(p.waited);
        }
        // (owner block, user warp) → the latest access of the user a warp of the owner
        // acquired.
        let mut acquired: FastMap<(u32, WarpId), u64> = FastMap::default();
        for (&((block, _), from), &s) in &self.synced {
            let k = acquired.entry((block, from)).or_default();
            *k = (*k).max(s);
        }
        let mut unsafe_uses: FastMap<u32, (WarpId, Use)> = FastMap::default();
        for (&(owner, by), u) in &self.uses {
            let owner_waited = waited.get(&owner).copied().unwrap_or(0);
            let release = (self.phases.get(&by)).map_or(u32::MAX, |p| p.release(u.arrived));
            let acquired = acquired.get(&(owner, by)).is_some_and(|&s| s >= u.seq);
            if owner_waited >= release || acquired {
                continue;
            }
            let named = unsafe_uses.entry(owner).or_insert((by, *u));
            if (u.arrived, std::cmp::Reverse(u.tick))
                > (named.1.arrived, std::cmp::Reverse(named.1.tick))
            {
                *named = (by, *u);
            }
        }
        let mut out: Vec<Race> = Vec::new();
        for (&owner, &((by, warp), u)) in &unsafe_uses {
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
                first_warp: warp,
                second_warp: 0,
                count: 1,
                lanes: None,
                first_block: Some(by),
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
