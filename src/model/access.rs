//! What the tracer hands to the rest of the lab for one instruction of a variant: its totals
//! and one warp request to draw. Produced by `trace::analyze`, serialized into results and
//! recordings, drawn by the heatmap view.

use serde::{Deserialize, Serialize};

/// Where a block's own shared memory starts in its shared window: the H100 (and H200) keep
/// the first KiB for themselves, and the recorded shared addresses start past it.
pub const SHARED_RESERVED: u32 = 1024;

/// Bit 63 of an mbarrier event's logged address (both tracers log it alike): the value
/// `MBAR_HIGH_MASK` keeps above the offset (<< 32) is an `expect_tx` arrival's bytes or a
/// `.parity` wait's parity.
pub const MBAR_FLAG: u64 = 1 << 63;
/// The bits of that value.
pub const MBAR_HIGH_MASK: u64 = (1 << 30) - 1;

/// The 4-byte words a lane's access of `width` bytes at byte address `a` covers (a vector
/// access's each; at least one).
pub fn words_of(a: u64, width: u32) -> std::ops::Range<u64> {
    let first = a >> 2;
    first..first + u64::from(width.div_ceil(4).max(1))
}

/// A PTX state space: the one an instruction names (`ld.shared`, `st.global`, `ld` alone is
/// generic) and, once the address is resolved, the one a traced request went to. The tracer,
/// the interpreter and the results all use this one enum. A traced request (a record, an
/// `InstructionSummary`) is always resolved: never `Generic`, never `Param`, which are what
/// an instruction may name before its lanes' addresses are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    Shared,
    Global,
    Local,
    /// `.const` (PTX spells it `const`; results and recordings `constant`).
    Constant,
    /// `ld`/`st.shared::cluster`: shared memory of a block of the cluster, through the
    /// cluster's window (distributed shared memory).
    Cluster,
    /// Texture fetches (`tex.1d`, `tex.2d`); the lanes name texel coordinates, not addresses.
    Texture,
    /// No space named: each lane's address says which window it falls in.
    Generic,
    /// `.param`: a kernel's or a function's parameters.
    Param,
}

impl Space {
    /// The memory a load of this space reads, in a learner's words: "shared memory",
    /// "another block's shared memory" (through the cluster), "global memory".
    pub fn memory_words(self) -> &'static str {
        match self {
            Space::Shared => "shared memory",
            Space::Global => "global memory",
            Space::Local => "local memory",
            Space::Constant => "constant memory",
            Space::Cluster => "another block's shared memory",
            Space::Texture => "a texture",
            Space::Generic => "generic addresses",
            Space::Param => "parameters",
        }
    }

    /// The space a PTX qualifier or directive names, without its dot: `shared`,
    /// `shared::cta`, `shared::cluster`, `global`, `local`, `const` (and a constant bank,
    /// `const[2]`), `param` (and `param::entry`, `param::func`). None for anything else.
    pub fn from_ptx(word: &str) -> Option<Space> {
        Some(match word {
            "shared" | "shared::cta" => Space::Shared,
            "shared::cluster" => Space::Cluster,
            "global" => Space::Global,
            "local" => Space::Local,
            w if w == "const" || w.starts_with("const[") => Space::Constant,
            w if w == "param" || w.starts_with("param::") => Space::Param,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessKind {
    Load,
    Store,
    /// An atomic read-modify-write that returns the old value: PTX `atom`, SASS `ATOM`,
    /// `ATOMS`, `ATOMG` (Nsight Compute's `op_atom`).
    Atomic,
    /// An atomic update whose old value is not used: PTX `red`, SASS `RED`/`REDG` (Nsight
    /// Compute's `op_red`). ptxas makes an `atom` whose result is unused a reduction, so a
    /// site's kind follows the SASS where it was read.
    Reduction,
    /// An asynchronous copy from global to shared memory (PTX `cp.async`, SASS `LDGSTS`,
    /// Nsight Compute's `op_ldgsts`): each lane names a global address it reads and a shared
    /// address it writes, traced as two sites of this kind, one per space. The shared write
    /// lands at the `cp.async.wait_group`/`wait_all` that completes its group, not at the
    /// instruction.
    #[serde(rename = "async-copy")]
    AsyncCopy,
    /// A bulk copy by the tensor memory accelerator (PTX `cp.async.bulk`, the TMA): one
    /// thread moves a whole tile from global to shared memory. Traced as one record of its
    /// global source: the issuing lane's address and the bytes it moves (the record's
    /// width), not per lane.
    #[serde(rename = "bulk-copy")]
    BulkCopy,
    /// A warp's load of 8x8 matrices of 16-bit elements from shared memory for the tensor
    /// cores (PTX `ldmatrix`, SASS `LDSM`, Nsight Compute's `op_ldsm`): each of the first 8,
    /// 16 or 32 lanes (x1, x2, x4) names one 16-byte row, and every lane receives a share of
    /// every matrix. Traced as a 16-byte load of those lanes: a matrix's eight rows are
    /// served together, as a 16-byte load's phase of eight lanes is.
    Matrix,
}

impl AccessKind {
    /// An atomic or a reduction: a read-modify-write, never a plain load or store.
    pub fn is_atomic(self) -> bool {
        matches!(self, AccessKind::Atomic | AccessKind::Reduction)
    }
}

/// One warp's request: the lanes that took part and the byte address each asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpAccess {
    pub mask: u32,
    /// Width of each lane's access in bytes (1, 2, 4, 8 or 16).
    pub width: u32,
    /// 32 entries; entries of inactive lanes are 0 and meaningless. Cluster: the target
    /// block's rank << 32 | the byte offset in its shared memory. Texture: the coordinates'
    /// bits as logged, y << 32 | x (see `TexCoords`).
    pub addrs: Vec<u64>,
}

/// How a texture site's coordinates read: the type the `tex` instruction names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CoordType {
    F32,
    S32,
}

/// The coordinates of a texture site: their type and how many there are (1d: x, 2d: x, y).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TexCoords {
    pub ty: CoordType,
    pub dims: u32,
    /// The texture's size (width, height) when it is read with normalized coordinates,
    /// which the trace learns from the lesson, not from the PTX; None: unnormalised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalized: Option<(u64, u64)>,
}

