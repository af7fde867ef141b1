//! Writing the instrumented PTX: the logging block of a site, and a source line with the
//! blocks before its traced statements.

use std::collections::HashMap;

use super::access::{Access, Base, parse_address};
use super::logger::{Features, site_code};
use super::registers::RegTable;
use super::statements::Seg;
use super::{BARRIER_CODE, Event, InstrumentError, Site, space_code};
use crate::model::access::Space;

/// The `meta` of a lane whose guard is false (see logger.ptx).
const GUARD_FALSE: u32 = u32::MAX;
const A: &str = "%__gpulab_a";
const W: &str = "%__gpulab_w";

/// A traced statement of a line: its segment index, its label, the statement without the
/// label (empty where its block holds it, `site_block`'s `inside`), and the logging block
/// that goes before it.
pub(super) type Planned<'a> = (usize, Option<&'a str>, &'a str, String);

/// The scoped block that logs one access: the logger's code written out in place. It sits
/// just before the access, so the address registers still hold what the access will use.
/// With `inside`, the access itself runs in the block after its address is taken and
/// before it is logged: an acquire load is logged after it reads, so that the log's order
/// (a slot claimed from a global counter) puts it after the release store it read, whose
/// block claims its slot before the store (the memory model orders both ways).
pub(super) fn site_block(
    site: &Site,
    access: &Access<'_>,
    regs: &RegTable,
    (symbols, features): (&HashMap<String, Space>, Features),
    line: u32,
    inside: Option<&str>,
) -> Result<String, InstrumentError> {
    let mut b = format!("{{ // gpulab trace site {}: {}\n", site.id, site.op);
    b.push_str(&format!(".reg .b64 {A};\n.reg .b32 {W};\n"));
    b.push_str(".reg .b32 %__gpulab_s;\n.reg .b32 %__gpulab_m;\n");
    // The space to log; None for a barrier, which logs address 0 under its own code.
    let space = match (access.coords, site.space()) {
        (Some(_), _) => Some(load_coordinates(&mut b, access.addr)),
        (None, declared) => {
            let (base, offset) = parse_address(access.addr, regs, line)?;
            let declared = declared.unwrap_or(Space::Generic);
            let resolved = load_address(&mut b, &base, offset, declared, symbols);
            site.space().map(|_| resolved)
        }
    };
    // The parser makes no `.param` site; were one made, it could not be logged.
    let bad = || InstrumentError::BadAccess {
        line,
        text: access.op.to_string(),
    };
    let code = match space {
        Some(s) => space_code(s).ok_or_else(bad)?,
        None => BARRIER_CODE,
    };
    let meta = (access.width << 8) | code;
    b.push_str(&format!("mov.u32 %__gpulab_s, {};\n", site.id));
    match access.size {
        // A bulk copy's record carries the bytes it moves as its width, known only when it
        // runs where the size is a register.
        Some(size) => bulk_meta(&mut b, size, code, regs, line)?,
        None => b.push_str(&format!("mov.u32 %__gpulab_m, {meta};\n")),
    }
    // Every lane logs; a lane whose guard is false says so instead of skipping the code, as
    // a predicated branch around it splits the warp and changes the requests measured.
    if let Some(g) = access.guard {
        let pred = &g[1..];
        let negated = match pred.strip_prefix('!') {
            Some(p) => format!("@{p}"),
            None => format!("@!{pred}"),
        };
        b.push_str(&format!("{negated} mov.u32 %__gpulab_m, {GUARD_FALSE};\n"));
    }
    if let Some(z) = access.zero_src {
        zero_src_lanes(&mut b, z, regs, line)?;
    }
    // An `ldmatrix` reads the addresses of its first 8 or 16 lanes only (x1, x2): the
    // others' registers hold whatever they hold, and are logged as lanes that took no part.
    if let Some(rows) = super::access::matrix_rows(access.op).filter(|&r| r < 32) {
        b.push_str(".reg .pred %__gpulab_p;\n");
        b.push_str(&format!("mov.u32 {W}, %laneid;\n"));
        b.push_str(&format!("setp.ge.u32 %__gpulab_p, {W}, {rows};\n"));
        b.push_str(&format!(
            "@%__gpulab_p mov.u32 %__gpulab_m, {GUARD_FALSE};\n"
        ));
    }
    // A barrier's shared offset, as the interpreter logs it: the low 24 bits, as for a
    // shared access (a rank-1 block of a cluster sees its own window 16 MiB on).
    if matches!(
        site.event,
        Event::MbarInit | Event::MbarArrive { .. } | Event::MbarWait { .. }
    ) {
        b.push_str(&format!("and.b64 {A}, {A}, 16777215;\n"));
    }
    // A warp's sync logs its member mask as a u32, however the operand was written (`-1`).
    if site.event == Event::WarpSync {
        b.push_str(&format!("and.b64 {A}, {A}, 4294967295;\n"));
    }
    // An init's count of arrivals a phase awaits, an arrival's count of arrivals it makes.
    if let (Event::MbarInit | Event::MbarArrive { .. }, Some(count)) =
        (site.event, access.mbar_operand)
    {
        mbar_count(&mut b, count, regs, line)?;
    }
    // An `expect_tx` arrival's bytes, a parity wait's parity: flagged by bit 63.
    if let Some(high) = access.mbar_high {
        let mask = match site.event {
            Event::MbarWait { .. } => 1,
            _ => super::MBAR_HIGH_MASK,
        };
        mbar_flagged(&mut b, high, mask, regs, line)?;
    }
    if let (Event::Access { .. }, Some(bar)) = (site.event, access.mbar_operand) {
        bulk_barrier(&mut b, bar, regs, (symbols, line))?;
    }
    if let Some(stmt) = inside {
        b.push_str(stmt);
        b.push('\n');
    }
    // A wait logs only the lanes it found the phase complete for: a wait retried in a loop
    // is logged once, where it succeeds.
    if let (Event::MbarWait { .. }, Some(done)) = (site.event, access.mbar_operand) {
        b.push_str(&format!("@!{done} mov.u32 %__gpulab_m, {GUARD_FALSE};\n"));
    }
    let census = access.mbar_operand.is_none() || site.is_event();
    b.push_str(&site_code(features, site.id, space, census));
    b.push_str("}\n");
    Ok(b)
}

