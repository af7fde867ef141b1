//! The figures a run produces. These types are the JSON contract of `gpulab run --json`, the
//! recordings and the worker's result messages, so the UI, the tests and the recording all
//! see the same thing.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where the figures come from: measured now, or replayed from a recording a real run wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Live,
    Recorded,
    /// Neither: no recording of this lesson, and nothing measured yet.
    None,
    /// Run now on the CPU interpreter: outputs and traced figures, no times.
    Interpreted,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub name: String,
    /// Compute capability, "9.0".
    pub cc: String,
    pub driver: String,
    #[serde(default)]
    pub sms: u32,
    #[serde(default)]
    pub max_threads_per_sm: u32,
    #[serde(default)]
    pub regs_per_sm: u32,
    #[serde(default)]
    pub smem_per_sm: u32,
    #[serde(default)]
    pub smem_per_block_optin: u32,
    #[serde(default)]
    pub l2_bytes: u64,
    /// The most L2 a context may set aside for persisting accesses (0: not known).
    #[serde(default)]
    pub max_persisting_l2: u64,
    /// Device memory in bytes (0: not known, as in recordings made before it was kept).
    #[serde(default)]
    pub total_mem: u64,
    /// The PCIe link to the host, from NVML (None: NVML did not say, or a recording made
    /// before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie: Option<super::host::PcieLink>,
    /// Set on replayed results: when the recording was made (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_at: Option<String>,
}

impl DeviceInfo {
    /// "sm_90" for compute capability 9.0.
    pub fn arch(&self) -> String {
        format!("sm_{}", self.cc.replace('.', ""))
    }
}

/// Ceilings measured on the device the variants ran on, by the same worker (once, before its
/// first timed run), so a variant's share of the peak compares like with like.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    /// Device-to-device copy, counting bytes read plus bytes written.
    pub copy_gbps: Option<f64>,
    /// cuBLAS SGEMM (FP32, no tensor cores) on the lesson's own problem, when it is the
    /// lesson's reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cublas_gflops: Option<f64>,
    /// The PCIe link's theoretical bandwidth in one direction (`PcieLink::theoretical_gbps`
    /// of the device's link): the peak of `peak: link` lessons. Worked out, not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_gbps: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtxasReport {
    pub registers: u32,
    pub stack_frame: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub smem: u32,
    pub cmem: u32,
    #[serde(default)]
    pub barriers: u32,
    /// Device functions of the module that ptxas compiled as functions of their own (not
    /// inlined), as it names them (mangled unless `extern "C"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeMs {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: u32,
    /// Half the interquartile range, as a percentage of the median.
    pub spread_pct: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    pub blocks_per_sm: u32,
    pub active_warps: u32,
    pub max_warps: u32,
    /// active_warps / max_warps.
    pub ratio: f64,
    /// What bounds it: "registers", "shared memory", "threads", "blocks".
    pub limiter: String,
    /// "api" when CUDA's occupancy calculator gave it, "report" when computed from the ptxas
    /// report with the same rules.
    pub from: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SharedStats {
    pub requests: u64,
    pub wavefronts: u64,
    pub ideal_wavefronts: u64,
    /// The same for loads and stores apart: a lesson's claim is usually about its reads,
    /// and the conflict-free fill stores would dilute them.
    #[serde(default)]
    pub ld: SharedCounts,
    #[serde(default)]
    pub st: SharedCounts,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SharedCounts {
    pub requests: u64,
    pub wavefronts: u64,
    pub ideal_wavefronts: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GlobalStats {
    pub requests: u64,
    pub sectors: u64,
    #[serde(default)]
    pub lines: u64,
    /// Bytes the lanes asked for.
    #[serde(default)]
    pub bytes_used: u64,
    /// Words that two or more traced blocks stored to with plain stores (not scaled: a
    /// count of the traced blocks; `trace::cross_block`). 0 in recordings made before it
    /// was counted.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub cross_block_words: u64,
    /// Words a traced block loaded plainly after another traced block stored them (not
    /// scaled; `trace::cross_block`): values handed between blocks through global memory.
    /// 0 in recordings made before it was counted.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub handover_words: u64,
    /// The traced blocks' global load sectors, a request's each once, and of them those
    /// the same block had loaded before (`trace::cross_block`): a word read twice. Not
    /// scaled; 0 in recordings made before they were counted.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub load_sectors: u64,
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub reread_sectors: u64,
    /// Words handed between traced blocks with an order missing on either side
    /// (`trace::handover`): the last block of a reduction may read a stale partial. Not
    /// scaled. Only from the CPU interpreter, whose traces at an exercise's CPU sizes hold
    /// every block of those grids (the block that reads among them); None from a GPU's
    /// trace, whose sample may leave out that block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfenced_handover_words: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConstantStats {
    pub requests: u64,
    pub distinct: u64,
}

/// Distributed shared memory: `ld`/`st.shared::cluster` requests, the 32-byte sectors they
/// touch (a sector is a (rank, offset / 32) pair) and the requests that reached another block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterStats {
    pub requests: u64,
    pub sectors: u64,
    pub remote_requests: u64,
    /// Of the sectors, those of another block than the requesting one: the bytes that
    /// crossed the cluster (a read of a block's own memory through the cluster is none).
    #[serde(default)]
    pub remote_sectors: u64,
    /// Of the words the lanes named, those of another block than the requesting one
    /// (distinct in each request, summed).
    #[serde(default)]
    pub remote_words: u64,
    /// The traced blocks that made a request reaching another block, scaled to the grid:
    /// an exchange every block takes part in has all of them.
    #[serde(default)]
    pub remote_blocks: u64,
}

/// Texture fetches: requests, and the distinct texels and texel rows they name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TextureStats {
    pub requests: u64,
    pub texels: u64,
    pub rows: u64,
}

