//! Operands: registers by dense index, predicates by index, immediates as bits, addresses
//! as base + offset, special registers, labels and vectors.

use super::Unmodelled;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sreg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    Laneid,
    Warpid,
    Nwarpid,
    Smid,
    Nsmid,
    Clock,
    Clock64,
    Globaltimer,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
    DynSmem,
    TotalSmem,
    ClusterCtarank,
    ClusterNctarank,
    Clusterid(u8),
    Nclusterid(u8),
    ClusterCtaid(u8),
    ClusterNctaid(u8),
    IsExplicitCluster,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Opnd {
    Reg(u32),
    /// A predicate register, negated when the flag is set.
    Pred(u32, bool),
    Imm(u64),
    /// `[base+off]`: base is a register or an address known when decoding.
    Addr(Box<Opnd>, i64),
    Special(Sreg),
    Label(u32),
    Vec(Vec<Opnd>),
    Sink,
}

/// Where a named variable lives once laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sym {
    pub addr: u64,
}

/// A function's names: registers, predicates, labels and the variables in scope.
#[derive(Default)]
pub struct Names {
    regs: HashMap<String, u32>,
    preds: HashMap<String, u32>,
    pred_families: Vec<String>,
    /// Registers declared under a name with no `%` (inline asm's `{ .reg .u32 t; ... }`):
    /// told apart from labels and variables by their declaration.
    bare: std::collections::HashSet<String>,
    pub labels: HashMap<String, u32>,
    /// Labels used before they are placed, patched at the end.
    pub label_uses: Vec<String>,
    pub syms: HashMap<String, Sym>,
}

impl Names {
    pub fn nregs(&self) -> u32 {
        self.regs.len() as u32
    }
    pub fn npreds(&self) -> u32 {
        self.preds.len() as u32
    }

    /// A `.reg` declaration: its predicate families, and the names written without `%`
    /// (registers are otherwise made on first use). The scopes of inline asm's braces are
    /// not kept apart: two blocks that each declare `t` share one register, which neither
    /// reads before it writes it.
    pub fn declare(&mut self, decl: &str) {
        let pred = decl.split_whitespace().any(|t| t == ".pred");
        let names = (decl.trim_end_matches(';').split([' ', '\t', ',', ';']))
            .filter(|t| !t.is_empty() && !t.starts_with('.'));
        for tok in names {
            let family = tok.split('<').next().unwrap_or(tok);
            if pred {
                self.pred_families.push(family.to_string());
            }
            if !tok.starts_with('%') {
                self.bare.insert(family.to_string());
            }
        }
    }

    fn is_declared(&self, name: &str) -> bool {
        self.bare.contains(name)
    }

    fn is_pred(&self, name: &str) -> bool {
        let fam = name.trim_end_matches(|c: char| c.is_ascii_digit());
        self.pred_families.iter().any(|f| f == name || f == fam)
    }

    fn reg(&mut self, name: &str) -> Opnd {
        if self.is_pred(name) {
            let n = self.preds.len() as u32;
            return Opnd::Pred(*self.preds.entry(name.to_string()).or_insert(n), false);
        }
        let n = self.regs.len() as u32;
        Opnd::Reg(*self.regs.entry(name.to_string()).or_insert(n))
    }

    fn label(&mut self, name: &str) -> Opnd {
        let i = match self.label_uses.iter().position(|l| l == name) {
            Some(i) => i,
            None => {
                self.label_uses.push(name.to_string());
                self.label_uses.len() - 1
            }
        };
        Opnd::Label(i as u32)
    }
}

