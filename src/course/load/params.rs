//! Whether a variant's `args` fit its kernel's parameters as the source declares them: their
//! number, and for plain types whether each is a pointer or a number of the right size. A
//! mismatch would otherwise launch with garbage in the parameters, or fail at launch with no
//! word of which argument is wrong.

use super::cx::Cx;
use crate::course::signature::{self, ParamKind, Signature};
use crate::model::Arg;

/// Report each argument that does not fit; `args_at` is the path of the `args` list.
pub(super) fn check_args(cx: &mut Cx, src: &str, kernel: &str, args: &[Arg], args_at: &str) {
    // A kernel that is not found has been reported already.
    let Some(sig) = signature::find(src, kernel) else {
        return;
    };
    if args.len() != sig.params.len() {
        cx.err(args_at, count_message(&sig, args.len()));
        return;
    }
    for (k, (arg, param)) in args.iter().zip(&sig.params).enumerate() {
        if let Some(why) = mismatch(*arg, param.kind) {
            cx.err(
                &format!("{args_at}[{k}]"),
                format!(
                    "argument {} is {why}, but parameter {} of `{kernel}` is `{}`{}",
                    k + 1,
                    k + 1,
                    param.text,
                    wanted(param.kind)
                ),
            );
        }
    }
}

fn count_message(sig: &Signature, given: usize) -> String {
    let params: Vec<&str> = sig.params.iter().map(|p| p.text.as_str()).collect();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "`args` gives {}, but `{}` takes {} ({})",
        plural(given, "argument"),
        sig.name,
        sig.params.len(),
        params.join(", ")
    )
}

/// What the argument is, when it does not fit the parameter.
fn mismatch(arg: Arg, param: ParamKind) -> Option<String> {
    let (what, fits) = match arg {
        Arg::Buffer(_) => ("a buffer (a pointer)", param == ParamKind::Pointer),
        Arg::I32(_) => ("an i32 (4 bytes)", param == ParamKind::Int { bytes: 4 }),
        Arg::U32(_) => ("a u32 (4 bytes)", param == ParamKind::Int { bytes: 4 }),
        Arg::I64(_) => ("an i64 (8 bytes)", param == ParamKind::Int { bytes: 8 }),
        Arg::U64(_) => ("a u64 (8 bytes)", param == ParamKind::Int { bytes: 8 }),
        Arg::F32(_) => ("an f32 (4 bytes)", param == ParamKind::Float { bytes: 4 }),
    };
    (!fits && param != ParamKind::Unknown).then(|| what.to_string())
}

/// What the parameter takes, in words, with what to write for it.
fn wanted(param: ParamKind) -> String {
    match param {
        ParamKind::Pointer => ", a pointer: pass a buffer's name".into(),
        ParamKind::Int { bytes: 4 } => ", an integer of 4 bytes (write n, or { u32: n })".into(),
        ParamKind::Int { bytes: 8 } => {
            ", an integer of 8 bytes (write { i64: n } or { u64: n })".into()
        }
        ParamKind::Int { bytes } => {
            format!(", an integer of {bytes} bytes, which `args` cannot pass")
        }
        ParamKind::Float { bytes: 4 } => ", a float of 4 bytes (write { f32: x })".into(),
        ParamKind::Float { bytes } => {
            format!(", a float of {bytes} bytes, which `args` cannot pass")
        }
        ParamKind::Unknown => String::new(),
    }
}