/// Atomics and reductions, counted apart from loads and stores (as Nsight Compute counts
/// them: `op_atom` and `op_red`, never in `op_ld`/`op_st`), as the SASS makes them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AtomicStats {
    /// Shared-memory atomics (`ATOMS`): requests, wavefronts and the ideal.
    pub shared: SharedCounts,
    /// Global atomics whose old value is used (`ATOMG`/`ATOM`): requests and sectors.
    pub global_atom: AtomicCounts,
    /// Global reductions (`REDG`/`RED`: the old value unused).
    pub global_red: AtomicCounts,
    /// Updates made (the lanes of the SASS's atomic requests) and the distinct addresses
    /// each request named, summed: updates / addresses is the contention.
    pub updates: u64,
    pub addresses: u64,
}

/// Asynchronous copies from global to shared memory (`cp.async`, SASS `LDGSTS`), counted
/// apart from loads and stores as Nsight Compute counts them (`op_ldgsts`): each warp
/// request reads global sectors and writes shared memory in wavefronts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CopyStats {
    /// The global reads: requests and 32-byte sectors.
    pub global: AtomicCounts,
    /// The shared writes: requests, wavefronts and the ideal.
    pub shared: SharedCounts,
    /// Bulk copies (`cp.async.bulk`, the TMA): their requests (one a copy), the 32-byte
    /// sectors of their global sources and the bytes they move.
    #[serde(default)]
    pub bulk_requests: u64,
    #[serde(default)]
    pub bulk_sectors: u64,
    #[serde(default)]
    pub bulk_bytes: u64,
    /// The bytes the lanes of the asynchronous copies asked for from global memory
    /// (absent from recordings made before they were counted).
    #[serde(default)]
    pub global_bytes_used: u64,
    /// Warp-level waits for copies (`cp.async.wait_group`/`wait_all`), and those that left
    /// a group with copies in it still in flight: a pipeline overlaps copies with work.
    #[serde(default)]
    pub waits: u64,
    #[serde(default)]
    pub waits_in_flight: u64,
    /// Shared read requests, and those made while a tile's worth of the warp's copies was
    /// in flight (`analysis::copy_groups`): the work a pipeline overlaps with its copies.
    #[serde(default)]
    pub reads: u64,
    #[serde(default)]
    pub reads_in_flight: u64,
    /// The bytes the copies' waits completed, and those a shared read overlapped between
    /// their issue and that wait (`analysis::copy_groups`): the copies' time a pipeline
    /// hides behind work.
    #[serde(default)]
    pub completed_bytes: u64,
    #[serde(default)]
    pub overlapped_bytes: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AtomicCounts {
    pub requests: u64,
    pub sectors: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LocalStats {
    pub bytes: u64,
}

/// Memory behaviour from the trace. When only some blocks were traced, the totals are scaled
/// by `total_blocks / traced_blocks` to stand for the whole grid; `instructions` keeps the
/// traced counts, as its heatmaps show real requests.
/// Thread instructions run (active lanes summed over warp steps) by the traced blocks, and
/// how many of them ran inside a called function's frame (`MemoryStats::call_work`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallWork {
    pub thread_steps: u64,
    pub in_calls: u64,
}

