//! From text to `RawLesson`: YAML syntax, unknown keys and wrong types. Each top-level entry
//! and each element of the lists is read on its own (from its own text, padded so that
//! positions stay true), so that every such error in the file is reported, not just the first.

use super::Errors;
use crate::course::schema::{RawHead, RawLesson};
use crate::course::yaml::part::Part;
use crate::course::yaml::spans::{Node, NodeKind, Pos, Spans, YamlError};
use serde::de::DeserializeOwned;
use std::collections::HashMap;

const LISTS: [&str; 5] = ["pages", "buffers", "variants", "checkpoint", "exercises"];

/// The raw lesson and the positions of its parts; `None` when the file is not YAML or not a
/// mapping (nothing more can be said about it).
pub(super) fn read(text: &str, errs: &mut Errors) -> Option<(RawLesson, Spans)> {
    // Before any parser: they take minutes to refuse a hostile depth.
    if let Some(e) = crate::course::yaml::depth::too_deep(text) {
        errs.report(e);
        return None;
    }
    if let Err(e) = serde_yaml::from_str::<serde_yaml::Value>(text) {
        errs.report(whole_text_error(text, &e));
        return None;
    }
    let spans = match Spans::parse(text) {
        Ok(s) => s,
        Err(e) => {
            errs.report(e);
            return None;
        }
    };
    let root = root_mapping(&spans, errs)?;
    let mut raw = RawLesson::default();
    let src = Source {
        text,
        spans: &spans,
    };
    for (i, (name, start, end)) in root.entry_ranges().into_iter().enumerate() {
        let ok = match (LISTS.contains(&name.as_str()), root.get(&name)) {
            (true, Some(v)) => {
                let key = spans.key(&name).unwrap_or(Pos::START);
                read_list(&src, &name, (key, v), &mut raw, errs)
            }
            _ => {
                let at = entry_key(root, i).map_or(Pos::START, |k| k.span.pos);
                let part = if root.flow {
                    Part::in_flow(text, spans.char_bytes(), (start, end), at)
                } else {
                    Part::new(text, spans.char_bytes(), (start, end), at)
                };
                read_head_entry(&part, &mut raw.head, errs)
            }
        };
        if !ok {
            raw.failed.push(name);
        }
    }
    Some((raw, spans))
}

/// serde_yaml places a duplicate key at the start of the mapping that holds it; the
/// positioned tree knows the key's own place.
fn whole_text_error(text: &str, e: &serde_yaml::Error) -> YamlError {
    let dup = if e.to_string().contains("duplicate entry with key") {
        Spans::parse(text)
            .ok()
            .and_then(|s| s.root.as_ref().and_then(duplicate_key))
    } else {
        None
    };
    dup.unwrap_or_else(|| serde_error(e))
}

/// The first key, in file order, given twice in one mapping.
fn duplicate_key(node: &Node) -> Option<YamlError> {
    match &node.kind {
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(items) => items.iter().find_map(duplicate_key),
        NodeKind::Map(entries) => {
            let mut first: HashMap<&str, Pos> = HashMap::new();
            entries.iter().find_map(|(k, v)| {
                if let Some(name) = k.as_scalar() {
                    if let Some(at) = first.get(name) {
                        return Some(YamlError {
                            pos: k.span.pos,
                            message: format!(
                                "duplicate key `{name}` (first given at line {}, column {})",
                                at.line, at.col
                            ),
                        });
                    }
                    first.insert(name, k.span.pos);
                }
                duplicate_key(k).or_else(|| duplicate_key(v))
            })
        }
    }
}

/// serde's word for an enum's value is "variant", which in a lesson means something else:
/// name the value after its key instead ("unknown type `f16`, expected one of ...").
fn name_enum(mut e: YamlError, node: &Node) -> YamlError {
    if let Some(rest) = e.message.strip_prefix("unknown variant ") {
        let key = key_of_value_at(node, e.pos).unwrap_or("value");
        e.message = format!("unknown {key} {rest}");
    }
    e
}

/// The key whose value starts at `pos`, in `node` or below it.
fn key_of_value_at(node: &Node, pos: Pos) -> Option<&str> {
    match &node.kind {
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(items) => items.iter().find_map(|i| key_of_value_at(i, pos)),
        NodeKind::Map(entries) => entries.iter().find_map(|(k, v)| {
            if v.span.pos == pos {
                k.as_scalar()
            } else {
                key_of_value_at(v, pos)
            }
        }),
    }
}

/// The text being read and the positions in it.
struct Source<'a> {
    text: &'a str,
    spans: &'a Spans,
}

fn entry_key(map: &Node, i: usize) -> Option<&Node> {
    match &map.kind {
        NodeKind::Map(entries) => entries.get(i).map(|(k, _)| k),
        _ => None,
    }
}

