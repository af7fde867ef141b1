//! Where things are in a lesson file. serde_yaml does not expose the positions of values, so
//! the file is also read with yaml-rust2's event parser into a tree of positioned nodes, and a
//! map from paths such as `variants[2].launch.grid` to (line, col), both 1-based.

use std::collections::HashMap;
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
}

impl Spans {
    /// Parse the first document of `text`. A syntax error gives its position and message.
    pub fn parse(text: &str) -> Result<Spans, (Pos, String)> {
        let mut b = Builder {
            chars: text.chars().collect(),
            stack: Vec::new(),
            root: None,
        };
        let mut parser = Parser::new_from_str(text);
        parser.load(&mut b, false).map_err(|e| {
            let m = e.marker();
            (
                Pos {
                    line: m.line(),
                    col: m.col() + 1,
                },
                e.info().to_string(),
            )
        })?;
        let mut spans = Spans {
            root: b.root,
            values: HashMap::new(),
            keys: HashMap::new(),
        };
        if let Some(root) = spans.root.clone() {
            spans.index(&root, String::new());
        }
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

enum Frame {
    Seq {
        at: Marker,
        flow: bool,
        items: Vec<Node>,
    },
    Map {
        at: Marker,
        flow: bool,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
    },
}

struct Builder {
    chars: Vec<char>,
    stack: Vec<Frame>,
    root: Option<Node>,
}

fn span_at(m: Marker, quoted: bool) -> Span {
    Span {
        pos: Pos {
            line: m.line(),
            col: m.col() + 1,
        },
        quoted,
    }
}

impl Builder {
    fn starts_with(&self, m: Marker, c: char) -> bool {
        self.chars.get(m.index()) == Some(&c)
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
    fn end_of(flow: bool, m: Marker) -> usize {
        if flow { m.index() + 1 } else { m.index() }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, m: Marker) {
        match ev {
            Event::Scalar(value, style, ..) => {
                let quoted = matches!(
                    style,
                    TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
                );
                self.attach(Node {
                    span: span_at(m, quoted),
                    start: m.index(),
                    end: m.index(),
                    flow: false,
                    kind: NodeKind::Scalar(value),
                });
            }
            Event::Alias(_) => self.attach(Node {
                span: span_at(m, false),
                start: m.index(),
                end: m.index(),
                flow: false,
                kind: NodeKind::Scalar(String::new()),
            }),
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
                let node = match self.stack.pop() {
                    Some(Frame::Seq { at, flow, items }) => Node {
                        span: span_at(at, false),
                        start: at.index(),
                        end: Self::end_of(flow, m),
                        flow,
                        kind: NodeKind::Seq(items),
                    },
                    Some(Frame::Map {
                        at, flow, entries, ..
                    }) => {
                        // A block mapping's own marker is not where it is written: its first
                        // key is.
                        let (span, start) = match entries.first() {
                            Some((k, _)) if !flow => (k.span, k.start),
                            _ => (span_at(at, false), at.index()),
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
                    None => return,
                };
                self.attach(node);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "\
id: x   # comment
title: \"a b\"
variants:
  - name: v1
    launch: { grid: \"n / 2\", block: [1, 2] }
  - { name: v2, like: v1 }
  -
    name: v3
last: 'q'
";

    fn pos(line: usize, col: usize) -> Pos {
        Pos { line, col }
    }

    #[test]
    fn paths_map_to_one_based_positions() {
        let s = Spans::parse(DOC).unwrap();
        assert_eq!(s.value("id").unwrap().pos, pos(1, 5));
        assert_eq!(s.key("title"), Some(pos(2, 1)));
        assert_eq!(s.value("variants").unwrap().pos, pos(4, 3));
        assert_eq!(s.value("variants[0]").unwrap().pos, pos(4, 5));
        assert_eq!(s.value("variants[0].launch").unwrap().pos, pos(5, 13));
        assert_eq!(s.value("variants[0].launch.grid").unwrap().pos, pos(5, 21));
        assert_eq!(s.key("variants[0].launch.block"), Some(pos(5, 30)));
        assert_eq!(
            s.value("variants[0].launch.block[1]").unwrap().pos,
            pos(5, 41)
        );
        assert_eq!(s.value("variants[1]").unwrap().pos, pos(6, 5));
        assert_eq!(s.value("variants[1].like").unwrap().pos, pos(6, 23));
        assert_eq!(s.value("variants[2]").unwrap().pos, pos(8, 5));
        assert_eq!(s.scalar("variants[2].name"), Some("v3"));
    }

    #[test]
    fn quoted_values_point_past_the_quote() {
        let s = Spans::parse(DOC).unwrap();
        let grid = s.value("variants[0].launch.grid").unwrap();
        assert!(grid.quoted);
        assert_eq!(grid.inner(2), pos(5, 24));
        let id = s.value("id").unwrap();
        assert!(!id.quoted);
        assert_eq!(id.inner(0), pos(1, 5));
    }

    #[test]
    fn locate_falls_back_to_the_parent() {
        let s = Spans::parse(DOC).unwrap();
        assert_eq!(s.locate("variants[0].launch.smem"), pos(5, 13));
        assert_eq!(s.locate("variants[1].args[3]"), pos(6, 5));
        assert_eq!(s.locate("nothing.here"), pos(1, 1));
        assert_eq!(parent("a.b[2]"), Some("a.b"));
        assert_eq!(parent("a"), Some(""));
        assert_eq!(parent(""), None);
    }

    /// Every node's position and scalar text, in order (character indices differ once the
    /// rest of the file is removed; positions must not).
    fn shape(n: &Node) -> Vec<(Span, Option<String>)> {
        let mut out = vec![(n.span, n.as_scalar().map(str::to_string))];
        match &n.kind {
            NodeKind::Scalar(_) => {}
            NodeKind::Seq(items) => items.iter().for_each(|i| out.extend(shape(i))),
            NodeKind::Map(entries) => entries.iter().for_each(|(k, v)| {
                out.extend(shape(k));
                out.extend(shape(v));
            }),
        }
        out
    }

    #[test]
    fn kept_parts_parse_alone_at_their_place() {
        let s = Spans::parse(DOC).unwrap();
        let root = s.root.as_ref().unwrap();
        let NodeKind::Seq(items) = &root.get("variants").unwrap().kind else {
            panic!("variants is a sequence");
        };
        for (i, item) in items.iter().enumerate() {
            let alone = keep_only(DOC, item.start, item.end);
            assert_eq!(alone.lines().count(), DOC.lines().count());
            let again = Spans::parse(&alone).unwrap();
            let r = again.root.unwrap();
            assert_eq!(shape(&r), shape(item), "item {i}");
        }
    }

    #[test]
    fn entry_ranges_remove_entries_cleanly() {
        for doc in [DOC, "{a: 1, b: [2, 3], c: x}"] {
            let s = Spans::parse(doc).unwrap();
            let ranges = s.root.as_ref().unwrap().entry_ranges();
            for (name, _, _) in &ranges {
                let others: Vec<_> = ranges
                    .iter()
                    .filter(|(n, _, _)| n != name)
                    .map(|&(_, a, b)| (a, b))
                    .collect();
                let alone = Spans::parse(&blank_ranges(doc, &others)).unwrap();
                let r = alone.root.unwrap();
                let NodeKind::Map(entries) = &r.kind else {
                    panic!("a mapping")
                };
                assert_eq!(entries.len(), 1, "{name} in {doc}");
                assert_eq!(entries[0].0.as_scalar(), Some(name.as_str()));
            }
        }
    }

    #[test]
    fn block_scalars_keep_their_text_when_alone() {
        let doc = "pages:\n  - title: t\n    text: |\n      one line\n  - title: u\n    text: v\n";
        let s = Spans::parse(doc).unwrap();
        let page = s.root.as_ref().unwrap().get("pages").unwrap();
        let NodeKind::Seq(items) = &page.kind else {
            panic!("a list")
        };
        let alone = Spans::parse(&keep_only(doc, items[0].start, items[0].end)).unwrap();
        let text = alone.root.as_ref().unwrap().get("text").unwrap();
        assert_eq!(text.as_scalar(), Some("one line\n"));
    }

    #[test]
    fn syntax_errors_have_positions() {
        let (p, msg) = Spans::parse("a: 1\nb: \"x\n").unwrap_err();
        assert_eq!(p.line, 2);
        assert!(msg.contains("quoted scalar"), "{msg}");
    }
}