impl CallWork {
    /// The share run inside called functions, in percent (0 for a kernel that ran nothing).
    pub fn pct(self) -> f64 {
        100.0 * self.in_calls as f64 / self.thread_steps.max(1) as f64
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MemoryStats {
    pub shared: SharedStats,
    pub global: GlobalStats,
    pub constant: ConstantStats,
    pub local: LocalStats,
    /// Absent from recordings made before the tracer followed these spaces.
    #[serde(default)]
    pub cluster: ClusterStats,
    #[serde(default)]
    pub texture: TextureStats,
    /// Atomics and reductions (absent from recordings made before the tracer followed them).
    #[serde(default)]
    pub atomics: AtomicStats,
    /// Asynchronous copies (absent from recordings made before the tracer followed them).
    #[serde(default)]
    pub copies: CopyStats,
    pub traced_blocks: u64,
    pub total_blocks: u64,
    /// Records lost because the trace buffer was full (never silently dropped).
    #[serde(default)]
    pub overflow: u64,
    /// Wall-clock milliseconds to compile the traced build, run it, decode and analyse.
    #[serde(default)]
    pub trace_ms: f64,
    /// Per-instruction detail for the heatmaps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instructions: Vec<crate::model::access::InstructionSummary>,
    /// The trace followed barriers, so `races` was looked for (false in recordings made
    /// before it did: their empty `races` says nothing).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub races_checked: bool,
    /// `races` looked between the lanes of each warp and the blocks of each cluster too,
    /// not only between a block's warps (false in recordings made before it did).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub races_in_warps_and_clusters: bool,
    /// Each load's summary says whether anything used its value (`InstructionSummary::
    /// unused`; false in recordings made before the tracer looked).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unused_loads_followed: bool,
    /// Distinct shared words the traced blocks' loads read on the lines the kernel times
    /// between two clock reads, each block's counted apart, summed over those loads (not
    /// scaled to the grid: compare with a variant traced as widely). 0: none, or no lines
    /// are timed.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub timed_shared_words: u64,
    /// The same for local loads: the distinct words of each traced thread's local memory
    /// read on the timed lines (a timed loop that is not the private array's chase reads
    /// none).
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub timed_local_words: u64,
    /// Shared load requests of the traced blocks (not scaled), and those on the timed
    /// lines: a timed loop that is not the chase, the chase run untimed beside it, times
    /// half of them. 0 in recordings made before they were counted.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub shared_load_requests: u64,
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub timed_shared_load_requests: u64,
    /// The same for local loads.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub local_load_requests: u64,
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub timed_local_load_requests: u64,
    /// Shared requests of the traced blocks (not scaled) with a lane in the first KiB of
    /// the block's window, which the GPU keeps for itself and no variable of the kernel
    /// lies in: an absolute address there takes memory the kernel never declared.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub shared_reserved_requests: u64,
    /// Shared store requests of the traced blocks (not scaled; the block's own memory),
    /// and those with a word read before it was overwritten (`analysis::store_use`):
    /// stores into words nobody reads, made to bring up a count of requests, are not.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub shared_stores: u64,
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub shared_stores_read: u64,
    /// Out-of-line calls (PTX `call`) the traced threads made of the function they called
    /// most, a lane each, scaled to the grid: a function kept out of line but called once,
    /// beside an inlined copy that does the work, makes few, and calls of an empty one
    /// beside it add none. 0 in recordings made before calls were counted.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub calls: u64,
    /// The traced threads' instructions, and those run inside an out-of-line function:
    /// the share of the work a function called for it does (a function kept out of line
    /// and called for every element, but doing half the work while the caller does the
    /// rest inline, makes the calls all the same). Only the CPU interpreter counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_work: Option<CallWork>,
    /// Warp shuffles (`shfl.sync`, `redux.sync`) the traced threads took part in, a lane
    /// each, scaled to the grid: values exchanged in registers, not through shared memory.
    /// 0 in recordings made before shuffles were counted.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub shuffles: u64,
    /// The traced counts follow the SASS that runs: where ptxas made a shared access in
    /// other instructions than the PTX, they count those (false: no nvdisasm to read the
    /// SASS of a kernel with shared accesses wider than a word, and the counts follow the
    /// PTX).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sass_checked: bool,
    /// Instructions of the module that move memory in ways the trace does not follow, in
    /// PTX order: a verdict on the traced counts does not cover what they do.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unseen: Vec<crate::model::access::UnseenAccess>,
    /// The global totals were counted in every block of the grid (`trace::census`), not
    /// scaled from the traced blocks: what the sample alone gave, scaled, kept beside them.
    /// None: the totals are the sample's (or every block was traced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub census: Option<SampledGlobal>,
    /// Shared-memory hazards between warps of a block within one barrier interval, in the
    /// traced blocks (not scaled), the most frequent first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub races: Vec<Race>,
}

/// The global plain loads' and stores' totals of the traced blocks, scaled to the grid,
/// and their shared wavefronts: what a trace with a census would have said without it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampledGlobal {
    pub requests: u64,
    pub sectors: u64,
    /// Blocks traced besides the sample (in `traced_blocks`): blocks outside it ran lines
    /// no block of it ran, and the first to run each was traced too.
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub added_blocks: u64,
    /// Shared wavefronts (0 in results made before the census costed shared requests).
    #[serde(default, skip_serializing_if = "super::access::is_zero")]
    pub shared_wavefronts: u64,
}

/// Which access came first in the trace and which followed, within one barrier interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RaceKind {
    /// A read of a word another warp wrote (read after write).
    WriteRead,
    /// A write to a word another warp read (write after read).
    ReadWrite,
    /// Two warps wrote the same word.
    WriteWrite,
}

