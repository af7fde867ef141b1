//! Where things are in a lesson file. serde_yaml does not expose the positions of values, so
//! the file is also read with yaml-rust2's event parser into a tree of positioned nodes, and a
//! map from paths such as `variants[2].launch.grid` to (line, col), both 1-based.

use super::part::CharBytes;
use std::collections::HashMap;
use thiserror::Error;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

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
        let mut b = Builder {
            text,
            index: CharBytes::new(text),
            lines: line_starts(text),
            stack: Vec::new(),
            root: None,
        };
        let mut parser = Parser::new_from_str(text);
        parser.load(&mut b, false).map_err(|e| {
            let m = e.marker();
            YamlError {
                pos: Pos {
                    line: m.line(),
                    col: m.col() + 1,
                },
                message: e.info().to_string(),
            }
        })?;
        let mut spans = Spans {
            root: None,
            values: HashMap::new(),
            keys: HashMap::new(),
            index: b.index,
        };
        if let Some(root) = &b.root {
            spans.index(root, String::new());
        }
        spans.root = b.root;
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
pub fn keep_only(text: &str, start: usize, end: usize) -> String {
    mask(text, |i| !(start..end).contains(&i))
}

/// `text` with the characters of every range removed, line breaks kept.
pub fn blank_ranges(text: &str, ranges: &[(usize, usize)]) -> String {
    mask(text, |i| ranges.iter().any(|&(s, e)| (s..e).contains(&i)))
}

/// Removed characters become spaces where kept text follows on the same line (so that its
/// column stays), and vanish elsewhere: a line of spaces after a block scalar (`|`) would
/// otherwise become part of its text.
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

/// A parser position with its character index worked out from line and column: the parser's
/// own index counts bytes, not characters, inside block scalars (yaml-rust2 0.13), so one
/// "×" in a `|` page used to shift every position after it.
#[derive(Debug, Clone, Copy)]
struct Mark {
    index: usize,
    line: usize,
    col: usize,
}

enum Frame {
    Seq {
        at: Mark,
        flow: bool,
        items: Vec<Node>,
    },
    Map {
        at: Mark,
        flow: bool,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
    },
}

struct Builder<'t> {
    text: &'t str,
    index: CharBytes,
    /// The character index at which each line starts.
    lines: Vec<usize>,
    stack: Vec<Frame>,
    root: Option<Node>,
}

/// The character index of the start of each line of `text`.
fn line_starts(text: &str) -> Vec<usize> {
    let mut out = vec![0];
    for (i, c) in text.chars().enumerate() {
        if c == '\n' {
            out.push(i + 1);
        }
    }
    out
}

fn span_at(m: Mark, quoted: bool) -> Span {
    Span {
        pos: Pos {
            line: m.line,
            col: m.col + 1,
        },
        quoted,
    }
}

impl Builder<'_> {
    /// The parser's position, its character index taken from its line and column.
    fn mark(&self, m: Marker) -> Mark {
        let start = self.lines.get(m.line().saturating_sub(1)).copied();
        Mark {
            index: start.map_or(m.index(), |s| s + m.col()),
            line: m.line(),
            col: m.col(),
        }
    }

    fn starts_with(&self, m: Mark, c: char) -> bool {
        self.text[self.index.byte(self.text, m.index)..].starts_with(c)
    }

    fn attach(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
        }
    }

    /// Block collections end where the next token starts; flow ones at their bracket.
    fn end_of(flow: bool, m: Mark) -> usize {
        if flow { m.index + 1 } else { m.index }
    }
}

impl MarkedEventReceiver for Builder<'_> {
    fn on_event(&mut self, ev: Event, m: Marker) {
        let m = self.mark(m);
        match ev {
            Event::Scalar(value, style, ..) => {
                let quoted = matches!(
                    style,
                    TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
                );
                self.attach(leaf(m, quoted, value));
            }
            Event::Alias(_) => self.attach(leaf(m, false, String::new())),
            Event::SequenceStart(..) => {
                let flow = self.starts_with(m, '[');
                self.stack.push(Frame::Seq {
                    at: m,
                    flow,
                    items: Vec::new(),
                });
            }
            Event::MappingStart(..) => {
                let flow = self.starts_with(m, '{');
                self.stack.push(Frame::Map {
                    at: m,
                    flow,
                    entries: Vec::new(),
                    key: None,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(node) = self.close(m) {
                    self.attach(node);
                }
            }
            _ => {}
        }
    }
}

/// A scalar (or an alias, kept as an empty scalar) at `m`.
fn leaf(m: Mark, quoted: bool, text: String) -> Node {
    Node {
        span: span_at(m, quoted),
        start: m.index,
        end: m.index,
        flow: false,
        kind: NodeKind::Scalar(text),
    }
}

impl Builder<'_> {
    /// The collection that ends at `m`, as a node.
    fn close(&mut self, m: Mark) -> Option<Node> {
        let node = match self.stack.pop()? {
            Frame::Seq { at, flow, items } => Node {
                span: span_at(at, false),
                start: at.index,
                end: Self::end_of(flow, m),
                flow,
                kind: NodeKind::Seq(items),
            },
            Frame::Map {
                at, flow, entries, ..
            } => {
                // A block mapping's own marker is not where it is written: its first key is.
                let (span, start) = match entries.first() {
                    Some((k, _)) if !flow => (k.span, k.start),
                    _ => (span_at(at, false), at.index),
                };
                Node {
                    span: Span {
                        pos: span.pos,
                        quoted: false,
                    },
                    start,
                    end: Self::end_of(flow, m),
                    flow,
                    kind: NodeKind::Map(entries),
                }
            }
        };
        Some(node)
    }
}

#[cfg(test)]
#[path = "spans_tests.rs"]
mod tests;
