//! Parts of a lesson file read on their own. Each list element and each top-level entry is
//! deserialized from its own text (padded so that its columns stay) rather than from a copy
//! of the whole file with the rest blanked out: reading n elements then costs the size of the
//! file once, not n times.

use super::spans::{Pos, YamlError};

/// Character indices (what the YAML parser counts) to byte offsets, without a table of every
/// character: a checkpoint every `STEP` characters, and a short walk from it.
#[derive(Debug, Clone, Default)]
pub struct CharBytes {
    /// The byte offset of every `STEP`-th character; empty when the text is ASCII.
    every: Vec<usize>,
    ascii: bool,
}

const STEP: usize = 64;

impl CharBytes {
    pub fn new(text: &str) -> Self {
        if text.is_ascii() {
            return CharBytes {
                every: Vec::new(),
                ascii: true,
            };
        }
        let every = text.char_indices().step_by(STEP).map(|(b, _)| b).collect();
        CharBytes {
            every,
            ascii: false,
        }
    }

    /// The byte offset of character `ch` of `text` (the text this was built from); the end
    /// of the text for an index past it.
    pub fn byte(&self, text: &str, ch: usize) -> usize {
        if self.ascii {
            return ch.min(text.len());
        }
        let Some(&from) = self.every.get(ch / STEP) else {
            return text.len();
        };
        text[from..]
            .char_indices()
            .nth(ch % STEP)
            .map_or(text.len(), |(o, _)| from + o)
    }
}

/// A part of the file as a document of its own, and how to place its positions in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub text: String,
    /// Added to a line of the part to give the line in the file.
    shift: usize,
    /// The part's first line is only the `{` that a flow mapping's entry needs around it.
    opened: bool,
    /// Added to a column on the body's first line: a body of one line is not padded to its
    /// column (an element far along one long line, as in a flow list of 40,000 maps, would
    /// be padded with as many spaces, and reading them all cost the square of the line).
    col_shift: usize,
}

impl Part {
    /// The characters `start..end` of `text`, which begin at `at` in the file.
    pub fn new(text: &str, index: &CharBytes, (start, end): (usize, usize), at: Pos) -> Part {
        Self::cut(text, index, (start, end), at, false)
    }

    /// The same for an entry of a flow mapping (`{a: 1, b: 2}`), which reads alone only
    /// inside braces.
    pub fn in_flow(text: &str, index: &CharBytes, (start, end): (usize, usize), at: Pos) -> Part {
        Self::cut(text, index, (start, end), at, true)
    }

    fn cut(
        text: &str,
        index: &CharBytes,
        (start, end): (usize, usize),
        at: Pos,
        flow: bool,
    ) -> Part {
        let (a, b) = (index.byte(text, start), index.byte(text, end));
        let body = &text[a..b.max(a)];
        // A body of several lines keeps its first line's column, so that its indentation
        // reads as it does in the file; one of a single line needs no padding.
        let one_line = !body.contains(['\n', '\r']);
        let col = at.col.saturating_sub(1);
        let pad = if one_line { 0 } else { col };
        let mut out = String::with_capacity(body.len() + pad + 4);
        // A flow entry on the file's first line gets its `{` on the same line; any other, on
        // a line of its own just above it.
        let opened = flow && at.line > 1;
        let before = if flow && !opened {
            out.push('{');
            let spaces = pad.saturating_sub(1);
            out.extend(std::iter::repeat_n(' ', spaces));
            1 + spaces
        } else {
            if opened {
                out.push_str("{\n");
            }
            out.extend(std::iter::repeat_n(' ', pad));
            pad
        };
        out.push_str(body);
        if flow {
            out.push_str("\n}");
        }
        Part {
            text: out,
            shift: at.line.saturating_sub(1 + usize::from(opened)),
            opened,
            col_shift: col.saturating_sub(before),
        }
    }

    /// A position in the part, as a position in the file.
    pub fn place(&self, pos: Pos) -> Pos {
        let line = if self.opened {
            pos.line.max(2)
        } else {
            pos.line
        };
        let first = 1 + usize::from(self.opened);
        let col = if line == first {
            pos.col + self.col_shift
        } else {
            pos.col
        };
        Pos {
            line: line + self.shift,
            col,
        }
    }