/// Whose accesses a race is between, and so which synchronisation is missing.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum RaceScope {
    /// Two warps of one block, with no block barrier (`__syncthreads()`) between.
    #[default]
    Block,
    /// Two lanes of one warp, with no `__syncwarp()` (nor a block barrier) between: since
    /// Volta a warp's lanes are not in lockstep.
    Warp,
    /// Two blocks of one cluster on one block's shared memory, with no cluster barrier
    /// (`barrier.cluster` arrive and wait) between.
    Cluster,
    /// A block of a cluster may exit, freeing its shared memory, while another block still
    /// reads or writes it: no cluster barrier after the other's access and before the exit.
    Exit,
    /// A bulk copy's bytes (`cp.async.bulk`, the TMA) touched by a thread they have not
    /// landed for: it did not wait on the phase of the mbarrier the copy completes on, nor
    /// meet a thread that had.
    Copy,
}

/// One hazard: a pair of source lines whose accesses met on the same shared word with
/// nothing ordering them: by different warps of a block (no barrier between), by lanes of
/// one warp (no `__syncwarp`), by blocks of a cluster (no cluster barrier), or an access
/// to a block's memory that its exit may overtake (`scope`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Race {
    /// Absent from recordings made before the analysis looked past one block's warps.
    #[serde(default, skip_serializing_if = "is_block_scope")]
    pub scope: RaceScope,
    pub kind: RaceKind,
    /// The source lines of the earlier and the later access (None: the PTX had no `.loc`).
    pub first_line: Option<u32>,
    pub second_line: Option<u32>,
    /// An example: the block, the shared byte offset of the word and the two warps.
    pub block: u32,
    pub offset: u64,
    pub first_warp: u32,
    pub second_warp: u32,
    /// Accesses (one lane's 4-byte word) that met an earlier access of this pair of lines
    /// by another warp, in the traced blocks.
    pub count: u64,
    /// Warp scope: the lanes of the earlier and the later access (the warps are one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lanes: Option<(u32, u32)>,
    /// Cluster and exit scope: the block of the earlier access (`block` is the later's;
    /// for an exit, the block that exits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_block: Option<u32>,
    /// Block scope: a barrier with a thread count the block passed that holds fewer than
    /// its warps, so orders none of this (`bar.sync id, threads`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_barrier: Option<PartialBarrier>,
}