/// A copy's lanes that read nothing, logged as lanes that took no part: those whose source
/// size is 0, or whose `ignore-src` predicate is true.
fn zero_src_lanes(
    b: &mut String,
    operand: &str,
    regs: &RegTable,
    line: u32,
) -> Result<(), InstrumentError> {
    let off = format!("mov.u32 %__gpulab_m, {GUARD_FALSE};\n");
    if let Ok(n) = operand.parse::<u64>() {
        if n == 0 {
            b.push_str(&off);
        }
        return Ok(());
    }
    let (negated, reg) = match operand.strip_prefix('!') {
        Some(r) => (true, r),
        None => (false, operand),
    };
    match regs.bits(reg) {
        Some(1) => b.push_str(&format!("@{}{reg} {off}", if negated { "!" } else { "" })),
        Some(bits @ (32 | 64)) => {
            b.push_str(".reg .pred %__gpulab_z;\n");
            b.push_str(&format!("setp.eq.u{bits} %__gpulab_z, {reg}, 0;\n"));
            b.push_str(&format!("@%__gpulab_z {off}"));
        }
        _ => {
            return Err(InstrumentError::UnknownRegister {
                line,
                reg: operand.to_string(),
            });
        }
    }
    Ok(())
}

/// An `mbarrier.init`'s count into the address's high half, over the barrier's shared
/// offset in the low half.
fn mbar_count(
    b: &mut String,
    count: &str,
    regs: &RegTable,
    line: u32,
) -> Result<(), InstrumentError> {
    if let Ok(n) = count.parse::<u32>() {
        b.push_str(&format!("or.b64 {A}, {A}, {};\n", u64::from(n) << 32));
        return Ok(());
    }
    match regs.bits(count) {
        Some(32) => {
            b.push_str(".reg .b64 %__gpulab_c;\n");
            b.push_str(&format!("cvt.u64.u32 %__gpulab_c, {count};\n"));
            b.push_str("shl.b64 %__gpulab_c, %__gpulab_c, 32;\n");
            b.push_str(&format!("or.b64 {A}, {A}, %__gpulab_c;\n"));
            Ok(())
        }
        _ => Err(InstrumentError::UnknownRegister {
            line,
            reg: count.to_string(),
        }),
    }
}

