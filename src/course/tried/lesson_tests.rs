use super::*;
use crate::model::{Arg, Init, Reference};

/// `files` (name, text) written in a folder of their own, and a spec of them all.
fn folder(files: &[(&str, &str)]) -> (tempfile::TempDir, TrySpec) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let spec = TrySpec {
        files: files.iter().map(|(n, _)| dir.path().join(n)).collect(),
        ..TrySpec::default()
    };
    (dir, spec)
}

const KERNEL: &str = "extern \"C\" __global__ void copy(const float* in, float* out, int n)\n\
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i]; }\n";

fn with_header(header: &str) -> String {
    format!("// gpulab: {header}\n{KERNEL}")
}

const HEADER: &str = "n=1<<16 cpu.n=1024 grid=n/TILE block=TILE in:f32[n]=random out:f32[n]";

#[test]
fn a_header_becomes_a_lesson_and_its_cpu_sizes_a_second_reading() {
    let text = with_header(&format!("{HEADER} bytes=2*n*4 check=copy(in,out)"));
    let (_d, mut spec) = folder(&[("copy.cu", &text)]);
    spec.defines = vec!["TILE=256".into()];
    let t = build(&spec).unwrap_or_else(|e| panic!("{e:#?}"));
    let l = &t.lesson;
    assert_eq!(l.id, LESSON_ID);
    assert_eq!(l.problem, vec![("n".to_string(), 65536)]);
    assert_eq!(l.problem_cpu, vec![("n".to_string(), 1024)]);
    assert_eq!(l.buffers.len(), 2);
    assert!(matches!(l.buffers[0].init, Init::Random { .. }));
    assert!(l.buffers[1].is_output());
    let v = &l.variants[0];
    // One file and one value of TILE: the variant is the file's.
    assert_eq!(v.name, "copy");
    assert_eq!(v.grid, [256, 1, 1]);
    assert_eq!(v.block, [256, 1, 1]);
    assert_eq!(v.defines, vec![("TILE".to_string(), "256".to_string())]);
    // Matched by the parameters' names.
    assert_eq!(
        v.args,
        vec![Arg::Buffer(0), Arg::Buffer(1), Arg::I32(65536)]
    );
    assert_eq!(v.source_path, spec.files[0].display().to_string());
    assert_eq!(l.reference, Reference::Copy { from: 0, to: 1 });
    assert_eq!(l.metrics.bytes, Some(2.0 * 65536.0 * 4.0));
    assert!(matches!(t.checked, Checked::Builtin(ref w) if w.contains("copy (in to out)")));
    let sized = t.sized.as_ref().unwrap();
    assert_eq!(sized.variants[0].grid, [4, 1, 1]);
    assert_eq!(sized.variants[0].args[2], Arg::I32(1024));
}

#[test]
fn defines_with_several_values_make_a_variant_of_each_setting() {
    let (_d, mut spec) = folder(&[("copy.cu", &with_header(HEADER))]);
    spec.defines = ["TILE=128", "TILE=256", "VEC=1", "VEC=2", "FAST"]
        .map(String::from)
        .to_vec();
    let t = build(&spec).unwrap_or_else(|e| panic!("{e:#?}"));
    let names: Vec<&str> = t.lesson.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "TILE-128-VEC-1",
            "TILE-128-VEC-2",
            "TILE-256-VEC-1",
            "TILE-256-VEC-2"
        ]
    );
    let v = &t.lesson.variants[3];
    assert_eq!(v.grid, [256, 1, 1]);
    assert!(v.defines.contains(&("FAST".to_string(), "1".to_string())));
    // Several variants and no check: the first is the reference.
    assert_eq!(t.checked, Checked::Variant("TILE-128-VEC-1".into()));
    assert!(
        t.lesson.variants[1]
            .note
            .as_deref()
            .unwrap()
            .ends_with("-DTILE=128 -DVEC=2 -DFAST=1")
    );
}

#[test]
fn files_side_by_side_share_sizes_and_differ_in_launch() {
    let a = with_header("n=4096 in:f32[n]=random out:f32[n] grid=n/256 block=256");
    let b = with_header("grid=n/128 block=128");
    let (_d, mut spec) = folder(&[("a.cu", &a), ("b v2.cu", &b)]);
    let t = build(&spec).unwrap_or_else(|e| panic!("{e:#?}"));
    let launch: Vec<(&str, u32)> = (t.lesson.variants.iter())
        .map(|v| (v.name.as_str(), v.block[0]))
        .collect();
    assert_eq!(launch, [("a", 256), ("b_v2", 128)]);
    for (r, want) in [
        ("b v2.cu", "b_v2"),
        ("b_v2", "b_v2"),
        ("a", "a"),
        (spec.files[0].to_str().unwrap(), "a"),
    ] {
        spec.reference = Some(r.to_string());
        let t = build(&spec).unwrap_or_else(|e| panic!("{r}: {e:#?}"));
        assert_eq!(t.checked, Checked::Variant(want.into()), "{r}");
    }
    spec.reference = Some("none".into());
    let t = build(&spec).unwrap();
    assert_eq!(t.checked, Checked::Nothing);
    assert!(t.sized.is_none(), "nothing to check at the CPU sizes");
}