    pub fn place_error(&self, e: YamlError) -> YamlError {
        YamlError {
            pos: self.place(e.pos),
            message: e.message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_of_characters() {
        let text = "é".repeat(200) + "x";
        let idx = CharBytes::new(&text);
        for ch in [0, 1, 63, 64, 65, 199, 200] {
            assert_eq!(idx.byte(&text, ch), 2 * ch, "{ch}");
        }
        assert_eq!(idx.byte(&text, 500), text.len());
        let ascii = CharBytes::new("abc");
        assert_eq!(ascii.byte("abc", 2), 2);
        assert_eq!(ascii.byte("abc", 9), 3);
    }

    /// Each list element read as a part gives what it gave read from the whole file with
    /// the rest blanked (the slower way the loader used before): the same value, or the same
    /// error at the same place.
    #[test]
    fn parts_read_as_the_blanked_file_did() {
        use crate::course::yaml::spans::{NodeKind, Spans, keep_only};
        let docs = [
            "l:\n  - { a: 1, b: [2, 3] }  # c\n  - a: é\n    b: |\n      t\n\n  -\n    a: 3\n",
            "l:\r\n  - a: 1\r\n  - {a: [1,\r\n      2]}\r\n",
            "x: 1\nl: [ {a: 1}, {a: 'q\n  r'}, {b: c} ]\n",
            "l:\n  - a: 1\n    a: 2\n  - a: \"\\u00e9\"\n  - { é: 1, é: 2 }\n",
        ];
        let mut errors = 0;
        for doc in docs {
            let spans = Spans::parse(doc).unwrap();
            let list = spans.root.as_ref().and_then(|r| r.get("l")).unwrap();
            let NodeKind::Seq(items) = &list.kind else {
                panic!("a list in {doc:?}")
            };
            for item in items {
                let old = serde_yaml::from_str::<serde_yaml::Value>(&keep_only(
                    doc, item.start, item.end,
                ));
                let part = Part::new(
                    doc,
                    spans.char_bytes(),
                    (item.start, item.end),
                    item.span.pos,
                );
                let new = serde_yaml::from_str::<serde_yaml::Value>(&part.text);
                match (old, new) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "{doc:?}"),
                    (Err(a), Err(b)) => {
                        errors += 1;
                        let (a, b) = (a.location().unwrap(), b.location().unwrap());
                        let b = part.place(Pos {
                            line: b.line(),
                            col: b.column(),
                        });
                        assert_eq!((a.line(), a.column()), (b.line, b.col), "{doc:?}");
                    }
                    (a, b) => panic!("{doc:?}: {a:?} / {b:?}"),
                }
            }
        }
        assert_eq!(errors, 2, "the duplicate keys");
    }

    #[test]
    fn parts_keep_their_lines_and_columns() {
        let text = "a: 1\nbé:\n  - { x: 1 }\n";
        let idx = CharBytes::new(text);
        let p = Part::new(text, &idx, (13, 21), Pos { line: 3, col: 5 });
        assert_eq!(p.text, "{ x: 1 }", "one line: no padding");
        assert_eq!(p.place(Pos { line: 1, col: 3 }), Pos { line: 3, col: 7 });
        let text = "{a: 1,\nb: 2}";
        let idx = CharBytes::new(text);
        let first = Part::in_flow(text, &idx, (1, 6), Pos { line: 1, col: 2 });
        assert_eq!(first.text, "{a: 1,\n}");
        let far = Part::in_flow(
            "{a: 1, b: 2}",
            &CharBytes::new("x"),
            (7, 11),
            Pos { line: 1, col: 8 },
        );
        assert_eq!(far.text, "{b: 2\n}");
        assert_eq!(far.place(Pos { line: 1, col: 5 }), Pos { line: 1, col: 11 });
        assert_eq!(
            first.place(Pos { line: 1, col: 5 }),
            Pos { line: 1, col: 5 }
        );
        let second = Part::in_flow(text, &idx, (7, 11), Pos { line: 2, col: 1 });
        assert_eq!(second.text, "{\nb: 2\n}");
        assert_eq!(
            second.place(Pos { line: 2, col: 4 }),
            Pos { line: 2, col: 4 }
        );
        assert_eq!(
            second.place(Pos { line: 1, col: 1 }),
            Pos { line: 2, col: 1 }
        );
    }
}
