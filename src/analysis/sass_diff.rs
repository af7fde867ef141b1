//! Two variants side by side, as `gpulab diff` and the lab's diff view show them: the
//! compile report, the SASS instruction mix, the memory instructions that changed, and the
//! recorded times and traced figures, each row only where something is known.

use super::sass::{self, Listing, MemKind};
use crate::model::results::{PtxasReport, VariantResult};
use std::collections::BTreeMap;

/// (what, a, b).
pub type Rows = Vec<(String, String, String)>;

/// The compile report's figures of both.
pub fn report_rows(c: [Option<&VariantResult>; 2]) -> Rows {
    type Get = fn(&PtxasReport) -> String;
    let getters: [(&str, Get); 4] = [
        ("registers", |r| r.registers.to_string()),
        ("stack frame (B)", |r| r.stack_frame.to_string()),
        ("spill stores/loads (B)", |r| {
            format!("{}/{}", r.spill_stores, r.spill_loads)
        }),
        ("static shared (B)", |r| r.smem.to_string()),
    ];
    let p = |v: Option<&VariantResult>, f: Get| {
        v.and_then(|v| v.ptxas.as_ref()).map_or("?".to_string(), f)
    };
    getters
        .iter()
        .map(|(what, f)| (what.to_string(), p(c[0], *f), p(c[1], *f)))
        .collect()
}

/// The instruction counts, and each kind whose count differs.
pub fn mix_rows(rows: &mut Rows, ls: [&Listing; 2]) {
    let n = |l: &Listing| l.instructions.len().to_string();
    rows.push(("SASS instructions".into(), n(ls[0]), n(ls[1])));
    let (m0, m1) = (sass::mix(ls[0]), sass::mix(ls[1]));
    let kinds: std::collections::BTreeSet<&String> = m0.keys().chain(m1.keys()).collect();
    for k in kinds {
        let (a, b) = (
            m0.get(k).copied().unwrap_or(0),
            m1.get(k).copied().unwrap_or(0),
        );
        if a != b {
            rows.push((format!("  {k}"), a.to_string(), b.to_string()));
        }
    }
}

/// Times and trace figures of both, where `rv` has them; `source` says where they come
/// from ("recorded", "live").
pub fn traced_rows(rows: &mut Rows, rv: [Option<&VariantResult>; 2], source: &str) {
    type Get = fn(&VariantResult) -> Option<String>;
    let time = format!("time (ms, {source})");
    let getters: [(&str, Get); 5] = [
        (&time, |v| {
            v.time_ms.as_ref().map(|t| format!("{:.3}", t.median))
        }),
        ("occupancy", |v| {
            v.occupancy.as_ref().map(|o| format!("{:.2}", o.ratio))
        }),
        ("shared wavefronts/request", |v| {
            let s = &v.memory.as_ref()?.shared;
            (s.requests > 0).then(|| format!("{:.2}", s.wavefronts as f64 / s.requests as f64))
        }),
        ("global sectors/request", |v| {
            let g = &v.memory.as_ref()?.global;
            (g.requests > 0).then(|| format!("{:.2}", g.sectors as f64 / g.requests as f64))
        }),
        ("local bytes", |v| {
            v.memory.as_ref().map(|m| m.local.bytes.to_string())
        }),
    ];
    for (what, get) in getters {
        let (a, b) = (rv[0].and_then(get), rv[1].and_then(get));
        if a.is_some() || b.is_some() {
            rows.push((
                what.into(),
                a.unwrap_or_else(|| "-".into()),
                b.unwrap_or_else(|| "-".into()),
            ));
        }
    }
}

/// Per (line, kind, width), the counts in a and b where they differ.
pub fn changed_memory(a: &Listing, b: &Listing) -> Vec<(u32, MemKind, u32, u32, u32)> {
    let (ma, mb): (BTreeMap<_, _>, BTreeMap<_, _>) = (
        sass::memory_by_line(a).into_iter().collect(),
        sass::memory_by_line(b).into_iter().collect(),
    );
    let keys: std::collections::BTreeSet<_> = ma.keys().chain(mb.keys()).copied().collect();
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (
                ma.get(&k).copied().unwrap_or(0),
                mb.get(&k).copied().unwrap_or(0),
            );
            (x != y).then_some((k.0, k.1, k.2, x, y))
        })
        .collect()
}
