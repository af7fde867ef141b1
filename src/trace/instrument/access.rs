//! Recognising a traced access in a statement and reading its address operand.

use super::registers::{RegTable, type_bits};
use super::{Event, InstrumentError};
use crate::model::access::{AccessKind, Space, TexCoords};

pub(super) struct Access<'a> {
    /// The guard as written, `@%p1` or `@!%p1`.
    pub(super) guard: Option<&'a str>,
    pub(super) op: &'a str,
    pub(super) event: Event,
    pub(super) width: u32,
    /// The address operand; for a texture fetch, the coordinate vector (`{%f1, %f2}`).
    pub(super) addr: &'a str,
    /// Texture fetches only.
    pub(super) coords: Option<TexCoords>,
    /// Bulk copies only: the size operand, whose value is the record's width.
    pub(super) size: Option<&'a str>,
    /// An asynchronous copy's global side only: its source size (`src-size`) or its
    /// `ignore-src` predicate, as written. A lane whose source size is 0, or whose predicate
    /// is true, reads nothing (its bytes are zero-filled) and takes no part in the record:
    /// on an H200, ncu counts no sector for such lanes.
    pub(super) zero_src: Option<&'a str>,
    /// `mbarrier.init`'s count, or a wait's result predicate, as written.
    pub(super) mbar_operand: Option<&'a str>,
    /// What an mbarrier event logs above the barrier's offset, flagged by bit 63: the bytes
    /// an `expect_tx` arrival announces, the phase parity a `.parity` wait waits on.
    pub(super) mbar_high: Option<&'a str>,
}

impl<'a> Access<'a> {
    /// An event with no address: a barrier's, a copy group's, a call's, an exchange's, a
    /// fence's.
    pub(super) fn event(guard: Option<&'a str>, op: &'a str, event: Event) -> Access<'a> {
        Access {
            guard,
            op,
            event,
            width: 0,
            addr: "0",
            coords: None,
            size: None,
            zero_src: None,
            mbar_operand: None,
            mbar_high: None,
        }
    }
}

/// What the qualifiers of a traced opcode say.
struct Qualifiers {
    space: Space,
    vec: u32,
    /// Bytes of one element; None when no type qualifier was found.
    elem: Option<u32>,
}

/// The accesses and events a statement makes, in the order they are logged: none when it is
/// not one the tracer follows, two for a `cp.async` (its global read, then its shared write).
pub(super) fn parse_access(stmt: &str, line: u32) -> Result<Vec<Access<'_>>, InstrumentError> {
    if let Some(copy) = async_copy(stmt, line)? {
        return Ok(copy);
    }
    Ok(parse_one(stmt, line)?.into_iter().collect())
}

/// `cp.async` and its group instructions, or None for any other statement. The bulk copies
/// (`cp.async.bulk`) and `cp.async.mbarrier.arrive` are left out: no lane of them names one
/// address a lane of a warp request would.
fn async_copy<'a>(stmt: &'a str, line: u32) -> Result<Option<Vec<Access<'a>>>, InstrumentError> {
    let bad = || InstrumentError::BadAccess {
        line,
        text: stmt.to_string(),
    };
    let mut rest = stmt.trim_end_matches(';').trim();
    let mut guard = None;
    if rest.starts_with('@') {
        let end = rest.find(char::is_whitespace).ok_or_else(bad)?;
        guard = Some(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    let op_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let op = &rest[..op_end];
    let quals: Vec<&str> = op.split('.').collect();
    if quals.len() < 3 || quals[0] != "cp" || quals[1] != "async" {
        return Ok(None);
    }
    let operands = rest[op_end..].trim();
    let event = |event| Access::event(guard, op, event);
    match quals[2] {
        "commit_group" => return Ok(Some(vec![event(Event::CopyCommit)])),
        "wait_all" => {
            let wait = Event::CopyWait {
                groups: 0,
                all: true,
            };
            return Ok(Some(vec![event(wait)]));
        }
        "wait_group" => {
            let groups = operands.parse::<u32>().map_err(|_| bad())?;
            let wait = Event::CopyWait { groups, all: false };
            return Ok(Some(vec![event(wait)]));
        }
        "ca" | "cg" => {}
        "bulk" => return Ok(Some(bulk_copy(guard, op, operands).unwrap_or_default())),
        _ => return Ok(Some(Vec::new())),
    }
    // `cp.async.ca.shared{::cta}.global{.level::...} [dst], [src], cp-size{, src-size}{, hint}`
    let mut addrs = operands.split('[').skip(1).map(|a| a.split(']').next());
    let (Some(Some(dst)), Some(Some(src))) = (addrs.next(), addrs.next()) else {
        return Err(bad());
    };
    let after = operands.rfind(']').map_or("", |i| &operands[i + 1..]);
    let rest: Vec<&str> = after
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let width = rest
        .first()
        .and_then(|t| t.parse::<u32>().ok())
        .ok_or_else(bad)?;
    // After the copy size: the source size or `ignore-src`, unless the one operand left is
    // the cache policy of `.L2::cache_hint`, which comes last.
    let hint = quals.iter().any(|q| q.starts_with("L2::cache_hint"));
    let zero_src = rest.get(1).copied().filter(|_| !hint || rest.len() > 2);
    let side = |space, addr: &'a str| Access {
        guard,
        op,
        event: Event::Access {
            space,
            kind: AccessKind::AsyncCopy,
        },
        width,
        addr: addr.trim(),
        coords: None,
        size: None,
        zero_src: None,
        mbar_operand: None,
        mbar_high: None,
    };
    let read = Access {
        zero_src,
        ..side(Space::Global, src)
    };
    Ok(Some(vec![read, side(Space::Shared, dst)]))
}

