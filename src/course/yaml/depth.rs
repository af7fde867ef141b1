//! How deeply a lesson file's flow collections (`[...]`, `{...}`) nest, found before any YAML
//! parser sees the text. The parsers refuse a document nested past 128 levels, but only
//! after scanning it, and libyaml's scanner looks back over every open level for each token:
//! 200,000 `[` took minutes. No lesson nests a tenth as deep, so the same limit is checked
//! here in one pass, with the position of the bracket that goes past it.

use super::spans::{Pos, YamlError};

/// The YAML parsers' own limit: a file this check lets through, they read as they did.
pub const MAX_FLOW_DEPTH: usize = 128;

/// The first `[` or `{` nested deeper than `MAX_FLOW_DEPTH`, as an error at its place. A
/// bracket counts where YAML reads it as one: anywhere inside a flow collection, and in
/// block context only where a value starts (after the indentation, `- ` or `: `). Quoted
/// scalars, comments and block scalars (`|`, `>`) are skipped.
pub fn too_deep(text: &str) -> Option<YamlError> {
    let mut s = Scan {
        chars: text.chars().collect(),
        i: 0,
        line: 1,
        col: 1,
    };
    let mut depth = 0usize;
    // The indentation of the line that opened a block scalar, while in one.
    let mut block: Option<usize> = None;
    while s.i < s.chars.len() {
        if depth > 0 {
            match s.peek() {
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Some(s.error());
                    }
                }
                ']' | '}' => {
                    depth -= 1;
                    if depth == 0 {
                        // What follows the collection on its line is no value's start.
                        s.bump();
                        s.skip_line();
                        s.bump();
                        continue;
                    }
                }
                '"' | '\'' => {
                    s.quoted();
                    continue;
                }
                '#' if s.after_blank() => {
                    s.skip_line();
                    continue;
                }
                _ => {}
            }
            s.bump();
            continue;
        }
        // Block context: at the start of a line.
        let indent = s.spaces();
        if s.i >= s.chars.len() {
            break;
        }
        if let Some(b) = block {
            if s.peek() == '\n' || s.peek() == '\r' || indent > b {
                s.skip_line();
                s.bump();
                continue;
            }
            block = None;
        }
        // Value starts on this line: after `- ` markers and after the first `: `.
        loop {
            match s.peek() {
                '-' if s.next_is_blank() => {
                    s.bump();
                    s.spaces();
                }
                '[' | '{' => {
                    depth = 1;
                    s.bump();
                    break;
                }
                '|' | '>' => {
                    block = Some(indent);
                    s.skip_line();
                    break;
                }
                '"' | '\'' => {
                    s.quoted();
                    if !s.key_follows() {
                        s.skip_line();
                        break;
                    }
                }
                '#' | '\n' | '\r' => {
                    s.skip_line();
                    break;
                }
                _ => {
                    if !s.key_follows() {
                        s.skip_line();
                        break;
                    }
                }
            }
        }
        if depth == 0 && s.i < s.chars.len() && matches!(s.peek(), '\n' | '\r') {
            s.bump();
        }
    }
    None
}

struct Scan {
    chars: Vec<char>,
    i: usize,
    line: usize,
    col: usize,
}

impl Scan {
    fn peek(&self) -> char {
        self.chars.get(self.i).copied().unwrap_or('\n')
    }

    fn bump(&mut self) {
        if let Some(&c) = self.chars.get(self.i) {
            self.i += 1;
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
    }

    fn spaces(&mut self) -> usize {
        let mut n = 0;
        while self.i < self.chars.len() && matches!(self.peek(), ' ' | '\t') {
            self.bump();
            n += 1;
        }
        n
    }

    fn next_is_blank(&self) -> bool {
        matches!(
            self.chars.get(self.i + 1),
            None | Some(' ' | '\t' | '\n' | '\r')
        )
    }

    fn after_blank(&self) -> bool {
        self.i == 0 || matches!(self.chars[self.i - 1], ' ' | '\t' | '\n' | '\r')
    }

    fn skip_line(&mut self) {
        while self.i < self.chars.len() && !matches!(self.peek(), '\n' | '\r') {
            self.bump();
        }
    }

    /// Past a quoted scalar (which may span lines); `''` and `\"` escape its quote.
    fn quoted(&mut self) {
        let q = self.peek();
        self.bump();
        while self.i < self.chars.len() {
            let c = self.peek();
            self.bump();
            if c == '\\' && q == '"' {
                self.bump();
            } else if c == q {
                if q == '\'' && self.peek() == '\'' && self.i < self.chars.len() {
                    self.bump();
                } else {
                    return;
                }
            }
        }
    }

    /// Past a key and its `: ` on this line, when there is one: the value starts after it.
    /// Otherwise the scan stays (a plain scalar, read no further).
    fn key_follows(&mut self) -> bool {
        let mut j = self.i;
        while let Some(&c) = self.chars.get(j) {
            match c {
                '\n' | '\r' => return false,
                ':' if matches!(self.chars.get(j + 1), None | Some(' ' | '\t' | '\n' | '\r')) => {
                    while self.i <= j {
                        self.bump();
                    }
                    self.spaces();
                    return true;
                }
                '#' if j > 0 && matches!(self.chars[j - 1], ' ' | '\t') => return false,
                _ => j += 1,
            }
        }
        false
    }

    fn error(&self) -> YamlError {
        YamlError {
            pos: Pos {
                line: self.line,
                col: self.col,
            },
            message: format!(
                "nested too deeply: more than {MAX_FLOW_DEPTH} levels of `[` and `{{`"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_brackets_are_refused_at_the_one_past_the_limit() {
        let text = format!("id: x\nx: {}\n", "[".repeat(200_000));
        let e = too_deep(&text).expect("refused");
        assert_eq!((e.pos.line, e.pos.col), (2, 4 + MAX_FLOW_DEPTH));
        let text = format!("x: {}", "[{".repeat(MAX_FLOW_DEPTH));
        assert!(too_deep(&text).is_some());
    }

    #[test]
    fn brackets_that_are_not_nesting_do_not_count() {
        let many = "[".repeat(300);
        let texts = [
            format!("a: \"{many}\"\nb: '{many}'\n"),
            format!("a: |\n  {many}\n  more\nb: 1 # {many}\n"),
            format!("text: see {many}\n"),
            format!("l:\n  - x: [1, \"{many}\", {{a: '{many}'}}]\n  - >-\n    {many}\n"),
            format!(
                "deep: {}{}\n",
                "[".repeat(MAX_FLOW_DEPTH),
                "]".repeat(MAX_FLOW_DEPTH)
            ),
        ];
        for t in texts {
            assert_eq!(too_deep(&t), None, "{t}");
        }
    }
}
