//! `constants: [{ symbol, from }]` on a variant: each `__constant__` symbol the kernel
//! declares, filled from an input buffer before the variant runs. Each rule reports at the
//! part of the file it concerns, like the rest of the loader.

use super::cx::{Cx, Known};
use crate::course::schema::RawConstant;
use crate::course::signature::code_only;
use crate::model::ConstantFill;

/// A buffer named at `path`: its index, when it exists and did not fail (a failed one was
/// reported already).
pub(super) fn buffer(cx: &mut Cx, known: &Known, path: &str, name: &str) -> Option<usize> {
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