/// The document's top node, when it is a mapping as a lesson must be.
fn root_mapping<'s>(spans: &'s Spans, errs: &mut Errors) -> Option<&'s Node> {
    match &spans.root {
        Some(
            r @ Node {
                kind: NodeKind::Map(_),
                ..
            },
        ) => Some(r),
        Some(r) => {
            errs.at(
                r.span.pos,
                "a lesson is a mapping of keys (format_version, id, title, ...)",
            );
            None
        }
        None => {
            errs.at(Pos::START, "the file is empty");
            None
        }
    }
}

/// Read one top-level entry, on its own, into `head`; false when it has errors.
fn read_head_entry(part: &Part, head: &mut RawHead, errs: &mut Errors) -> bool {
    match de::<RawHead>(&part.text) {
        Ok(entry) => {
            merge(head, entry);
            true
        }
        Err(e) => {
            errs.report(part.place_error(e));
            false
        }
    }
}

/// Read each element of a list section; false when the section is not a list.
fn read_list(
    src: &Source,
    name: &str,
    (key, value): (Pos, &Node),
    raw: &mut RawLesson,
    errs: &mut Errors,
) -> bool {
    let NodeKind::Seq(items) = &value.kind else {
        // An empty value has no place of its own (the parser puts it at the next token).
        let at = if value.as_scalar() == Some("") {
            key
        } else {
            value.span.pos
        };
        errs.at(at, format!("`{name}` must be a list"));
        return false;
    };
    for item in items {
        match name {
            "pages" => raw.pages.push(element(src, name, item, errs)),
            "buffers" => raw.buffers.push(element(src, name, item, errs)),
            "variants" => raw.variants.push(element(src, name, item, errs)),
            "exercises" => raw.exercises.push(element(src, name, item, errs)),
            _ => raw.checkpoint.push(element(src, name, item, errs)),
        }
    }
    true
}

fn element<T: DeserializeOwned>(
    src: &Source,
    list: &str,
    item: &Node,
    errs: &mut Errors,
) -> Option<T> {
    if !matches!(item.kind, NodeKind::Map(_)) {
        errs.at(
            item.span.pos,
            format!("each entry of `{list}` must be a mapping of keys"),
        );
        return None;
    }
    let part = Part::new(
        src.text,
        src.spans.char_bytes(),
        (item.start, item.end),
        item.span.pos,
    );
    de(&part.text)
        .map_err(|e| errs.report(name_enum(part.place_error(e), item)))
        .ok()
}

fn de<T: DeserializeOwned>(doc: &str) -> Result<T, YamlError> {
    serde_yaml::from_str(doc).map_err(|e| serde_error(&e))
}

/// serde_yaml's message without its own location (given separately) and without its path
/// (relative to the part that was read, so it would mislead).
fn serde_error(e: &serde_yaml::Error) -> YamlError {
    let pos = e.location().map_or(Pos::START, |l| Pos {
        line: l.line(),
        col: l.column(),
    });
    let mut msg = e.to_string();
    while let Some(at) = find_location(&msg) {
        msg.replace_range(at, "");
    }
    if let Some((path, rest)) = msg.split_once(": ")
        && !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.[]-".contains(c))
    {
        msg = rest.to_string();
    }
    YamlError { pos, message: msg }
}

/// The range of the first " at line N column M" in `msg`.
fn find_location(msg: &str) -> Option<std::ops::Range<usize>> {
    let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let mut from = 0;
    while let Some(i) = msg[from..].find(" at line ") {
        let start = from + i;
        let mut end = start + " at line ".len();
        let n = digits(&msg[end..]);
        end += n;
        if n > 0 && msg[end..].starts_with(" column ") {
            end += " column ".len();
            let m = digits(&msg[end..]);
            if m > 0 {
                return Some(start..end + m);
            }
        }
        from = start + 1;
    }
    None
}

fn merge(head: &mut RawHead, part: RawHead) {
    macro_rules! take {
        ($($f:ident),*) => { $( if part.$f.is_some() { head.$f = part.$f; } )* };
    }
    take!(
        format_version,
        id,
        title,
        space,
        problem,
        problem_cpu,
        reference,
        metrics,
        expect,
        trace,
        tolerance,
        measures,
        requires,
        l2_persisting_bytes,
        textures
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_lose_location_and_relative_path() {
        let e = serde_yaml::from_str::<RawHead>("\n\ntrace: { blocks: -1 }").unwrap_err();
        let YamlError { pos, message: msg } = serde_error(&e);
        assert_eq!(pos, Pos { line: 3, col: 18 });
        assert!(
            msg.starts_with("invalid type: integer `-1`, expected u32"),
            "{msg}"
        );
        assert!(!msg.contains("line"), "{msg}");
        let e = serde_yaml::from_str::<serde_yaml::Value>("a: [1,\nb: 2").unwrap_err();
        let msg = serde_error(&e).message;
        assert!(!msg.contains(" at line "), "{msg}");
        assert!(msg.contains("while parsing a flow sequence"), "{msg}");
    }
}
