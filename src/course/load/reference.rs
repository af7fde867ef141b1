//! `reference:`, what every variant's output is compared with: another variant, or a
//! built-in CPU reference over two buffers.

use super::cx::{Cx, Known};
use crate::course::schema::{RawBuiltin, RawReference};
use crate::model::{Buffer, Reference};

pub(super) fn reference(
    cx: &mut Cx,
    r: &RawReference,
    variant_names: &[String],
    known: &Known,
) -> Option<Reference> {
    match r {
        RawReference::Variant(name) => match variant_names.iter().position(|n| n == name) {
            Some(i) => Some(Reference::Variant(i)),
            None => {
                cx.err(
                    "reference",
                    format!(
                        "unknown variant `{name}` (variants: {})",
                        variant_names.join(", ")
                    ),
                );
                None
            }
        },
        RawReference::Builtin(b) => builtin(cx, b, known),
    }
}

/// A buffer and its index in the lesson.
type Indexed = (usize, Buffer);

fn builtin(cx: &mut Cx, b: &RawBuiltin, known: &Known) -> Option<Reference> {
    let from = buffer(cx, known, "from", &b.from);
    let to = buffer(cx, known, "to", &b.to);
    if let Some((_, t)) = &to
        && !t.is_output()
    {
        cx.err(
            "reference.to",
            format!("`{}` is not an output: give it `init: poison`", t.name),
        );
    }
    let (from, to) = (from?, to?);
    match b.builtin.as_str() {
        "copy" => copy(cx, from, to),
        "transpose" => transpose(cx, b, known, from, to),
        "sgemm" => sgemm(cx, b, known, from, to),
        other => {
            cx.err(
                "reference.builtin",
                format!("unknown builtin `{other}` (builtins: copy, transpose, sgemm)"),
            );
            None
        }
    }
}

/// `builtin: sgemm`: to (rows x cols) = from (rows x depth) x times (depth x cols), all f32.
fn sgemm(cx: &mut Cx, b: &RawBuiltin, known: &Known, a: Indexed, to: Indexed) -> Option<Reference> {
    let (Some(times), Some(rows), Some(cols), Some(depth)) = (&b.times, &b.rows, &b.cols, &b.depth)
    else {
        cx.err(
            "reference",
            "`builtin: sgemm` needs `times`, `rows`, `cols` and `depth`",
        );
        return None;
    };
    let bm = buffer(cx, known, "times", times);
    let rows = cx.eval("reference.rows", rows, known.problem);
    let cols = cx.eval("reference.cols", cols, known.problem);
    let depth = cx.eval("reference.depth", depth, known.problem);
    let (bm, rows, cols, depth) = (bm?, rows?, cols?, depth?);
    if rows <= 0 || cols <= 0 || depth <= 0 {
        cx.err("reference", "rows, cols and depth must be > 0");
        return None;
    }
    let (r, c, d) = (rows as u64, cols as u64, depth as u64);
    for ((_, buf), n) in [(&a, r * d), (&bm, d * c), (&to, r * c)] {
        if buf.ty != crate::model::ElemType::F32 {
            cx.err(
                "reference",
                format!("`builtin: sgemm` takes f32 buffers; `{}` is not", buf.name),
            );
            return None;
        }
        if n > buf.len {
            cx.err(
                "reference",
                format!("`{}` needs {n} elements but has {}", buf.name, buf.len),
            );
            return None;
        }
    }
    Some(Reference::Sgemm {
        a: a.0,
        b: bm.0,
        to: to.0,
        rows: r,
        cols: c,
        depth: d,
    })
}

/// The buffer named at `reference.<key>`; `None` when it is unknown (reported) or failed.
fn buffer(cx: &mut Cx, known: &Known, key: &str, name: &str) -> Option<Indexed> {
    match known.buffer_names.iter().position(|n| n == name) {
        Some(i) => known.buffers.get(i).cloned().flatten().map(|b| (i, b)),
        None => {
            cx.err(
                &format!("reference.{key}"),
                format!(
                    "unknown buffer `{name}` (buffers: {})",
                    known.buffer_names.join(", ")
                ),
            );
            None
        }
    }
}

fn copy(cx: &mut Cx, from: Indexed, to: Indexed) -> Option<Reference> {
    for key in ["rows", "cols"] {
        if cx.spans.key(&format!("reference.{key}")).is_some() {
            cx.err_key(
                &format!("reference.{key}"),
                format!("`{key}` is only for `builtin: transpose`"),
            );
        }
    }
    if to.1.len > from.1.len {
        cx.err(
            "reference",
            format!(
                "`{}` has {} elements but `{}` only {}",
                to.1.name, to.1.len, from.1.name, from.1.len
            ),
        );
        return None;
    }
    Some(Reference::Copy {
        from: from.0,
        to: to.0,
    })
}

fn transpose(
    cx: &mut Cx,
    b: &RawBuiltin,
    known: &Known,
    from: Indexed,
    to: Indexed,
) -> Option<Reference> {
    let (Some(rows), Some(cols)) = (&b.rows, &b.cols) else {
        cx.err("reference", "`builtin: transpose` needs `rows` and `cols`");
        return None;
    };
    let rows = cx.eval("reference.rows", rows, known.problem);
    let cols = cx.eval("reference.cols", cols, known.problem);
    let (rows, cols) = (rows?, cols?);
    if rows <= 0 || cols <= 0 {
        cx.err(
            "reference",
            format!("rows and cols must be > 0 (they are {rows} and {cols})"),
        );
        return None;
    }
    let n = rows.checked_mul(cols).map_or(u64::MAX, |n| n as u64);
    for (_, buf) in [&from, &to] {
        if n > buf.len {
            cx.err(
                "reference",
                format!(
                    "rows x cols = {n} but `{}` has {} elements",
                    buf.name, buf.len
                ),
            );
            return None;
        }
    }
    Some(Reference::Transpose {
        from: from.0,
        to: to.0,
        rows: rows as u64,
        cols: cols as u64,
    })
}
