//! What C's preprocessor could take for a file name, found as the preprocessor finds it.
//!
//! A pack's kernel must read nothing outside CUDA's headers, and on a machine whose kernel has
//! no Landlock nothing but gpulab's own reading of the text stands between NVRTC and the
//! learner's files. A filter over lines that start with `#` misses what the preprocessor sees:
//! trigraphs (`??=include`), digraphs (`%:include`), lines spliced by a backslash, comments
//! between the `#` and its word, `__has_include`, and a `__has_include` pasted together from
//! pieces (`__has_ ## include`). So the text is read in the preprocessor's own first phases —
//! trigraphs replaced, splices joined, comments taken for space, string and character literals
//! (raw ones included) passed over — and every place a file could be named is reported with its
//! line and column in the file as written. Where this reading and the compiler's could differ,
//! it errs towards finding more: every line a block comment crosses may start a directive, and
//! a backslash with blanks after it at a line's end (spliced by some compilers, not by others)
//! is reported as such.

/// A place in the text where a file could be named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Line and column (from 1, in characters) in the text as written.
    pub line: usize,
    pub col: usize,
    pub what: Naming,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Naming {
    /// A directive that reads a file (`include`, `include_next`, `import`, `embed`), or the
    /// operator that asks whether one exists (`__has_include`, `__has_include_next`,
    /// `__has_embed`), with what names the file; `col` is the operand's.
    Names { word: String, operand: Operand },
    /// A piece of a file-naming operator's name in a text that pastes tokens: pasted
    /// together, it would name a file no scan of the text sees.
    Piece(String),
    /// A backslash followed by blanks at the end of a line.
    BlankAfterBackslash,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// `"name"`
    Quoted(String),
    /// `<name>`
    Angled(String),
    /// Anything else: a macro, which could expand to any name.
    Other,
}

/// The operators that ask for a file by name without a directive.
const OPERATORS: [&str; 3] = ["__has_include", "__has_include_next", "__has_embed"];
/// The directives that read a file.
const DIRECTIVES: [&str; 4] = ["include", "include_next", "import", "embed"];

/// One character after the first two phases, where it stood in the text as written.
#[derive(Clone, Copy)]
struct Ch {
    c: char,
    line: usize,
    col: usize,
}