/// A `bar.sync id, threads`, or an mbarrier's phase, that holds only some of a block's
/// warps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartialBarrier {
    /// Its source line (None: the PTX had no `.loc`).
    pub line: Option<u32>,
    /// The threads it holds (an mbarrier: the arrivals a phase awaits).
    pub threads: u32,
    /// An mbarrier's wait, not a `bar.sync`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mbarrier: bool,
}

fn is_block_scope(s: &RaceScope) -> bool {
    *s == RaceScope::Block
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimResult {
    pub claim: String,
    /// None: the figure it needs was not measured.
    pub holds: Option<bool>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// For a claim judged on times: how far it stands from its bar, against the noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<Margin>,
    /// Not judged because only a GPU gives its figure (a time, a rate, an occupancy): the
    /// run was on the CPU interpreter. Neither holding nor failing, and counted apart.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_gpu: bool,
}

/// How far a timing claim's figure stands from its bar, as a percentage of the bar
/// (negative: on the wrong side), and the spread of the times it was judged on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Margin {
    pub headroom_pct: f64,
    pub noise_pct: f64,
}

impl Margin {
    /// Holds by more than the noise: a rerun on the same GPU would not flip it.
    pub fn clear_of_noise(&self) -> bool {
        self.headroom_pct > self.noise_pct
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VariantResult {
    pub name: String,
    /// None when it was not run (no GPU, or it failed before the check).
    pub correct: Option<bool>,
    /// What was wrong, in words: compile error, mismatch at index i, fault, timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<TimeMs>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples_ms: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gbps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gflops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_of_peak: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptxas: Option<PtxasReport>,
    /// The compiler's log, kept when no report could be read from it (so it can be read
    /// by a person instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptxas_log: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy: Option<Occupancy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<MemoryStats>,
    /// Why there is no trace, when tracing was asked for and failed (the variant's own
    /// figures stand).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_error: Option<String>,
    /// Hash of what was compiled (source, kernel, defines, options): a recording whose hash no
    /// longer matches the lesson is stale.
    #[serde(default)]
    pub source_hash: String,
    /// Set on replay when the kernel changed since the recording.
    #[serde(default)]
    pub stale: bool,
    /// Set on replay (with `stale`) for a variant the recording does not have at all: one
    /// added to the lesson after it was recorded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unrecorded: bool,
    /// The grid and block the variant was launched with, evaluated.
    #[serde(default)]
    pub grid: [u32; 3],
    #[serde(default)]
    pub block: [u32; 3],
    /// The lesson's claims whose subject is this variant.
    #[serde(default)]
    pub expect: Vec<ClaimResult>,
    /// How the output was judged when `correct` says nothing: `no output` when the lesson
    /// has no output to compare (the variant ran and was timed, it is not wrong).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// What ended the variant, when the worker was lost on it or it could not run: the CUDA
    /// error, a timeout, a crash, ... (see `Reply::Lost`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// Figures the kernel measured itself (`measures:`), by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub measured: BTreeMap<String, crate::model::measure::Measured>,
    /// The float tolerance the output was compared with, when the lesson sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<crate::model::measure::Tolerance>,
    /// Not run because this machine lacks what the lesson requires, in words ("needs
    /// compute capability 9.0, this GPU has 8.6"); not an error, the recording stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmet: Option<String>,
    /// Set when other processes computed on the GPU while this variant was timed, or its
    /// clock dropped or was held back (a throttle reason): why, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<String>,
    /// The clocks, temperature and power NVML read while the variant was timed (absent:
    /// not timed, no NVML, or a recording made before they were kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
    /// The L2 was flushed before every timed launch (`cold_l2`): the times are of a cold
    /// cache, not of data left there by the previous launch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cold_l2: bool,
    /// Where asked (an exercise check on the CPU interpreter): how much of the output
    /// changed when every value the variant loaded from a space was perturbed, one for
    /// each space and kind of site the run asked (`RunOptions::perturb`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub perturbed: Vec<Perturbed>,
}

/// How much of a variant's loading from `space` feeds its output: each load site of the
/// space ran perturbed in a run of its own over the same inputs (`worker::interpreted`),
/// and `sites_feeding` of the `sites` that ran changed the output. `feeding` of the
/// `loads` (lane values loaded) were at those sites. A kernel that reads its tile for
/// show and makes its output another way feeds none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Perturbed {
    pub space: crate::model::access::Space,
    /// Whether the sites were loads (their values perturbed) or atomics (their updates
    /// left out); `loads` then counts the atomics' lanes.
    #[serde(default)]
    pub of: PerturbOf,
    pub loads: u64,
    pub feeding: u64,
    pub sites: u32,
    pub sites_feeding: u32,
}

impl Perturbed {
    /// Nothing perturbed yet: `sites` sites of `space`, perturbed by `of`.
    pub fn none(space: crate::model::access::Space, of: PerturbOf, sites: u32) -> Perturbed {
        Perturbed {
            space,
            of,
            loads: 0,
            feeding: 0,
            sites,
            sites_feeding: 0,
        }
    }
}

/// What the runs of a check that follows the output change, one site at a time: what
/// the loads of a space read (their bits flipped), or whether the atomics on it update
/// at all (the update left out). A load read for show changes nothing when perturbed; an
/// atomic made for show (an add of zero, a counter nobody reads) changes nothing when
/// left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerturbOf {
    #[default]
    Loads,
    Atomics,
    /// Out-of-line calls: what each returns reaches the caller with bits flipped.
    Returns,
    /// Nothing perturbed: the inputs drawn again, and the words the timed loads of the
    /// space read, with their values, compared between the two runs. `loads` counts the
    /// timed lane loads of the second run at a word the first run's timed loads read too,
    /// `feeding` those of them that read another value there.
    Inputs,
    /// Each warp's last timed load of the space (the last, across the timed sites, of the
    /// warp that made the most), its values perturbed: `feeding` is its lane values where
    /// the output changed, none where it did not. A chase timed for the clock ends where
    /// its output is read; a timed walk whose end is dropped, the output taken from
    /// another, untimed chase, changes nothing.
    TimedEnd,
    /// A warp's timed loads of the space (across the timed sites), some drawn one at a
    /// time, their values perturbed: `loads` counts their lanes, `feeding` those whose
    /// warp's next timed load moved (its addresses, or it was never made). A chase's every
    /// step waits on the one before; one that overlaps its steps leaves some unwaited on.
    TimedNext,
}

