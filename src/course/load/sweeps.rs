//! `sweep:` on a variant: the one variant written becomes one ordinary variant per value of
//! a define, so the worker, recordings and claims see nothing new. The values are evaluated
//! here, before the variants are built, because the generated names are needed first: claims
//! and `reference` may name them.

use super::cx::Cx;
use crate::course::expr::is_identifier;
use crate::course::schema::RawSweep;
use crate::course::schema::{DefineValue, RawVariant};
use crate::model::{Sweep, SweepPoint};
use std::collections::HashSet;

/// What one written variant stands for.
#[derive(Debug, Clone)]
pub(super) enum Expansion {
    /// An ordinary variant: itself.
    Plain,
    /// A sweep: one variant per point.
    Sweep(Sweep),
    /// A sweep with errors (reported): no variants, but the names of the values that could
    /// be read, so that a claim naming one is not blamed as well.
    Broken(Vec<String>),
}

impl Expansion {
    /// The variants this entry generates: its name and the extra define, if any.
    pub(super) fn generated(&self, v: &RawVariant) -> Vec<(String, Option<(String, DefineValue)>)> {
        match self {
            Expansion::Plain => vec![(v.name.clone(), None)],
            Expansion::Sweep(s) => s
                .points
                .iter()
                .map(|p| {
                    let define = (s.define.clone(), DefineValue::Int(p.value));
                    (p.variant.clone(), Some(define))
                })
                .collect(),
            Expansion::Broken(_) => vec![],
        }
    }
}

/// The sweeps of a lesson that loaded, in the order written.
pub(super) fn sweeps(expansions: Vec<Expansion>) -> Vec<Sweep> {
    expansions
        .into_iter()
        .filter_map(|e| match e {
            Expansion::Sweep(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// Each written variant's expansion (`Broken` for one that could not be read at all), with
/// every generated name checked against the other variants' names.
pub(super) fn expand(
    cx: &mut Cx,
    raws: &[Option<RawVariant>],
    problem: &[(String, i64)],
) -> Vec<Expansion> {
    let out: Vec<Expansion> = raws
        .iter()
        .enumerate()
        .map(|(i, raw)| match raw {
            None => Expansion::Broken(vec![]),
            Some(v) => match sweep(cx, v, i, problem) {
                None => Expansion::Plain,
                Some((s, true)) => Expansion::Sweep(s),
                Some((s, false)) => {
                    Expansion::Broken(s.points.into_iter().map(|p| p.variant).collect())
                }
            },
        })
        .collect();
    clashes(cx, raws, &out);
    out
}

/// The sweep written on `v` (`None` where there is none), and whether it is free of errors;
/// its points are the values that could be read.
fn sweep(
    cx: &mut Cx,
    v: &RawVariant,
    i: usize,
    problem: &[(String, i64)],
) -> Option<(Sweep, bool)> {
    let s = v.sweep.as_ref()?;
    let at = |k: &str| format!("variants[{i}].sweep.{k}");
    let mut ok = true;
    if !is_identifier(&s.define) {
        cx.err(
            &at("define"),
            format!(
                "define `{}` is not a macro name ([A-Za-z_][A-Za-z0-9_]*)",
                s.define
            ),
        );
        ok = false;
    } else if problem.iter().any(|(n, _)| *n == s.define) {
        let msg = format!("define `{}` has the name of a problem size", s.define);
        cx.err(&at("define"), msg);
        ok = false;
    }
    let named = s.name.matches("{}").count() == 1;
    if !named {
        let msg = format!(
            "sweep name `{}` must hold `{{}}` once: it is replaced by each value",
            s.name
        );
        cx.err(&at("name"), msg);
        ok = false;
    }
    let (values, values_ok) = values(cx, s, i, problem);
    let points = values
        .into_iter()
        .filter(|_| named)
        .map(|value| SweepPoint {
            variant: s.name.replacen("{}", &value.to_string(), 1),
            value,
        })
        .collect();
    let sweep = Sweep {
        name: v.name.clone(),
        define: s.define.clone(),
        x_label: s.x.clone().unwrap_or_else(|| s.define.clone()),
        points,
    };
    Some((sweep, ok && named && values_ok))
}

/// The values that could be read, in the order written, and whether all could: at least
/// two, none repeated.
fn values(cx: &mut Cx, s: &RawSweep, i: usize, problem: &[(String, i64)]) -> (Vec<i64>, bool) {
    let path = format!("variants[{i}].sweep.values");
    let mut ok = true;
    if s.values.len() < 2 {
        cx.err(&path, "a sweep needs at least two values");
        ok = false;
    }
    let mut out = Vec::new();
    for (k, e) in s.values.iter().enumerate() {
        let at = format!("{path}[{k}]");
        match cx.eval(&at, e, problem) {
            Some(v) if out.contains(&v) => {
                cx.err(&at, format!("value {v} (`{}`) is given twice", e.0));
                ok = false;
            }
            Some(v) => out.push(v),
            None => ok = false,
        }
    }
    (out, ok)
}

/// A generated name that another variant (written or generated) also has.
fn clashes(cx: &mut Cx, raws: &[Option<RawVariant>], out: &[Expansion]) {
    let written: HashSet<&str> = raws.iter().flatten().map(|v| v.name.as_str()).collect();
    let mut seen: HashSet<String> = HashSet::new();
    for (i, (raw, e)) in raws.iter().zip(out).enumerate() {
        let (Some(v), Expansion::Sweep(s)) = (raw, e) else {
            continue;
        };
        for p in &s.points {
            let dup = written.contains(p.variant.as_str()) || !seen.insert(p.variant.clone());
            if dup || p.variant.is_empty() || !valid_name(&p.variant) {
                let why = if dup {
                    "another variant has that name"
                } else {
                    "a variant name may hold only letters, digits, '-' and '_'"
                };
                let msg = format!("sweep `{}` makes variant `{}`: {why}", v.name, p.variant);
                cx.err(&format!("variants[{i}].sweep.name"), msg);
            }
        }
    }
}

fn valid_name(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}
