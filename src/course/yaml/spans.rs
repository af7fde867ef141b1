//! Where things are in a lesson file. serde_yaml does not expose the positions of values, so
//! the file is also read with yaml-rust2's event parser into a tree of positioned nodes, and a
//! map from paths such as `variants[2].launch.grid` to (line, col), both 1-based.

use super::part::CharBytes;
use std::collections::HashMap;
use thiserror::Error;

/// A 1-based position in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    pub const START: Pos = Pos { line: 1, col: 1 };
}

/// A problem found by a YAML reader, and where it is.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct YamlError {
    pub pos: Pos,
    pub message: String,
}

/// Where a value starts, and whether a quote precedes its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub pos: Pos,
    pub quoted: bool,
}

impl Span {
    /// The position of the `offset`-th character of the value's text (for pointing into an
    /// expression or a claim).
    pub fn inner(&self, offset: usize) -> Pos {
        Pos {
            line: self.pos.line,
            col: self.pos.col + usize::from(self.quoted) + offset,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Scalar(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// A node of the document. `start..end` are character indices of its text; for a scalar
/// `end` is unknown and equals `start`.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub span: Span,
    pub start: usize,
    pub end: usize,
    /// Written in flow style (`{...}` or `[...]`).
    pub flow: bool,
    pub kind: NodeKind,
}

impl Node {
    /// The value of key `name` when this is a mapping.
    pub fn get(&self, name: &str) -> Option<&Node> {
        match &self.kind {
            NodeKind::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(&k.kind, NodeKind::Scalar(s) if s == name))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_scalar(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// For a mapping: each entry's key name and the character range from its key to the next
    /// key (or the mapping's end). Blanking such a range removes the entry cleanly.
    pub fn entry_ranges(&self) -> Vec<(String, usize, usize)> {
        let NodeKind::Map(entries) = &self.kind else {
            return Vec::new();
        };
        let close = if self.flow { self.end - 1 } else { self.end };
        entries
            .iter()
            .enumerate()
            .map(|(i, (k, _))| {
                let end = entries.get(i + 1).map_or(close, |(next, _)| next.start);
                let name = k.as_scalar().unwrap_or_default().to_string();
                (name, k.start, end)
            })
            .collect()
    }
}

/// The positioned tree of a document and the path index built from it.
#[derive(Debug, Clone)]
pub struct Spans {
    pub root: Option<Node>,
    values: HashMap<String, (Span, Option<String>)>,
    keys: HashMap<String, Pos>,
    index: CharBytes,
}

impl Spans {
    /// Parse the first document of `text`. A syntax error gives its position and message.
    pub fn parse(text: &str) -> Result<Spans, YamlError> {
        let (root, index) = super::tree::build(text)?;
        let mut spans = Spans {
            root: None,
            values: HashMap::new(),
            keys: HashMap::new(),
            index,
        };
        if let Some(root) = &root {
            spans.index(root, String::new());
        }
        spans.root = root;
        Ok(spans)
    }

    fn index(&mut self, node: &Node, path: String) {
        let scalar = node.as_scalar().map(str::to_string);
        self.values.insert(path.clone(), (node.span, scalar));
        match &node.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.index(item, format!("{path}[{i}]"));
                }
            }
            NodeKind::Map(entries) => {
                for (k, v) in entries {
                    let name = k.as_scalar().unwrap_or_default();
                    let child = if path.is_empty() {
                        name.to_string()
                    } else {
                        format!("{path}.{name}")
                    };
                    self.keys.insert(child.clone(), k.span.pos);
                    self.index(v, child);
                }
            }
        }
    }

    /// Byte offsets of the character indices that nodes hold, for the text parsed.
    pub fn char_bytes(&self) -> &CharBytes {
        &self.index
    }

    /// Where the value at `path` starts.
    pub fn value(&self, path: &str) -> Option<Span> {
        self.values.get(path).map(|(s, _)| *s)
    }

    /// Where the key of the entry at `path` is written.
    pub fn key(&self, path: &str) -> Option<Pos> {
        self.keys.get(path).copied()
    }

    /// The text of the scalar at `path`.
    pub fn scalar(&self, path: &str) -> Option<&str> {
        self.values.get(path).and_then(|(_, s)| s.as_deref())
    }

    /// The value at `path`, or failing that its nearest ancestor that exists.
    pub fn locate(&self, path: &str) -> Pos {
        let mut p = path;
        loop {
            if let Some(s) = self.value(p) {
                return s.pos;
            }
            match parent(p) {
                Some(up) => p = up,
                None => return Pos::START,
            }
        }
    }
}

/// `a.b[2]` → `a.b` → `a` → none.
pub fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    let cut = path.rfind(['.', '[']).unwrap_or(0);
    Some(&path[..cut])
}

/// `text` with every character outside `start..end` (character indices) removed, line
/// breaks kept: the kept part parses on its own at its original line and column.
#[cfg(test)]
pub fn keep_only(text: &str, start: usize, end: usize) -> String {
    mask(text, |i| !(start..end).contains(&i))
}

/// `text` with the characters of every range removed, line breaks kept.
#[cfg(test)]
pub fn blank_ranges(text: &str, ranges: &[(usize, usize)]) -> String {
    mask(text, |i| ranges.iter().any(|&(s, e)| (s..e).contains(&i)))
}

/// Removed characters become spaces where kept text follows on the same line (so that its
/// column stays), and vanish elsewhere: a line of spaces after a block scalar (`|`) would
/// otherwise become part of its text.
#[cfg(test)]
fn mask(text: &str, removed: impl Fn(usize) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    for line in text.split_inclusive('\n') {
        let chars: Vec<char> = line.chars().collect();
        let body = chars
            .iter()
            .rposition(|c| *c != '\n' && *c != '\r')
            .map_or(0, |p| p + 1);
        let last_kept = (0..body).rev().find(|&k| !removed(i + k));
        for (k, &c) in chars.iter().enumerate() {
            if k >= body || !removed(i + k) {
                out.push(c);
            } else if last_kept.is_some_and(|l| k < l) {
                out.push(' ');
            }
        }
        i += chars.len();
    }
    out
}

#[cfg(test)]
#[path = "spans_tests.rs"]
mod tests;
