//! The problem sizes and the buffers: names that expressions and arguments may use.

use super::cx::Cx;
use crate::course::device_sizes::{DEVICE_SIZES, is_device_name, is_known_device_name};
use crate::course::expr::{FUNCTIONS, is_identifier};
use crate::course::schema::{RawInit, RawLesson};
use crate::model::{Buffer, ElemType, Init};

pub(super) fn problem(cx: &mut Cx, raw: &RawLesson) -> Vec<(String, i64)> {
    let mut env: Vec<(String, i64)> = Vec::new();
    for (name, e) in raw.head.problem.iter().flat_map(|p| &p.0) {
        let path = format!("problem.{name}");
        if !is_identifier(name) || FUNCTIONS.contains(&name.as_str()) {
            cx.err_key(
                &path,
                format!("`{name}` cannot be a size name (use letters, digits and '_', not a function name)"),
            );
            cx.broken_names.insert(name.clone());
            continue;
        }
        if is_device_name(name) && !is_known_device_name(name) {
            let known: Vec<&str> = DEVICE_SIZES.iter().map(|(n, _)| *n).collect();
            cx.err_key(
                &path,
                format!(
                    "`{name}` is not a figure of the GPU; those a problem may take from it are: {}",
                    known.join(", ")
                ),
            );
            cx.broken_names.insert(name.clone());
            continue;
        }
        if let Some(&(_, v)) = cx.sizes.iter().find(|(n, _)| n == name) {
            env.push((name.clone(), v));
            continue;
        }
        match cx.eval(&path, e, &env) {
            Some(v) => env.push((name.clone(), v)),
            None => {
                cx.broken_names.insert(name.clone());
            }
        }
    }
    env
}

pub(super) fn buffers(
    cx: &mut Cx,
    raw: &RawLesson,
    problem: &[(String, i64)],
) -> Vec<Option<Buffer>> {
    // A set: a list of 40,000 buffers searched once per buffer took minutes.
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (i, b) in raw.buffers.iter().enumerate() {
        let Some(b) = b else {
            out.push(None);
            continue;
        };
        let at = |k: &str| format!("buffers[{i}].{k}");
        let mut ok = true;
        if !is_identifier(&b.name) {
            cx.err(
                &at("name"),
                format!(
                    "buffer name `{}` is not a name ([A-Za-z_][A-Za-z0-9_]*)",
                    b.name
                ),
            );
            ok = false;
        } else if seen.contains(b.name.as_str()) {
            cx.err(&at("name"), format!("buffer `{}` is defined twice", b.name));
            ok = false;
        } else if problem.iter().any(|(n, _)| *n == b.name) {
            cx.err(
                &at("name"),
                format!("buffer `{}` has the name of a problem size", b.name),
            );
            ok = false;
        }
        seen.insert(&b.name);
        let len = cx.eval(&at("len"), &b.len, problem);
        if let Some(n) = len
            && n <= 0
        {
            cx.err(
                &at("len"),
                format!("a buffer's length must be > 0 (`{}` is {n})", b.len.0),
            );
            ok = false;
        }
        let init = init(cx, i, b.init, b.ty, b.value, b.range);
        let gpu = b.gpu.unwrap_or(0);
        if gpu > 1 {
            cx.err(
                &at("gpu"),
                format!("`gpu` is 0 (the GPU that runs the kernels) or 1 (its peer), not {gpu}"),
            );
            ok = false;
        }
        let memory = b.memory.unwrap_or_default();
        if !memory.is_device() && (init == Some(Init::Poison) || gpu != 0) {
            // Outputs are poisoned and compared through device copies, and a peer's memory
            // is another GPU's: host memory is for inputs the kernels read.
            cx.err(
                &at("memory"),
                "`memory: mapped` and `memory: managed` are for inputs (not `init: poison`) \
                 on the GPU that runs the kernels (`gpu: 0`)",
            );
            ok = false;
        }
        match (ok, len, init) {
            (true, Some(len), Some(init)) => out.push(Some(Buffer {
                name: b.name.clone(),
                ty: b.ty,
                len: len as u64,
                init,
                gpu,
                memory,
            })),
            _ => out.push(None),
        }
    }
    out
}

fn init(
    cx: &mut Cx,
    i: usize,
    init: RawInit,
    ty: ElemType,
    value: Option<f64>,
    range: Option<(f64, f64)>,
) -> Option<Init> {
    let at = |k: &str| format!("buffers[{i}].{k}");
    let mut ok = true;
    if value.is_some() && init != RawInit::Const {
        cx.err_key(&at("value"), "`value` is only for `init: const`");
        ok = false;
    }
    let ranged = matches!(init, RawInit::Random | RawInit::Ramp | RawInit::Shuffled);
    if range.is_some() && !ranged {
        cx.err_key(
            &at("range"),
            "`range` is only for `init: random`, `init: ramp` and `init: shuffled`",
        );
        ok = false;
    }
    let empty = |cx: &mut Cx, (lo, hi): (f64, f64)| {
        let bad = lo >= hi || !lo.is_finite() || !hi.is_finite();
        if bad {
            cx.err(
                &at("range"),
                format!("`range: [{lo}, {hi}]` is empty: lo must be < hi"),
            );
        }
        bad
    };
    let out = match init {
        RawInit::Random => {
            let (lo, hi) = range.unwrap_or(ty.random_range());
            if empty(cx, (lo, hi)) {
                ok = false;
            }
            Init::Random { lo, hi }
        }
        RawInit::Ramp | RawInit::Shuffled => {
            let Some((lo, hi)) = range else {
                let what = if init == RawInit::Ramp {
                    "ramp"
                } else {
                    "shuffled"
                };
                cx.err(
                    &at("init"),
                    format!("`init: {what}` needs a `range: [lo, hi]` for its values to rise over"),
                );
                return None;
            };
            if empty(cx, (lo, hi)) {
                ok = false;
            }
            Init::Ramp {
                lo,
                hi,
                shuffled: init == RawInit::Shuffled,
            }
        }
        RawInit::Seq => Init::Seq,
        RawInit::Zeros => Init::Zeros,
        RawInit::Poison => Init::Poison,
        RawInit::Const => match value {
            Some(v) => Init::Const(v),
            None => {
                cx.err(&at("init"), "`init: const` needs a `value`");
                return None;
            }
        },
    };
    ok.then_some(out)
}
