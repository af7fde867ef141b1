//! Global stores whose values come straight from shared memory: an output relayed through
//! a tile rather than stored from the registers that computed it. Staging an output is
//! what a transpose teaches; where a lesson teaches that each thread computes the output it
//! stores (which thread takes which element of C), a kernel that keeps the old mapping and
//! turns its stores around through a tile makes the same coalesced stores, and only where
//! their values come from tells them apart.
//!
//! A store is relayed when every value it stores was written only by shared loads, or by
//! moves and conversions of such values; arithmetic on the way makes it computed.

use std::collections::{HashMap, HashSet};

use super::dataflow::{At, Class, Stmt};

/// The global stores of a module's `functions` (by place, as `segment` splits its lines)
/// whose values come straight from shared memory.
pub(super) fn relayed_stores(functions: &[Vec<Stmt<'_>>]) -> HashSet<At> {
    functions.iter().flat_map(|f| relayed_in(f)).collect()
}

fn relayed_in(stmts: &[Stmt<'_>]) -> Vec<At> {
    let mut writers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in stmts.iter().enumerate() {
        if s.class != Class::Effect {
            for d in &s.defs {
                writers.entry(d).or_default().push(i);
            }
        }
    }
    let mut known = HashMap::new();
    (stmts.iter())
        .filter(|s| s.stores_global() && !s.stored.is_empty())
        .filter(|s| (s.stored.iter()).all(|v| from_shared(stmts, &writers, v, &mut known)))
        .map(|s| s.at)
        .collect()
}

/// Whether every write of `name` is a shared load, or a move or conversion of values that
/// are. A name no statement writes (a parameter, a special register) is not.
fn from_shared<'a>(
    stmts: &[Stmt<'a>],
    writers: &HashMap<&'a str, Vec<usize>>,
    name: &'a str,
    known: &mut HashMap<&'a str, bool>,
) -> bool {
    if let Some(&k) = known.get(name) {
        return k;
    }
    // A loop's carried value reaching itself is no evidence either way: taken as not
    // relayed while it is being decided.
    known.insert(name, false);
    let Some(ws) = writers.get(name) else {
        return false;
    };
    let relayed = ws.iter().all(|&i| {
        let s = &stmts[i];
        match s.class {
            Class::Load => s.loads_shared(),
            Class::Pure if moves(s.op) => {
                let sources: Vec<&str> = (s.uses.iter().copied())
                    .filter(|u| u.starts_with('%'))
                    .collect();
                !sources.is_empty()
                    && (sources.into_iter()).all(|u| from_shared(stmts, writers, u, known))
            }
            _ => false,
        }
    });
    known.insert(name, relayed);
    relayed
}

/// `mov` and `cvt`: the value passed on, at most rounded or re-typed.
fn moves(op: &str) -> bool {
    matches!(op.split('.').next(), Some("mov" | "cvt"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::instrument::dataflow::functions;

    fn relayed_lines(ptx: &str) -> Vec<u32> {
        let mut v: Vec<u32> = relayed_stores(&functions(ptx))
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
    fn a_store_of_a_shared_load_or_its_copy_is_relayed_and_one_of_a_sum_is_not() {
        let ptx = kernel(
            // 12-13: stored as loaded from the tile. 14-16: through a move.
            "ld.shared.f32 %f1, [%r1];\nst.global.f32 [%rd1], %f1;\n\
             ld.shared.f32 %f2, [%r1+4];\nmov.f32 %f3, %f2;\nst.global.f32 [%rd1+4], %f3;\n\
             // 18-20: a sum of tile words: computed here.
             ld.shared.f32 %f4, [%r1+8];\nadd.f32 %f5, %f4, %f4;\nst.global.f32 [%rd1+8], %f5;\n\
             // 21-22: a global load copied out: not from shared memory.
             ld.global.f32 %f6, [%rd1];\nst.global.f32 [%rd1+12], %f6;\n\
             // 23: a shared store is no global store.
             st.shared.f32 [%r1], %f1;",
        );
        assert_eq!(relayed_lines(&ptx), [13, 16]);
    }

    #[test]
    fn a_vector_store_is_relayed_only_when_every_value_is() {
        let ptx = kernel(
            "ld.shared.v2.f32 {%f1, %f2}, [%r1];\nst.global.v2.f32 [%rd1], {%f1, %f2};\n\
             add.f32 %f3, %f1, 0f3F800000;\nst.global.v2.f32 [%rd1+8], {%f1, %f3};",
        );
        assert_eq!(relayed_lines(&ptx), [13]);
    }

    #[test]
    fn the_instrumenter_marks_relayed_global_stores() {
        let ptx = kernel(
            "ld.shared.u32 %r2, [%r1];\nst.global.u32 [%rd1], %r2;\nst.global.u32 [%rd1+4], %r1;",
        );
        let sites = crate::trace::instrument::instrument(&ptx).unwrap().sites;
        let marks: Vec<(u32, bool)> = sites.iter().map(|s| (s.ptx_line, s.relayed)).collect();
        assert_eq!(marks, [(12, false), (13, true), (14, false)]);
    }
}
