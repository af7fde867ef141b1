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

use super::dataflow::{At, Class, Stmt};

/// The loads of a module's `functions` (by place, as `segment` splits its lines) whose
/// values nothing with an effect uses.
pub(super) fn unused_loads(functions: &[Vec<Stmt<'_>>]) -> HashSet<At> {
    functions.iter().flat_map(|f| dead_in(f)).collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::instrument::dataflow::functions;
    use crate::trace::instrument::dataflow::is_zero;

    fn dead_lines(ptx: &str) -> Vec<u32> {
        let mut v: Vec<u32> = unused_loads(&functions(ptx))
            .into_iter()
            .map(|(l, _)| l)
            .collect();
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
