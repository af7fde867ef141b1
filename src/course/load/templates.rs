//! `{{ expression }}` in a lesson's prose, worked out over the problem sizes when the lesson
//! is read: a page says this GPU's figure (`an L2 of {{ gpu_l2_bytes / 1048576 }} MiB`) from
//! the same value the problem was sized with, never a number typed in for one GPU.

use super::cx::Cx;
use crate::course::expr;

/// `text` with each `{{ ... }}` replaced by its value; an error (placed at `path`) for an
/// expression that does not evaluate or a `{{` left open.
pub(super) fn expand(cx: &mut Cx, path: &str, text: &str, env: &[(String, i64)]) -> Option<String> {
    if !text.contains("{{") {
        return Some(text.to_string());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut ok = true;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            cx.err(
                path,
                "`{{` without its `}}`: a figure in prose is written {{ expression }}",
            );
            return None;
        };
        let inner = after[..close].trim();
        match expr::eval(inner, env) {
            Ok(v) => out.push_str(&v.to_string()),
            Err(e) => {
                cx.err(path, format!("in `{{{{ {inner} }}}}`: {}", e.message));
                ok = false;
            }
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    ok.then_some(out)
}
