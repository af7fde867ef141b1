//! Loads whose value nothing uses. A participant hunting for a green check can bring a
//! kernel's count of the taught loads up to the solution's with loads it throws away
//! (`asm volatile` keeps them in the PTX and the SASS, so they are traced and counted like
//! any other); the count alone cannot tell them from the loads the work needs. A load is
//! used when its value reaches something with an effect: a store, an atomic, a branch, a
//! call, a barrier, a copy, through any chain of arithmetic and of other loads' addresses.
//!
//! The analysis reads one function's statements without their order (a register is live
//! when any live statement reads it, wherever it is defined), so it can only call too many
//! loads used, never a used one unused: an opcode it does not know is taken to have an
//! effect, and every name in its operands to be read.

use std::collections::{HashMap, HashSet};

use super::statements::{
    Seg, segment, split_label, split_operands, starts_function, strip_comment,
};

/// Where a statement is: its 1-based PTX line and its place among the line's statements.
pub(super) type At = (u32, usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Reads memory into its first operand.
    Load,
    /// Computes its first operand from the others, and does nothing else.
    Pure,
    /// Anything else: a store, an atomic, a branch, a call, a barrier, a copy, an opcode
    /// not listed. Everything it names is read.
    Effect,
}

struct Stmt<'a> {
    at: At,
    class: Class,
    /// The registers it writes (Load and Pure only).
    defs: Vec<&'a str>,
    /// What it reads: its guard, and its other operands' names.
    uses: Vec<&'a str>,
}

/// The loads of `ptx` (by place, as `segment` splits its lines) whose values nothing with
/// an effect uses, in any function.
pub(super) fn unused_loads(ptx: &str) -> HashSet<At> {
    let mut dead = HashSet::new();
    let mut function: Vec<Stmt<'_>> = Vec::new();
    for (idx, raw) in ptx.lines().enumerate() {
        let code = strip_comment(raw);
        if starts_function(code) {
            dead.extend(dead_in(&function));
            function.clear();
        }
        for (seg_idx, seg) in segment(code).iter().enumerate() {
            if let Seg::Stmt(stmt) = seg
                && let Some(s) = read_stmt(stmt, (idx as u32 + 1, seg_idx))
            {
                function.push(s);
            }
        }
    }
    dead.extend(dead_in(&function));
    dead
}

