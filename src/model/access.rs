//! What the tracer hands to the rest of the lab for one instruction of a variant: its totals
//! and one warp request to draw. Produced by `trace::analyze`, serialized into results and
//! recordings, drawn by the heatmap view.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Space {
    Shared,
    Global,
    Local,
    Constant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessKind {
    Load,
    Store,
}

/// One warp's request: the lanes that took part and the byte address each asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpAccess {
    pub mask: u32,
    /// Width of each lane's access in bytes (1, 2, 4, 8 or 16).
    pub width: u32,
    /// 32 entries; entries of inactive lanes are 0 and meaningless.
    pub addrs: Vec<u64>,
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
    /// Global: 32-byte sectors, 128-byte lines and bytes the lanes asked for.
    pub sectors: u64,
    pub lines: u64,
    pub bytes_used: u64,
    /// Constant: distinct addresses summed over requests.
    pub distinct: u64,
    /// Local: bytes moved.
    pub local_bytes: u64,
    /// Shared: for each of the 32 banks, distinct words asked of it, summed over requests.
    #[serde(default)]
    pub bank_words: Vec<u64>,
    /// The request to draw: the worst one traced (most wavefronts or sectors).
    pub sample: Option<WarpAccess>,
}