/// `value & mask` << 32 and bit 63 over the barrier's offset in `A`: an immediate, or a
/// 32- or 64-bit register.
fn mbar_flagged(
    b: &mut String,
    value: &str,
    mask: u64,
    regs: &RegTable,
    line: u32,
) -> Result<(), InstrumentError> {
    let flag = super::MBAR_FLAG;
    if let Ok(n) = value.parse::<u64>() {
        b.push_str(&format!(
            "or.b64 {A}, {A}, {:#x};\n",
            flag | (n & mask) << 32
        ));
        return Ok(());
    }
    b.push_str(".reg .b64 %__gpulab_h;\n");
    match regs.bits(value) {
        Some(32) => b.push_str(&format!("cvt.u64.u32 %__gpulab_h, {value};\n")),
        Some(64) => b.push_str(&format!("mov.b64 %__gpulab_h, {value};\n")),
        _ => {
            return Err(InstrumentError::UnknownRegister {
                line,
                reg: value.to_string(),
            });
        }
    }
    b.push_str(&format!("and.b64 %__gpulab_h, %__gpulab_h, {mask};\n"));
    b.push_str("shl.b64 %__gpulab_h, %__gpulab_h, 32;\n");
    b.push_str(&format!("or.b64 %__gpulab_h, %__gpulab_h, {flag:#x};\n"));
    b.push_str(&format!("or.b64 {A}, {A}, %__gpulab_h;\n"));
    Ok(())
}

/// A bulk copy's destination in `A` becomes its mbarrier's shared offset << 32 over its
/// own, each the low 24 bits (as a barrier's offset is logged).
fn bulk_barrier(
    b: &mut String,
    bar: &str,
    regs: &RegTable,
    (symbols, line): (&HashMap<String, Space>, u32),
) -> Result<(), InstrumentError> {
    let (base, offset) = parse_address(bar, regs, line)?;
    b.push_str(
        ".reg .b64 %__gpulab_d;
",
    );
    b.push_str(&format!(
        "and.b64 %__gpulab_d, {A}, 16777215;
"
    ));
    load_address(b, &base, offset, Space::Shared, symbols);
    b.push_str(&format!(
        "and.b64 {A}, {A}, 16777215;
"
    ));
    b.push_str(&format!(
        "shl.b64 {A}, {A}, 32;
"
    ));
    b.push_str(&format!(
        "or.b64 {A}, {A}, %__gpulab_d;
"
    ));
    Ok(())
}

/// `meta` of a bulk copy: its size operand << 8 | the space's code.
fn bulk_meta(
    b: &mut String,
    size: &str,
    code: u32,
    regs: &RegTable,
    line: u32,
) -> Result<(), InstrumentError> {
    let m = "%__gpulab_m";
    if let Ok(n) = size.parse::<u32>() {
        b.push_str(&format!("mov.u32 {m}, {};\n", (n << 8) | code));
        return Ok(());
    }
    match regs.bits(size) {
        Some(64) => b.push_str(&format!("cvt.u32.u64 {m}, {size};\n")),
        Some(_) => b.push_str(&format!("mov.b32 {m}, {size};\n")),
        None => {
            return Err(InstrumentError::UnknownRegister {
                line,
                reg: size.to_string(),
            });
        }
    }
    b.push_str(&format!("shl.b32 {m}, {m}, 8;\nor.b32 {m}, {m}, {code};\n"));
    Ok(())
}