/// The space and the kind of site a check's perturbed runs go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Perturbing {
    pub space: crate::model::access::Space,
    #[serde(default)]
    pub of: PerturbOf,
}

impl Perturbed {
    /// The share of the loads at sites that feed the output, in percent (100 where no
    /// such load ran: nothing was made another way).
    pub fn pct(&self) -> f64 {
        match self.loads {
            0 => 100.0,
            n => 100.0 * self.feeding as f64 / n as f64,
        }
    }
}

/// What the GPU ran at while a variant was timed, from NVML samples taken before, during
/// and after its timed runs. Each figure is absent where NVML did not give it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Clocks {
    /// The SM clock: the median of the samples, and the lowest and highest.
    pub sm_mhz: u32,
    pub sm_min_mhz: u32,
    pub sm_max_mhz: u32,
    /// The memory clock, median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_mhz: Option<u32>,
    /// The GPU's temperature, the highest sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temp_c: Option<u32>,
    /// The board's power draw, the highest sample, in watts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_w: Option<f64>,
    /// The SM clock the applications setting asks for (what a steady run reaches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_sm_mhz: Option<u32>,
    /// What held the clocks back in any sample, in words ("power cap", "thermal
    /// slowdown"), the idle GPU and the applications setting left out: they slow nothing
    /// that was timed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throttle: Vec<String>,
    /// Samples the figures come from.
    pub samples: u32,
}

impl VariantResult {
    /// `v`'s result before anything is known of it: its name, the fingerprint of what it
    /// computes (`source_hash`) and its launch shape. The fingerprint comes from the caller
    /// (`analysis::fingerprint::blank_result` computes it): the model hashes nothing.
    pub fn blank(v: &crate::model::Variant, source_hash: String) -> VariantResult {
        VariantResult {
            name: v.name.clone(),
            source_hash,
            grid: v.grid,
            block: v.block,
            ..Default::default()
        }
    }

