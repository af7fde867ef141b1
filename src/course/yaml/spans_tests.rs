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
    let YamlError {
        pos: p,
        message: msg,
    } = Spans::parse("a: 1\nb: \"x\n").unwrap_err();
    assert_eq!(p.line, 2);
    assert!(msg.contains("quoted scalar"), "{msg}");
}
