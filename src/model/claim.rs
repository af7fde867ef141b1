//! The lesson's `expect` claims as data. `course::claims` parses them when the lesson loads;
//! `analysis::claims` judges them against each run's results.

use crate::model::access::{AccessKind, Space};
use crate::model::results::{PerturbOf, Perturbing};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// As written in the lesson.
    pub text: String,
    pub kind: ClaimKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// `A slower than B by >= Kx` (`slower: true`) or `A faster than B by >= Kx`.
    Ratio {
        a: String,
        b: String,
        slower: bool,
        factor: f64,
    },
    /// `A within P% of B`.
    Within { a: String, b: String, pct: f64 },
    /// `A <metric> <op> <number>`.
    Metric {
        a: String,
        metric: Metric,
        op: CmpOp,
        value: f64,
    },
    /// `A correct`.
    Correct { a: String },
    /// `A measured.NAME <op> <number>`: a figure the kernel measured itself.
    Measured {
        a: String,
        name: String,
        op: CmpOp,
        value: f64,
    },
    /// `A measured.NAME greater than B by >= Kx` (`greater: true`) or `... less than ...`.
    MeasuredRatio {
        a: String,
        b: String,
        name: String,
        greater: bool,
        factor: f64,
        /// Written `at least Kx B` (`greater`) or `at most Kx B` (`factor` is then 1/K):
        /// judged as A against K times B, where an A of 0 is at most anything.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bound: bool,
    },
    /// `A <metric> greater than B by >= Kx` (`greater: true`) or `... less than ...`: a
    /// figure of the report or the trace, compared between two variants.
    MetricRatio {
        a: String,
        b: String,
        metric: Metric,
        greater: bool,
        factor: f64,
        /// As `MeasuredRatio`'s.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bound: bool,
    },
    /// `A makes SPACE loads` (or `stores`, or `requests`: either): the trace saw at least
    /// one such request of `A`. What a task means by "use a shared tile" or "read the
    /// table through the constant cache", which a per-request figure cannot say: a kernel
    /// that never touches the space has no per-request figure at all.
    Makes {
        a: String,
        space: Space,
        /// None: loads or stores.
        access: Option<AccessKind>,
    },
    /// `A keeps NAME out of line`: ptxas compiled the device function NAME as a function
    /// of its own (a `__noinline__` call), not inlined into the kernel.
    OutOfLine { a: String, function: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    TimeMs,
    Gbps,
    Gflops,
    PctOfPeak,
    Registers,
    StackFrame,
    SpillStores,
    SpillLoads,
    Smem,
    Occupancy,
    SharedWavefrontsPerRequest,
    SharedLoadWavefrontsPerRequest,
    SharedStoreWavefrontsPerRequest,
    SharedConflictsPerRequest,
    GlobalSectorsPerRequest,
    GlobalSectors,
    GlobalRequests,
    ConstantDistinctPerRequest,
    LocalBytes,
    /// 32-byte sectors per local request, in the lane-interleaved layout of local memory.
    LocalSectorsPerRequest,
    ClusterSectorsPerRequest,
    ClusterRemoteRequests,
    /// 32-byte sectors of another block's shared memory that cluster requests touched.
    ClusterRemoteSectors,
    /// Distinct 4-byte words of another block the cluster requests name (in each request,
    /// summed over them), scaled to the grid: the neighbour's eight partial sums in one
    /// request fill one sector, as its one total does, in eight times the words.
    ClusterRemoteWords,
    /// Blocks that made a remote cluster request, scaled to the grid.
    ClusterRemoteBlocks,
    TextureTexelsPerRequest,
    TextureRowsPerRequest,
    /// Shared-memory hazards between warps within a barrier interval, in the traced blocks.
    SharedRaces,
    /// Distinct 4-byte words a shared load request reads (a broadcast reads one).
    SharedLoadWordsPerRequest,
    /// 4-byte words the shared load requests bring their lanes (a lane's width over 4,
    /// summed over the active lanes), scaled to the grid: what the threads read, however
    /// wide their loads (a uint4 broadcast brings each lane four words in one request,
    /// where four word loads bring one each); one warp reading for the block brings few.
    SharedLaneWords,
    /// Distinct 4-byte words the constant requests read, summed over them, scaled to the
    /// grid: a table walked as uint4 broadcasts reads it all in a quarter of the requests.
    ConstantWords,
    /// The share of the global sector bytes moved that the lanes asked for, in percent.
    GlobalPctUsed,
    /// Wavefronts per shared-memory atomic request (`ATOMS`), as the SASS makes them.
    SharedAtomicWavefrontsPerRequest,
    /// Global atomic and reduction requests (`ATOMG`, `REDG`), in the traced blocks.
    GlobalAtomicRequests,
    /// 32-byte sectors per global atomic or reduction request.
    GlobalAtomicSectorsPerRequest,
    /// Lanes of the atomic requests per distinct address they named: the updates one
    /// address takes from one request, one after another (the contention).
    AtomicLanesPerAddress,
    /// The updates the atomics made (the lanes of their SASS requests; one a warp where
    /// ptxas aggregated them), in the traced blocks.
    AtomicUpdates,
    /// Global requests of the asynchronous copies (`cp.async`, `LDGSTS`), traced blocks.
    CopyGlobalRequests,
    /// Shared wavefronts per asynchronous copy request (its shared write).
    CopySharedWavefrontsPerRequest,
    /// Bulk copies (the TMA's `cp.async.bulk`), in the traced blocks.
    CopyBulkRequests,
    /// Bytes a bulk copy moves, on average.
    CopyBulkBytesPerRequest,
    /// The share of the global sectors read that asynchronous and bulk copies read, in
    /// percent: how much of the kernel's input arrives the way the copies lesson teaches
    /// (one token copy among plain loads is a small share).
    CopyPctOfReads,
    /// Shared-memory requests (loads and stores, atomics apart), and their wavefronts, in
    /// the traced blocks scaled to the grid: totals to hold to a solution's both ways.
    SharedRequests,
    SharedWavefronts,
    /// Constant-memory requests (warp-level), scaled to the grid.
    ConstantRequests,
    /// Texture fetch requests (warp-level), scaled to the grid.
    TextureRequests,
    /// The share of the waits for asynchronous copies (`cp.async.wait_group`) that leave a
    /// group of copies still in flight, in percent: a pipeline that overlaps the next
    /// tile's copies with the work on this one waits with copies in flight; one that waits
    /// for everything (`wait_group 0`, one buffer) never does.
    CopyWaitsInFlightPct,
    /// The share of the shared read requests, in percent, made while a tile's worth of the
    /// warp's asynchronous copies was in flight: the work a pipeline overlaps with its
    /// copies. Waits alone can be split to look overlapped (one tile in three groups
    /// drained before its reads); the reads cannot.
    CopyReadsInFlightPct,
    /// The share of the bytes the copies' waits completed, in percent, that a shared read
    /// overlapped between their issue and that wait: the copies' time hidden behind work.
    /// Half of each tile issued right before its wait keeps half a tile in flight beside
    /// every read, and hides only half the bytes.
    CopyOverlappedPct,
    /// The share of the load requests, in percent, whose values nothing uses (no store,
    /// branch, address or atomic depends on them): loads made only to be counted.
    LoadsUnusedPct,
    /// Distinct shared words read on the lines the kernel times between its clock reads
    /// (`MemoryStats::timed_shared_words`): a timed chase that goes round a few words
    /// while the real one runs untimed reads few.
    SharedTimedWords,
    /// The share of the shared load requests, in percent, made on the lines the kernel
    /// times (`MemoryStats::timed_shared_load_requests`): a timed loop over other words
    /// than the chain's, with the chain chased untimed for its ends, times half of them.
    SharedTimedReadsPct,
    /// The global load requests alone (stores, atomics and copies left out): a load added
    /// where a store is left out keeps `GlobalRequests` as it was.
    GlobalLoadRequests,
    /// The global store requests alone: stores narrower than the solution's (a float2 where
    /// it stores a float4) on a share of the traffic too small for `GlobalRequests` to show.
    GlobalStoreRequests,
    /// The texture requests made by gathers (`tld4`, `tex2Dgather`): four texels a lane
    /// returned unfiltered, to be blended by hand.
    TextureGatherRequests,
    /// The share of the shared load requests, in percent, made by `ldmatrix` (a site of
    /// kind `Matrix`): fragments loaded by hand with plain vector loads, one `ldmatrix`
    /// kept for show, make few of them.
    SharedMatrixReadsPct,
    /// The same share of the local load requests (`MemoryStats::timed_local_load_requests`):
    /// a timed walk beside the private array's chase run untimed times half of them.
    LocalTimedReadsPct,
    /// Shared requests with a lane in the KiB the GPU keeps for itself
    /// (`MemoryStats::shared_reserved_requests`): memory the kernel never declared.
    SharedReservedRequests,
    /// The share of the shared store requests, in percent, with a word read before it is
    /// overwritten (`MemoryStats::shared_stores_read`): decoy stores nobody reads lower it.
    SharedStoresReadPct,
    /// Distinct local words (each thread's own) read on the timed lines
    /// (`MemoryStats::timed_local_words`).
    LocalTimedWords,
    /// Out-of-line calls made, a thread each, scaled to the grid (`MemoryStats::calls`):
    /// a function kept out of line but called once, while an inlined copy does the work,
    /// makes few.
    Calls,
    /// % of the thread instructions run inside out-of-line functions
    /// (`MemoryStats::call_work`, CPU interpreter only): a function called for every
    /// element that does half the work, the caller the rest inline, runs half as much.
    CallsWorkPct,
    /// Thread instructions run outside out-of-line functions (`MemoryStats::call_work`,
    /// CPU interpreter only): padding a function with instructions that change nothing
    /// raises `CallsWorkPct` while the caller does the work inline; it cannot lower this.
    CallsOutsideSteps,
    /// Warp shuffles taken part in, a lane each, scaled to the grid
    /// (`MemoryStats::shuffles`): a tree whose steps are to stay in shared memory has none.
    Shuffles,
    /// Global words two or more traced blocks stored to with plain stores or exchanges
    /// (`GlobalStats::cross_block_words`): a merge into global memory by a load and a
    /// store (or an `atomicExch` of the sum), which loses updates where blocks run at once.
    GlobalCrossBlockWords,
    /// Global words one traced block loaded after another stored them
    /// (`GlobalStats::handover_words`): a value handed between blocks through global
    /// memory, where a lesson hands it through a cluster's shared memory.
    GlobalHandoverWords,
    /// The share, in percent, of the traced blocks' global load sectors that the same block
    /// had loaded before (`GlobalStats::reread_sectors`): words read twice, which a check
    /// of the total sectors leaves room for.
    GlobalRereadPct,
    /// Of those, the words whose store no fence (`__threadfence()`) released before the
    /// storing block's atomic (`GlobalStats::unfenced_handover_words`): the last block may
    /// sum a stale partial. Judged on the CPU interpreter, whose traces at the CPU sizes hold
    /// every block (a GPU's sample may not hold the last one), and so at every CPU size.
    GlobalUnfencedHandoverWords,
    /// The share, in percent, of the values the kernel loads from shared memory that are
    /// loaded at sites whose values reach the output: each load site runs perturbed in a
    /// CPU interpreter run of its own (`VariantResult::perturbed`). A tile read for show
    /// beside a result made in registers feeds none of it.
    SharedFeedsOutputPct,
    /// `SharedFeedsOutputPct` for the values loaded from constant memory: a table read
    /// for show (its words masked away by a zero the compiler cannot see) beside sums made
    /// another way feeds none of them.
    ConstantFeedsOutputPct,
    /// The share of the out-of-line calls whose returned value reaches the output.
    CallsFeedOutputPct,
    /// The share of the shared atomic updates (lanes) made at sites whose updates reach the
    /// output: each shared atomic site runs with its updates left out in a CPU interpreter
    /// run of its own (`VariantResult::perturbed`). An add of zero, or a counter nobody
    /// reads, counts like any update but changes nothing when left out.
    SharedAtomicsFeedOutputPct,
    /// The same for the values read from another block's shared memory through the
    /// cluster (`ld.shared::cluster`, or a generic load that lands there): a remote read
    /// kept for show beside a neighbour's value worked out again feeds none.
    ClusterFeedsOutputPct,
    /// The share, in percent, of the kernel's timed shared loads (on the lines between two
    /// clock reads) that chase what was drawn: the lesser of the share whose values change
    /// when the inputs are drawn again and the share whose addresses change when an
    /// earlier timed load's values are perturbed (CPU interpreter runs, each timed load's
    /// word and value kept: `VariantResult::perturbed`, `PerturbOf::Inputs`). A fixed ring
    /// chased for the clock reads the same values whatever was drawn; a sweep of the
    /// drawn words in order, each load waiting on the last by arithmetic, follows none.
    SharedTimedChasePct,
    /// `SharedTimedChasePct` for the timed loads of local memory: a private array chased
    /// for the clock (the memory ladder's local rung), not a walk of it in order or a
    /// throughput of independent loads with the chain's end taken untimed.
    LocalTimedChasePct,
    /// Whether what a warp's last timed shared load reads reaches the output, in percent
    /// (`PerturbOf::TimedEnd`): the end of a chase timed for the clock is its output.
    SharedTimedEndFeedsOutputPct,
    /// The share, in percent, of the kernel's timed shared loads that the warp's next
    /// timed load waits on: its addresses move when their values are perturbed
    /// (`PerturbOf::TimedNext`, a load at a time). A chase times one latency after
    /// another only where every step waits on the last: a chain of every second node
    /// walked beside a load of the node between, or two chases interleaved, overlap their
    /// loads and time half the latencies or fewer, each load still chasing what was drawn.
    SharedTimedSerialPct,
    /// `SharedTimedSerialPct` for the timed loads of local memory.
    LocalTimedSerialPct,
    /// Global load requests whose values go into shared memory and nowhere else, in
    /// percent of all global load requests (`InstructionSummary::staged`): a tiled kernel
    /// that reads part of its input straight into its arithmetic makes about the requests
    /// and sectors of one that stages all of it.
    GlobalStagedPct,
    /// Global store requests whose values come straight from shared memory, in percent of
    /// all global store requests (`InstructionSummary::relayed`): where each thread is to
    /// store what it computed, an output turned around through a tile keeps the old
    /// mapping behind coalesced stores.
    GlobalRelayedPct,
    /// The bytes the lanes of global load and store requests asked for, in percent, that
    /// accesses of 16 bytes a lane or more moved (`InstructionSummary::width`): a copy
    /// vectorised but for a few floats at its end stays near 100 at every size, one
    /// that moves a share of its words 4 bytes a lane does not, whatever its sectors per
    /// request average out at.
    GlobalWideBytesPct,
}

