//! The lesson file a tried kernel becomes, written in memory line by line, each line that
//! carries a value remembering where in a header (or flag) that value was written. The
//! loader reads the text as it reads any lesson, and each problem it finds at a line of the
//! text is moved back to the header's `file:line:col`.

use super::header::At;
use crate::course::CourseError;

/// Where a value of the text came from: a place in a header, a flag, or a whole file
/// (`at.line == 0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    pub at: At,
}

impl Origin {
    pub fn new(file: &str, at: At) -> Origin {
        Origin {
            file: file.to_string(),
            at,
        }
    }

    /// The file as a whole.
    pub fn file(file: &str) -> Origin {
        Origin::new(file, At::default())
    }
}

/// The text and, for each of its lines, where its value came from and the column at which
/// the value's opening quote stands.
#[derive(Debug, Default)]
pub struct Yaml {
    pub text: String,
    lines: Vec<Option<(Origin, usize)>>,
}

/// A YAML scalar in double quotes: JSON's escapes are YAML's, so any text (a quote, a
/// backslash, a line break) stays one scalar, read back as written.
pub fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

impl Yaml {
    /// A line of structure, from no header.
    pub fn line(&mut self, text: &str) {
        self.text.push_str(text);
        self.text.push('\n');
        self.lines.push(None);
    }

    /// `head` then `value` in quotes, the value from `origin`.
    pub fn value(&mut self, head: &str, value: &str, origin: &Origin) {
        let col = head.chars().count() + 1;
        self.text.push_str(head);
        self.text.push_str(&quoted(value));
        self.text.push('\n');
        self.lines.push(Some((origin.clone(), col)));
    }

    /// `head` then `raw`, written as is (a number, a word), from `origin`.
    pub fn raw(&mut self, head: &str, raw: &str, origin: &Origin) {
        let col = head.chars().count();
        self.text.push_str(head);
        self.text.push_str(raw);
        self.text.push('\n');
        self.lines.push(Some((origin.clone(), col)));
    }

    /// A problem the loader found in the text, at the place its value was written: the
    /// same column within the value, or the value's start for a problem before it. A
    /// problem on a line of structure, or with the whole text, is `whole`'s.
    pub fn place(&self, e: CourseError, whole: &str) -> CourseError {
        let origin = (e.line > 0)
            .then(|| self.lines.get(e.line - 1).cloned().flatten())
            .flatten();
        match origin {
            Some((o, _)) if o.at.line == 0 => CourseError {
                file: o.file,
                line: 0,
                col: 0,
                message: e.message,
            },
            Some((o, quote)) => {
                let inside = e.col.saturating_sub(quote + 1);
                CourseError {
                    file: o.file,
                    line: o.at.line,
                    col: o.at.col + inside,
                    message: e.message,
                }
            }
            None => CourseError {
                file: whole.to_string(),
                line: 0,
                col: 0,
                message: e.message,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_in_a_value_is_placed_in_its_header_at_the_same_column() {
        let mut y = Yaml::default();
        y.line("problem:");
        let from = Origin::new("k.cu", At { line: 3, col: 14 });
        y.value("  n: ", "2 * m", &from);
        let e = CourseError {
            file: "00-try.yaml".into(),
            line: 2,
            // `m`: the quote at col 6, `2` at 7, `m` at 11.
            col: 11,
            message: "unknown name `m`".into(),
        };
        let placed = y.place(e.clone(), "k.cu");
        assert_eq!((placed.line, placed.col), (3, 18), "{placed}");
        assert_eq!(placed.file, "k.cu");
        let structure = CourseError { line: 1, ..e };
        let placed = y.place(structure, "k.cu");
        assert_eq!(
            (placed.line, placed.to_string()),
            (0, "k.cu: unknown name `m`".into())
        );
    }

    #[test]
    fn quoting_keeps_any_text_one_scalar() {
        let text = "a \"b\" \\ c\nd: e";
        let v: serde_yaml::Value = serde_yaml::from_str(&format!("k: {}", quoted(text))).unwrap();
        assert_eq!(v["k"].as_str(), Some(text));
    }
}
