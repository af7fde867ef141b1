//! Whether a variant's `args` fit its kernel's parameters as the source declares them: their
//! number, and for plain types whether each is a pointer or a number of the right size. A
//! mismatch would otherwise launch with garbage in the parameters, or fail at launch with no
//! word of which argument is wrong.

use super::cx::Cx;
use crate::course::signature::{self, Signature, arg_mismatch, param_words};
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
        if let Some(why) = arg_mismatch(*arg, param.kind) {
            cx.err(
                &format!("{args_at}[{k}]"),
                format!(
                    "argument {} is {why}, but parameter {} of `{kernel}` is `{}`{}",
                    k + 1,
                    k + 1,
                    param.text,
                    param_words(param.kind)
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