fn special(name: &str) -> Option<Sreg> {
    let dim = |s: &str| match s {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    if let Some((base, d)) = name.split_once('.') {
        let d = dim(d)?;
        return Some(match base {
            "%tid" => Sreg::Tid(d),
            "%ntid" => Sreg::Ntid(d),
            "%ctaid" => Sreg::Ctaid(d),
            "%nctaid" => Sreg::Nctaid(d),
            "%clusterid" => Sreg::Clusterid(d),
            "%nclusterid" => Sreg::Nclusterid(d),
            "%cluster_ctaid" => Sreg::ClusterCtaid(d),
            "%cluster_nctaid" => Sreg::ClusterNctaid(d),
            _ => return None,
        });
    }
    Some(match name {
        "%laneid" => Sreg::Laneid,
        "%warpid" => Sreg::Warpid,
        "%nwarpid" => Sreg::Nwarpid,
        "%smid" => Sreg::Smid,
        "%nsmid" => Sreg::Nsmid,
        "%clock" => Sreg::Clock,
        "%clock64" => Sreg::Clock64,
        "%globaltimer" => Sreg::Globaltimer,
        "%lanemask_eq" => Sreg::LanemaskEq,
        "%lanemask_lt" => Sreg::LanemaskLt,
        "%lanemask_le" => Sreg::LanemaskLe,
        "%lanemask_gt" => Sreg::LanemaskGt,
        "%lanemask_ge" => Sreg::LanemaskGe,
        "%dynamic_smem_size" => Sreg::DynSmem,
        "%total_smem_size" => Sreg::TotalSmem,
        "%cluster_ctarank" => Sreg::ClusterCtarank,
        "%cluster_nctarank" => Sreg::ClusterNctarank,
        "%is_explicit_cluster" => Sreg::IsExplicitCluster,
        _ => return None,
    })
}

/// PTX's special registers the interpreter does not model (`special` reads the others).
fn unmodelled_special(t: &str) -> bool {
    const NAMES: [&str; 8] = [
        "%gridid",
        "%clock_hi",
        "%globaltimer_lo",
        "%globaltimer_hi",
        "%aggr_smem_size",
        "%current_graph_exec",
        "%reserved_smem_offset_begin",
        "%reserved_smem_offset_end",
    ];
    const FAMILIES: [&str; 3] = ["%pm", "%envreg", "%reserved_smem_offset_"];
    NAMES.contains(&t)
        || (FAMILIES.iter()).any(|f| {
            t.strip_prefix(f).is_some_and(|rest| {
                !rest.is_empty() && rest.chars().next().is_some_and(|c| c.is_ascii_digit())
            })
        })
}

pub fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let t = t.strip_suffix('U').unwrap_or(t);
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()? as i64
    } else {
        t.parse::<u64>().ok()? as i64
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

fn immediate(t: &str) -> Option<u64> {
    if let Some(h) = t.strip_prefix("0f").or_else(|| t.strip_prefix("0F")) {
        return u32::from_str_radix(h, 16).ok().map(u64::from);
    }
    if let Some(h) = t.strip_prefix("0d").or_else(|| t.strip_prefix("0D")) {
        return u64::from_str_radix(h, 16).ok();
    }
    if let Some(v) = parse_int(t) {
        return Some(v as u64);
    }
    t.parse::<f64>().ok().map(f64::to_bits)
}

/// One operand as written; `what` names it in errors.
pub fn operand(names: &mut Names, text: &str) -> Result<Opnd, Unmodelled> {
    let t = text.trim();
    if t == "_" {
        return Ok(Opnd::Sink);
    }
    if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return address(names, inner.trim());
    }
    if let Some(inner) = t.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let parts = inner.split(',').map(|p| operand(names, p));
        return Ok(Opnd::Vec(parts.collect::<Result<_, _>>()?));
    }
    if let Some(p) = t.strip_prefix('!') {
        return match operand(names, p)? {
            Opnd::Pred(i, n) => Ok(Opnd::Pred(i, !n)),
            _ => Err(format!("`{t}`: ! before a non-predicate").into()),
        };
    }
    if let Some(s) = special(t) {
        return Ok(Opnd::Special(s));
    }
    if unmodelled_special(t) {
        // Read as a register it would be a silent 0: a kernel that asks the hardware
        // something the interpreter does not know is refused, in words.
        return Err(
            format!("the special register `{t}` is not modelled by the CPU interpreter").into(),
        );
    }
    if t.starts_with('%') || names.is_declared(t) {
        return Ok(names.reg(t));
    }
    if let Some(v) = immediate(t) {
        return Ok(Opnd::Imm(v));
    }
    if let Some(sym) = names.syms.get(t) {
        return Ok(Opnd::Imm(sym.addr));
    }
    if t.starts_with(['$', '_']) || t.chars().next().is_some_and(char::is_alphabetic) {
        return Ok(names.label(t));
    }
    Err(format!("cannot read the operand `{t}`").into())
}

fn address(names: &mut Names, inner: &str) -> Result<Opnd, Unmodelled> {
    let split = inner
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == '+' || c == '-')
        .map(|(i, _)| i);
    let (base, off) = match split {
        Some(i) => {
            let o = inner[i..].trim_start_matches('+').replace(' ', "");
            let off =
                parse_int(&o).ok_or_else(|| format!("cannot read the offset in [{inner}]"))?;
            (inner[..i].trim(), off)
        }
        None => (inner, 0),
    };
    let b = operand(names, base)?;
    if matches!(b, Opnd::Label(_)) {
        return Err(format!("[{inner}]: `{base}` is no variable in scope").into());
    }
    Ok(Opnd::Addr(Box::new(b), off))
}