    /// This result with everything measured dropped: its name, fingerprint and launch
    /// shape kept.
    pub fn blanked(&self) -> VariantResult {
        VariantResult {
            name: self.name.clone(),
            source_hash: self.source_hash.clone(),
            grid: self.grid,
            block: self.block,
            ..Default::default()
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LessonResult {
    pub lesson: String,
    pub source: Source,
    pub device: Option<DeviceInfo>,
    pub peak: Peak,
    pub variants: Vec<VariantResult>,
    /// The lesson's claims. Each is also copied into the variant it is about, so a variant's
    /// column can show its own claims without searching the lesson's.
    pub expect: Vec<ClaimResult>,
    /// Where the compile reports come from, when not from `source`: "live" when NVRTC on
    /// this machine compiled the kernels now, beside recorded timings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile: Option<Source>,
    /// The figures of the lesson's knob settings (variants named `variant@KNOB=value`), as
    /// `gpulab record` measured them; absent from recordings made before knobs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knobs: Vec<VariantResult>,
}

/// What ended a variant before it gave figures. Written as its words in results and
/// recordings (`"CUDA_ERROR_ILLEGAL_ADDRESS"`, `"timeout"`, ...), as it always was, so every
/// recording reads; in the code it is matched, never compared as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Failure {
    /// An error the GPU raised, by its CUDA name (`CUDA_ERROR_...`).
    Cuda(String),
    /// A fault whose error had no name.
    Fault,
    /// The worker stopped answering (an endless kernel).
    Timeout,
    /// The worker died.
    Crashed,
    /// The worker could not start.
    Start,
    /// The variant was never run (an earlier loss ended the request).
    NotRun,
    /// The launch is beyond what the GPU allows.
    LaunchLimits,
    /// The driver refused the launch without naming an error.
    Refused,
    /// A `__constant__` fill that does not fit its symbol.
    ConstantSize,
    /// The lesson's buffers do not fit in the GPU's memory.
    OutOfMemory,
    /// The CPU interpreter does not run this kernel.
    NotInterpreted,
    /// The CPU interpreter stopped the kernel (an error at run time).
    Interpreter,
    /// Words this build does not know (a recording from a later one).
    Other(String),
}

impl Failure {
    const WORDS: [(Failure, &'static str); 11] = [
        (Failure::Fault, "fault"),
        (Failure::Timeout, "timeout"),
        (Failure::Crashed, "crashed"),
        (Failure::Start, "start"),
        (Failure::NotRun, "not run"),
        (Failure::LaunchLimits, "launch limits"),
        (Failure::Refused, "refused"),
        (Failure::ConstantSize, "constant size"),
        (Failure::OutOfMemory, "out of memory"),
        (Failure::NotInterpreted, "not interpreted"),
        (Failure::Interpreter, "interpreter"),
    ];

    /// The failure's words, as results and recordings keep them.
    pub fn as_str(&self) -> &str {
        match self {
            Failure::Cuda(name) | Failure::Other(name) => name,
            f => Self::WORDS
                .iter()
                .find(|(w, _)| w == f)
                .map_or("?", |(_, s)| s),
        }
    }

    /// An error the GPU raised (a named CUDA error, or a fault): a FAULT, which
    /// compute-sanitizer can place, not a hang or a refusal.
    pub fn is_fault(&self) -> bool {
        matches!(self, Failure::Cuda(_) | Failure::Fault)
    }
}

impl From<&str> for Failure {
    fn from(s: &str) -> Failure {
        if s.starts_with("CUDA_ERROR_") {
            return Failure::Cuda(s.to_string());
        }
        (Self::WORDS.iter())
            .find(|(_, w)| *w == s)
            .map_or_else(|| Failure::Other(s.to_string()), |(f, _)| f.clone())
    }
}

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure::from(s.as_str())
    }
}

impl From<Failure> for String {
    fn from(f: Failure) -> String {
        f.as_str().to_string()
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Failure;

    #[test]
    fn a_failure_reads_and_writes_the_words_recordings_keep() {
        for words in [
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "fault",
            "timeout",
            "crashed",
            "start",
            "not run",
            "launch limits",
            "refused",
            "constant size",
            "out of memory",
            "not interpreted",
            "interpreter",
            "something newer",
        ] {
            let json = format!("\"{words}\"");
            let f: Failure = serde_json::from_str(&json).unwrap();
            assert_eq!(serde_json::to_string(&f).unwrap(), json);
        }
        assert!(Failure::from("CUDA_ERROR_MISALIGNED_ADDRESS").is_fault());
        assert!(Failure::from("fault").is_fault());
        assert!(!Failure::from("timeout").is_fault());
        assert_eq!(Failure::from("not run"), Failure::NotRun);
    }
}
