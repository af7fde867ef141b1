//! `knobs:` on a variant: a define (or the register cap) the learner turns in the lab. Every
//! value is resolved here into a whole variant, its launch and arguments evaluated again, so
//! a value that breaks them is an error in the lesson file, at the value, not a surprise in
//! the lab.

use super::cx::{Cx, Known};
use super::variants::{Merged, Sources, build, named, with};
use crate::course::device_sizes::is_device_name;
use crate::course::expr::is_identifier;
use crate::course::schema::{DefineValue, RawVariant};
use crate::course::schema::{RawKnob, RawRange};
use crate::model::sizes::CheckSizes;
use crate::model::{Knob, KnobKind, KnobSetting, SizedSetting, Variant};

/// A knob holds at most this many values: each is a compile and a run in the lab, and
/// `gpulab record` runs them all.
pub(super) const MAX_VALUES: usize = 32;

/// The register caps a knob may turn to: a thread has at most 255 registers, and a cap far
/// below what any kernel needs says nothing but that ptxas raised it.
const REG_CAP: std::ops::RangeInclusive<i64> = 16..=255;

/// The knobs written on variant `i` (which resolved to `own`), each with every value's
/// variant; a knob with an error is reported and left out.
pub(super) fn knobs(
    cx: &mut Cx,
    v: &RawVariant,
    i: usize,
    m: &Merged,
    own: &Variant,
    known: &Known,
    sources: &mut Sources,
) -> Vec<Knob> {
    let Some(raws) = &v.knobs else {
        return Vec::new();
    };
    let mut out: Vec<Knob> = Vec::new();
    for (k, raw) in raws.iter().enumerate() {
        let at = format!("variants[{i}].knobs[{k}]");
        let Some(kind) = kind(cx, raw, &at, own, known.problem) else {
            continue;
        };
        // The lesson read with this size set (a CPU run's sizes, `run --size`, or one of
        // this knob's own values): the size is fixed, nothing to turn.
        if let KnobKind::Problem(p) = &kind
            && cx.sizes.iter().any(|(n, _)| n == p)
        {
            continue;
        }
        if out.iter().any(|o| o.kind == kind) {
            let msg = format!("`{}` has a knob already on this variant", kind.name());
            cx.err(&at, msg);
            continue;
        }
        let Some(values) = values(cx, raw, &at, &kind, known.problem) else {
            continue;
        };
        let written = Written { v, i, m };
        let mut settings = Vec::new();
        for (value, path) in &values {
            let setting = match &kind {
                KnobKind::Problem(p) => at_size(cx, own, (p, *value), path),
                _ => setting(cx, &written, &kind, (*value, path), known, sources)
                    .map(|variant| (variant, None)),
            };
            settings.extend(setting.map(|(variant, sized)| KnobSetting {
                value: *value,
                variant,
                sized,
            }));
        }
        if settings.len() < values.len() {
            continue;
        }
        let start = start(m, &kind, &settings, known.problem);
        out.push(Knob {
            variant: own.name.clone(),
            label: raw.label.clone().unwrap_or_else(|| kind.name().to_string()),
            kind,
            settings,
            start,
        });
    }
    out
}

/// The variant as written, where it is in the file, and after `like:`.
struct Written<'a> {
    v: &'a RawVariant,
    i: usize,
    m: &'a Merged,
}

/// `define:` or `option:`, exactly one.
fn kind(
    cx: &mut Cx,
    raw: &RawKnob,
    at: &str,
    own: &Variant,
    problem: &[(String, i64)],
) -> Option<KnobKind> {
    if let Some(p) = &raw.problem {
        if raw.define.is_some() || raw.option.is_some() {
            cx.err(at, "a knob has one of `define`, `option` and `problem`");
            return None;
        }
        let why = if !problem.iter().any(|(n, _)| n == p) {
            let names: Vec<&str> = problem.iter().map(|(n, _)| n.as_str()).collect();
            Some(format!(
                "`{p}` is not a problem size of the lesson; it has: {}",
                names.join(", ")
            ))
        } else if is_device_name(p) {
            Some(format!(
                "`{p}` is the GPU's own figure: a live run reads it from the GPU"
            ))
        } else {
            None
        };
        return match why {
            Some(msg) => {
                cx.err(&format!("{at}.problem"), msg);
                None
            }
            None => Some(KnobKind::Problem(p.clone())),
        };
    }
    match (&raw.define, &raw.option) {
        (Some(d), None) => {
            let why = if !is_identifier(d) {
                Some(format!(
                    "define `{d}` is not a macro name ([A-Za-z_][A-Za-z0-9_]*)"
                ))
            } else if problem.iter().any(|(n, _)| n == d) {
                Some(format!("define `{d}` has the name of a problem size"))
            } else if !names(&own.source, d) {
                Some(format!(
                    "`{}` never names `{d}`: turning it would change nothing",
                    own.source_path
                ))
            } else {
                None
            };
            match why {
                Some(msg) => {
                    cx.err(&format!("{at}.define"), msg);
                    None
                }
                None => Some(KnobKind::Define(d.clone())),
            }
        }
        (None, Some(o)) if o == "maxrregcount" => Some(KnobKind::MaxRegCount),
        (None, Some(o)) => {
            let msg =
                format!("`option: {o}` is not a knob (the one option knob is `maxrregcount`)");
            cx.err(&format!("{at}.option"), msg);
            None
        }
        (Some(_), Some(_)) => {
            cx.err(at, "a knob has `define` or `option`, not both");
            None
        }
        (None, None) => {
            let msg = "a knob needs `define: NAME`, `option: maxrregcount` or `problem: NAME`";
            cx.err(at, msg);
            None
        }
    }
}

