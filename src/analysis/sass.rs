//! SASS, what the GPU runs: nvdisasm's listing of the exact CUBIN a variant was built into,
//! read into instructions with their source lines, memory instructions sorted by space and
//! width, and the instruction mix two variants can be compared by.

use crate::model::protocol::PIP_HINT;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a variant's SASS could not be read (the figures then follow the PTX), in the words
/// the learner reads. Here, below both, because the worker reads the SASS and the trace
/// waits for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SassError {
    #[error("no variant `{variant}` in {lesson}")]
    NoVariant { variant: String, lesson: String },
    /// The variant did not build as a run builds it: the build's own words.
    #[error("{0}")]
    Build(String),
    #[error("nvdisasm not found; get it with: {}", PIP_HINT)]
    NoNvdisasm,
    /// A file nvdisasm reads, or nvdisasm itself, could not be used: its path and why.
    #[error("{path}: {why}")]
    Io { path: String, why: String },
    /// nvdisasm ran and refused: what it wrote on stderr.
    #[error("nvdisasm failed: {0}")]
    Failed(String),
    #[error("nvdisasm listed no kernel")]
    NoKernel,
    /// The thread reading the SASS ended before it answered.
    #[error("the SASS reader ended with no answer")]
    ReaderGone,
}

/// One SASS instruction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instruction {
    /// Byte offset in the kernel's code.
    pub offset: u32,
    /// `@P0`, `@!PT`: the guard, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
    /// `LDG.E.128.CONSTANT`.
    pub opcode: String,
    pub operands: String,
    /// The source line nvdisasm attributes it to (`-lineinfo` builds), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// Where a memory instruction goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemKind {
    GlobalLoad,
    GlobalStore,
    SharedLoad,
    SharedStore,
    LocalLoad,
    LocalStore,
    /// `LD`/`ST`: generic addresses (also distributed shared memory through `mapa`).
    GenericLoad,
    GenericStore,
    Constant,
    /// `LDSM`: a matrix load from shared memory.
    SharedMatrix,
    Texture,
    Atomic,
    /// `LDGSTS`: global to shared without registers (`cp.async`).
    GlobalToShared,
    /// `UBLKCP`: a bulk copy by the TMA (`cp.async.bulk`), a whole tile from one thread.
    BulkCopy,
}

impl MemKind {
    pub fn word(self) -> &'static str {
        match self {
            MemKind::GlobalLoad => "global load",
            MemKind::GlobalStore => "global store",
            MemKind::SharedLoad => "shared load",
            MemKind::SharedStore => "shared store",
            MemKind::LocalLoad => "local load",
            MemKind::LocalStore => "local store",
            MemKind::GenericLoad => "generic load",
            MemKind::GenericStore => "generic store",
            MemKind::Constant => "constant load",
            MemKind::SharedMatrix => "shared matrix load",
            MemKind::Texture => "texture fetch",
            MemKind::Atomic => "atomic",
            MemKind::GlobalToShared => "global-to-shared copy",
            MemKind::BulkCopy => "bulk copy (TMA)",
        }
    }
}

/// A memory instruction's space and the bits each lane moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemOp {
    pub kind: MemKind,
    pub bits: u32,
}

impl Instruction {
    /// The memory access this instruction makes, if it makes one.
    pub fn mem(&self) -> Option<MemOp> {
        let mut parts = self.opcode.split('.');
        let base = parts.next()?;
        let kind = match base {
            "LDG" => MemKind::GlobalLoad,
            "STG" => MemKind::GlobalStore,
            "LDS" => MemKind::SharedLoad,
            "STS" => MemKind::SharedStore,
            "LDL" => MemKind::LocalLoad,
            "STL" => MemKind::LocalStore,
            "LD" => MemKind::GenericLoad,
            "ST" => MemKind::GenericStore,
            "LDC" | "ULDC" => MemKind::Constant,
            "LDSM" => MemKind::SharedMatrix,
            "TEX" | "TLD" | "TLD4" | "TXQ" | "TEXS" | "TLDS" | "TLD4S" => MemKind::Texture,
            "ATOM" | "ATOMG" | "ATOMS" | "RED" | "REDG" | "ATOMC" => MemKind::Atomic,
            "LDGSTS" => MemKind::GlobalToShared,
            "UBLKCP" => MemKind::BulkCopy,
            _ => return None,
        };
        Some(MemOp {
            kind,
            bits: width(self.opcode.split('.').skip(1)),
        })
    }