#[test]
fn two_files_that_disagree_on_a_size_are_an_error_naming_both_places() {
    let a = with_header("n=4096 in:f32[n]=random out:f32[n] grid=n/256 block=256");
    let b = with_header("n=8192");
    let (_d, spec) = folder(&[("a.cu", &a), ("b.cu", &b)]);
    let errs = build(&spec).unwrap_err();
    assert_eq!(errs.len(), 1, "{errs:#?}");
    let e = errs[0].to_string();
    assert!(
        e.ends_with(&format!(
            "b.cu:1:14: size `n` is `8192` here but `4096` at {}:1:14: files tried together \
         share their sizes and buffers (give it in one file, or alike in each)",
            spec.files[0].display()
        )),
        "{e}"
    );
}

#[test]
fn the_kernel_is_the_only_one_or_the_one_named_and_extern_c() {
    let two = format!(
        "{}\nextern \"C\" __global__ void other(int n) {{}}\n",
        with_header(HEADER)
    );
    let (_d, mut spec) = folder(&[("k.cu", &two)]);
    spec.defines = vec!["TILE=256".into()];
    let e = build(&spec).unwrap_err()[0].to_string();
    assert!(
        e.contains("2 kernels (copy, other)") && e.contains("kernel=NAME"),
        "{e}"
    );
    let named = two.replacen("// gpulab: ", "// gpulab: kernel=copy ", 1);
    std::fs::write(&spec.files[0], named).unwrap();
    assert_eq!(build(&spec).unwrap().lesson.variants[0].kernel, "copy");
    let mangled = with_header(HEADER).replace("extern \"C\" ", "");
    std::fs::write(&spec.files[0], mangled).unwrap();
    let e = build(&spec).unwrap_err()[0].to_string();
    assert!(
        e.contains("write `extern \"C\" __global__ void copy(...)`"),
        "{e}"
    );
}

#[test]
fn a_parameter_named_after_nothing_asks_for_it_in_the_header() {
    let text = with_header("m=4 in:f32[m]=random grid=1 block=32");
    let (_d, spec) = folder(&[("k.cu", &text)]);
    let e = build(&spec).unwrap_err()[0].to_string();
    assert!(
        e.contains(":1:4: the header does not say all that `copy` needs"),
        "{e}"
    );
    // The new buffer is as long as the size there is.
    assert!(
        e.contains("add `n=1<<20`, `out:f32[m]`, so that it reads:"),
        "{e}"
    );
    assert!(
        e.ends_with("// gpulab: m=4 in:f32[m]=random grid=1 block=32 n=1<<20 out:f32[m]"),
        "{e}"
    );
}

#[test]
fn a_problem_the_loader_finds_is_placed_in_the_header() {
    // A macro that is no integer names nothing in an expression: the loader's to refuse,
    // at the name in the header.
    let text = with_header("n=4096 in:f32[n]=random out:f32[n] grid=n/X block=64");
    let (_d, mut spec) = folder(&[("k.cu", &text)]);
    spec.defines = vec!["X=wide".into()];
    let errs = build(&spec).unwrap_err();
    let line = text.lines().next().unwrap();
    let col = line.find("n/X").unwrap() + 1;
    assert!(
        errs.iter()
            .any(|e| e.line == 1 && e.col >= col && e.col <= col + 2),
        "{errs:#?}"
    );
}

#[test]
fn with_args_given_only_the_launch_can_be_missing() {
    let text = with_header("m=4 in:f32[m]=random out:f32[m] args=in,out,m");
    let (_d, spec) = folder(&[("k.cu", &text)]);
    let e = build(&spec).unwrap_err()[0].to_string();
    assert!(
        e.contains("add `grid=ceil_div(m,256)`, `block=256`, so that it reads:"),
        "{e}"
    );
    let fixed = with_header("m=4 in:f32[m]=random out:f32[m] args=in,out,m grid=1 block=32");
    std::fs::write(&spec.files[0], fixed).unwrap();
    let t = build(&spec).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(t.lesson.variants[0].args[2], Arg::I32(4));
}

#[test]
fn files_that_give_the_same_check_at_other_places_agree() {
    let a =
        with_header("n=4096 in:f32[n]=random out:f32[n] grid=n/256 block=256 check=copy(in,out)");
    let b = with_header("grid=n/128 block=128 trace=2 check=copy(in,out)");
    let (_d, spec) = folder(&[("a.cu", &a), ("b.cu", &b)]);
    let t = build(&spec).unwrap_or_else(|e| panic!("{e:#?}"));
    assert!(matches!(t.checked, Checked::Builtin(_)));
    assert_eq!(t.lesson.trace_blocks, 2);
    std::fs::write(&spec.files[1], with_header("peak=none check=copy(out,in)")).unwrap();
    let errs = build(&spec).unwrap_err();
    let e = errs[0].to_string();
    assert!(
        e.contains("`check=` is `copy(out,in)` here but `copy(in,out)` at"),
        "{e}"
    );
}