/// The unused loads of one function's statements.
fn dead_in(stmts: &[Stmt<'_>]) -> Vec<At> {
    let mut defs: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in stmts.iter().enumerate() {
        if s.class != Class::Effect {
            for d in &s.defs {
                defs.entry(d).or_default().push(i);
            }
        }
    }
    let mut live: HashSet<&str> = HashSet::new();
    let mut work: Vec<&str> = (stmts.iter())
        .filter(|s| s.class == Class::Effect)
        .flat_map(|s| s.uses.iter().copied())
        .collect();
    let mut reached = vec![false; stmts.len()];
    while let Some(r) = work.pop() {
        if !live.insert(r) {
            continue;
        }
        for &i in defs.get(r).into_iter().flatten() {
            if !std::mem::replace(&mut reached[i], true) {
                work.extend(stmts[i].uses.iter().copied());
            }
        }
    }
    (stmts.iter())
        .filter(|s| s.class == Class::Load && !s.defs.is_empty())
        .filter(|s| !s.defs.iter().any(|d| live.contains(d)))
        .map(|s| s.at)
        .collect()
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
    Some(Stmt {
        at,
        class,
        defs,
        uses,
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
fn is_zero(operand: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn dead_lines(ptx: &str) -> Vec<u32> {
        let mut v: Vec<u32> = unused_loads(ptx).into_iter().map(|(l, _)| l).collect();
        v.sort();
        v
    }

    const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<20>;\n.reg .b64 %rd<9>;\n\
        .reg .pred %p<4>;\nld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\n";

    fn kernel(body: &str) -> String {
        format!("{HEAD}{body}\nret;\n}}\n")
    }

    #[test]
    fn a_load_whose_value_is_thrown_away_is_unused_and_one_that_is_stored_is_not() {
        // Lines 11 and 12 load; only 12's value reaches the store.
        let ptx = kernel(
            "ld.shared.u32 %r2, [%r1];\nld.shared.u32 %r3, [%r1+4];\n\
             cvta.to.global.u64 %rd2, %rd1;\nst.global.u32 [%rd2], %r3;",
        );
        assert_eq!(dead_lines(&ptx), [11]);
    }

    #[test]
    fn a_value_is_used_through_arithmetic_a_branch_an_address_or_a_vector() {
        let ptx = kernel(
            // 11: added into a sum that is stored.
            "ld.shared.u32 %r2, [%r1];\nadd.s32 %r4, %r2, 1;\nst.global.u32 [%rd1], %r4;\n\
             // 14: decides a branch.
             ld.shared.u32 %r5, [%r1];\nsetp.eq.s32 %p1|%p2, %r5, 0;\n@%p1 bra $L1;\n\
             // 17: an address another used load reads.
             ld.global.u64 %rd3, [%rd1];\nld.global.u32 %r6, [%rd3];\nst.global.u32 [%rd1], %r6;\n\
             // 20: a vector load of which one element is stored.
             ld.shared.v2.u32 {%r7, %r8}, [%r1];\nst.global.u32 [%rd1], %r8;\n$L1:",
        );
        assert_eq!(dead_lines(&ptx), Vec::<u32>::new());
    }

    #[test]
    fn a_chain_of_arithmetic_that_reaches_nothing_leaves_its_loads_unused() {
        // The loads are summed, but the sum is never stored: both are unused, and so is the
        // pointer load whose only reader is an unused load.
        let ptx = kernel(
            "ld.global.u64 %rd3, [%rd1];\nld.global.u32 %r2, [%rd3];\n\
             ld.shared.u32 %r3, [%r1];\nadd.s32 %r4, %r2, %r3;\nmul.lo.s32 %r5, %r4, 3;",
        );
        assert_eq!(dead_lines(&ptx), [11, 12, 13]);
    }

    #[test]
    fn a_value_anded_or_multiplied_with_zero_is_thrown_away() {
        // 11: summed, then ANDed with 0 (as inline asm writes it) before the store. 12:
        // multiplied by 0 as an integer. 13: multiplied by 0.0 as a float, which a NaN
        // would pass through: used. 14: ANDed with a register that holds 0 at run time,
        // which the analysis does not follow: used.
        let ptx = kernel(
            "ld.shared.u32 %r2, [%r1];
ld.shared.u32 %r3, [%r1+4];
             ld.shared.f32 %r4, [%r1+8];
ld.shared.u32 %r5, [%r1+12];
             add.s32 %r6, %r2, 1;
and.b32 %r7, %r6, 0;
mul.lo.s32 %r8, %r3, 0x00000000;
             mul.rn.f32 %r9, %r4, 0f00000000;
mov.u32 %r10, 0;
and.b32 %r11, %r5, %r10;
             add.s32 %r12, %r7, %r8;
add.s32 %r13, %r12, %r9;
add.s32 %r14, %r13, %r11;
             st.global.u32 [%rd1], %r14;",
        );
        assert_eq!(dead_lines(&ptx), [11, 12]);
        assert!(is_zero("0") && is_zero("0x00000000") && is_zero("0U"));
        assert!(!is_zero("0f00000000") && !is_zero("10") && !is_zero("%r0"));
    }

    #[test]
    fn an_opcode_the_analysis_does_not_know_reads_everything_it_names() {
        let ptx = kernel("ld.shared.u32 %r2, [%r1];\nsomething.new.b32 %r3, %r2;");
        assert_eq!(dead_lines(&ptx), Vec::<u32>::new());
        // A predicated load's guard is read only if the load is used.
        let ptx = kernel("setp.eq.s32 %p1, %r1, 0;\n@%p1 ld.shared.u32 %r2, [%r1];");
        assert_eq!(dead_lines(&ptx), [12]);
    }

    #[test]
    fn matrix_loads_are_used_through_the_mma_that_consumes_them() {
        // 11: its fragments feed an mma whose result is stored. 12: its fragments go nowhere.
        let ptx = kernel(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r1];\n\
             ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r6, %r7}, [%r1];\n\
             mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r10, %r11, %r12, %r13}, \
             {%r2, %r3, %r4, %r5}, {%r2, %r3}, {%r10, %r11, %r12, %r13};\n\
             st.global.v4.b32 [%rd1], {%r10, %r11, %r12, %r13};",
        );
        assert_eq!(dead_lines(&ptx), [12]);
    }

    #[test]
    fn the_instrumenter_marks_the_sites_of_unused_loads_and_only_loads() {
        let ptx = kernel(
            "ld.shared.u32 %r2, [%r1];\nld.shared.u32 %r3, [%r1+4];\n\
             st.shared.u32 [%r1], %r3;",
        );
        let sites = crate::trace::instrument::instrument(&ptx).unwrap().sites;
        let marks: Vec<(u32, bool)> = sites.iter().map(|s| (s.ptx_line, s.unused)).collect();
        assert_eq!(marks, [(11, true), (12, false), (13, false)]);
    }

    #[test]
    fn each_function_is_read_on_its_own() {
        // The callee's load of %r2 is unused there, though the kernel's %r2 is stored.
        let ptx = format!(
            "{HEAD}ld.shared.u32 %r2, [%r1];\nst.global.u32 [%rd1], %r2;\nret;\n}}\n\
             .func f()\n{{\n.reg .b32 %r<4>;\nld.shared.u32 %r2, [%r1];\nret;\n}}\n"
        );
        assert_eq!(dead_lines(&ptx), [18]);
    }
}