    /// The mix bucket: the opcode without its modifiers (`FFMA`, `LDS`, `BAR`).
    pub fn base(&self) -> &str {
        self.opcode.split('.').next().unwrap_or(&self.opcode)
    }
}

/// The width modifier of a memory opcode: `.64`, `.128`, `.U8`, `.S16`; 32 bits without one.
fn width<'a>(mods: impl Iterator<Item = &'a str>) -> u32 {
    for m in mods {
        match m {
            "U8" | "S8" => return 8,
            "U16" | "S16" => return 16,
            "32" => return 32,
            "64" => return 64,
            "128" => return 128,
            _ => {}
        }
    }
    32
}

/// A kernel's instructions, in code order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    pub kernel: String,
    pub instructions: Vec<Instruction>,
}

/// Read `nvdisasm -c -g` output. Several kernels in one CUBIN come back in the order listed.
pub fn parse(text: &str) -> Vec<Listing> {
    let mut out: Vec<Listing> = Vec::new();
    let mut line: Option<u32> = None;
    for raw in text.lines() {
        let t = raw.trim();
        if let Some(name) = t.strip_prefix(".text.").and_then(|n| n.strip_suffix(':')) {
            out.push(Listing {
                kernel: name.to_string(),
                instructions: Vec::new(),
            });
            line = None;
        } else if let Some(rest) = t.strip_prefix("//## File") {
            line = rest
                .rsplit("line ")
                .next()
                .and_then(|n| n.trim().trim_end_matches(',').parse().ok());
        } else if let Some(ins) = instruction(t, line)
            && let Some(l) = out.last_mut()
        {
            l.instructions.push(ins);
        }
    }
    out
}

/// `/*0120*/  @!P0 LDG.E.128.CONSTANT R4, desc[UR6][R4.64] ;`
fn instruction(t: &str, line: Option<u32>) -> Option<Instruction> {
    let rest = t.strip_prefix("/*")?;
    let (off, rest) = rest.split_once("*/")?;
    let offset = u32::from_str_radix(off.trim(), 16).ok()?;
    let body = rest.trim().trim_end_matches(';').trim();
    let mut words = body.splitn(2, char::is_whitespace);
    let mut first = words.next()?.to_string();
    let mut tail = words.next().unwrap_or("").trim().to_string();
    let guard = if first.starts_with('@') {
        let g = first;
        let mut w = tail.splitn(2, char::is_whitespace);
        first = w.next()?.to_string();
        tail = w.next().unwrap_or("").trim().to_string();
        Some(g)
    } else {
        None
    };
    Some(Instruction {
        offset,
        guard,
        opcode: first,
        operands: tail,
        line,
    })
}

/// How many instructions of each base opcode, sorted by name.
pub fn mix(l: &Listing) -> BTreeMap<String, u32> {
    let mut m = BTreeMap::new();
    for i in &l.instructions {
        *m.entry(i.base().to_string()).or_insert(0) += 1;
    }
    m
}

/// The memory instructions of each source line: (line, kind, bits) with a count, in line
/// order; instructions without a line come first, as line 0.
pub fn memory_by_line(l: &Listing) -> Vec<((u32, MemKind, u32), u32)> {
    let mut m: BTreeMap<(u32, MemKind, u32), u32> = BTreeMap::new();
    for i in &l.instructions {
        if let Some(op) = i.mem() {
            *m.entry((i.line.unwrap_or(0), op.kind, op.bits))
                .or_insert(0) += 1;
        }
    }
    m.into_iter().collect()
}

#[cfg(test)]
#[path = "sass_tests.rs"]
mod tests;