/// The 1-D bulk copy from global into shared memory that completes on an mbarrier
/// (`cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size,
/// [mbar]`): two sites, its global source, then its shared destination, whose records'
/// width is the bytes it moves. The destination's record logs the mbarrier's shared offset
/// << 32 over the destination's (each the low 24 bits, as for a barrier): the bytes land
/// for a thread that waits on that barrier's phase. None for the other bulk forms (tensor
/// maps, multicast, shared to global, prefetch).
fn bulk_copy<'a>(
    guard: Option<&'a str>,
    op: &'a str,
    operands: &'a str,
) -> Option<Vec<Access<'a>>> {
    let quals: Vec<&str> = op.split('.').collect();
    let one_d = quals.get(3).is_some_and(|q| q.starts_with("shared"))
        && quals.get(4) == Some(&"global")
        && quals.contains(&"mbarrier::complete_tx::bytes")
        && !quals.iter().any(|q| q.starts_with("multicast"));
    if !one_d {
        return None;
    }
    let mut parts = operands.split(',').map(str::trim);
    let (dst, src, size, mbar) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let inside = |a: &'a str| Some(a.strip_prefix('[')?.strip_suffix(']')?.trim());
    let side = |space, addr| Access {
        guard,
        op,
        event: Event::Access {
            space,
            kind: AccessKind::BulkCopy,
        },
        width: 0,
        addr,
        coords: None,
        size: Some(size),
        zero_src: None,
        mbar_operand: None,
        mbar_high: None,
    };
    let write = Access {
        mbar_operand: Some(inside(mbar)?),
        mbar_high: None,
        ..side(Space::Shared, inside(dst)?)
    };
    Some(vec![side(Space::Global, inside(src)?), write])
}

/// The opcode of a statement the tracer logs nothing for that still moves data in memory:
/// a `prefetch` that warms the L2, a bulk copy by tensor map or from shared to global
/// memory, `st.async`/`red.async`, `multimem`, `stmatrix`, an `ldmatrix` of a shape not
/// followed, texture and surface forms not followed, `wgmma`/`tcgen05` operands read from
/// shared memory. None for everything else, parameters, `mbarrier` objects and the copies'
/// group events included (they move nothing themselves).
pub(super) fn moves_unseen(stmt: &str) -> Option<&str> {
    let mut rest = stmt.trim_end_matches(';').trim();
    if rest.starts_with('@') {
        rest = rest.split_once(char::is_whitespace)?.1.trim_start();
    }
    let op = rest.split_whitespace().next()?;
    let quals: Vec<&str> = op.split('.').collect();
    let has = |q: &str| {
        quals
            .iter()
            .any(|w| *w == q || w.strip_prefix(q).is_some_and(|r| r.starts_with("::")))
    };
    let moves = match quals[0] {
        "ld" | "ldu" | "st" => !has("param"),
        // Not `applypriority`: it changes a line's standing in the L2, and moves nothing.
        "atom" | "red" | "tex" | "tld4" | "suld" | "sust" | "sured" | "prefetch" | "prefetchu"
        | "discard" | "multimem" | "stmatrix" | "ldmatrix" => true,
        "cp" => {
            !["commit_group", "wait_group", "wait_all", "wait_group_read"]
                .iter()
                .any(|q| has(q))
                && quals.get(2) != Some(&"mbarrier")
        }
        "wgmma" => has("mma_async"),
        "tcgen05" => ["ld", "st", "cp", "mma"]
            .iter()
            .any(|q| quals.get(1) == Some(q)),
        _ => false,
    };
    moves.then_some(op)
}

