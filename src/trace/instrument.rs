//! Instrument a module's PTX so that every traced load and store first hands its address to
//! `__gpulab_log` (src/trace/logger.ptx), which writes one record per warp request into a
//! buffer the host reads back (layout in `decode`).
//!
//! Traced: `ld`, `ldu` and `st` on `.shared` (`::cta`), `.global`, `.local`, `.const` and
//! generic addresses, scalar or vector, with any ordering or cache qualifier. Not traced:
//! `.param`, `.shared::cluster`, atomics and every other opcode (ldmatrix, cp.async, bulk
//! copies), whose lanes do not each name one address the way `ld`/`st` do.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::model::access::AccessKind;

/// The logging function and the globals the host sets before a traced launch.
pub const LOG_FUNC: &str = "__gpulab_log";
pub const SYM_BUF: &str = "__gpulab_trace_buf";
pub const SYM_CAP: &str = "__gpulab_trace_cap";
pub const SYM_COUNT: &str = "__gpulab_trace_count";
pub const SYM_BLOCK_STRIDE: &str = "__gpulab_trace_block_stride";
pub const SYM_BLOCK_LIMIT: &str = "__gpulab_trace_block_limit";

const LOGGER_PTX: &str = include_str!("logger.ptx");

/// The state space an instruction names. Generic ones are resolved per lane at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeclaredSpace {
    Shared,
    Global,
    Local,
    Const,
    Generic,
}

impl DeclaredSpace {
    /// The code the logger receives; 0–3 are also the resolved space codes of a record.
    pub fn code(self) -> u32 {
        match self {
            DeclaredSpace::Shared => 0,
            DeclaredSpace::Global => 1,
            DeclaredSpace::Local => 2,
            DeclaredSpace::Const => 3,
            DeclaredSpace::Generic => 4,
        }
    }
}

