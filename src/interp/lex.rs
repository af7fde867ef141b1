//! PTX text as a list of statements, each with the 1-based line it starts on. Statements may
//! span lines (NVRTC writes `call.uni` over several), labels stand alone, and scope braces
//! (`{ // callseq`) are dropped: register and parameter names are unique in what NVRTC writes.

/// One statement: a label, a function header, or a directive/instruction without its `;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    Label(String),
    /// `.entry`/`.func` header up to the body's `{` (true) or a prototype's `;` (false).
    Header(String, bool),
    /// The closing brace of a function body.
    EndFunc,
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub line: u32,
    pub stmt: Stmt,
}

fn is_header(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || c == '(')
        .any(|t| t == ".entry" || t == ".func")
}

struct Lexer {
    out: Vec<Line>,
    cur: String,
    cur_line: u32,
    /// Braces and parentheses open inside the current statement.
    depth: i32,
    parens: i32,
    /// Scope braces open: 1 inside a function body.
    scopes: i32,
}

impl Lexer {
    fn push(&mut self, stmt: Stmt) {
        self.out.push(Line {
            line: self.cur_line,
            stmt,
        });
    }

    /// The statement so far, split off any labels in front of it.
    fn flush(&mut self) {
        let text = std::mem::take(&mut self.cur);
        let mut rest = text.trim();
        while let Some(word) = rest.split_whitespace().next() {
            match word.find(':') {
                Some(i) if !word[i..].starts_with("::") && !word.starts_with('.') && i > 0 => {
                    self.push(Stmt::Label(word[..i].to_string()));
                    rest = rest[i + 1..].trim_start();
                }
                _ => break,
            }
        }
        if !rest.is_empty() {
            self.push(Stmt::Text(rest.to_string()));
        }
    }

    fn char(&mut self, c: char, line: u32) {
        let empty = self.cur.trim().is_empty();
        match c {
            '{' if empty && self.depth == 0 => self.scopes += 1,
            '}' if empty && self.depth == 0 => {
                self.scopes -= 1;
                if self.scopes == 0 {
                    self.cur_line = line;
                    self.push(Stmt::EndFunc);
                }
            }
            '{' if self.parens == 0 && self.depth == 0 && is_header(&self.cur) => {
                let h = std::mem::take(&mut self.cur).trim().to_string();
                self.push(Stmt::Header(h, true));
                self.scopes += 1;
            }
            ';' if self.depth == 0 && self.parens == 0 => {
                if is_header(&self.cur) {
                    let h = std::mem::take(&mut self.cur).trim().to_string();
                    self.push(Stmt::Header(h, false));
                } else {
                    self.flush();
                }
            }
            _ => {
                if empty && !c.is_whitespace() {
                    self.cur.clear();
                    self.cur_line = line;
                }
                match c {
                    '{' => self.depth += 1,
                    '}' => self.depth -= 1,
                    '(' => self.parens += 1,
                    ')' => self.parens -= 1,
                    _ => {}
                }
                self.cur.push(c);
            }
        }
    }
}

/// Every statement of `ptx`, in order.
pub fn statements(ptx: &str) -> Vec<Line> {
    let mut lx = Lexer {
        out: Vec::new(),
        cur: String::new(),
        cur_line: 1,
        depth: 0,
        parens: 0,
        scopes: 0,
    };
    for (i, raw) in ptx.lines().enumerate() {
        let line = i as u32 + 1;
        let code = raw.find("//").map_or(raw, |k| &raw[..k]);
        for c in code.chars() {
            lx.char(c, line);
        }
        // A label alone on its line ends there.
        let t = lx.cur.trim();
        // `.loc` and `.file` end at the line's end, with no `;`.
        let bare = t.starts_with(".loc ") || t.starts_with(".loc\t") || t.starts_with(".file");
        if bare || t.ends_with(':') && !t.contains(char::is_whitespace) && lx.depth == 0 {
            lx.flush();
        } else if !lx.cur.is_empty() {
            lx.cur.push(' ');
        }
    }
    lx.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_statements_labels_headers_and_multiline_calls() {
        let ptx = ".visible .entry k(\n.param .u64 a\n)\n{\n.reg .b32 %r<3>;\n$L1:\n\
                   .loc 1 2 3\nadd.s32 %r1, %r2, 1; { // callseq\ncall.uni (retval0),\nf,\n(param0);\n}\n\
                   L2: ret;\n}\n";
        let s = statements(ptx);
        let kinds: Vec<_> = s.iter().map(|l| (l.line, l.stmt.clone())).collect();
        assert_eq!(
            kinds[0],
            (
                1,
                Stmt::Header(".visible .entry k( .param .u64 a )".into(), true)
            )
        );
        assert_eq!(kinds[1], (5, Stmt::Text(".reg .b32 %r<3>".into())));
        assert_eq!(kinds[2], (6, Stmt::Label("$L1".into())));
        assert_eq!(kinds[3], (7, Stmt::Text(".loc 1 2 3".into())));
        assert_eq!(kinds[4], (8, Stmt::Text("add.s32 %r1, %r2, 1".into())));
        assert_eq!(kinds[5].0, 9);
        assert!(matches!(&kinds[5].1, Stmt::Text(t) if t.starts_with("call.uni (retval0), f,")));
        assert_eq!(kinds[6], (13, Stmt::Label("L2".into())));
        assert_eq!(kinds[7], (13, Stmt::Text("ret".into())));
        assert_eq!(kinds[8], (14, Stmt::EndFunc));
    }
}
