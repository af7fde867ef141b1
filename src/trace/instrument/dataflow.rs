//! What each statement of a PTX function reads and writes, for the analyses that follow a
//! value to where it goes or comes from (`unused`, `staged`, `relayed`), read once per
//! module. Statements are read without their order: a register is one name wherever it is
//! written, as NVRTC's PTX (written once but for a loop's carried values) has it.

use super::statements::{
    Seg, segment, split_label, split_operands, starts_function, strip_comment,
};

/// Where a statement is: its 1-based PTX line and its place among the line's statements.
pub(super) type At = (u32, usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Reads memory into its first operand.
    Load,
    /// Computes its first operand from the others, and does nothing else.
    Pure,
    /// Anything else: a store, an atomic, a branch, a call, a barrier, a copy, an opcode
    /// not listed. Everything it names is read.
    Effect,
}

pub(super) struct Stmt<'a> {
    pub at: At,
    pub class: Class,
    /// The registers it writes (Load and Pure only).
    pub defs: Vec<&'a str>,
    /// What it reads: its guard, and its other operands' names.
    pub uses: Vec<&'a str>,
    /// The opcode as written (`st.shared.f32`).
    pub op: &'a str,
    /// A store (`st`, of any space): the names of the values it stores (its operands after
    /// the address), which `uses` holds as well. Empty for any other statement.
    pub stored: Vec<&'a str>,
}

impl Stmt<'_> {
    /// A store to the block's own shared memory (`st.shared...`, any qualifiers): not a
    /// cluster's `st.shared::cluster`, which writes another block's.
    pub fn stores_shared(&self) -> bool {
        self.is_store_of(&["shared", "shared::cta"])
    }

    /// A store to a block of the cluster's shared memory, named as such.
    pub fn stores_cluster_shared(&self) -> bool {
        self.is_store_of(&["shared::cluster"])
    }

    /// A store to global memory, named as such.
    pub fn stores_global(&self) -> bool {
        self.is_store_of(&["global"])
    }

    /// A load from the block's own shared memory.
    pub fn loads_shared(&self) -> bool {
        self.class == Class::Load
            && self
                .op
                .split('.')
                .any(|q| q == "shared" || q == "shared::cta")
    }

    fn is_store_of(&self, spaces: &[&str]) -> bool {
        let mut parts = self.op.split('.');
        parts.next() == Some("st") && parts.any(|q| spaces.contains(&q))
    }
}

/// The statements of each function of `ptx`, in order.
pub(super) fn functions(ptx: &str) -> Vec<Vec<Stmt<'_>>> {
    let mut all = vec![Vec::new()];
    for (idx, raw) in ptx.lines().enumerate() {
        let code = strip_comment(raw);
        if starts_function(code) && !all.last().is_some_and(Vec::is_empty) {
            all.push(Vec::new());
        }
        for (seg_idx, seg) in segment(code).iter().enumerate() {
            if let Seg::Stmt(stmt) = seg
                && let Some(s) = read_stmt(stmt, (idx as u32 + 1, seg_idx))
            {
                all.last_mut().expect("one at least").push(s);
            }
        }
    }
    all
}

/// One statement's class, what it writes and what it reads; None for a directive.
fn read_stmt(stmt: &str, at: At) -> Option<Stmt<'_>> {
    let (_, body) = split_label(stmt);
    let mut rest = body.trim().trim_end_matches(';').trim();
    if rest.is_empty() || rest.starts_with('.') {
        return None;
    }
    let mut uses = Vec::new();
    if let Some(g) = rest.strip_prefix('@') {
        let end = g.find(char::is_whitespace).unwrap_or(g.len());
        uses.extend(names(&g[..end]));
        rest = g[end..].trim_start();
    }
    let op_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let op = &rest[..op_end];
    let operands = split_operands(&rest[op_end..]);
    let class = class_of(op);
    // An AND with 0, or an integer multiply by 0, is 0 whatever its other operand holds:
    // it reads nothing (a load's value laundered into a result through inline asm, which
    // the compiler does not fold, is still thrown away).
    let zeroed = class == Class::Pure
        && annihilated_by_zero(op)
        && operands.iter().skip(1).any(|o| is_zero(o));
    let mut defs = Vec::new();
    for (k, operand) in operands.iter().enumerate() {
        match (class, k) {
            (Class::Load | Class::Pure, 0) => defs.extend(names(operand)),
            _ if zeroed => {}
            _ => uses.extend(names(operand)),
        }
    }
    let stored = if op.split('.').next() == Some("st") {
        operands.iter().skip(1).flat_map(|o| names(o)).collect()
    } else {
        Vec::new()
    };
    Some(Stmt {
        at,
        class,
        defs,
        uses,
        op,
        stored,
    })
}

/// `and`, and integer `mul` (not a float's: 0 times a NaN or an infinity is a NaN).
fn annihilated_by_zero(op: &str) -> bool {
    match op.split('.').next() {
        Some("and") => true,
        Some("mul") => !op.split('.').any(|q| q.starts_with('f')),
        _ => false,
    }
}

/// A literal 0: `0`, `0x0`, `0x00000000`, `0U`.
pub(super) fn is_zero(operand: &str) -> bool {
    let t = operand.trim().trim_end_matches(['U', 'u']);
    let digits = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    !digits.is_empty() && digits.chars().all(|c| c == '0')
}

fn class_of(op: &str) -> Class {
    let base = op.split('.').next().unwrap_or("");
    const LOADS: [&str; 5] = ["ld", "ldu", "tex", "tld4", "ldmatrix"];
    // Opcodes that only compute their first operand from the others.
    const PURE: [&str; 64] = [
        "add",
        "sub",
        "mul",
        "mad",
        "mul24",
        "mad24",
        "sad",
        "div",
        "rem",
        "abs",
        "neg",
        "min",
        "max",
        "popc",
        "clz",
        "bfind",
        "fns",
        "brev",
        "bfe",
        "bfi",
        "dp4a",
        "dp2a",
        "and",
        "or",
        "xor",
        "not",
        "cnot",
        "lop3",
        "shf",
        "shl",
        "shr",
        "mov",
        "cvt",
        "cvta",
        "setp",
        "set",
        "selp",
        "slct",
        "prmt",
        "testp",
        "copysign",
        "rcp",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "lg2",
        "ex2",
        "tanh",
        "fma",
        "isspacep",
        "mapa",
        "getctarank",
        "shfl",
        "vote",
        "match",
        "activemask",
        "redux",
        "mma",
        "createpolicy",
        "bmsk",
        "szext",
        "addc",
        "subc",
    ];
    if LOADS.contains(&base) && !op.contains(".param") {
        Class::Load
    } else if PURE.contains(&base) || base == "ld" {
        // `ld.param` reads a kernel's or a callee's parameters: never traced, and used
        // as its value is.
        Class::Pure
    } else {
        Class::Effect
    }
}

/// Every name in an operand (`%r5`, `{%f1, %f2}`, `[%rd3+8]`, `%p1|%p2`, `!%p2`): registers,
/// and labels or symbols, which no statement writes and so change nothing.
fn names(operand: &str) -> impl Iterator<Item = &str> {
    operand
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '%' | '_' | '$')))
        .filter(|t| !t.is_empty() && !t.starts_with(|c: char| c.is_ascii_digit()))
}