/// One traced instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    pub id: u32,
    pub space: DeclaredSpace,
    pub kind: AccessKind,
    /// The opcode as written, e.g. "ld.shared.v4.f32".
    pub op: String,
    /// Bytes per lane: vector count × element size.
    pub width: u32,
    /// 1-based line in the original PTX.
    pub ptx_line: u32,
    pub source_line: Option<u32>,
    /// The `.file` index of the `.loc` the line came from.
    pub source_file: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrumented {
    pub ptx: String,
    pub sites: Vec<Site>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstrumentError {
    #[error("the PTX has no .target directive")]
    NoTarget,
    #[error("target {0} is older than sm_70: the trace logger needs match.any.sync")]
    OldTarget(String),
    #[error("the PTX is already instrumented")]
    AlreadyInstrumented,
    #[error("PTX line {line}: cannot read the access `{text}`")]
    BadAccess { line: u32, text: String },
    #[error("PTX line {line}: register {reg} has no .reg declaration in this function")]
    UnknownRegister { line: u32, reg: String },
}

/// Instrument every traced access of `ptx`; see the module comment for what is traced.
pub fn instrument(ptx: &str) -> Result<Instrumented, InstrumentError> {
    if ptx.contains(LOG_FUNC) {
        return Err(InstrumentError::AlreadyInstrumented);
    }
    let header_end = header_end(ptx)?;
    let mut out = String::with_capacity(ptx.len() * 2 + LOGGER_PTX.len());
    let mut state = FuncState::default();
    let mut symbols: HashMap<String, DeclaredSpace> = HashMap::new();
    let mut sites = Vec::new();

    for (idx, raw) in ptx.lines().enumerate() {
        let line_no = idx as u32 + 1;
        let code = strip_comment(raw);
        if starts_function(code) {
            state = FuncState::default();
        }
        if let Some((name, space)) = module_variable(code) {
            symbols.insert(name, space);
        }
        let segments = segment(code);
        let mut planned = Vec::new();
        for (seg_idx, seg) in segments.iter().enumerate() {
            let Seg::Stmt(stmt) = seg else { continue };
            state.observe(stmt);
            let (label, body) = split_label(stmt);
            if let Some(access) = parse_access(body, line_no)? {
                let site = Site {
                    id: sites.len() as u32,
                    space: access.space,
                    kind: access.kind,
                    op: access.op.to_string(),
                    width: access.width,
                    ptx_line: line_no,
                    source_line: state.loc.map(|l| l.1),
                    source_file: state.loc.map(|l| l.0),
                };
                let block = site_block(&site, &access, &state.regs, &symbols, line_no)?;
                planned.push((seg_idx, label, body, block));
                sites.push(site);
            }
        }
        emit_line(&mut out, raw, &segments, &planned);
        if idx + 1 == header_end {
            out.push_str(LOGGER_PTX);
        }
    }
    Ok(Instrumented { ptx: out, sites })
}

/// The 1-based line after which the logger goes: the last of `.version`, `.target` and
/// `.address_size`, which must precede every other directive.
fn header_end(ptx: &str) -> Result<usize, InstrumentError> {
    let mut end = None;
    for (idx, line) in ptx.lines().enumerate() {
        let code = strip_comment(line).trim();
        if let Some(rest) = code.strip_prefix(".target") {
            let arch = rest
                .trim()
                .split([',', ' '])
                .next()
                .unwrap_or("")
                .to_string();
            let digits: String = arch
                .trim_start_matches("sm_")
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if digits.parse::<u32>().is_ok_and(|sm| sm < 70) {
                return Err(InstrumentError::OldTarget(arch));
            }
            end = Some(idx + 1);
        } else if code.starts_with(".address_size") || code.starts_with(".version") {
            end = end.map(|_| idx + 1).or(end);
        } else if !code.is_empty() && end.is_some() {
            break;
        }
    }
    end.ok_or(InstrumentError::NoTarget)
}

fn strip_comment(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// A new `.entry` or `.func` starts: registers and `.loc` of the last one no longer apply.
fn starts_function(code: &str) -> bool {
    code.split(|c: char| c.is_whitespace() || c == '(')
        .any(|t| t == ".entry" || t == ".func")
}

/// A module-scope variable (`.shared .align 4 .b8 tile[4096];`), so that a generic access
/// through its name can be attributed to its space.
fn module_variable(code: &str) -> Option<(String, DeclaredSpace)> {
    let mut space = None;
    let mut name = None;
    for tok in code.split_whitespace() {
        match tok {
            ".visible" | ".extern" | ".weak" | ".common" => {}
            ".shared" => space = Some(DeclaredSpace::Shared),
            ".global" => space = Some(DeclaredSpace::Global),
            ".const" => space = Some(DeclaredSpace::Const),
            ".local" => space = Some(DeclaredSpace::Local),
            t if t.starts_with('.') => {
                space?;
            }
            // The alignment's value.
            t if t.starts_with(|c: char| c.is_ascii_digit()) => {}
            t => {
                space?;
                name = Some(t.split(['[', ';', '=']).next().unwrap_or(t).to_string());
                break;
            }
        }
    }
    Some((name?, space?))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seg<'a> {
    Open,
    Close,
    Stmt(&'a str),
}

/// Split one line into scope braces and statements. A brace that starts a statement opens or
/// closes a scope; inside a statement braces enclose a vector operand.
fn segment(code: &str) -> Vec<Seg<'_>> {
    let mut segs = Vec::new();
    let mut start: Option<usize> = None;
    let mut depth = 0;
    for (i, c) in code.char_indices() {
        match (start, c) {
            (None, '{') => segs.push(Seg::Open),
            (None, '}') => segs.push(Seg::Close),
            (None, c) if c.is_whitespace() => {}
            (None, _) => start = Some(i),
            (Some(_), '{') => depth += 1,
            (Some(_), '}') => depth -= 1,
            (Some(s), ';') if depth == 0 => {
                segs.push(Seg::Stmt(&code[s..=i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        let rest = code[s..].trim_end();
        if !rest.is_empty() {
            segs.push(Seg::Stmt(rest));
        }
    }
    segs
}

/// `L1: ld.shared...` → (Some("L1:"), "ld.shared..."). `::` belongs to qualifiers.
fn split_label(stmt: &str) -> (Option<&str>, &str) {
    let word_end = stmt.find(char::is_whitespace).unwrap_or(stmt.len());
    let word = &stmt[..word_end];
    if let Some(i) = word.find(':')
        && !word[i..].starts_with("::")
        && !word.starts_with('.')
    {
        return (Some(&stmt[..=i]), stmt[i + 1..].trim_start());
    }
    (None, stmt)
}

/// Per-function knowledge: register widths and the last `.loc`.
#[derive(Default)]
struct FuncState {
    regs: RegTable,
    loc: Option<(u32, u32)>,
}

impl FuncState {
    fn observe(&mut self, stmt: &str) {
        let stmt = stmt.trim_end_matches(';');
        if let Some(rest) = stmt.strip_prefix(".reg") {
            self.regs.declare(rest);
        } else if let Some(rest) = stmt.strip_prefix(".loc") {
            let mut nums = rest
                .split([' ', '\t', ','])
                .filter(|t| !t.is_empty())
                .map(|t| t.parse::<u32>().ok());
            if let (Some(Some(file)), Some(Some(line))) = (nums.next(), nums.next()) {
                self.loc = Some((file, line));
            }
        }
    }
}

/// Register name → width in bits, from `.reg .b32 %r<12>;` (a family) or `.reg .b64 %SP;`.
#[derive(Default)]
struct RegTable {
    exact: HashMap<String, u32>,
    families: HashMap<String, u32>,
}

impl RegTable {
    fn declare(&mut self, decl: &str) {
        let mut bits = 0;
        for tok in decl.split([' ', '\t', ',']).filter(|t| !t.is_empty()) {
            if let Some(ty) = tok.strip_prefix('.') {
                if !ty.starts_with('v') {
                    bits = type_bits(ty).unwrap_or(0);
                }
            } else if let Some((family, _)) = tok.split_once('<') {
                self.families.insert(family.to_string(), bits);
            } else {
                self.exact.insert(tok.to_string(), bits);
            }
        }
    }

    fn bits(&self, name: &str) -> Option<u32> {
        if let Some(&b) = self.exact.get(name) {
            return Some(b);
        }
        let family = name.trim_end_matches(|c: char| c.is_ascii_digit());
        (family.len() < name.len())
            .then(|| self.families.get(family).copied())
            .flatten()
    }
}

fn type_bits(ty: &str) -> Option<u32> {
    Some(match ty {
        "pred" => 1,
        "b8" | "u8" | "s8" => 8,
        "b16" | "u16" | "s16" | "f16" | "bf16" | "e4m3x2" | "e5m2x2" => 16,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 32,
        "b64" | "u64" | "s64" | "f64" => 64,
        "b128" => 128,
        _ => return None,
    })
}

struct Access<'a> {
    guard: Option<&'a str>,
    op: &'a str,
    space: DeclaredSpace,
    kind: AccessKind,
    width: u32,
    addr: &'a str,
}

/// The access a statement makes, or None when it is not one the tracer follows.
fn parse_access(stmt: &str, line: u32) -> Result<Option<Access<'_>>, InstrumentError> {
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
        _ => return Ok(None),
    };
    let mut space = DeclaredSpace::Generic;
    let mut vec = 1;
    let mut elem = None;
    for q in quals {
        match q {
            "shared" | "shared::cta" => space = DeclaredSpace::Shared,
            "global" => space = DeclaredSpace::Global,
            "local" => space = DeclaredSpace::Local,
            "v2" => vec = 2,
            "v4" => vec = 4,
            "v8" => vec = 8,
            // Cluster shared memory, parameters and the asynchronous/bulk stores have no
            // per-lane address in the windows the record describes.
            "shared::cluster" | "async" | "bulk" => return Ok(None),
            q if q == "param" || q.starts_with("param::") => return Ok(None),
            q if q == "const" || q.starts_with("const[") => space = DeclaredSpace::Const,
            q => {
                if let Some(bits) = type_bits(q).filter(|&b| b >= 8) {
                    elem = Some(bits / 8);
                }
            }
        }
    }
    let elem = elem.ok_or_else(bad)?;
    let operands = &rest[op_end..];
    let open = operands.find('[').ok_or_else(bad)?;
    let close = operands[open..].find(']').ok_or_else(bad)? + open;
    Ok(Some(Access {
        guard,
        op,
        space,
        kind,
        width: vec * elem,
        addr: operands[open + 1..close].trim(),
    }))
}

/// Where an address comes from: a register, a variable's name or a plain number.
enum Base<'a> {
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
fn parse_address<'a>(
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

/// The `meta` of a lane whose guard is false (see logger.ptx).
const GUARD_FALSE: u32 = u32::MAX;
const A: &str = "%__gpulab_a";
const W: &str = "%__gpulab_w";

/// The scoped block that hands one access to the logger. It sits just before the access,
/// so the address registers still hold what the access will use.
fn site_block(
    site: &Site,
    access: &Access<'_>,
    regs: &RegTable,
    symbols: &HashMap<String, DeclaredSpace>,
    line: u32,
) -> Result<String, InstrumentError> {
    let (base, offset) = parse_address(access.addr, regs, line)?;
    let mut space = site.space;
    let mut b = format!("{{ // gpulab trace site {}: {}\n", site.id, site.op);
    b.push_str(&format!(".reg .b64 {A};\n.reg .b32 {W};\n"));
    b.push_str(".reg .b32 %__gpulab_s;\n.reg .b32 %__gpulab_m;\n");
    b.push_str(".param .b64 __gpulab_p0;\n.param .b32 __gpulab_p1;\n.param .b32 __gpulab_p2;\n");
    match base {
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
            if space == DeclaredSpace::Generic
                && let Some(&declared) = symbols.get(s)
            {
                space = declared;
            }
            b.push_str(&format!("mov.u64 {A}, {s};\n"));
            if offset != 0 {
                b.push_str(&format!("add.s64 {A}, {A}, {offset};\n"));
            }
        }
        Base::Imm(v) => b.push_str(&format!("mov.u64 {A}, {};\n", v + offset)),
    }
    let meta = (access.width << 8) | space.code();
    b.push_str(&format!("mov.u32 %__gpulab_s, {};\n", site.id));
    b.push_str(&format!("mov.u32 %__gpulab_m, {meta};\n"));
    // Every lane calls; a lane whose guard is false says so instead of skipping the call,
    // as a predicated call splits the warp and changes the requests being measured.
    if let Some(g) = access.guard {
        let pred = &g[1..];
        let negated = match pred.strip_prefix('!') {
            Some(p) => format!("@{p}"),
            None => format!("@!{pred}"),
        };
        b.push_str(&format!("{negated} mov.u32 %__gpulab_m, {GUARD_FALSE};\n"));
    }
    b.push_str(&format!("st.param.b64 [__gpulab_p0], {A};\n"));
    b.push_str("st.param.b32 [__gpulab_p1], %__gpulab_s;\n");
    b.push_str("st.param.b32 [__gpulab_p2], %__gpulab_m;\n");
    // Plain `call`, not `call.uni`: the access may sit in divergent code.
    b.push_str(&format!(
        "call {LOG_FUNC}, (__gpulab_p0, __gpulab_p1, __gpulab_p2);\n}}\n"
    ));
    Ok(b)
}

/// Write one source line with the logging blocks before its traced statements. A line holding
/// only one unlabelled statement is kept as written; any other is split one statement a line,
/// so that each block lands right before its access, in the access's scope.
fn emit_line(
    out: &mut String,
    raw: &str,
    segments: &[Seg<'_>],
    planned: &[(usize, Option<&str>, &str, String)],
) {
    let indent = &raw[..raw.len() - raw.trim_start().len()];
    let indent = if indent.is_empty() { "\t" } else { indent };
    let push_block = |out: &mut String, block: &str| {
        for l in block.lines() {
            out.push_str(indent);
            out.push_str(l);
            out.push('\n');
        }
    };
    if planned.is_empty() {
        out.push_str(raw);
        out.push('\n');
        return;
    }
    if segments.len() == 1 && planned.len() == 1 && planned[0].1.is_none() {
        push_block(out, &planned[0].3);
        out.push_str(raw);
        out.push('\n');
        return;
    }
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
                push_block(out, block);
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
    if let Some(i) = raw.find("//") {
        out.push_str(indent);
        out.push_str(&raw[i..]);
        out.push('\n');
    }
}

#[cfg(test)]
#[path = "instrument_tests.rs"]
mod tests;