impl TexCoords {
    /// The texel a lane's logged coordinates name, (x, y); y is 0 for 1D. A float coordinate
    /// names texel floor(coordinate) (floor(coordinate × size) when normalized), the one
    /// point filtering reads; one that is NaN names texel 0. The address mode decides what
    /// a texel outside the image returns; the texel itself is kept as the lane named it.
    pub fn texel(&self, bits: u64) -> (i64, i64) {
        let one = |b: u32, size: Option<u64>| match self.ty {
            CoordType::S32 => i64::from(b as i32),
            CoordType::F32 => {
                let c = f64::from(f32::from_bits(b));
                (c * size.map_or(1.0, |s| s as f64)).floor() as i64
            }
        };
        let (w, h) = self.normalized.unzip();
        let y = if self.dims >= 2 {
            one((bits >> 32) as u32, h)
        } else {
            0
        };
        (one(bits as u32, w), y)
    }
}

/// The texels one warp's request named, for the footprint view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpTexels {
    /// Linear block id and warp within the block, as the trace records them.
    pub block: u32,
    pub warp: u32,
    /// (lane, x, y) for every active lane.
    pub texels: Vec<(u32, i64, i64)>,
}

/// An instruction that moves data in memory in a way neither tracer follows (`prefetch`,
/// a tensor-map or shared-to-global bulk copy, `st.async`, `multimem`, …): what it does is
/// in no traced count, so a verdict drawn from the counts says nothing of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnseenAccess {
    /// The PTX instruction as written, e.g. "prefetch.global.L2".
    pub op: String,
    /// 1-based line in the PTX.
    pub ptx_line: u32,
    /// 1-based line in the kernel source, from the PTX `.loc` before it.
    pub source_line: Option<u32>,
    /// The kernel (`.entry`) it is in; None in a `.func`, which any kernel may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
}

