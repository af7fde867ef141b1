//! The `textures` rules, one mistake at a time, against a small valid lesson.

use crate::course::bundle::CourseRoot;
use crate::course::load::load_file;
use crate::model::texture::{AddressMode, FilterMode, ReadMode};
use crate::model::{Arg, Lesson};

const KERNEL: &str = "extern \"C\" __global__ void k(cudaTextureObject_t t, float* o, int n) { }\n";

const BASE: &str = "\
format_version: 1
id: tex
title: Tex
space: texture
pages:
  - { title: P, text: T }
problem: { w: 64, h: 32 }
buffers:
  - { name: in, type: f32, len: \"w * h\", init: random }
  - { name: out, type: f32, len: \"w * h\", init: poison }
textures:
  - { name: img, from: in, width: \"w\", height: \"h\", address: border, filter: linear }
variants:
  - name: a
    source: kernels/k.cu
    kernel: k
    launch: { grid: 8, block: 256 }
    args: [{ tex: img }, out, w]
reference: a
";

fn load(text: &str) -> Result<Lesson, Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    std::fs::write(dir.path().join("kernels/k.cu"), KERNEL).unwrap();
    let root = CourseRoot::Dir(dir.path().join("lessons"));
    load_file(&root, "09-tex.yaml", text).map_err(|errs| {
        errs.iter()
            .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
            .collect()
    })
}

/// Exactly one error, at `pos` ("line:col"), containing `phrase`.
fn one(from: &str, to: &str, pos: &str, phrase: &str) {
    assert!(BASE.contains(from), "{from}");
    let errs = load(&BASE.replacen(from, to, 1)).expect_err("should fail");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].starts_with(&format!("{pos}: ")), "{errs:#?}");
    assert!(errs[0].contains(phrase), "{errs:#?}");
}

#[test]
fn a_texture_is_resolved_and_passed_by_index() {
    let l = load(BASE).unwrap();
    let t = &l.textures[0];
    assert_eq!(
        (t.name.as_str(), t.buffer, t.width, t.height),
        ("img", 0, 64, 32)
    );
    assert_eq!(t.address, AddressMode::Border);
    assert_eq!(t.filter, FilterMode::Linear);
    assert_eq!((t.normalized, t.read), (false, ReadMode::Element));
    assert_eq!(l.variants[0].args[0], Arg::Texture(0));
}

#[test]
fn modes_default_to_clamp_point_element() {
    let l = load(&BASE.replacen(", address: border, filter: linear", "", 1)).unwrap();
    let t = &l.textures[0];
    assert_eq!(
        (t.address, t.filter),
        (AddressMode::Clamp, FilterMode::Point)
    );
}

#[test]
fn an_unknown_buffer_is_named_with_those_there_are() {
    one(
        "from: in",
        "from: inn",
        "12:24",
        "unknown buffer `inn` (buffers: in, out)",
    );
}

#[test]
fn an_output_cannot_be_a_texture() {
    one("from: in", "from: out", "12:24", "is an output");
}

#[test]
fn only_32_bit_texels() {
    one(
        "type: f32, len: \"w * h\", init: random",
        "type: f64, len: \"w * h\", init: random",
        "12:24",
        "f32, i32 or u32",
    );
}

#[test]
fn the_shape_must_cover_the_buffer() {
    one(
        "height: \"h\"",
        "height: \"h / 2\"",
        "12:48",
        "64 × 16 = 1024, but buffer `in` has 2048",
    );
}

#[test]
fn sizes_stay_within_a_2d_array() {
    one(
        "width: \"w\"",
        "width: \"0\"",
        "12:35",
        "`width` must be in 1..=131072",
    );
}

#[test]
fn an_unknown_mode_is_named_with_those_there_are() {
    one(
        "address: border",
        "address: edge",
        "12:62",
        "unknown mode `edge` (modes: clamp, border, wrap, mirror)",
    );
}

#[test]
fn wrap_needs_normalized_coordinates() {
    one(
        "address: border",
        "address: wrap",
        "12:62",
        "need `normalized: true`",
    );
    load(&BASE.replacen("address: border", "address: wrap, normalized: true", 1)).unwrap();
}

#[test]
fn linear_filtering_needs_float_texels() {
    one(
        "type: f32, len: \"w * h\", init: random",
        "type: u32, len: \"w * h\", init: random",
        "12:78",
        "needs an f32 buffer",
    );
}

#[test]
fn normalized_float_reads_are_refused_for_32_bit_texels() {
    one(
        "filter: linear",
        "filter: linear, read: normalized_float",
        "12:92",
        "8- or 16-bit",
    );
}

#[test]
fn an_argument_must_name_a_texture() {
    one(
        "{ tex: img }",
        "{ tex: im }",
        "18:19",
        "unknown texture `im` (textures: img)",
    );
}

#[test]
fn a_texture_name_is_given_once() {
    let twice = BASE.replacen(
        "textures:\n",
        "textures:\n  - { name: img, from: in, width: \"w\", height: \"h\" }\n",
        1,
    );
    let errs = load(&twice).expect_err("should fail");
    assert!(
        errs.iter()
            .any(|e| e.starts_with("13:") && e.contains("given once")),
        "{errs:#?}"
    );
}

#[test]
fn a_texture_does_not_fit_a_pointer_parameter() {
    let errs = load(&BASE.replacen(
        "args: [{ tex: img }, out, w]",
        "args: [out, { tex: img }, w]",
        1,
    ))
    .expect_err("should fail");
    assert!(
        errs.iter()
            .any(|e| e.contains("a texture object (8 bytes)")),
        "{errs:#?}"
    );
}