/// Each value with the path to blame for it, in order: at least two, none twice, each in
/// the option's range.
fn values(
    cx: &mut Cx,
    raw: &RawKnob,
    at: &str,
    kind: &KnobKind,
    problem: &[(String, i64)],
) -> Option<Vec<(i64, String)>> {
    let list = match (&raw.values, &raw.range) {
        (Some(vs), None) => listed(cx, vs, at, problem)?,
        (None, Some(r)) => ranged(cx, r, &format!("{at}.range"), problem)?,
        (Some(_), Some(_)) => {
            cx.err(at, "a knob has `values` or `range`, not both");
            return None;
        }
        (None, None) => {
            let msg = "a knob needs `values: [..]` or `range: { from: .., to: .. }`";
            cx.err(at, msg);
            return None;
        }
    };
    if list.len() < 2 {
        cx.err(at, "a knob needs at least two values");
        return None;
    }
    if list.len() > MAX_VALUES {
        let msg = format!(
            "a knob holds at most {MAX_VALUES} values (this one has {})",
            list.len()
        );
        cx.err(at, msg);
        return None;
    }
    let mut ok = true;
    if let KnobKind::Problem(p) = kind {
        for (v, path) in &list {
            if *v <= 0 {
                cx.err(path, format!("{p} = {v}: a problem size is above 0"));
                ok = false;
            }
        }
    }
    if *kind == KnobKind::MaxRegCount {
        for (v, path) in &list {
            if !REG_CAP.contains(v) {
                let msg =
                    format!("maxrregcount {v} is outside 16 to 255, the caps a knob may turn to");
                cx.err(path, msg);
                ok = false;
            }
        }
    }
    ok.then_some(list)
}

