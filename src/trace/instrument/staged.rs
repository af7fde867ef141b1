//! Loads whose value goes into shared memory and nowhere else: a tile being staged. A
//! lesson that teaches tiling asks that every global word its work reads comes through
//! the tile; a kernel that stages most of its input and reads the rest straight into its
//! arithmetic (the last, ragged k-tile of a matrix product, say) makes about as many
//! requests and sectors as one that stages it all, so the counts cannot tell them apart.
//!
//! A load is staged when its value, through any chain of arithmetic (a select between it
//! and a zero past an edge, a conversion), reaches the value of a store to the block's
//! shared memory, or to another block's of its cluster (`st.shared::cluster`: a slice pushed
//! to the block that reads it), and nothing else: not an address, a branch, another store
//! or an atomic.
//! An opcode the reading does not know counts as somewhere else, so a load is never called
//! staged that is not. A store through a generic address (`st.f32`, no space named) is
//! somewhere else too: NVRTC names the space of a `__shared__` array's stores wherever it
//! can tell it, and a tile written through a pointer it cannot follow reads as unstaged.

use std::collections::{HashMap, HashSet};

use super::dataflow::{At, Class, Stmt};

/// The loads of a module's `functions` (by place, as `segment` splits its lines) whose
/// values go only into shared memory.
pub(super) fn staged_loads(functions: &[Vec<Stmt<'_>>]) -> HashSet<At> {
    functions.iter().flat_map(|f| staged_in(f)).collect()
}

fn staged_in(stmts: &[Stmt<'_>]) -> Vec<At> {
    let mut readers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in stmts.iter().enumerate() {
        for u in &s.uses {
            readers.entry(u).or_default().push(i);
        }
    }
    (stmts.iter())
        .filter(|s| s.class == Class::Load && !s.defs.is_empty())
        .filter(|s| only_into_shared(stmts, &readers, &s.defs))
        .map(|s| s.at)
        .collect()
}

/// Whether the values named `defs` reach a shared store's value, and nothing else.
fn only_into_shared(
    stmts: &[Stmt<'_>],
    readers: &HashMap<&str, Vec<usize>>,
    defs: &[&str],
) -> bool {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut work: Vec<&str> = defs.to_vec();
    let mut stored = false;
    while let Some(r) = work.pop() {
        if !seen.insert(r) {
            continue;
        }
        for &i in readers.get(r).into_iter().flatten() {
            let s = &stmts[i];
            match s.class {
                Class::Pure => work.extend(s.defs.iter().copied()),
                // Read as an address (or a guard) of another load.
                Class::Load => return false,
                // Into another block's shared memory too: a slice pushed to the block
                // that reads it is staged there, by one crossing of the cluster.
                Class::Effect if !(s.stores_shared() || s.stores_cluster_shared()) => {
                    return false;
                }
                Class::Effect => {
                    // A store of the value, not at an address (or under a guard) made
                    // from it.
                    let as_value = s.stored.iter().filter(|u| **u == r).count();
                    let at_all = s.uses.iter().filter(|u| **u == r).count();
                    if as_value == 0 || as_value < at_all {
                        return false;
                    }
                    stored = true;
                }
            }
        }
    }
    stored
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::instrument::dataflow::functions;

    fn staged_lines(ptx: &str) -> Vec<u32> {
        let mut v: Vec<u32> = staged_loads(&functions(ptx))
            .into_iter()
            .map(|(l, _)| l)
            .collect();
        v.sort();
        v
    }

    const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<20>;\n.reg .f32 %f<20>;\n\
        .reg .b64 %rd<9>;\n.reg .pred %p<4>;\nld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\n";

    fn kernel(body: &str) -> String {
        format!("{HEAD}{body}\nret;\n}}\n")
    }

    #[test]
    fn a_load_stored_into_shared_memory_is_staged_even_through_a_select_past_an_edge() {
        // 12: stored as loaded. 13: a select with a zero past the edge, then stored.
        let ptx = kernel(
            "ld.global.nc.f32 %f1, [%rd1];\nld.global.nc.f32 %f2, [%rd1+4];\n\
             setp.lt.s32 %p1, %r1, 7;\nselp.f32 %f3, %f2, 0f00000000, %p1;\n\
             st.shared.f32 [%r1], %f1;\nst.shared.f32 [%r1+4], %f3;",
        );
        assert_eq!(staged_lines(&ptx), [12, 13]);
    }

    #[test]
    fn a_load_that_feeds_arithmetic_an_address_a_branch_or_global_memory_is_not_staged() {
        let ptx = kernel(
            // 12: multiplied into a sum that goes to global memory.
            "ld.global.f32 %f1, [%rd1];\nfma.rn.f32 %f2, %f1, %f1, %f2;\nst.global.f32 [%rd1], %f2;\n\
             // 15: stored to shared memory, and also into a sum.
             ld.global.f32 %f3, [%rd1];\nst.shared.f32 [%r1], %f3;\nadd.f32 %f4, %f3, %f2;\n\
             st.global.f32 [%rd1], %f4;\n\
             // 19: the address of a shared store, not its value.
             ld.global.u32 %r2, [%rd1];\nst.shared.u32 [%r2], %r1;\n\
             // 21: decides a branch.
             ld.global.u32 %r3, [%rd1];\nsetp.eq.s32 %p1, %r3, 0;\n@%p1 bra $L1;\n\
             // 24: read by nothing at all.
             ld.global.u32 %r4, [%rd1];\n$L1:",
        );
        assert_eq!(staged_lines(&ptx), Vec::<u32>::new());
    }

    #[test]
    fn a_vector_load_stored_as_a_vector_is_staged_and_so_is_a_remote_store() {
        // 12: all four words into the tile. 13: into another block's shared memory.
        let ptx = kernel(
            "ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd1];\n\
             ld.global.u32 %r6, [%rd1];\n\
             st.shared.v4.u32 [%r1], {%r2, %r3, %r4, %r5};\n\
             st.shared::cluster.u32 [%r1], %r6;",
        );
        assert_eq!(staged_lines(&ptx), [12, 13]);
    }

    #[test]
    fn the_instrumenter_marks_staged_global_loads() {
        let ptx = kernel(
            "ld.global.u32 %r2, [%rd1];\nld.global.u32 %r3, [%rd1+4];\n\
             st.shared.u32 [%r1], %r2;\nst.global.u32 [%rd1], %r3;",
        );
        let sites = crate::trace::instrument::instrument(&ptx).unwrap().sites;
        let marks: Vec<(u32, bool)> = sites.iter().map(|s| (s.ptx_line, s.staged)).collect();
        assert_eq!(marks, [(12, true), (13, false), (14, false), (15, false)]);
    }
}