impl Metric {
    pub const ALL: [(&'static str, Metric); 81] = [
        ("time_ms", Metric::TimeMs),
        ("gbps", Metric::Gbps),
        ("gflops", Metric::Gflops),
        ("pct_of_peak", Metric::PctOfPeak),
        ("registers", Metric::Registers),
        ("stack_frame", Metric::StackFrame),
        ("spill_stores", Metric::SpillStores),
        ("spill_loads", Metric::SpillLoads),
        ("smem", Metric::Smem),
        ("occupancy", Metric::Occupancy),
        (
            "shared.wavefronts_per_request",
            Metric::SharedWavefrontsPerRequest,
        ),
        (
            "shared.load_wavefronts_per_request",
            Metric::SharedLoadWavefrontsPerRequest,
        ),
        (
            "shared.store_wavefronts_per_request",
            Metric::SharedStoreWavefrontsPerRequest,
        ),
        (
            "shared.conflicts_per_request",
            Metric::SharedConflictsPerRequest,
        ),
        (
            "global.sectors_per_request",
            Metric::GlobalSectorsPerRequest,
        ),
        ("global.sectors", Metric::GlobalSectors),
        ("global.requests", Metric::GlobalRequests),
        ("global.load_requests", Metric::GlobalLoadRequests),
        ("global.store_requests", Metric::GlobalStoreRequests),
        (
            "constant.distinct_per_request",
            Metric::ConstantDistinctPerRequest,
        ),
        ("local.bytes", Metric::LocalBytes),
        ("local.sectors_per_request", Metric::LocalSectorsPerRequest),
        (
            "cluster.sectors_per_request",
            Metric::ClusterSectorsPerRequest,
        ),
        ("cluster.remote_requests", Metric::ClusterRemoteRequests),
        ("cluster.remote_sectors", Metric::ClusterRemoteSectors),
        ("cluster.remote_words", Metric::ClusterRemoteWords),
        ("cluster.remote_blocks", Metric::ClusterRemoteBlocks),
        (
            "texture.texels_per_request",
            Metric::TextureTexelsPerRequest,
        ),
        ("texture.rows_per_request", Metric::TextureRowsPerRequest),
        ("shared.races", Metric::SharedRaces),
        (
            "shared.load_words_per_request",
            Metric::SharedLoadWordsPerRequest,
        ),
        ("shared.lane_words", Metric::SharedLaneWords),
        ("constant.words", Metric::ConstantWords),
        ("global.pct_used", Metric::GlobalPctUsed),
        (
            "shared.atomic_wavefronts_per_request",
            Metric::SharedAtomicWavefrontsPerRequest,
        ),
        ("global.atomic_requests", Metric::GlobalAtomicRequests),
        (
            "global.atomic_sectors_per_request",
            Metric::GlobalAtomicSectorsPerRequest,
        ),
        ("atomic.lanes_per_address", Metric::AtomicLanesPerAddress),
        ("atomic.updates", Metric::AtomicUpdates),
        ("copy.global_requests", Metric::CopyGlobalRequests),
        (
            "copy.shared_wavefronts_per_request",
            Metric::CopySharedWavefrontsPerRequest,
        ),
        ("copy.bulk_requests", Metric::CopyBulkRequests),
        (
            "copy.bulk_bytes_per_request",
            Metric::CopyBulkBytesPerRequest,
        ),
        ("copy.pct_of_reads", Metric::CopyPctOfReads),
        ("shared.requests", Metric::SharedRequests),
        ("shared.wavefronts", Metric::SharedWavefronts),
        ("constant.requests", Metric::ConstantRequests),
        ("texture.requests", Metric::TextureRequests),
        ("texture.gather_requests", Metric::TextureGatherRequests),
        ("copy.waits_in_flight_pct", Metric::CopyWaitsInFlightPct),
        ("copy.reads_in_flight_pct", Metric::CopyReadsInFlightPct),
        ("copy.overlapped_pct", Metric::CopyOverlappedPct),
        ("loads.unused_pct", Metric::LoadsUnusedPct),
        ("global.staged_pct", Metric::GlobalStagedPct),
        ("global.relayed_pct", Metric::GlobalRelayedPct),
        ("global.wide_bytes_pct", Metric::GlobalWideBytesPct),
        ("shared.timed_words", Metric::SharedTimedWords),
        ("shared.timed_reads_pct", Metric::SharedTimedReadsPct),
        ("shared.matrix_reads_pct", Metric::SharedMatrixReadsPct),
        ("local.timed_reads_pct", Metric::LocalTimedReadsPct),
        ("shared.reserved_requests", Metric::SharedReservedRequests),
        ("shared.stores_read_pct", Metric::SharedStoresReadPct),
        ("local.timed_words", Metric::LocalTimedWords),
        ("calls", Metric::Calls),
        ("calls.work_pct", Metric::CallsWorkPct),
        ("calls.outside_steps", Metric::CallsOutsideSteps),
        ("shuffles", Metric::Shuffles),
        ("global.cross_block_words", Metric::GlobalCrossBlockWords),
        ("global.handover_words", Metric::GlobalHandoverWords),
        ("global.reread_pct", Metric::GlobalRereadPct),
        (
            "global.unfenced_handover_words",
            Metric::GlobalUnfencedHandoverWords,
        ),
        ("shared.feeds_output_pct", Metric::SharedFeedsOutputPct),
        ("constant.feeds_output_pct", Metric::ConstantFeedsOutputPct),
        ("shared.timed_chase_pct", Metric::SharedTimedChasePct),
        ("local.timed_chase_pct", Metric::LocalTimedChasePct),
        ("shared.timed_serial_pct", Metric::SharedTimedSerialPct),
        ("local.timed_serial_pct", Metric::LocalTimedSerialPct),
        (
            "shared.timed_end_feeds_output_pct",
            Metric::SharedTimedEndFeedsOutputPct,
        ),
        ("calls.feed_output_pct", Metric::CallsFeedOutputPct),
        ("cluster.feeds_output_pct", Metric::ClusterFeedsOutputPct),
        (
            "shared.atomics_feed_output_pct",
            Metric::SharedAtomicsFeedOutputPct,
        ),
    ];

    /// A figure that comes from timing the variant (a time, or a rate worked out from it),
    /// and so means nothing if its output is wrong.
    pub fn is_timing(self) -> bool {
        matches!(
            self,
            Metric::TimeMs | Metric::Gbps | Metric::Gflops | Metric::PctOfPeak
        )
    }

    /// A figure ptxas's report gives (registers, stack frame, spills, static shared
    /// memory): it needs no run, so a kernel the interpreter does not run is judged on it.
    pub fn from_compile_report(self) -> bool {
        matches!(
            self,
            Metric::Registers
                | Metric::StackFrame
                | Metric::SpillStores
                | Metric::SpillLoads
                | Metric::Smem
        )
    }

    /// A figure only the CPU interpreter makes (runs with the loaded values perturbed, or
    /// the instructions counted by the function they run in): a GPU check takes it from
    /// its strict rerun there.
    pub fn judged_on_cpu(self) -> bool {
        self.perturbing().is_some()
            || matches!(
                self,
                Metric::CallsWorkPct
                    | Metric::CallsOutsideSteps
                    | Metric::GlobalUnfencedHandoverWords
            )
    }

    /// The space whose loads (or atomics) the figure perturbs, for a figure of what feeds
    /// the output.
    pub fn perturbing(self) -> Option<Perturbing> {
        let (space, of) = match self {
            Metric::SharedFeedsOutputPct => (Space::Shared, PerturbOf::Loads),
            Metric::ConstantFeedsOutputPct => (Space::Constant, PerturbOf::Loads),
            Metric::ClusterFeedsOutputPct => (Space::Cluster, PerturbOf::Loads),
            Metric::SharedAtomicsFeedOutputPct => (Space::Shared, PerturbOf::Atomics),
            Metric::CallsFeedOutputPct => (Space::Param, PerturbOf::Returns),
            Metric::SharedTimedChasePct => (Space::Shared, PerturbOf::Inputs),
            Metric::LocalTimedChasePct => (Space::Local, PerturbOf::Inputs),
            Metric::SharedTimedSerialPct => (Space::Shared, PerturbOf::TimedNext),
            Metric::LocalTimedSerialPct => (Space::Local, PerturbOf::TimedNext),
            Metric::SharedTimedEndFeedsOutputPct => (Space::Shared, PerturbOf::TimedEnd),
            _ => return None,
        };
        Some(Perturbing { space, of })
    }

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub const ALL: [(&'static str, CmpOp); 6] = [
        ("==", CmpOp::Eq),
        ("!=", CmpOp::Ne),
        ("<", CmpOp::Lt),
        ("<=", CmpOp::Le),
        (">", CmpOp::Gt),
        (">=", CmpOp::Ge),
    ];

    pub fn symbol(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, o)| *o == self)
            .map_or("?", |(s, _)| s)
    }
}

