//! Which SASS instructions make each traced PTX shared access. The tracer logs the PTX's
//! accesses, but ptxas may load only the components of a vector that are used, in
//! narrower instructions: a `ld.shared.v4` of which two words are used becomes two 4-byte
//! `LDS`, two requests where the PTX has one. Matched by source line and direction, in
//! code order, each SASS instruction becomes a piece of the PTX access (its bytes within
//! each lane's element), and the tracer counts the pieces as the hardware runs them.
//!
//! Only shared memory is reshaped: a piece's offset is known up to a shift common to all
//! lanes (ptxas may fold part of the address into the base register), which moves every
//! lane to another bank alike and so leaves wavefronts unchanged; sectors of global memory
//! would not be.
//!
//! Atomics (shared and global) are read the same way, by source line: what ptxas made of
//! each PTX atomic (`atomics::AtomicSass`): as written, warp-aggregated, aggregated when the
//! warp is full, or a compare-and-swap loop, and whether the SASS keeps its result (`ATOM`)
//! or not (`RED`).

use super::atomics::{AtomicSass, SameWord};
use super::sass::{Instruction, Listing, MemKind};
use crate::model::access::{AccessKind, AtomShape, Piece};

/// A traced PTX shared access, as the mapping needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct PtxAccess {
    pub id: u32,
    pub line: u32,
    pub store: bool,
    /// Bytes per lane.
    pub width: u32,
    /// Its address as a register and a constant, where the PTX names one.
    pub addr: Option<PtxAddr>,
    /// An atomic (`atom`, `red`; shared or global): what its PTX says of it.
    pub atomic: Option<PtxAtomic>,
}

/// What the PTX says of an atomic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PtxAtomic {
    /// `atom` (Atomic) or `red` (Reduction).
    pub kind: AccessKind,
    /// A compare-and-swap as written (`atom.cas`), which a CAS in the SASS does not make a
    /// loop.
    pub cas: bool,
}

/// A PTX address operand, `%rd42+8`: a base register and a constant byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxAddr {
    pub base: String,
    pub offset: i64,
}

impl PtxAddr {
    /// `%rd42+8`, `%rd42`, `%r5+-4`; None for anything else (a symbol, a bare number).
    pub fn of(operand: &str) -> Option<PtxAddr> {
        let (base, offset) = match operand.split_once('+') {
            Some((b, o)) => (b.trim(), o.trim().parse().ok()?),
            None => (operand.trim(), 0),
        };
        (base.starts_with('%') && !base.contains(char::is_whitespace)).then(|| PtxAddr {
            base: base.to_string(),
            offset,
        })
    }

    /// `self` for `width` bytes lies inside `outer` for `outer_width` bytes.
    fn inside(&self, width: u32, outer: &PtxAddr, outer_width: u32) -> bool {
        self.base == outer.base
            && self.offset >= outer.offset
            && self.offset + i64::from(width) <= outer.offset + i64::from(outer_width)
    }
}

/// A PTX access the SASS makes in other instructions: its pieces, and how, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Reshape {
    pub id: u32,
    pub pieces: Vec<Piece>,
    pub note: String,
    /// An atomic: what the SASS made of it (`pieces` then empty, and the figures follow
    /// `atomics::request`).
    pub atomic: Option<AtomicSass>,
}

/// One SASS shared access: its bytes per lane, its address's constant offset, its opcode.
struct SassAccess {
    width: u32,
    imm: i64,
    opcode: String,
}

/// The PTX accesses that SASS makes differently. A source line and direction with as many
/// SASS as PTX accesses of the same widths is as the PTX says; one PTX access whose line
/// holds narrower SASS accesses that fit in it is split; anything else is left alone
/// (the figures then follow the PTX).
pub fn reshape(ptx: &[PtxAccess], listing: &Listing) -> Vec<Reshape> {
    let mut out = atomics(ptx, listing);
    let ptx: Vec<PtxAccess> = ptx.iter().filter(|a| a.atomic.is_none()).cloned().collect();
    let ptx = ptx.as_slice();
    let mut groups: Vec<(u32, bool)> = ptx.iter().map(|a| (a.line, a.store)).collect();
    groups.dedup();
    groups.sort_unstable();
    groups.dedup();
    for (line, store) in groups {
        let here: Vec<&PtxAccess> = (ptx.iter())
            .filter(|a| a.line == line && a.store == store)
            .collect();
        let sass = sass_accesses(listing, line, store);
        if let ([one], false) = (here.as_slice(), sass.is_empty())
            && let Some(r) = split(one, &sass)
        {
            out.push(r);
        } else if !store {
            out.extend(reloads(&here, &sass));
        }
    }
    out
}

