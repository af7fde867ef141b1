//! The positioned tree of a YAML document, built from yaml-rust2's events: every node with
//! where it is written (line, column) and the character range it spans.

use super::part::CharBytes;
use super::spans::{Node, NodeKind, Pos, Span, YamlError};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// The tree of the first document of `text`, and the character-to-byte index of `text`.
pub(super) fn build(text: &str) -> Result<(Option<Node>, CharBytes), YamlError> {
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
    Ok((b.root, b.index))
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