impl Claim {
    /// The name of the measured figure the claim is about, if it is about one.
    pub fn measure(&self) -> Option<&str> {
        match &self.kind {
            ClaimKind::Measured { name, .. } | ClaimKind::MeasuredRatio { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The metric the claim reads, where it reads one.
    pub fn metric(&self) -> Option<Metric> {
        match &self.kind {
            ClaimKind::Metric { metric, .. } | ClaimKind::MetricRatio { metric, .. } => {
                Some(*metric)
            }
            _ => None,
        }
    }

    /// The variant the claim is about (its first word).
    pub fn subject(&self) -> &str {
        match &self.kind {
            ClaimKind::Ratio { a, .. }
            | ClaimKind::Within { a, .. }
            | ClaimKind::Metric { a, .. }
            | ClaimKind::Correct { a }
            | ClaimKind::Measured { a, .. }
            | ClaimKind::MeasuredRatio { a, .. }
            | ClaimKind::MetricRatio { a, .. }
            | ClaimKind::Makes { a, .. }
            | ClaimKind::OutOfLine { a, .. } => a,
        }
    }

    /// Every variant the claim names: its subject, and the one it is compared with.
    pub fn variants(&self) -> Vec<&str> {
        match &self.kind {
            ClaimKind::Ratio { a, b, .. }
            | ClaimKind::Within { a, b, .. }
            | ClaimKind::MeasuredRatio { a, b, .. }
            | ClaimKind::MetricRatio { a, b, .. } => vec![a, b],
            _ => vec![self.subject()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_comparison_names_both_its_variants() {
        let c = Claim {
            text: "yours global.sectors less than naive by >= 2x".into(),
            kind: ClaimKind::MetricRatio {
                a: "yours".into(),
                b: "naive".into(),
                metric: Metric::Registers,
                greater: false,
                factor: 2.0,
                bound: false,
            },
        };
        assert_eq!(c.variants(), ["yours", "naive"]);
    }
}