fn listed(
    cx: &mut Cx,
    vs: &[crate::course::schema::Expr],
    at: &str,
    problem: &[(String, i64)],
) -> Option<Vec<(i64, String)>> {
    let mut out: Vec<(i64, String)> = Vec::new();
    let mut ok = true;
    for (j, e) in vs.iter().enumerate() {
        let path = format!("{at}.values[{j}]");
        match cx.eval(&path, e, problem) {
            Some(v) if out.iter().any(|(o, _)| *o == v) => {
                cx.err(&path, format!("value {v} (`{}`) is given twice", e.0));
                ok = false;
            }
            Some(v) => out.push((v, path)),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// `from` to `to` by `step`, both ends included; each value blamed on `from`.
fn ranged(
    cx: &mut Cx,
    r: &RawRange,
    at: &str,
    problem: &[(String, i64)],
) -> Option<Vec<(i64, String)>> {
    let from = cx.eval(&format!("{at}.from"), &r.from, problem);
    let to = cx.eval(&format!("{at}.to"), &r.to, problem);
    let step = match &r.step {
        Some(e) => cx.eval(&format!("{at}.step"), e, problem),
        None => Some(1),
    };
    let (from, to, step) = (from?, to?, step?);
    if step <= 0 {
        cx.err(
            &format!("{at}.step"),
            format!("`step` must be > 0, not {step}"),
        );
        return None;
    }
    if to < from {
        let msg = format!("the range runs down: `to` ({to}) is below `from` ({from})");
        cx.err(&format!("{at}.to"), msg);
        return None;
    }
    // Counted before it is made: a range of a billion values is an error, not a hang.
    let n = (to - from) / step + 1;
    let path = format!("{at}.from");
    if n as usize > MAX_VALUES {
        let msg = format!("a knob holds at most {MAX_VALUES} values (this range has {n})");
        cx.err(at, msg);
        return None;
    }
    Some((0..n).map(|k| (from + k * step, path.clone())).collect())
}

/// The variant at `value`; an error in it is reported once, at the value, saying what broke.
fn setting(
    cx: &mut Cx,
    w: &Written,
    kind: &KnobKind,
    (value, path): (i64, &str),
    known: &Known,
    sources: &mut Sources,
) -> Option<Variant> {
    let (v, m) = (w.v, w.m);
    let name = kind.setting_name(&v.name, value);
    let m = match kind {
        KnobKind::Define(d) => with(m.clone(), Some((d.clone(), DefineValue::Int(value)))),
        KnobKind::MaxRegCount => {
            let mut m = m.clone();
            m.options.retain(|o| reg_cap(o).is_none());
            m.options.push(format!("-maxrregcount={value}"));
            m
        }
        KnobKind::Problem(_) => return None,
    };
    let before = cx.errs.list.len();
    let at = format!("variants[{}]", w.i);
    let built = build(cx, &named(v, name), &at, m, known, sources);
    let broke = cx.errs.take_since(before);
    match broke.first() {
        None => built,
        Some(e) => {
            let msg = format!(
                "{} = {value} breaks variant `{}`: {} (line {}:{})",
                kind.name(),
                v.name,
                e.message,
                e.line,
                e.col
            );
            cx.err(path, msg);
            None
        }
    }
}

/// The variant `own` in the lesson read again with problem size `name` at `value`, named
/// as the setting, and what else that size changes; an error in the lesson at that size is
/// reported once, at the value.
fn at_size(
    cx: &mut Cx,
    own: &Variant,
    (name, value): (&str, i64),
    path: &str,
) -> Option<(Variant, Option<Box<SizedSetting>>)> {
    let reload = cx.reload?;
    let mut sizes = cx.sizes.clone();
    sizes.push((name.to_string(), value));
    let broke = |cx: &mut Cx, why: String| {
        cx.err(path, format!("{name} = {value} breaks the lesson: {why}"));
        None
    };
    let sized = match reload(&sizes) {
        Ok(l) => l,
        Err(errs) => {
            // Said once the lesson is read, if the lesson has them only at this size.
            (cx.size_errors).push((path.to_string(), format!("{name} = {value}"), errs));
            return None;
        }
    };
    // What `SizedSetting` does not carry cannot follow the size.
    if !sized.textures.is_empty() || !sized.measures.is_empty() {
        let why = "a problem-size knob is not offered on a lesson with textures or measures";
        return broke(cx, why.into());
    }
    let Some(v) = sized.variant(&own.name) else {
        return broke(cx, format!("it has no variant `{}`", own.name));
    };
    let mut v = v.clone();
    v.name = KnobKind::Problem(name.to_string()).setting_name(&own.name, value);
    let setting = SizedSetting {
        sizes: CheckSizes::of(&sized),
        metrics: sized.metrics.clone(),
        l2_persisting_bytes: sized.l2_persisting_bytes,
    };
    Some((v, Some(Box::new(setting))))
}

/// `-maxrregcount=N` (or with `--`) in an option: N.
fn reg_cap(option: &str) -> Option<&str> {
    option
        .trim_start_matches('-')
        .strip_prefix("maxrregcount")
        .map(|r| r.trim_start_matches(['=', ' ']))
}

/// The setting equal to the variant as written, if one is.
fn start(
    m: &Merged,
    kind: &KnobKind,
    settings: &[KnobSetting],
    problem: &[(String, i64)],
) -> Option<usize> {
    let own: i64 = match kind {
        KnobKind::Define(d) => match m.defines.iter().find(|(n, _)| n == d) {
            Some((_, DefineValue::Int(n))) => *n,
            _ => return None,
        },
        KnobKind::MaxRegCount => m.options.iter().find_map(|o| reg_cap(o)?.parse().ok())?,
        KnobKind::Problem(p) => problem.iter().find(|(n, _)| n == p)?.1,
    };
    settings.iter().position(|s| s.value == own)
}

/// Whether `text` holds `ident` as a whole identifier (not inside a longer one).
fn names(text: &str, ident: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(ident).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + ident.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_define_is_named_only_as_a_whole_identifier() {
        assert!(super::names("int x = PAD;", "PAD"));
        assert!(super::names("PAD", "PAD"));
        assert!(!super::names("int PADDING = 1; int x_PAD;", "PAD"));
    }
}
