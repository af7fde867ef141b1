//! How a lesson's outputs are judged: the comparison `tolerance`, and the figures a kernel
//! measures itself (`measures:`) with the claims that name them.

use super::cx::{Cx, Known};
use crate::course::schema::RawLesson;
use crate::model::claim::Claim;
use crate::model::{ElemType, Measure, Summary, Tolerance, Variant};

pub(super) fn tolerance(cx: &mut Cx, raw: &RawLesson) -> Option<Tolerance> {
    let t = raw.head.tolerance.as_ref()?;
    let mut out = Tolerance::default();
    for (key, given, slot) in [("rel", t.rel, &mut out.rel), ("abs", t.abs, &mut out.abs)] {
        match given {
            Some(x) if x.is_finite() && x >= 0.0 => *slot = x,
            Some(x) => cx.err(
                &format!("tolerance.{key}"),
                format!("`{key}` must be a number >= 0, not {x}"),
            ),
            None => {}
        }
    }
    Some(out)
}

/// Every claim about `measured.NAME` must name one of the lesson's measures, as written
/// (a measure with an error of its own was reported already, and is not blamed again).
pub(super) fn check_measure_claims(cx: &mut Cx, raw: &RawLesson, claims: &[Claim]) {
    if cx.failed.contains("measures") {
        return;
    }
    let measures = raw.head.measures.iter().flatten();
    let known: Vec<&str> = measures.map(|m| m.name.as_str()).collect();
    let texts: Vec<&String> = raw.head.expect.iter().flatten().collect();
    for c in claims {
        let Some(name) = c.measure() else { continue };
        if known.contains(&name) {
            continue;
        }
        let k = texts.iter().position(|t| **t == c.text).unwrap_or(0);
        let list = if known.is_empty() {
            "the lesson has no `measures`".to_string()
        } else {
            format!("measures: {}", known.join(", "))
        };
        cx.err(
            &format!("expect[{k}]"),
            format!("unknown measure `{name}` ({list})"),
        );
    }
}

/// The lesson's `measures`; each variant's divisors are set apart (`set_per`).
pub(super) fn measures(cx: &mut Cx, raw: &RawLesson, known: &Known) -> Vec<Measure> {
    let mut out: Vec<Measure> = Vec::new();
    for (k, m) in raw.head.measures.iter().flatten().enumerate() {
        let at = |key: &str| format!("measures[{k}].{key}");
        let name_ok =
            crate::course::expr::is_identifier(&m.name) && !out.iter().any(|o| o.name == m.name);
        if !name_ok {
            cx.err(
                &at("name"),
                format!(
                    "measure name `{}` must be an identifier, given once",
                    m.name
                ),
            );
        }
        let summary = Summary::ALL
            .iter()
            .find(|(n, _)| *n == m.summary)
            .map(|s| s.1);
        if summary.is_none() {
            cx.err(
                &at("summary"),
                format!(
                    "unknown summary `{}` (summaries: median, mean, min, max)",
                    m.summary
                ),
            );
        }
        if m.unit.trim().is_empty() {
            cx.err(
                &at("unit"),
                "`unit` names what the figure counts (cycles, ns, ...)",
            );
        }
        let buffer = measured_buffer(cx, known, &at("from"), &m.from);
        if let (true, Some(summary), Some(buffer)) = (name_ok, summary, buffer) {
            out.push(Measure {
                name: m.name.clone(),
                buffer,
                summary,
                unit: m.unit.clone(),
            });
        }
    }
    out
}

/// A measure's buffer: an output the kernel writes its figures into, of a type they fit.
fn measured_buffer(cx: &mut Cx, known: &Known, path: &str, name: &str) -> Option<usize> {
    let j = super::constants::buffer(cx, known, path, name)?;
    let b = known.buffers[j].as_ref()?;
    if !b.is_output() {
        cx.err(
            path,
            format!("`{name}` must be an output (init: poison): the kernel writes the figures"),
        );
        return None;
    }
    if b.ty == ElemType::I32 {
        cx.err(
            path,
            format!("`{name}` is i32; measured figures are u32, u64, f32 or f64"),
        );
        return None;
    }
    Some(j)
}

/// Set `v.per`: each measure's `per` evaluated with `v`'s defines, 1 where none is given
/// (an error, naming `v`, where it is not above 0).
pub(super) fn set_per(cx: &mut Cx, raw: &RawLesson, known: &Known, v: &mut Variant) {
    let mut per = Vec::new();
    for (k, m) in raw.head.measures.iter().flatten().enumerate() {
        let Some(expr) = m.per.as_ref() else {
            per.push(1.0);
            continue;
        };
        let path = format!("measures[{k}].per");
        let mut env = known.problem.to_vec();
        env.extend(
            v.defines
                .iter()
                .filter_map(|(k, val)| Some((k.clone(), val.parse::<i64>().ok()?))),
        );
        match cx.eval(&path, expr, &env) {
            Some(d) if d > 0 => per.push(d as f64),
            Some(d) => {
                cx.err(
                    &path,
                    format!("`per` must be > 0 (`{}` is {d} for `{}`)", expr.0, v.name),
                );
                per.push(1.0);
            }
            None => per.push(1.0),
        }
    }
    v.per = per;
}