/// Put a fetch's coordinates' bits in `A`, y << 32 | x (y 0 for 1D): the logger keeps them
/// exact, and the analysis reads them as the site's coordinate type.
fn load_coordinates(b: &mut String, coords: &str) -> Space {
    let c = super::texture::coordinates(coords);
    let x = c.first().copied().unwrap_or("0");
    let y = c.get(1).copied().unwrap_or("0");
    b.push_str(".reg .b32 %__gpulab_x;\n.reg .b32 %__gpulab_y;\n");
    b.push_str(&format!("mov.b32 %__gpulab_x, {x};\n"));
    b.push_str(&format!("mov.b32 %__gpulab_y, {y};\n"));
    b.push_str(&format!("mov.b64 {A}, {{%__gpulab_x, %__gpulab_y}};\n"));
    Space::Texture
}

/// Put the access's 64-bit address in `A`; returns the space to report, which a generic
/// access through a variable's name takes from the variable.
fn load_address(
    b: &mut String,
    base: &Base<'_>,
    offset: i64,
    declared: Space,
    symbols: &HashMap<String, Space>,
) -> Space {
    let mut space = declared;
    match *base {
        Base::Reg(r, 64) if offset == 0 => b.push_str(&format!("mov.b64 {A}, {r};\n")),
        Base::Reg(r, 64) => b.push_str(&format!("add.s64 {A}, {r}, {offset};\n")),
        // 32-bit addresses wrap in 32 bits, so add before widening.
        Base::Reg(r, _) if offset == 0 => b.push_str(&format!("cvt.u64.u32 {A}, {r};\n")),
        Base::Reg(r, _) => {
            b.push_str(&format!("add.s32 {W}, {r}, {offset};\n"));
            b.push_str(&format!("cvt.u64.u32 {A}, {W};\n"));
        }
        Base::Sym(s) => {
            // `mov` of a name gives its address in its own window; a generic access through
            // a name of known space is therefore attributed to that space here.
            if space == Space::Generic
                && let Some(&known) = symbols.get(s)
            {
                space = known;
            }
            b.push_str(&format!("mov.u64 {A}, {s};\n"));
            if offset != 0 {
                b.push_str(&format!("add.s64 {A}, {A}, {offset};\n"));
            }
        }
        Base::Imm(v) => b.push_str(&format!("mov.u64 {A}, {};\n", v + offset)),
    }
    space
}

/// Write one source line with the logging blocks before its traced statements. A line holding
/// only one unlabelled statement is kept as written; any other is split one statement a line,
/// so that each block lands right before its access, in the access's scope.
pub(super) fn emit_line(
    out: &mut String,
    raw: &str,
    segments: &[Seg<'_>],
    planned: &[Planned<'_>],
) {
    let indent = &raw[..raw.len() - raw.trim_start().len()];
    let indent = if indent.is_empty() { "\t" } else { indent };
    if planned.is_empty() {
        out.push_str(raw);
        out.push('\n');
        return;
    }
    if segments.len() == 1
        && planned.len() == 1
        && planned[0].1.is_none()
        && !planned[0].2.is_empty()
    {
        push_block(out, indent, &planned[0].3);
        out.push_str(raw);
        out.push('\n');
        return;
    }
    emit_split(out, indent, segments, planned);
    if let Some(i) = raw.find("//") {
        out.push_str(indent);
        out.push_str(&raw[i..]);
        out.push('\n');
    }
}

/// The line's segments one a line, each traced statement after its label and its block.
fn emit_split(out: &mut String, indent: &str, segments: &[Seg<'_>], planned: &[Planned<'_>]) {
    for (seg_idx, seg) in segments.iter().enumerate() {
        let text = match seg {
            Seg::Open => "{",
            Seg::Close => "}",
            Seg::Stmt(s) => s,
        };
        let plan = planned.iter().find(|p| p.0 == seg_idx);
        match (seg, plan) {
            (Seg::Stmt(_), Some((_, label, body, block))) => {
                if let Some(label) = label {
                    out.push_str(label);
                    out.push('\n');
                }
                push_block(out, indent, block);
                if body.is_empty() {
                    continue;
                }
                out.push_str(indent);
                out.push_str(body);
            }
            _ => {
                out.push_str(indent);
                out.push_str(text);
            }
        }
        out.push('\n');
    }
}

fn push_block(out: &mut String, indent: &str, block: &str) {
    for l in block.lines() {
        out.push_str(indent);
        out.push_str(l);
        out.push('\n');
    }
}
