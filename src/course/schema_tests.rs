use super::*;

fn yaml<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, serde_yaml::Error> {
    serde_yaml::from_str(s)
}

#[test]
fn like_variants_need_only_a_name() {
    let v: RawVariant = yaml("{ name: b, like: a, defines: { S: 32 } }").unwrap();
    assert_eq!(v.like.as_deref(), Some("a"));
    assert!(v.source.is_none() && v.launch.is_none());
    assert_eq!(
        v.defines.unwrap().0,
        vec![("S".into(), DefineValue::Int(32))]
    );
}

#[test]
fn misspelt_keys_are_errors() {
    let e = yaml::<RawVariant>("{ name: a, kernal: k }")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `kernal`"), "{e}");
    let e = yaml::<RawLaunch>("{ grid: 1, blok: 2 }")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `blok`"), "{e}");
    let e = yaml::<RawHead>("variant: []").unwrap_err().to_string();
    assert!(e.contains("`variants`"), "{e}");
}

#[test]
fn expressions_and_dims() {
    let l: RawLaunch = yaml("{ grid: \"n / 256\", block: [32, 8], smem: 0 }").unwrap();
    assert_eq!(l.grid.unwrap().items, vec![Expr("n / 256".into())]);
    let b = l.block.unwrap();
    assert!(b.listed);
    assert_eq!(b.items, vec![Expr("32".into()), Expr("8".into())]);
    assert_eq!(l.smem, Some(Expr("0".into())));
    assert!(yaml::<Expr>("1.5").is_err());
}

#[test]
fn args_of_every_form() {
    let a: Vec<RawArg> = yaml("[in, \"n / 2\", -7, { u32: n }, { f32: 0.5 }]").unwrap();
    assert_eq!(
        a,
        vec![
            RawArg::Text("in".into()),
            RawArg::Text("n / 2".into()),
            RawArg::Text("-7".into()),
            RawArg::Typed(ArgType::U32, Expr("n".into())),
            RawArg::F32(0.5),
        ]
    );
    let e = yaml::<Vec<RawArg>>("[{ u16: 3 }]").unwrap_err().to_string();
    assert!(e.contains("unknown field `u16`"), "{e}");
    assert!(yaml::<Vec<RawArg>>("[{ u32: 3, i32: 4 }]").is_err());
}

#[test]
fn references_and_defines() {
    let r: RawReference = yaml("stride-1").unwrap();
    assert!(matches!(r, RawReference::Variant(n) if n == "stride-1"));
    let r: RawReference = yaml("{ builtin: transpose, from: a, to: b, rows: 4, cols: n }").unwrap();
    let RawReference::Builtin(b) = r else {
        panic!("a builtin")
    };
    assert_eq!(
        (b.builtin.as_str(), b.cols),
        ("transpose", Some(Expr("n".into())))
    );
    let e = yaml::<RawReference>("{ builtin: copy, form: a, to: b }")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `form`"), "{e}");
    let d: OrderedMap<DefineValue> = yaml("{ B: 2, A: 1.5, T: float }").unwrap();
    let texts: Vec<String> = d.0.iter().map(|(_, v)| v.to_text()).collect();
    assert_eq!(texts, ["2", "1.5", "float"]);
    assert!(yaml::<OrderedMap<DefineValue>>("{ A: [1] }").is_err());
}