impl UnseenAccess {
    /// Those of `all` that kernel `entry` may run: its own and the called functions'. A
    /// file's other kernels are not what this launch did.
    pub fn of_kernel(all: &[UnseenAccess], entry: &str) -> Vec<UnseenAccess> {
        (all.iter())
            .filter(|u| u.entry.as_deref().is_none_or(|e| e == entry))
            .cloned()
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionSummary {
    /// Instrumentation site id (order in the PTX).
    pub id: u32,
    pub space: Space,
    pub kind: AccessKind,
    /// The PTX instruction as written, e.g. "ld.shared.v4.f32".
    pub op: String,
    /// 1-based line in the PTX.
    pub ptx_line: u32,
    /// 1-based line in the kernel source, from the PTX `.loc` before it.
    pub source_line: Option<u32>,
    pub width: u32,
    /// Warp requests traced (in the sampled blocks, not scaled).
    pub requests: u64,
    /// Shared: wavefronts and the ideal (one per non-empty phase).
    pub wavefronts: u64,
    pub ideal_wavefronts: u64,
    /// Global: 32-byte sectors, 128-byte lines and bytes the lanes asked for. Cluster: the
    /// 32-byte sectors of the target blocks' shared memory (rank and offset).
    pub sectors: u64,
    pub lines: u64,
    pub bytes_used: u64,
    /// Constant: distinct addresses summed over requests.
    pub distinct: u64,
    /// Local: bytes moved.
    pub local_bytes: u64,
    /// Local: 32-byte sectors the requests touch in the lane-interleaved layout
    /// (`analysis::coalescing::local_sectors`), summed over requests (absent from
    /// recordings made before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub local_sectors: u64,
    /// Texture: distinct texels and distinct texel rows, summed over requests.
    #[serde(default)]
    pub texels: u64,
    #[serde(default)]
    pub texel_rows: u64,
    /// Cluster: requests whose lanes named another block's shared memory (any lane).
    #[serde(default)]
    pub remote_requests: u64,
    /// Texture: how the coordinates read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coords: Option<TexCoords>,
    /// Texture: the first requests of the first warps traced, for the footprint view.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub footprint: Vec<WarpTexels>,
    /// Shared: for each of the 32 banks, distinct words asked of it, summed over requests.
    #[serde(default)]
    pub bank_words: Vec<u64>,
    /// The request to draw: the worst one traced (most wavefronts or sectors).
    pub sample: Option<WarpAccess>,
    /// Active lanes summed over the requests (absent from recordings made before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lanes: u64,
    /// Where ptxas made this access into other SASS instructions than the PTX says: the
    /// figures above then count what the SASS does, and this says how and what the PTX
    /// alone would have given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sass: Option<SassShape>,
    /// Atomics and reductions: what the SASS made of the PTX's atomic, and its contention.
    /// `requests`, `wavefronts`, `sectors` above then count the SASS's atomic requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atomic: Option<AtomicSummary>,
    /// A load whose value nothing with an effect uses (a store, a branch, an address, an
    /// atomic): work the kernel did not need, counted in the figures above all the same.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unused: bool,
    /// A load whose value goes into shared memory and nowhere else: a tile being filled
    /// (false in recordings made before the tracer looked).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub staged: bool,
    /// A global store whose values come straight from shared memory: an output turned
    /// around through a tile (false in recordings made before the tracer looked).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub relayed: bool,
}

/// How ptxas made a PTX atomic, read in the SASS (`analysis::sass_map`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AtomShape {
    #[default]
    /// One SASS atomic for the PTX's, every active lane taking part (also where no SASS
    /// was read).
    AsWritten,
    /// Warp-aggregated: the address is the same for the whole warp, so one lane makes the
    /// warp's update (its operand combined first, `REDUX`/`POPC`), one lane per request.
    WarpAggregated,
    /// Warp-aggregated only when every lane of the warp is active (`VOTE.ANY` against all
    /// ones, a scan with `SHFL.UP`, lane 31's atomic); a partial warp makes it lane by lane.
    AggregatedWhenFull,
    /// A compare-and-swap loop (`LDS`, then `ATOMS.CAST.SPIN`, again for the lanes whose
    /// swap failed): shared-memory float additions on sm_90. Lanes on one word succeed one
    /// a round, so a request takes as many rounds as the most lanes on one word.
    CasLoop,
}

/// The atomic figures of one instruction, over the traced requests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtomicSummary {
    #[serde(default)]
    pub shape: AtomShape,
    /// The SASS atomic opcode(s) the line holds, `ATOMS.POPC.INC.32`; empty where no SASS
    /// was read (the figures then follow the PTX).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sass_op: String,
    /// Warp requests and active lanes as the PTX makes them.
    pub ptx_requests: u64,
    pub ptx_lanes: u64,
    /// Lanes of the SASS's atomic requests (the updates made) and the distinct addresses
    /// they named, each summed over requests: lanes / addresses is the contention, the
    /// updates one address takes from one request, one after another.
    pub lanes: u64,
    pub addresses: u64,
    /// A compare-and-swap loop's loads (`LDS`, one per round): requests, wavefronts, ideal.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub loop_loads: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub loop_load_wavefronts: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub loop_load_ideal: u64,
}

/// A part of a PTX access that one SASS instruction makes: bytes `offset..offset + width`
/// of each lane's element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub offset: u32,
    pub width: u32,
}

/// A PTX access that the SASS makes differently, and its figures as the PTX reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SassShape {
    /// In words: "ptxas split this 16-byte load into two 4-byte loads (LDS at +0, +8)".
    pub note: String,
    pub pieces: Vec<Piece>,
    pub ptx_requests: u64,
    pub ptx_wavefronts: u64,
    pub ptx_ideal_wavefronts: u64,
}

pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::Space;

    #[test]
    fn spaces_keep_the_names_recordings_use_and_read_their_ptx_spelling() {
        for (space, name) in [
            (Space::Shared, "shared"),
            (Space::Global, "global"),
            (Space::Local, "local"),
            (Space::Constant, "constant"),
            (Space::Cluster, "cluster"),
            (Space::Texture, "texture"),
        ] {
            assert_eq!(
                serde_json::to_string(&space).unwrap(),
                format!("\"{name}\"")
            );
            assert_eq!(
                serde_json::from_str::<Space>(&format!("\"{name}\"")).unwrap(),
                space
            );
        }
        let ptx = [
            "shared::cta",
            "shared::cluster",
            "const[2]",
            "param::entry",
            "global",
        ];
        let read: Vec<_> = ptx.iter().map(|w| Space::from_ptx(w)).collect();
        assert_eq!(
            read,
            [
                Some(Space::Shared),
                Some(Space::Cluster),
                Some(Space::Constant),
                Some(Space::Param),
                Some(Space::Global)
            ]
        );
        assert_eq!(Space::from_ptx("f32"), None);
    }
}