/// A statement's one access or event, or None when it is not one the tracer follows.
fn parse_one(stmt: &str, line: u32) -> Result<Option<Access<'_>>, InstrumentError> {
    let bad = || InstrumentError::BadAccess {
        line,
        text: stmt.to_string(),
    };
    let mut rest = stmt.trim_end_matches(';').trim();
    let mut guard = None;
    if rest.starts_with('@') {
        let end = rest.find(char::is_whitespace).ok_or_else(bad)?;
        guard = Some(&rest[..end]);
        rest = rest[end..].trim_start();
    }
    let op_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let op = &rest[..op_end];
    let mut quals = op.split('.');
    let kind = match quals.next() {
        Some("ld" | "ldu") => AccessKind::Load,
        Some("st") => AccessKind::Store,
        // Whether the SASS keeps an atomic's old value is the SASS's to say (ptxas makes an
        // `atom` whose result is unused a `RED`); the PTX's word stands until it is read.
        Some("atom") => AccessKind::Atomic,
        Some("red") => AccessKind::Reduction,
        Some("tex" | "tld4") => {
            return super::texture::parse_tex(guard, op, &rest[op_end..], line);
        }
        Some("bar" | "barrier") => return Ok(barrier(guard, op, &rest[op_end..])),
        Some("membar" | "fence") if device_fence(op) => {
            return Ok(Some(Access::event(guard, op, Event::Fence)));
        }
        Some("mbarrier") => return Ok(mbarrier(guard, op, &rest[op_end..])),
        Some("ldmatrix") => return matrix_load(guard, op, &rest[op_end..], line),
        // `call{.uni}`: NVVM writes its operands over the lines after, so the opcode is all
        // this line has to go on.
        // `mma.sync` is an exchange too: each lane's result holds other lanes' operands,
        // so a warp can move values between lanes with it (by a matrix of ones and zeros)
        // as it does with shuffles.
        Some(first @ ("call" | "shfl" | "redux" | "vote" | "match" | "mma")) => {
            let event = match first {
                "call" => Event::Call,
                _ => Event::Shuffle,
            };
            return Ok(Some(Access::event(guard, op, event)));
        }
        _ => return Ok(None),
    };
    let Some(q) = qualifiers(quals) else {
        return Ok(None);
    };
    let elem = q.elem.ok_or_else(bad)?;
    let addr = bracketed(&rest[op_end..]).ok_or_else(bad)?;
    Ok(Some(Access {
        guard,
        op,
        event: Event::Access {
            space: q.space,
            kind,
        },
        width: q.vec * elem,
        addr,
        coords: None,
        size: None,
        zero_src: None,
        mbar_operand: None,
        mbar_high: None,
    }))
}

/// A fence that orders the thread's memory accesses for every block of the GPU: `fence.sc`,
/// `fence.acq_rel` or `fence.release` (PTX 8.6) at GPU or system scope, `membar.gl`,
/// `membar.sys` (not a block's or a cluster's, nor an acquire-only fence, nor the proxy
/// fences, which order the async proxy's view only).
fn device_fence(op: &str) -> bool {
    let quals: Vec<&str> = op.split('.').collect();
    match quals.first() {
        Some(&"fence") => {
            ["acq_rel", "sc", "release"]
                .iter()
                .any(|q| quals.contains(q))
                && (quals.contains(&"gpu") || quals.contains(&"sys"))
        }
        Some(&"membar") => quals.contains(&"gl") || quals.contains(&"sys"),
        _ => false,
    }
}

/// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared{::cta}.b16 d, [addr]`: a 16-byte
/// load by the lanes that name rows (`matrix_rows`), in shared memory. Other shapes (the
/// 8-bit `m16n16`, `m8n16` forms) are left out: their rows are not 16 bytes a lane.
fn matrix_load<'a>(
    guard: Option<&'a str>,
    op: &'a str,
    operands: &'a str,
    line: u32,
) -> Result<Option<Access<'a>>, InstrumentError> {
    if matrix_rows(op).is_none() || !op.split('.').any(|q| q == "m8n8") {
        return Ok(None);
    }
    let bad = || InstrumentError::BadAccess {
        line,
        text: format!("{op} {operands}"),
    };
    let addr = bracketed(operands).ok_or_else(bad)?;
    Ok(Some(Access {
        guard,
        op,
        event: Event::Access {
            space: Space::Shared,
            kind: AccessKind::Matrix,
        },
        width: 16,
        addr,
        coords: None,
        size: None,
        zero_src: None,
        mbar_operand: None,
        mbar_high: None,
    }))
}