/// Loads of a line that read again bytes another load of the line reads from the same
/// register, where the SASS has that many instructions fewer: NVVM may load a vector's
/// words twice (a `ld.shared.v4` and a `ld.shared.v2` of its upper half), and ptxas reads
/// them once. Each such reload makes no instruction (no pieces). Only where every other
/// load then pairs with a SASS load of its width; anything else is left as the PTX says.
fn reloads(here: &[&PtxAccess], sass: &[SassAccess]) -> Vec<Reshape> {
    if sass.len() >= here.len() {
        return Vec::new();
    }
    // Only a wide access waits for the SASS before it is counted (`Site::may_split`).
    let within = |a: &PtxAccess| {
        let at = a.addr.as_ref()?;
        (a.width > 4)
            .then(|| {
                here.iter().find(|b| {
                    let wider = b.width > a.width || (b.width == a.width && b.id < a.id);
                    wider && (b.addr.as_ref()).is_some_and(|o| at.inside(a.width, o, b.width))
                })
            })
            .flatten()
    };
    let again: Vec<(&PtxAccess, &PtxAccess)> = (here.iter())
        .filter_map(|a| Some((*a, *within(a)?)))
        .collect();
    let mut left: Vec<u32> = (here.iter())
        .filter(|a| again.iter().all(|(r, _)| r.id != a.id))
        .map(|a| a.width)
        .collect();
    let mut made: Vec<u32> = sass.iter().map(|s| s.width).collect();
    left.sort_unstable();
    made.sort_unstable();
    if again.is_empty() || left != made {
        return Vec::new();
    }
    (again.into_iter())
        .map(|(a, b)| Reshape {
            id: a.id,
            pieces: Vec::new(),
            note: format!(
                "ptxas reads these {} bytes once, in the {}-byte load of the same line: \
                 no instruction of their own",
                a.width, b.width
            ),
            atomic: None,
        })
        .collect()
}

fn sass_accesses(listing: &Listing, line: u32, store: bool) -> Vec<SassAccess> {
    let kind = if store {
        MemKind::SharedStore
    } else {
        MemKind::SharedLoad
    };
    (listing.instructions.iter())
        .filter(|i| i.line == Some(line))
        .filter_map(|i| {
            let op = i.mem().filter(|op| op.kind == kind)?;
            Some(SassAccess {
                width: op.bits / 8,
                imm: immediate(&i.operands),
                opcode: i.opcode.clone(),
            })
        })
        .collect()
}

/// The constant in a SASS address, `[R2+UR4+0x8]` → 8; 0 without one.
fn immediate(operands: &str) -> i64 {
    let Some(inside) = operands.split('[').nth(1).and_then(|s| s.split(']').next()) else {
        return 0;
    };
    let last = inside.rsplit(['+', '-']).next().unwrap_or("");
    let negative = inside.len() > last.len() && inside[..inside.len() - last.len()].ends_with('-');
    match last.trim().strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).map_or(0, |v| if negative { -v } else { v }),
        None => 0,
    }
}

/// The pieces of `a` that the SASS accesses make, when they differ from the PTX's one
/// access and each fits inside its element.
fn split(a: &PtxAccess, sass: &[SassAccess]) -> Option<Reshape> {
    if let [one] = sass
        && one.width == a.width
    {
        return None;
    }
    let base = sass.iter().map(|s| s.imm).min()?;
    let pieces: Vec<Piece> = (sass.iter())
        .map(|s| Piece {
            offset: (s.imm - base) as u32,
            width: s.width,
        })
        .collect();
    let fits = pieces
        .iter()
        .all(|p| p.width > 0 && p.offset + p.width <= a.width);
    let bytes: u32 = pieces.iter().map(|p| p.width).sum();
    if !fits || bytes > a.width {
        return None;
    }
    Some(Reshape {
        id: a.id,
        note: note(a, sass, &pieces),
        pieces,
        atomic: None,
    })
}

