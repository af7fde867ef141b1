//! Launch attributes in the lesson format — `launch.cluster`, `launch.l2_window` and the
//! lesson's `l2_persisting_bytes` — loaded, inherited by `like:`, and refused at their line
//! and column.

use crate::support::common;

use gpulab::model::{L2Access, L2Window, Lesson, Requires};

const BASE: &str = r#"format_version: 1
id: probe
title: Probe
space: dsmem
pages: [{ title: t, text: x }]
problem: { n: 1024 }
buffers:
  - { name: in, type: f32, len: n, init: random }
  - { name: tbl, type: f32, len: 64, init: random }
  - { name: out, type: f32, len: n, init: poison }
  - { name: cycles, type: u64, len: n, init: poison }
variants:
  - name: uniform
    source: kernels/probe.cu
    kernel: probe
    defines: { ITERS: 4 }
    launch: { grid: "n / 256", block: 256, cluster: [2, 1, 1] }
    args: [in, out, cycles, n]
    constants: [{ symbol: table, from: tbl }]
  - name: divergent
    like: uniform
    launch: { l2_window: { buffer: in, fraction: 0.5, hit: persisting, miss: streaming } }
reference: uniform
l2_persisting_bytes: "n * 4"
"#;

fn load(text: &str) -> Result<Lesson, Vec<String>> {
    common::load_probe("07-probe.yaml", text)
}

fn single_error(from: &str, to: &str, phrase: &str) {
    common::single_probe_error("07-probe.yaml", BASE, from, to, phrase)
}

#[test]
fn clusters_and_windows_load_and_like_keeps_the_parents_cluster() {
    let l = load(BASE).unwrap();
    assert_eq!(l.variants[0].attrs.cluster, Some([2, 1, 1]));
    assert_eq!(l.variants[0].attrs.l2_window, None);
    // `like:` overrides only the launch keys it writes: the grid and the cluster stay.
    assert_eq!(l.variants[1].attrs.cluster, Some([2, 1, 1]));
    assert_eq!(l.variants[1].grid, [4, 1, 1]);
    assert_eq!(
        l.variants[1].attrs.l2_window,
        Some(L2Window {
            buffer: 0,
            fraction: 0.5,
            hit: L2Access::Persisting,
            miss: L2Access::Streaming,
        })
    );
    assert_eq!(l.l2_persisting_bytes, Some(4096));
    // A cluster needs CC 9.0 even where the lesson does not say so.
    assert_eq!(
        l.requires,
        Requires {
            cc: Some((9, 0)),
            gpus: None
        }
    );
}

#[test]
fn lessons_without_attributes_launch_as_before() {
    let plain = BASE
        .replace(", cluster: [2, 1, 1]", "")
        .replace("l2_persisting_bytes: \"n * 4\"\n", "")
        .replace(
            "    launch: { l2_window: { buffer: in, fraction: 0.5, hit: persisting, miss: streaming } }\n",
            "",
        );
    let l = load(&plain).unwrap();
    assert!(l.variants.iter().all(|v| v.attrs.is_empty()));
    assert_eq!(l.l2_persisting_bytes, None);
    assert_eq!(l.requires, Requires::default());
    let json = serde_json::to_string(&l.variants[0]).unwrap();
    assert!(!json.contains("attrs"), "{json}");
}

#[test]
fn the_grid_must_be_a_multiple_of_the_cluster() {
    single_error(
        "cluster: [2, 1, 1]",
        "cluster: [3, 1, 1]",
        "not a multiple of cluster x (3)",
    );
}

#[test]
fn clusters_are_portable_sizes_only() {
    single_error(
        "cluster: [2, 1, 1]",
        "cluster: [16, 1, 1]",
        "cluster x must be 1 to 8",
    );
    single_error(
        "launch: { grid: \"n / 256\", block: 256, cluster: [2, 1, 1] }",
        "launch: { grid: [4, 4], block: 64, cluster: [4, 4] }",
        "at most 8 blocks (this one has 16)",
    );
    single_error(
        "cluster: [2, 1, 1]",
        "cluster: [1, 1, 1, 1]",
        "1 to 3 expressions",
    );
}

#[test]
fn window_keys_are_checked() {
    single_error("buffer: in,", "buffer: nope,", "unknown buffer `nope`");
    single_error("fraction: 0.5", "fraction: 1.5", "`fraction` is 0 to 1");
    single_error(
        "hit: persisting",
        "hit: sticky",
        "`hit` is normal, streaming or persisting",
    );
    single_error(
        "l2_persisting_bytes: \"n * 4\"",
        "l2_persisting_bytes: \"0 - n\"",
        "must be at least 0",
    );
    single_error("cluster: [2, 1, 1]", "clusters: [2, 1, 1]", "clusters");
}