/// The first address operand, inside its brackets (`[%r5+16]` → `%r5+16`).
fn bracketed(operands: &str) -> Option<&str> {
    let open = operands.find('[')?;
    let close = operands[open..].find(']')? + open;
    Some(operands[open + 1..close].trim())
}

/// An `mbarrier` on the block's own shared memory (`.shared` or `.shared::cta`) that the race
/// analysis follows: `init` (its address and count), an arrival (`arrive`, `arrive_drop`,
/// with `expect_tx` or not) and a wait (`try_wait`, `test_wait`, logged by the lanes it
/// finds the phase complete for). Generic addresses and another block's barrier
/// (`.shared::cluster`) are not followed: a wait on them orders nothing here, which may
/// call a race what it orders, never the other way round.
fn mbarrier<'a>(guard: Option<&'a str>, op: &'a str, operands: &'a str) -> Option<Access<'a>> {
    let quals: Vec<&str> = op.split('.').collect();
    let has = |q: &str| quals.contains(&q);
    if !(has("shared") || has("shared::cta")) {
        return None;
    }
    let relaxed = has("relaxed");
    let parts: Vec<&str> = operands
        .trim()
        .trim_end_matches(';')
        .split(',')
        .map(str::trim)
        .collect();
    // The phases are counted from what is logged: an arrival's count, the bytes an
    // `expect_tx` arrival announces, a wait's parity.
    let (event, mbar_operand, mbar_high) = match quals.get(1).copied() {
        Some("init") => (Event::MbarInit, parts.get(1).copied(), None),
        // `arrive state, [addr], count`: `count` arrivals at once; `arrive.expect_tx state,
        // [addr], bytes`: one arrival, and the bytes its phase awaits.
        Some("arrive" | "arrive_drop") => match has("expect_tx") {
            true => (Event::MbarArrive { relaxed }, None, parts.get(2).copied()),
            false => (Event::MbarArrive { relaxed }, parts.get(2).copied(), None),
        },
        Some("try_wait" | "test_wait") => (
            Event::MbarWait { relaxed },
            parts.first().copied(),
            parts.get(2).copied().filter(|_| has("parity")),
        ),
        _ => return None,
    };
    Some(Access {
        guard,
        op,
        event,
        width: 0,
        addr: bracketed(operands)?,
        coords: None,
        size: None,
        zero_src: None,
        mbar_operand,
        mbar_high,
    })
}

/// The lanes whose addresses an `ldmatrix` reads, one row each: 8 a matrix (`.x1` 8, `.x2`
/// 16, `.x4` 32). None for another opcode.
pub fn matrix_rows(op: &str) -> Option<u32> {
    let mut quals = op.split('.');
    if quals.next() != Some("ldmatrix") {
        return None;
    }
    quals.find_map(|q| match q {
        "x1" => Some(8),
        "x2" => Some(16),
        "x4" => Some(32),
        _ => None,
    })
}

