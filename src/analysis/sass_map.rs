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

use super::sass::{Listing, MemKind};
use crate::model::access::Piece;

/// A traced PTX shared access, as the mapping needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct PtxAccess {
    pub id: u32,
    pub line: u32,
    pub store: bool,
    /// Bytes per lane.
    pub width: u32,
}

/// A PTX access the SASS makes in other instructions: its pieces, and how, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Reshape {
    pub id: u32,
    pub pieces: Vec<Piece>,
    pub note: String,
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
    let mut out = Vec::new();
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
        }
    }
    out
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
    })
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
