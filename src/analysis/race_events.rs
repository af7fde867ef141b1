//! The events the race analysis reads: one warp's shared-memory request or barrier, in its
//! own order, and each access's strength in PTX's memory model. Every part of the analysis
//! (`races` and the `races_*` beside it) reads them; they import nothing of the analysis.

/// What one warp did, in its own order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    /// An atomic read-modify-write (`atom`, `red`).
    Atomic,
    Barrier,
    /// `bar.sync id, threads`: the block's barrier where `threads` holds each warp of the
    /// block, else one that orders nothing between warps here (which warps it holds
    /// together is the hardware's choice of arrivals), only the lanes of the warp.
    CountedBarrier(u32),
    /// The shared write of an asynchronous copy (`cp.async`), at its issue.
    CopyWrite,
    /// The shared side of a bulk copy (`cp.async.bulk`), at its issue: each lane's
    /// destination under the offset of the mbarrier it completes on << 32, `width` bytes.
    BulkWrite,
    /// `cp.async.commit_group`: the warp's copies since its last commit make a group.
    CopyCommit,
    /// `cp.async.wait_group groups` (`all`: `wait_all`, which commits first): the warp's
    /// groups but the newest `groups` are complete.
    CopyWait {
        groups: u32,
        all: bool,
    },
    /// `bar.warp.sync` (`__syncwarp()`): the lanes of the request's mask meet.
    WarpSync,
    /// `barrier.cluster.arrive`: also a block barrier, as the block's analysis counts it.
    ClusterArrive,
    /// `barrier.cluster.arrive.relaxed`: as an arrive, releasing none of the warp's accesses.
    ClusterArriveRelaxed,
    /// `barrier.cluster.wait`: also a block barrier.
    ClusterWait,
    /// `mbarrier.init`: each lane's address is the count of arrivals a phase awaits << 32 |
    /// the barrier's shared offset.
    MbarInit,
    /// An arrival on the `mbarrier` at the lanes' address (`relaxed`: releasing nothing).
    MbarArrive {
        relaxed: bool,
    },
    /// A wait on the `mbarrier` at the lanes' address that found its phase complete, for
    /// the lanes of the mask (`relaxed`: acquiring nothing).
    MbarWait {
        relaxed: bool,
    },
}

impl Op {
    /// A request that touches shared words (a group event or a barrier touches none).
    pub fn is_access(self) -> bool {
        matches!(self, Op::Read | Op::Write | Op::Atomic | Op::CopyWrite)
    }
}

/// One warp's step: a shared-memory request of its active lanes, or a barrier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedEvent {
    pub block: u32,
    pub warp: u32,
    pub op: Op,
    /// The source line of the instruction.
    pub line: Option<u32>,
    pub mask: u32,
    /// Bytes per lane; 0 for a barrier.
    pub width: u32,
    /// Per lane: the byte offset in the block's shared memory; where `remote`, the
    /// target block's rank in the cluster << 32 | the byte offset in its shared memory.
    pub addrs: [u64; 32],
    /// An access through the cluster's window (`ld.shared::cluster`, a mapped generic
    /// address), which only the cluster's analysis follows.
    pub remote: bool,
    /// Its strength in the memory model: plain, or a strong access at a scope.
    pub order: Order,
}

/// The scope of a strong access: the threads it is strong with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

/// An access's strength in PTX's memory consistency model. A `.relaxed`, `.acquire` or
/// `.release` load or store, and every atomic, is strong at its scope; two strong accesses
/// of one location whose scopes each hold the other's thread are "morally strong", which is
/// never a data race: a flag written with `st.release` and polled with `ld.acquire` is how
/// blocks hand over a value. A release store read by an acquire load also orders what its
/// thread did before the store ahead of what the reader does after the load.
///
/// `.volatile` stays plain here, although the model reads it as relaxed at system scope:
/// lanes that swap values through `volatile` shared memory with no `__syncwarp()` are the
/// pre-Volta warp-synchronous idiom that racecheck reports, and that is the race a learner
/// must be shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Order {
    /// Strong at this scope; None for a plain (weak) access.
    pub strong: Option<Scope>,
    pub acquire: bool,
    pub release: bool,
}

impl Order {
    /// The order an instruction names, e.g. `ld.acquire.cluster.shared::cta.b64` or
    /// `atom.shared.add.u32` (an atomic with no semantics is relaxed, at `.gpu` scope).
    pub fn of(opcode: &str) -> Order {
        let mut parts = opcode.split('.');
        let base = parts.next().unwrap_or("");
        let (mut sem, mut scope) = (None, None);
        for p in parts {
            match p {
                "relaxed" | "acquire" | "release" | "acq_rel" => sem = Some(p),
                "cta" => scope = Some(Scope::Cta),
                "cluster" => scope = Some(Scope::Cluster),
                "gpu" => scope = Some(Scope::Gpu),
                "sys" => scope = Some(Scope::Sys),
                _ => {}
            }
        }
        let atomic = matches!(base, "atom" | "red");
        if sem.is_none() && !atomic {
            return Order::default();
        }
        Order {
            strong: Some(scope.unwrap_or(Scope::Gpu)),
            acquire: matches!(sem, Some("acquire" | "acq_rel")),
            release: matches!(sem, Some("release" | "acq_rel")),
        }
    }

    /// Strong, with neither acquire nor release: `ld.relaxed`/`st.relaxed` (and an atomic
    /// with no semantics, which the callers tell apart by its op). Two relaxed accesses
    /// of one word are morally strong, no data race in the model, but nothing orders them:
    /// which value the load sees is the schedule's choice. Warps that hand a tile over by
    /// relaxed loads and stores with no barrier race as plain ones do, and are shown so;
    /// a flag handed over by a release store and an acquire load, or a counter updated by
    /// atomics, is not.
    pub fn relaxed(self) -> bool {
        self.strong.is_some() && !self.acquire && !self.release
    }

    /// Strong with every thread of a cluster (and so with another block's).
    pub fn spans_cluster(self) -> bool {
        self.strong >= Some(Scope::Cluster)
    }
}