/// Phases 1 and 2: trigraphs replaced, and a backslash before a newline joins the lines.
fn phases(text: &str, found: &mut Vec<Found>) -> Vec<Ch> {
    let mut raw: Vec<Ch> = Vec::with_capacity(text.len());
    let (mut line, mut col) = (1, 1);
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let here = Ch {
            c: chars[i],
            line,
            col,
        };
        let trigraph = (chars[i] == '?' && chars.get(i + 1) == Some(&'?'))
            .then(|| chars.get(i + 2).copied().and_then(trigraph))
            .flatten();
        let (c, width) = match trigraph {
            Some(t) => (t, 3),
            None => (chars[i], 1),
        };
        raw.push(Ch { c, ..here });
        for _ in 0..width {
            if chars[i] == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
            i += 1;
        }
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i].c == '\\' {
            let mut j = i + 1;
            while j < raw.len() && matches!(raw[j].c, ' ' | '\t' | '\x0b' | '\x0c') {
                j += 1;
            }
            let newline = match (raw.get(j).map(|c| c.c), raw.get(j + 1).map(|c| c.c)) {
                (Some('\n'), _) => Some(j + 1),
                (Some('\r'), Some('\n')) => Some(j + 2),
                _ => None,
            };
            if let Some(next) = newline {
                if j > i + 1 {
                    found.push(Found {
                        line: raw[i].line,
                        col: raw[i].col,
                        what: Naming::BlankAfterBackslash,
                    });
                }
                i = next;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

fn trigraph(third: char) -> Option<char> {
    Some(match third {
        '=' => '#',
        '/' => '\\',
        '\'' => '^',
        '(' => '[',
        ')' => ']',
        '!' => '|',
        '<' => '{',
        '>' => '}',
        '-' => '~',
        _ => return None,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ident,
    /// `#` or `%:`
    Hash,
    /// `##` or `%:%:`
    Paste,
    Literal,
    Other,
}

struct Token {
    kind: Kind,
    text: String,
    /// Index of its first character.
    at: usize,
    /// The first token of a line, as far as the preprocessor could take it.
    first: bool,
}

fn ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

struct Lexer<'a> {
    s: &'a [Ch],
    i: usize,
    /// No token yet since the last newline (or a newline inside a comment).
    line_start: bool,
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).map(|c| c.c)
    }

    /// Pass over blanks and comments; newlines too unless `in_line`. False at a newline
    /// that stops it.
    fn skip_space(&mut self, in_line: bool) {
        while let Some(c) = self.peek(0) {
            match c {
                '\n' if in_line => return,
                '\n' => {
                    self.line_start = true;
                    self.i += 1;
                }
                c if c.is_whitespace() => self.i += 1,
                '/' if self.peek(1) == Some('/') => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '/' if self.peek(1) == Some('*') => {
                    self.i += 2;
                    while let Some(c) = self.peek(0) {
                        if c == '*' && self.peek(1) == Some('/') {
                            self.i += 2;
                            break;
                        }
                        if c == '\n' && !in_line {
                            self.line_start = true;
                        }
                        self.i += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// A quoted literal from its opening quote: to the closing one, or the end of the line.
    fn literal(&mut self, quote: char) {
        self.i += 1;
        while let Some(c) = self.peek(0) {
            match c {
                '\\' => self.i += 2,
                '\n' => return,
                c if c == quote => {
                    self.i += 1;
                    return;
                }
                _ => self.i += 1,
            }
        }
    }

    /// A raw string from its opening quote: `"delim( ... )delim"`.
    fn raw_string(&mut self) {
        let open = self.i;
        self.i += 1;
        let mut delim = String::new();
        while let Some(c) = self.peek(0) {
            if c == '(' {
                break;
            }
            if c == '\n' || c == '"' || delim.len() > 16 {
                // Not a raw string after all: read it as a plain one.
                self.i = open;
                return self.literal('"');
            }
            delim.push(c);
            self.i += 1;
        }
        let close: Vec<char> = format!("){delim}\"").chars().collect();
        while self.i < self.s.len() {
            if (0..close.len()).all(|k| self.peek(k) == Some(close[k])) {
                self.i += close.len();
                return;
            }
            self.i += 1;
        }
    }

    fn next(&mut self) -> Option<Token> {
        self.skip_space(false);
        let at = self.i;
        let first = std::mem::replace(&mut self.line_start, false);
        let c = self.peek(0)?;
        let kind = if ident_start(c) {
            while self.peek(0).is_some_and(ident_char) {
                self.i += 1;
            }
            let word: String = self.s[at..self.i].iter().map(|c| c.c).collect();
            let prefix = matches!(word.as_str(), "R" | "LR" | "uR" | "UR" | "u8R");
            let plain = matches!(word.as_str(), "L" | "u" | "U" | "u8");
            match self.peek(0) {
                Some('"') if prefix => {
                    self.raw_string();
                    Kind::Literal
                }
                Some(q @ ('"' | '\'')) if plain => {
                    self.literal(q);
                    Kind::Literal
                }
                _ => Kind::Ident,
            }
        } else if c.is_ascii_digit()
            || (c == '.' && self.peek(1).is_some_and(|d| d.is_ascii_digit()))
        {
            // A pp-number, digit separators and exponents' signs included.
            self.i += 1;
            loop {
                match (self.peek(0), self.peek(1)) {
                    (Some('e' | 'E' | 'p' | 'P'), Some('+' | '-')) => self.i += 2,
                    (Some('\''), Some(d)) if ident_char(d) => self.i += 2,
                    (Some(d), _) if ident_char(d) || d == '.' => self.i += 1,
                    _ => break,
                }
            }
            Kind::Other
        } else if c == '"' || c == '\'' {
            self.literal(c);
            Kind::Literal
        } else if c == '#' || (c == '%' && self.peek(1) == Some(':')) {
            self.i += if c == '#' { 1 } else { 2 };
            if self.peek(0) == Some('#') {
                self.i += 1;
                Kind::Paste
            } else if self.peek(0) == Some('%') && self.peek(1) == Some(':') {
                self.i += 2;
                Kind::Paste
            } else {
                Kind::Hash
            }
        } else {
            self.i += 1;
            Kind::Other
        };
        let text = self.s[at..self.i].iter().map(|c| c.c).collect();
        Some(Token {
            kind,
            text,
            at,
            first,
        })
    }

    /// What names a file, read from here on this line: `"..."`, `<...>`, or anything else.
    fn operand(&mut self) -> (usize, Operand) {
        self.skip_space(true);
        let at = self.i.min(self.s.len().saturating_sub(1));
        let close = match self.peek(0) {
            Some('"') => '"',
            Some('<') => '>',
            _ => return (at, Operand::Other),
        };
        let mut name = String::new();
        let mut k = 1;
        loop {
            match self.peek(k) {
                Some(c) if c == close => break,
                Some('\n') | None => return (at, Operand::Other),
                Some(c) => name.push(c),
            }
            k += 1;
        }
        self.i += k + 1;
        let operand = if close == '"' {
            Operand::Quoted(name)
        } else {
            Operand::Angled(name)
        };
        (at, operand)
    }
}

/// Every place in `text` where a file could be named, in order.
pub fn scan(text: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let chars = phases(text, &mut found);
    let pastes = {
        let mut lexer = Lexer {
            s: &chars,
            i: 0,
            line_start: true,
        };
        std::iter::from_fn(|| lexer.next()).any(|t| t.kind == Kind::Paste)
    };
    let mut lexer = Lexer {
        s: &chars,
        i: 0,
        line_start: true,
    };
    let place = |at: usize| {
        let c = chars.get(at).or(chars.last());
        c.map_or((1, 1), |c| (c.line, c.col))
    };
    let names = |lexer: &mut Lexer, word: String, found: &mut Vec<Found>| {
        let (at, operand) = lexer.operand();
        let (line, col) = place(at);
        found.push(Found {
            line,
            col,
            what: Naming::Names { word, operand },
        });
    };
    while let Some(t) = lexer.next() {
        match t.kind {
            Kind::Hash if t.first => {
                lexer.skip_space(true);
                let start = lexer.i;
                while lexer.peek(0).is_some_and(ident_char) {
                    lexer.i += 1;
                }
                let word: String = chars[start..lexer.i].iter().map(|c| c.c).collect();
                if DIRECTIVES.contains(&word.as_str()) {
                    names(&mut lexer, word, &mut found);
                } else {
                    lexer.i = start;
                }
            }
            // C++20's `import "header";`, a header unit, written without a `#`.
            Kind::Ident if t.first && t.text == "import" => {
                lexer.skip_space(true);
                if matches!(lexer.peek(0), Some('"' | '<')) {
                    names(&mut lexer, t.text, &mut found);
                }
            }
            Kind::Ident if OPERATORS.contains(&t.text.as_str()) => {
                lexer.skip_space(true);
                if lexer.peek(0) == Some('(') {
                    lexer.i += 1;
                }
                names(&mut lexer, t.text, &mut found);
            }
            Kind::Ident
                if pastes
                    && (OPERATORS.iter())
                        .any(|o| o.len() > t.text.len() && o.starts_with(&t.text)) =>
            {
                let (line, col) = place(t.at);
                found.push(Found {
                    line,
                    col,
                    what: Naming::Piece(t.text),
                });
            }
            _ => {}
        }
    }
    found.sort_by_key(|f| (f.line, f.col));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(usize, usize, String)> {
        scan(text)
            .into_iter()
            .map(|f| {
                let what = match f.what {
                    Naming::Names { word, operand } => match operand {
                        Operand::Quoted(n) => format!("{word} \"{n}\""),
                        Operand::Angled(n) => format!("{word} <{n}>"),
                        Operand::Other => format!("{word} ?"),
                    },
                    Naming::Piece(p) => format!("piece {p}"),
                    Naming::BlankAfterBackslash => "blank after \\".to_string(),
                };
                (f.line, f.col, what)
            })
            .collect()
    }

    fn one(text: &str) -> String {
        let all = names(text);
        assert_eq!(all.len(), 1, "{text:?}: {all:?}");
        let (l, c, w) = &all[0];
        format!("{l}:{c} {w}")
    }

    #[test]
    fn every_spelling_of_an_include_is_found_at_its_operand() {
        assert_eq!(one("#include \"a.h\"\n"), "1:10 include \"a.h\"");
        assert_eq!(one("int x;\n  #  include <b>\n"), "2:14 include <b>");
        assert_eq!(one("%:include \"/p\"\n"), "1:11 include \"/p\"");
        assert_eq!(one("??=include \"/p\"\n"), "1:12 include \"/p\"");
        assert_eq!(one("#/**/include \"/p\"\n"), "1:14 include \"/p\"");
        assert_eq!(one("#inc\\\nlude \"/p\"\n"), "2:6 include \"/p\"");
        assert_eq!(one("#inc??/\nlude \"/p\"\n"), "2:6 include \"/p\"");
        assert_eq!(one("#define P \"/p\"\n#include P\n"), "2:10 include ?");
        assert_eq!(one("%:include_next <x>\n"), "1:16 include_next <x>");
        assert_eq!(one("#embed \"/p\"\n"), "1:8 embed \"/p\"");
        assert_eq!(one("import \"/p\";\n"), "1:8 import \"/p\"");
        // A block comment ends where the directive starts, on a later line.
        assert_eq!(one("/* a\n b */ #include \"/p\"\n"), "2:16 include \"/p\"");
    }

    #[test]
    fn existence_tests_and_their_pasted_pieces_are_found() {
        assert_eq!(
            one("#if __has_include(\"/p\")\n#endif\n"),
            "1:19 __has_include \"/p\""
        );
        assert_eq!(
            one("#if __has_include ( <x> )\n#endif\n"),
            "1:21 __has_include <x>"
        );
        assert_eq!(one("#define H __has_include\n"), "1:24 __has_include ?");
        assert_eq!(
            one("#define C(a, b) a ## b\n#if C(__has_, include)(\"/p\")\n#endif\n"),
            "2:7 piece __has_"
        );
        assert_eq!(
            one("#define C(a, b) a %:%: b\nint x = C(_, _has_include);\n"),
            "2:11 piece _"
        );
        // Without a paste, a name like these is only a name.
        assert!(names("int __has = 1;\n").is_empty());
    }

    #[test]
    fn literals_comments_and_mid_line_hashes_name_nothing() {
        let text = "// #include \"/a\"\n/* #include \"/b\" */\nconst char* s = \"#include </c>\";\n\
                    char q = '#'; int n = 1'000'000;\nauto r = R\"x(\n#include \"/d\"\n)x\";\n\
                    int y; # include \"/e\"\nasm(\"mov _, 1;\");\n";
        assert_eq!(names(text), vec![]);
    }

    #[test]
    fn a_string_that_runs_off_its_line_hides_nothing_on_the_next() {
        assert_eq!(
            one("char* s = \"open\n#include \"/p\"\n"),
            "2:10 include \"/p\""
        );
        // A raw string's prefix without a raw string after it.
        assert_eq!(
            one("auto r = R\"\n#include \"/p\"\n"),
            "2:10 include \"/p\""
        );
    }

    #[test]
    fn a_backslash_with_blanks_after_it_is_reported() {
        assert_eq!(
            names("#inc\\  \nlude \"/p\"\n"),
            vec![
                (1, 5, "blank after \\".to_string()),
                (2, 6, "include \"/p\"".to_string())
            ]
        );
    }
}