/// A barrier, logged as an event with no address: block-wide (`bar.sync`, `barrier.sync`,
/// `bar.red`, the old `bar` alone, each without a thread count), the warp's (`bar.warp.sync`,
/// whose lanes the record's mask names, each logging the member mask as its address) or
/// either half of the cluster's
/// (`barrier.cluster.arrive` and `.wait`, which hold the block too).
///
/// A block barrier that may not hold every thread is not logged: `bar.arrive` waits for
/// nothing, and `bar.sync id, count` with a count in a register, or `bar.red`'s count, holds
/// only the `count` threads that take part (a `bar.sync 1, 32` each warp passes alone). The
/// race analysis counts a warp's barriers as the block's; one of these counted so would hide
/// the races between the warps it does not hold. Left out, it orders nothing, which may call
/// a race what it orders for the warps it holds, never the other way round. A `bar.sync id,
/// count` with a written count is logged with it (`CountedBarrier`): the analysis, which
/// knows the block's size, takes it for the block's barrier when it holds every warp. A
/// block barrier's lanes log its number as their address (a register, where the code picks
/// it at run time): warps that meet in pairs at barriers of their own are told apart by it.
fn barrier<'a>(guard: Option<&'a str>, op: &'a str, operands: &'a str) -> Option<Access<'a>> {
    let has = |q: &str| op.split('.').any(|w| w == q);
    let block = !has("warp") && !has("cluster");
    // `bar.sync a{, b}`, `bar.red.op.type d, a{, b}, {!}c`: a thread count is the operand
    // after the barrier's number.
    let operands: Vec<&'a str> = operands
        .split([',', ';'])
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect();
    // A block barrier's number, or a warp's sync's member mask: the lanes a warp's sync
    // waits for, which may reach it apart (diverged lanes of a GPU's warp log a record
    // each) and are one meeting all the same.
    let number = match (block, has("red")) {
        (false, _) if has("warp") => operands.first(),
        (false, _) => None,
        (true, true) => operands.get(1),
        (true, false) => operands.first(),
    };
    let counted = if has("red") {
        operands.len() > 3
    } else {
        operands.len() > 1
    };
    let event = if block && (has("arrive") || counted) {
        // Only `bar.sync`/`barrier.sync` with a written count is followed.
        let written = operands.get(1).and_then(|c| immediate(c));
        match written {
            Some(threads) if !has("arrive") && !has("red") => Event::CountedBarrier { threads },
            _ => return None,
        }
    } else if has("warp") {
        Event::WarpSync
    } else if has("cluster") && has("arrive") && has("relaxed") {
        Event::ClusterArriveRelaxed
    } else if has("cluster") && has("arrive") {
        Event::ClusterArrive
    } else if has("cluster") {
        Event::ClusterWait
    } else {
        Event::Barrier
    };
    Some(Access {
        guard,
        op,
        event,
        width: 0,
        addr: number.copied().unwrap_or("0"),
        coords: None,
        size: None,
        zero_src: None,
        mbar_operand: None,
        mbar_high: None,
    })
}

/// A PTX integer literal as written (`256`, `0x100`, `256U`); None for a register.
fn immediate(text: &str) -> Option<u32> {
    let t = text.trim_end_matches(['U', 'u']);
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// The qualifiers after `ld`/`st`; None when they name something the tracer does not follow.
fn qualifiers<'a>(quals: impl Iterator<Item = &'a str>) -> Option<Qualifiers> {
    let mut q = Qualifiers {
        space: Space::Generic,
        vec: 1,
        elem: None,
    };
    for qual in quals {
        match qual {
            "v2" => q.vec = 2,
            "v4" => q.vec = 4,
            "v8" => q.vec = 8,
            // Parameters and the asynchronous/bulk copies have no per-lane address in the
            // windows the record describes.
            "async" | "bulk" => return None,
            t => match Space::from_ptx(t) {
                Some(Space::Param) => return None,
                Some(space) => q.space = space,
                None => {
                    if let Some(bits) = type_bits(t).filter(|&b| b >= 8) {
                        q.elem = Some(bits / 8);
                    }
                }
            },
        }
    }
    Some(q)
}

/// Where an address comes from: a register, a variable's name or a plain number.
pub(super) enum Base<'a> {
    /// A register and its width in bits (32 or 64).
    Reg(&'a str, u32),
    Sym(&'a str),
    Imm(i64),
}

fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r.trim_start()),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => t.parse::<i64>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// `%r5`, `%rd2+16`, `%r1+-4`, `sym`, `sym+4`, `1024` → base and byte offset.
pub(super) fn parse_address<'a>(
    addr: &'a str,
    regs: &RegTable,
    line: u32,
) -> Result<(Base<'a>, i64), InstrumentError> {
    let bad = || InstrumentError::BadAccess {
        line,
        text: format!("[{addr}]"),
    };
    if addr.is_empty() {
        return Err(bad());
    }
    if let Some(v) = parse_int(addr) {
        return Ok((Base::Imm(v), 0));
    }
    let split = addr[1..].find(['+', '-']).map(|i| i + 1);
    let (base, offset) = match split {
        Some(i) => {
            let off = &addr[i..];
            let off = off.strip_prefix('+').unwrap_or(off);
            (addr[..i].trim(), parse_int(off).ok_or_else(bad)?)
        }
        None => (addr, 0),
    };
    match regs.bits(base) {
        Some(bits @ (32 | 64)) => Ok((Base::Reg(base, bits), offset)),
        Some(_) => Err(bad()),
        None if base.starts_with('%') => Err(InstrumentError::UnknownRegister {
            line,
            reg: base.to_string(),
        }),
        None => Ok((Base::Sym(base), offset)),
    }
}