#[test]
fn a_buffer_on_the_peer_gpu_makes_the_lesson_need_two() {
    let l = load(&BASE.replace(
        "{ name: tbl, type: f32, len: 64, init: random }",
        "{ name: tbl, type: f32, len: 64, init: random, gpu: 1 }",
    ))
    .unwrap();
    assert_eq!(l.buffers[1].gpu, 1);
    assert_eq!(l.buffers[0].gpu, 0);
    assert_eq!(l.requires.gpus, Some(2));
    assert!(l.requires.unmet("9.0", 1).unwrap().contains("needs 2 GPUs"));
    assert_eq!(load(BASE).unwrap().requires.gpus, None);
}

#[test]
fn a_buffer_is_on_gpu_0_or_1() {
    single_error(
        "{ name: tbl, type: f32, len: 64, init: random }",
        "{ name: tbl, type: f32, len: 64, init: random, gpu: 2 }",
        "`gpu` is 0 (the GPU that runs the kernels) or 1 (its peer), not 2",
    );
}

/// BASE with `carveout: VALUE` written on the second variant's launch.
fn with_carveout(value: &str) -> String {
    BASE.replacen(
        "launch: { l2_window:",
        &format!("launch: {{ carveout: {value}, l2_window:"),
        1,
    )
}

#[test]
fn a_carveout_is_a_percentage_or_a_word_and_like_keeps_it() {
    for (written, want) in [
        ("0", 0),
        ("25", 25),
        ("100", 100),
        ("max_l1", 0),
        ("max_shared", 100),
        ("\"max_shared\"", 100),
    ] {
        let l = load(&with_carveout(written)).unwrap();
        assert_eq!(l.variants[0].attrs.carveout, None, "{written}");
        assert_eq!(l.variants[1].attrs.carveout, Some(want), "{written}");
    }
    // A child of a variant with a carve-out keeps it unless it gives its own.
    let text = with_carveout("max_l1").replace(
        "reference: uniform",
        "  - { name: child, like: divergent }\n  - name: own\n    like: divergent\n    \
         launch: { carveout: 60 }\nreference: uniform",
    );
    let l = load(&text).unwrap();
    let carveouts: Vec<_> = l.variants.iter().map(|v| v.attrs.carveout).collect();
    assert_eq!(carveouts, [None, Some(0), Some(0), Some(60)]);
    let json = serde_json::to_string(&l.variants[1].attrs).unwrap();
    assert!(json.contains("\"carveout\":0"), "{json}");
}

#[test]
fn a_carveout_out_of_range_is_refused_at_its_line_and_column() {
    for bad in ["101", "-1", "50.5", "half", "max-l1", "\"\""] {
        let text = with_carveout(bad);
        let errs = load(&text).expect_err(bad);
        assert_eq!(errs.len(), 1, "{bad}: {errs:#?}");
        let (line, col) = (text.lines().enumerate())
            .find_map(|(i, l)| l.find(&format!("carveout: {bad}")).map(|c| (i + 1, c + 11)))
            .unwrap();
        assert!(
            errs[0].starts_with(&format!("{line}:{col}:")),
            "{bad}: {errs:?} (want {line}:{col})"
        );
        assert!(
            errs[0].contains("whole percentage from 0 to 100"),
            "{errs:?}"
        );
        assert!(errs[0].contains("max_l1 or max_shared"), "{errs:?}");
    }
    // Not a value at all: the reader's own error, still at the key's line.
    let errs = load(&with_carveout("[1, 2]")).expect_err("a list");
    let line = 1 + with_carveout("[1, 2]")
        .lines()
        .position(|l| l.contains("carveout"))
        .unwrap();
    assert!(
        errs.iter().any(|e| e.starts_with(&format!("{line}:"))),
        "{errs:?}"
    );
}

#[test]
fn the_fingerprint_changes_only_where_a_carveout_is_written() {
    use gpulab::analysis::fingerprint::variant_hash;
    let plain = load(BASE).unwrap();
    let hashes =
        |l: &Lesson| -> Vec<String> { l.variants.iter().map(|v| variant_hash(l, v)).collect() };
    let max_l1 = load(&with_carveout("max_l1")).unwrap();
    let max_shared = load(&with_carveout("100")).unwrap();
    let (p, a, b) = (hashes(&plain), hashes(&max_l1), hashes(&max_shared));
    // The variant without the key keeps its hash; the one with it gets a new one per value.
    assert_eq!((&p[0], &a[0], &b[0]), (&p[0], &p[0], &p[0]));
    assert_ne!(a[1], p[1]);
    assert_ne!(b[1], p[1]);
    assert_ne!(a[1], b[1]);
    // `max_l1` and 0 are the same launch.
    assert_eq!(hashes(&load(&with_carveout("0")).unwrap())[1], a[1]);
    // Without the key nothing is written: recordings keep their text.
    let json = serde_json::to_string(&plain.variants[1]).unwrap();
    assert!(!json.contains("carveout"), "{json}");
}
