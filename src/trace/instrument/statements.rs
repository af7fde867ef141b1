//! Reading a PTX line as statements: comments, scope braces, labels, and the module-scope
//! variables a generic access may name.

use crate::model::access::Space;

pub(super) fn strip_comment(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// A new `.entry` or `.func` starts: registers and `.loc` of the last one no longer apply.
pub(super) fn starts_function(code: &str) -> bool {
    code.split(|c: char| c.is_whitespace() || c == '(')
        .any(|t| t == ".entry" || t == ".func")
}

/// A module-scope variable (`.shared .align 4 .b8 tile[4096];`), so that a generic access
/// through its name can be attributed to its space.
pub(super) fn module_variable(code: &str) -> Option<(String, Space)> {
    let mut space = None;
    let mut name = None;
    for tok in code.split_whitespace() {
        match tok {
            ".visible" | ".extern" | ".weak" | ".common" => {}
            ".shared" => space = Some(Space::Shared),
            ".global" => space = Some(Space::Global),
            ".const" => space = Some(Space::Constant),
            ".local" => space = Some(Space::Local),
            t if t.starts_with('.') => {
                space?;
            }
            // The alignment's value.
            t if t.starts_with(|c: char| c.is_ascii_digit()) => {}
            t => {
                space?;
                name = Some(t.split(['[', ';', '=']).next().unwrap_or(t).to_string());
                break;
            }
        }
    }
    Some((name?, space?))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Seg<'a> {
    Open,
    Close,
    Stmt(&'a str),
}

/// Split one line into scope braces and statements. A brace that starts a statement opens or
/// closes a scope; inside a statement braces enclose a vector operand.
pub(super) fn segment(code: &str) -> Vec<Seg<'_>> {
    let mut segs = Vec::new();
    let mut start: Option<usize> = None;
    let mut depth = 0;
    for (i, c) in code.char_indices() {
        match (start, c) {
            (None, '{') => segs.push(Seg::Open),
            (None, '}') => segs.push(Seg::Close),
            (None, c) if c.is_whitespace() => {}
            (None, _) => start = Some(i),
            (Some(_), '{') => depth += 1,
            (Some(_), '}') => depth -= 1,
            (Some(s), ';') if depth == 0 => {
                segs.push(Seg::Stmt(&code[s..=i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        let rest = code[s..].trim_end();
        if !rest.is_empty() {
            segs.push(Seg::Stmt(rest));
        }
    }
    segs
}

/// `L1: ld.shared...` → (Some("L1:"), "ld.shared..."). `::` belongs to qualifiers.
pub(super) fn split_label(stmt: &str) -> (Option<&str>, &str) {
    let word_end = stmt.find(char::is_whitespace).unwrap_or(stmt.len());
    let word = &stmt[..word_end];
    if let Some(i) = word.find(':')
        && !word[i..].starts_with("::")
        && !word.starts_with('.')
    {
        return (Some(&stmt[..=i]), stmt[i + 1..].trim_start());
    }
    (None, stmt)
}

/// An instruction's operands, split at the commas outside braces, brackets and parentheses
/// (`{%r1, %r2}, [%rd1+4]` is two): the interpreter reads them so too.
pub fn split_operands(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in args.char_indices() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(args[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = args[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// The function a `call` calls, `lines` starting at the call's: NVVM writes a call's
/// operands over the lines after its opcode (`call.uni (retval0),`, then `_Z4stirj,`, then
/// its parameters), so the statement is read on to its `;` (a register for a call through
/// a pointer). Empty where none is found.
pub(super) fn callee(lines: &[&str]) -> String {
    let mut text = String::new();
    for line in lines {
        let code = strip_comment(line);
        text.push_str(code);
        text.push(' ');
        if code.contains(';') {
            break;
        }
    }
    let Some(at) = text.find("call") else {
        return String::new();
    };
    // After the opcode (`call`, `call.uni`), the return values in parentheses, if any.
    let mut rest = text[at..]
        .split_once(char::is_whitespace)
        .map_or("", |r| r.1)
        .trim_start();
    if rest.starts_with('(') {
        rest = rest.split_once(')').map_or("", |r| r.1).trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    rest.chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '(' | ';'))
        .collect()
}
