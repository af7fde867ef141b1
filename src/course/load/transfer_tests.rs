//! The host's keys (`transfer`, `memory`, `prefetch`, `peak: link`), one mistake at a time,
//! against a small valid lesson: each error at its `line:col`.

use crate::course::bundle::CourseRoot;
use crate::course::load::load_file;
use crate::model::host::{Memory, Side, Transfer};
use crate::model::{Arg, Lesson};

const KERNEL: &str = "extern \"C\" __global__ void k(const unsigned* i, unsigned* o, int n) { }\n";

const BASE: &str = "\
format_version: 1
id: host
title: Host
space: host
pages:
  - { title: P, text: T }
problem: { n: 1024 }
buffers:
  - { name: src, type: u32, len: \"n\", init: seq }
  - { name: src_m, type: u32, len: \"n\", init: seq, memory: managed }
  - { name: src_z, type: u32, len: \"n\", init: seq, memory: mapped }
  - { name: out, type: u32, len: \"n\", init: poison }
variants:
  - name: dev
    source: kernels/k.cu
    kernel: k
    launch: { grid: 4, block: 256 }
    args: [src, out, n]
  - { name: zero, like: dev, args: [src_z, out, n] }
  - { name: touch, like: dev, args: [src_m, out, n] }
  - { name: ahead, like: touch, prefetch: true }
  - name: up
    transfer: { from: pinned, to: device, buffer: src }
  - { name: down, like: up, transfer: { from: device, to: pageable, buffer: src } }
reference: dev
metrics: { bytes: \"n * 4\", peak: link }
";

fn load(text: &str) -> Result<Lesson, Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    std::fs::write(dir.path().join("kernels/k.cu"), KERNEL).unwrap();
    let root = CourseRoot::Dir(dir.path().join("lessons"));
    load_file(&root, "03-host.yaml", text).map_err(|errs| {
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
fn the_host_keys_resolve() {
    let l = load(BASE).unwrap();
    let kinds: Vec<Memory> = l.buffers.iter().map(|b| b.memory).collect();
    assert_eq!(
        kinds,
        [
            Memory::Device,
            Memory::Managed,
            Memory::Mapped,
            Memory::Device
        ]
    );
    let v = |n: &str| l.variant(n).unwrap();
    assert_eq!(v("zero").args[0], Arg::Buffer(2));
    assert!(!v("touch").prefetch && v("ahead").prefetch);
    assert_eq!(
        v("up").transfer,
        Some(Transfer {
            from: Side::Pinned,
            to: Side::Device,
            buffer: 0
        })
    );
    assert_eq!(v("up").note.as_deref(), Some("H2D pinned"));
    // `like:` a transfer and a `transfer` of its own: the child's wins.
    assert_eq!(v("down").transfer.unwrap().describe(), "D2H pageable");
    assert!(v("up").source.is_empty() && v("up").kernel.is_empty());
    assert!(l.metrics.link_peak && !l.metrics.no_peak);
    assert!(l.uses_host_memory());
}

#[test]
fn a_lesson_without_the_host_keys_serializes_as_before() {
    let text = BASE
        .replacen(", memory: managed", "", 1)
        .replacen(", memory: mapped", "", 1)
        .replacen(", prefetch: true", "", 1)
        .replacen(", peak: link", "", 1);
    let cut = text.find("  - name: up").unwrap();
    let end = text.find("reference:").unwrap();
    let text = format!("{}{}", &text[..cut], &text[end..]);
    let l = load(&text).unwrap();
    assert!(!l.uses_host_memory());
    let json = serde_json::to_string(&l).unwrap();
    for key in ["memory", "transfer", "prefetch", "link_peak"] {
        assert!(!json.contains(&format!("\"{key}\"")), "{key} in {json}");
    }
}

#[test]
fn a_transfer_goes_between_host_and_device() {
    one(
        "{ from: pinned, to: device, buffer: src }",
        "{ from: pinned, to: pageable, buffer: src }",
        "23:35",
        "one of `from` and `to` is `device`",
    );
    one(
        "{ from: pinned, to: device, buffer: src }",
        "{ from: pinned, to: device, buffer: nope }",
        "23:51",
        "unknown buffer `nope` (buffers: src, src_m, src_z, out)",
    );
    one(
        "{ from: pinned, to: device, buffer: src }",
        "{ from: pinned, to: device, buffer: out }",
        "23:51",
        "an output",
    );
    one(
        "{ from: pinned, to: device, buffer: src }",
        "{ from: pinned, to: device, buffer: src_z }",
        "23:51",
        "not in device memory",
    );
    one(
        "{ from: pinned, to: device, buffer: src }",
        "{ from: pinned, to: gpu, buffer: src }",
        "23:35",
        "`gpu`",
    );
}

#[test]
fn a_transfer_runs_no_kernel_and_is_no_reference() {
    one(
        "  - name: up\n",
        "  - name: up\n    kernel: k\n",
        "23:5",
        "`kernel` has no place in it",
    );
    one(
        "reference: dev",
        "reference: up",
        "25:12",
        "the reference must be a kernel; `up` is a `transfer`",
    );
    one(
        "{ name: down, like: up,",
        "{ name: down, like: up, cold_l2: true,",
        "24:5",
        "`defines`, `options` and `cold_l2` are for kernels",
    );
}

#[test]
fn host_memory_is_for_inputs_and_prefetch_for_managed_ones() {
    one(
        "{ name: out, type: u32, len: \"n\", init: poison }",
        "{ name: out, type: u32, len: \"n\", init: poison, memory: mapped }",
        "12:61",
        "are for inputs",
    );
    one(
        "{ name: src_m, type: u32, len: \"n\", init: seq, memory: managed }",
        "{ name: src_m, type: u32, len: \"n\", init: seq, memory: pinned }",
        "10:60",
        "unknown memory `pinned`",
    );
    one(
        "{ name: zero, like: dev, args: [src_z, out, n] }",
        "{ name: zero, like: dev, args: [src_z, out, n], prefetch: true }",
        "19:63",
        "`prefetch` is for a kernel that reads a buffer with `memory: managed`",
    );
    one(
        "peak: link",
        "peak: pcie",
        "26:34",
        "`copy`, `cublas`, `link` or `none`",
    );
}

#[test]
fn copies_and_host_memory_are_in_the_fingerprint() {
    let l = load(BASE).unwrap();
    let hash = |n: &str| crate::analysis::fingerprint::variant_hash(&l, l.variant(n).unwrap());
    // Two copies differ only in their ends; two kernels only in where a buffer lives or
    // whether it is prefetched: a recording of one must not stand for the other.
    assert_ne!(hash("up"), hash("down"));
    assert_ne!(hash("touch"), hash("ahead"));
    let mut moved = l.clone();
    moved.buffers[1].memory = Memory::Mapped;
    let touch = l.variant("touch").unwrap();
    assert_ne!(
        hash("touch"),
        crate::analysis::fingerprint::variant_hash(&moved, touch)
    );
    // A kernel on device memory hashes as it did before the host's keys.
    let mut plain = l.clone();
    plain.buffers[1].memory = Memory::Device;
    plain.buffers[2].memory = Memory::Device;
    assert_eq!(
        hash("dev"),
        crate::analysis::fingerprint::variant_hash(&plain, l.variant("dev").unwrap())
    );
}