/// What the SASS made of every PTX atomic, line by line. A line whose SASS atomics pair
/// with its PTX atomics one to one (in code order) gives each its own; one whose SASS has
/// two for each (the aggregated-when-full form) gives each pair; any other is left as the
/// PTX says, with the note saying so.
fn atomics(ptx: &[PtxAccess], listing: &Listing) -> Vec<Reshape> {
    let mut lines: Vec<u32> = (ptx.iter())
        .filter(|a| a.atomic.is_some())
        .map(|a| a.line)
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let mut out = Vec::new();
    for line in lines {
        let here: Vec<(&PtxAccess, PtxAtomic)> = (ptx.iter())
            .filter(|a| a.line == line)
            .filter_map(|a| Some((a, a.atomic?)))
            .collect();
        let on_line: Vec<&Instruction> = (listing.instructions.iter())
            .filter(|i| i.line == Some(line))
            .collect();
        let sass: Vec<&Instruction> = (on_line.iter().copied())
            .filter(|i| i.mem().is_some_and(|m| m.kind == MemKind::Atomic))
            .collect();
        let has = |base: &str| on_line.iter().any(|i| i.base() == base);
        let voted = has("VOTE") || has("VOTEU");
        let combined = has("REDUX") || has("POPC") || has("UFLO") || has("FLO");
        let scanned = has("SHFL") && has("VOTE");
        for (k, (a, p)) in here.iter().enumerate() {
            let made = if sass.len() == here.len() {
                let s = sass[k];
                let cas_loop = !p.cas && s.opcode.split('.').any(|m| m.starts_with("CAS"));
                let shape = if cas_loop {
                    AtomShape::CasLoop
                } else if s.guard.is_some() && voted && combined {
                    AtomShape::WarpAggregated
                } else {
                    AtomShape::AsWritten
                };
                Some((shape, vec![s]))
            } else if sass.len() == 2 * here.len() && scanned {
                Some((
                    AtomShape::AggregatedWhenFull,
                    vec![sass[2 * k], sass[2 * k + 1]],
                ))
            } else {
                None
            };
            out.push(match made {
                Some((shape, ins)) => atomic_reshape(a.id, shape, &ins),
                None => Reshape {
                    id: a.id,
                    pieces: Vec::new(),
                    note: format!(
                        "line {line}: {} atomic{} in the SASS for {} in the PTX, counted as \
                         the PTX has them",
                        sass.len(),
                        if sass.len() == 1 { "" } else { "s" },
                        here.len()
                    ),
                    atomic: Some(AtomicSass::as_written(p.kind)),
                },
            });
        }
    }
    out
}

fn atomic_reshape(id: u32, shape: AtomShape, ins: &[&Instruction]) -> Reshape {
    let opcode = (ins.iter().map(|i| i.opcode.as_str()))
        .collect::<Vec<_>>()
        .join(" + ");
    let kind = match ins.iter().all(|i| matches!(i.base(), "RED" | "REDG")) {
        true => AccessKind::Reduction,
        false => AccessKind::Atomic,
    };
    let note = match shape {
        AtomShape::AsWritten => format!("{opcode}: every active lane"),
        AtomShape::WarpAggregated => {
            format!("ptxas aggregated this atomic over the warp ({opcode} by one lane)")
        }
        AtomShape::AggregatedWhenFull => format!(
            "ptxas aggregated this atomic when the whole warp is active ({opcode}: one lane \
             then, else every lane)"
        ),
        AtomShape::CasLoop => format!(
            "ptxas made this atomic a compare-and-swap loop (LDS, {opcode}, again for the \
             lanes whose swap failed)"
        ),
    };
    Reshape {
        id,
        pieces: Vec::new(),
        note,
        atomic: Some(AtomicSass {
            shape,
            kind,
            same_word: SameWord::of(&opcode),
            opcode,
        }),
    }
}

fn note(a: &PtxAccess, sass: &[SassAccess], pieces: &[Piece]) -> String {
    let what = if a.store { "store" } else { "load" };
    let op = sass[0].opcode.split('.').next().unwrap_or("");
    let at: Vec<String> = pieces.iter().map(|p| format!("+{}", p.offset)).collect();
    let widths: Vec<u32> = pieces.iter().map(|p| p.width).collect();
    let same = widths.iter().all(|w| *w == widths[0]);
    let into = match (pieces.len(), same) {
        (1, _) => format!(
            "narrowed this {}-byte {what} to one {}-byte {what}",
            a.width, widths[0]
        ),
        (n, true) => format!(
            "split this {}-byte {what} into {} {}-byte {what}s",
            a.width,
            count(n),
            widths[0]
        ),
        (n, false) => format!(
            "split this {}-byte {what} into {} {what}s",
            a.width,
            count(n)
        ),
    };
    format!("ptxas {into} ({op} at {})", at.join(", "))
}

fn count(n: usize) -> String {
    match n {
        2 => "two".into(),
        3 => "three".into(),
        4 => "four".into(),
        n => n.to_string(),
    }
}

#[cfg(test)]
#[path = "sass_map_tests.rs"]
mod tests;
