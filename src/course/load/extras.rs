//! The keys added after the first lessons: `constants` on a variant, and `tolerance`,
//! `measures` and `requires` at the top (docs/lesson-format.md). Each rule reports at the
//! part of the file it concerns, like the rest of the loader.

use super::cx::{Cx, Known};
use crate::course::schema::RawLesson;
use crate::course::schema_ext::RawConstant;
use crate::course::signature::code_only;
use crate::model::claim::Claim;
use crate::model::{
    ConstantFill, ElemType, Measure, Requires, Summary, Tolerance, Variant, parse_cc,
};

/// A buffer named at `path`: its index, when it exists and did not fail (a failed one was
/// reported already).
fn buffer(cx: &mut Cx, known: &Known, path: &str, name: &str) -> Option<usize> {
    match known.buffer_names.iter().position(|n| n == name) {
        Some(j) => known.buffers.get(j)?.as_ref().map(|_| j),
        None => {
            let names = known.buffer_names.join(", ");
            cx.err(path, format!("unknown buffer `{name}` (buffers: {names})"));
            None
        }
    }
}

/// A variant's `constants`, written at `at` (a parent's path for an inherited list).
pub(super) fn constants(
    cx: &mut Cx,
    written: Option<&(Vec<RawConstant>, String)>,
    source: Option<&str>,
    known: &Known,
) -> Option<Vec<ConstantFill>> {
    let Some((list, at)) = written else {
        return Some(Vec::new());
    };
    let code = source.map(code_only);
    let mut out = Some(Vec::new());
    for (k, c) in list.iter().enumerate() {
        let from_at = format!("{at}[{k}].from");
        let j = buffer(cx, known, &from_at, &c.from);
        if let Some(Some(b)) = j.map(|j| &known.buffers[j])
            && b.is_output()
        {
            cx.err(
                &from_at,
                format!(
                    "`{}` is an output (init: poison); a constant is filled from an input",
                    c.from
                ),
            );
            out = None;
        }
        if !crate::course::expr::is_identifier(&c.symbol) {
            cx.err(
                &format!("{at}[{k}].symbol"),
                format!("`{}` is not a variable name", c.symbol),
            );
            out = None;
        } else if let Some(code) = &code
            && !declares_constant(code, &c.symbol)
        {
            cx.err(
                &format!("{at}[{k}].symbol"),
                format!(
                    "the kernel source declares no `__constant__` variable `{}`",
                    c.symbol
                ),
            );
            out = None;
        }
        match (j, out.as_mut()) {
            (Some(buffer), Some(v)) => v.push(ConstantFill {
                symbol: c.symbol.clone(),
                buffer,
            }),
            _ => out = None,
        }
    }
    out
}

/// Whether `code` (comments and strings blanked) declares `symbol` in a `__constant__`
/// declaration: as a declarator between `__constant__` and the `;` that ends it, that is a
/// word followed by `[`, `=`, `,` or the end (so a type such as `float` is not taken for one).
pub(super) fn declares_constant(code: &str, symbol: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices("__constant__").any(|(i, _)| {
        let decl = &code[i..];
        let decl = &decl[..decl.find(';').unwrap_or(decl.len())];
        decl.match_indices(symbol).any(|(j, _)| {
            let before = decl[..j].chars().next_back();
            let after = decl[j + symbol.len()..].trim_start().chars().next();
            !before.is_some_and(word) && matches!(after, None | Some('[' | '=' | ','))
        })
    })
}

#[cfg(test)]
#[test]
fn a_constant_is_found_by_its_declarator_only() {
    let code = "__constant__ float table[64];\n__constant__ int k = 3, j;\nfloat other[4];";
    for yes in ["table", "k", "j"] {
        assert!(declares_constant(code, yes), "{yes}");
    }
    for no in ["float", "other", "tab", "able", "int"] {
        assert!(!declares_constant(code, no), "{no}");
    }
}

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

pub(super) fn requires(cx: &mut Cx, raw: &RawLesson) -> Requires {
    let Some(r) = &raw.head.requires else {
        return Requires::default();
    };
    let cc = r.cc.as_ref().and_then(|cc| {
        let parsed = parse_cc(&cc.0);
        if parsed.is_none() {
            cx.err(
                "requires.cc",
                format!(
                    "`cc` is a compute capability such as \"9.0\", not `{}`",
                    cc.0
                ),
            );
        }
        parsed
    });
    if r.gpus == Some(0) {
        cx.err("requires.gpus", "`gpus` must be at least 1");
    }
    Requires {
        cc,
        gpus: r.gpus.filter(|&n| n > 0),
    }
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

/// The lesson's `measures`; `variants` gives each its divisor (`per` may use defines).
pub(super) fn measures(
    cx: &mut Cx,
    raw: &RawLesson,
    known: &Known,
    variants: Option<&[Variant]>,
) -> Vec<Measure> {
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
        let divisors = divisors(cx, &at("per"), m.per.as_ref(), known, variants);
        if let (true, Some(summary), Some(buffer), Some(divisors)) =
            (name_ok, summary, buffer, divisors)
        {
            out.push(Measure {
                name: m.name.clone(),
                buffer,
                summary,
                divisors,
                unit: m.unit.clone(),
            });
        }
    }
    out
}

/// A measure's buffer: an output the kernel writes its figures into, of a type they fit.
fn measured_buffer(cx: &mut Cx, known: &Known, path: &str, name: &str) -> Option<usize> {
    let j = buffer(cx, known, path, name)?;
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

/// `per` for each variant, in order, evaluated with its defines; 1 when not given.
fn divisors(
    cx: &mut Cx,
    path: &str,
    per: Option<&crate::course::schema::Expr>,
    known: &Known,
    variants: Option<&[Variant]>,
) -> Option<Vec<f64>> {
    let variants = variants?;
    let Some(per) = per else {
        return Some(vec![1.0; variants.len()]);
    };
    let mut out = Vec::new();
    for v in variants {
        let mut env = known.problem.to_vec();
        env.extend(
            v.defines
                .iter()
                .filter_map(|(k, val)| Some((k.clone(), val.parse::<i64>().ok()?))),
        );
        match cx.eval(path, per, &env)? {
            d if d > 0 => out.push(d as f64),
            d => {
                cx.err(
                    path,
                    format!("`per` must be > 0 (`{}` is {d} for `{}`)", per.0, v.name),
                );
                return None;
            }
        }
    }
    Some(out)
}
