use super::*;

const TWO_LINES: &str = "#include <cstdint>\n\
// gpulab: n=1<<20 cpu.n=4096 grid=ceil_div(n, 256),2 block=256\n\
  //gpulab: in:f32[n]=random(0,10) w:i32[n*2]=seq z:u32[4]=zeros c:f64[1]=2.5 out:f32[n]\n\
/* gpulab: n=3 is no header: a block comment */\n\
// gpulab: args=in,out,i64:n,f32:0.5 kernel=k check=copy(in,out) trace=2 bytes=8*n peak=none\n\
extern \"C\" __global__ void k() {}\n";

#[test]
fn a_header_is_every_line_comment_that_starts_gpulab_each_item_in_its_place() {
    let h = parse("k.cu", TWO_LINES).unwrap();
    assert_eq!(h.start, Some(At { line: 2, col: 4 }));
    let sizes: Vec<(&str, &str, At)> = (h.sizes.iter())
        .map(|(n, v)| (n.text.as_str(), v.text.as_str(), v.at))
        .collect();
    assert_eq!(sizes, [("n", "1<<20", At { line: 2, col: 14 })]);
    assert_eq!(h.cpu_sizes[0].0.text, "n");
    assert_eq!(h.cpu_sizes[0].0.at, At { line: 2, col: 24 });
    // A blank inside parentheses does not split the item.
    let grid: Vec<&str> = h
        .grid
        .as_ref()
        .unwrap()
        .iter()
        .map(|w| w.text.as_str())
        .collect();
    assert_eq!(grid, ["ceil_div(n, 256)", "2"]);
    assert_eq!(h.grid.as_ref().unwrap()[1].at, At { line: 2, col: 53 });
    let b: Vec<(&str, &Fill)> = (h.buffers.iter())
        .map(|b| (b.name.text.as_str(), &b.fill))
        .collect();
    assert_eq!(
        b,
        [
            ("in", &Fill::Random(Some((0.0, 10.0)))),
            ("w", &Fill::Seq),
            ("z", &Fill::Zeros),
            ("c", &Fill::Const(2.5)),
            ("out", &Fill::Output)
        ]
    );
    let w = &h.buffers[1];
    assert_eq!((w.ty, w.len.text.as_str()), (ElemType::I32, "n*2"));
    assert_eq!(w.len.at, At { line: 3, col: 40 });
    let args = &h.args.as_ref().unwrap().1;
    let typed: Vec<(Option<&str>, &str)> = (args.iter())
        .map(|a| (a.ty.as_deref(), a.value.text.as_str()))
        .collect();
    assert_eq!(
        typed,
        [
            (None, "in"),
            (None, "out"),
            (Some("i64"), "n"),
            (Some("f32"), "0.5")
        ]
    );
    assert_eq!(h.kernel.as_ref().unwrap().text, "k");
    assert!(
        matches!(&h.check, Some((Builtin::Copy { from, to }, _)) if from.text == "in" && to.text == "out")
    );
    assert_eq!(h.trace.map(|t| t.0), Some(2));
    assert_eq!(h.bytes.as_ref().unwrap().text, "8*n");
    assert_eq!(h.peak.map(|p| p.0), Some(false));
    assert!(
        h.sizes.iter().all(|(n, _)| n.text != "n=3"),
        "block comments do not count"
    );
}

#[test]
fn a_file_without_a_header_gives_an_empty_one() {
    let h = parse("k.cu", "// a kernel\nextern \"C\" __global__ void k() {}\n").unwrap();
    assert_eq!(h.start, None);
    assert!(h.items.is_empty() && h.grid.is_none() && h.buffers.is_empty());
}

#[test]
fn each_bad_item_is_an_error_at_its_place() {
    let cases = [
        ("grid=1 grid=2", "grid=2", "given twice"),
        ("in:f16[n]", "f16", "none of f32"),
        ("in:f32[]", "]", "no length"),
        ("in:f32[n]=noise", "noise", "none of random"),
        ("in:f32[n]=random(2,1)", "random(2,1)", "LO < HI"),
        ("in:f32", "f32", "NAME:TYPE[LEN]"),
        ("whatever", "whatever", "not a header item"),
        ("cpu.9=1", "cpu.9", "a CPU size"),
        ("n=1 n=2", "n=2", "given twice"),
        ("block=1,2,3,4", "1,2,3,4", "1 to 3"),
        ("peak=half", "half", "`copy` or `none`"),
        ("check=sum(a,b)", "sum(a,b)", "copy(FROM,TO)"),
        ("trace=0", "0", "1 or more"),
        // An empty entry is placed where it would start: at the comma after it.
        ("args=in,,out", ",out", "empty entry"),
        ("kernel=a-b", "a-b", "not a name"),
        ("n=", "n=", "no value"),
    ];
    for (items, at, phrase) in cases {
        let line = format!("x;\n// gpulab: {items}\n");
        let errs = parse("k.cu", &line).unwrap_err();
        let col = line.lines().nth(1).unwrap().find(at).unwrap() + 1;
        let e = &errs[0];
        assert_eq!((e.line, e.col), (2, col), "{items}: {e}");
        assert!(e.message.contains(phrase), "{items}: {e}");
        assert_eq!(e.file, "k.cu");
    }
}

#[test]
fn flags_are_header_lines_placed_by_their_number() {
    let flags = vec![
        "n=4096 grid=n/256".to_string(),
        "block=256 in:f32[n]=rnd".to_string(),
    ];
    let errs = parse_flags(&flags).unwrap_err();
    assert_eq!(errs.len(), 1);
    let e = &errs[0];
    assert_eq!((e.file.as_str(), e.line, e.col), ("--header", 2, 21), "{e}");
    let h = parse_flags(&flags[..1]).unwrap();
    assert_eq!(h.grid.unwrap()[0].at, At { line: 1, col: 13 });
}

#[test]
fn commas_split_outside_brackets() {
    let parts = split_commas("min(a, b), c[1,2] ,d", At { line: 1, col: 10 });
    let texts: Vec<(&str, usize)> = parts.iter().map(|w| (w.text.as_str(), w.at.col)).collect();
    assert_eq!(texts, [("min(a, b)", 10), ("c[1,2]", 21), ("d", 29)]);
}
