//! The tracer's newer spaces on a real GPU: texture fetches whose footprints are known
//! (a column, a row, a broadcast) and distributed shared memory read through the cluster
//! (the neighbour's block and the block's own, through the same instructions). Skips where
//! there is no GPU; the cluster part needs CC 9.0.

use crate::support::common;

use gpulab::model::access::{InstructionSummary, Space};
use gpulab::model::results::VariantResult;

const TEXTURE: &str = r#"format_version: 1
id: fetch
title: Fetch
space: texture
pages: [{ title: t, text: x }]
problem: { n: 256 }
buffers:
  - { name: in, type: f32, len: "n * n", init: random }
  - { name: out, type: f32, len: "n * n", init: poison }
textures:
  - { name: img, from: in, width: "n", height: "n", address: clamp, filter: point }
variants:
  - name: column
    source: kernels/fetch.cu
    kernel: fetch
    defines: { WALK: 0 }
    launch: { grid: "n", block: "n" }
    args: [{ tex: img }, out, n]
  - { name: row, like: column, defines: { WALK: 1 } }
  - { name: broadcast, like: column, defines: { WALK: 2 } }
reference: { builtin: copy, from: in, to: out }
trace: { blocks: 2 }
"#;

fn by<'a>(results: &'a [VariantResult], name: &str) -> &'a VariantResult {
    results.iter().find(|v| v.name == name).unwrap()
}

fn in_space(v: &VariantResult, space: Space) -> Vec<&InstructionSummary> {
    let m = v
        .memory
        .as_ref()
        .unwrap_or_else(|| panic!("{}: {:?}", v.name, v.trace_error));
    m.instructions.iter().filter(|i| i.space == space).collect()
}

#[test]
fn texture_fetches_name_the_texels_each_walk_reads() {
    let Some((_, results)) = common::run_probe_on_gpu("01-fetch.yaml", TEXTURE, true) else {
        return;
    };
    for v in &results {
        assert_eq!(v.correct, Some(true), "{}: {:?}", v.name, v.error);
    }
    // (texels, rows) per request of each variant's fetch of its own texel.
    for (name, texels, rows) in [("column", 32, 32), ("row", 32, 1), ("broadcast", 32, 1)] {
        let v = by(&results, name);
        let t = &v.memory.as_ref().unwrap().texture;
        eprintln!("{name}: {t:?}");
        // The fetch of the lane's own texel names the most texels (PTX may order them).
        let mut fetches = in_space(v, Space::Texture);
        fetches.sort_by_key(|i| std::cmp::Reverse(i.texels));
        let own = fetches[0];
        assert_eq!(own.texels, texels * own.requests, "{name}");
        assert_eq!(own.texel_rows, rows * own.requests, "{name}");
        // Two blocks of 8 warps traced.
        assert_eq!(own.requests, 16, "{name}");
        let w = &own.footprint[0];
        assert_eq!(w.texels.len(), 32, "{name}");
        for &(lane, x, y) in &w.texels {
            let t = 32 * i64::from(w.warp) + i64::from(lane);
            let b = i64::from(w.block);
            let want = if name == "column" { (b, t) } else { (t, b) };
            assert_eq!((x, y), want, "{name} lane {lane}");
        }
    }
    let mut fetches = in_space(by(&results, "broadcast"), Space::Texture);
    assert_eq!(fetches.len(), 2);
    fetches.sort_by_key(|i| i.texels);
    let second = fetches[0];
    assert_eq!(
        (second.texels, second.texel_rows),
        (second.requests, second.requests)
    );
}

const DSMEM: &str = r#"format_version: 1
id: neighbour
title: Neighbour
space: dsmem
pages: [{ title: t, text: x }]
problem: { blocks: 64, reps: 16 }
buffers:
  - { name: data, type: u32, len: "blocks * 1024", init: seq }
  - { name: scratch, type: u32, len: "blocks * 1024", init: zeros }
  - { name: out, type: u32, len: "blocks * 256", init: poison }
  - { name: cycles, type: u64, len: "blocks", init: poison }
variants:
  - name: remote
    source: kernels/neighbour.cu
    kernel: neighbour_sum
    defines: { PATH: 0, TARGET: 1, CHASE: 16 }
    launch: { grid: "blocks", block: 256, cluster: [2, 1, 1] }
    args: [data, scratch, out, cycles, "reps"]
  - { name: own, like: remote, defines: { TARGET: 0 } }
reference: remote
measures:
  - { name: cycles_per_access, from: cycles, summary: median, per: "CHASE", unit: cycles }
trace: { blocks: 2 }
"#;

#[test]
fn cluster_reads_name_the_block_and_offset_they_reach() {
    let Some((device, results)) = common::run_probe_on_gpu("01-neighbour.yaml", DSMEM, true) else {
        return;
    };
    if device
        .cc
        .split_once('.')
        .and_then(|(m, _)| m.parse::<u32>().ok())
        < Some(9)
    {
        assert!(results.iter().all(|v| v.unmet.is_some()), "{results:#?}");
        return;
    }
    for (name, remote) in [("remote", true), ("own", false)] {
        let v = by(&results, name);
        assert_eq!(v.correct, Some(true), "{name}: {:?}", v.error);
        let c = &v.memory.as_ref().unwrap().cluster;
        eprintln!("{name}: {c:?}");
        assert!(c.requests > 0, "{name}");
        assert_eq!(
            c.remote_requests,
            if remote { c.requests } else { 0 },
            "{name}"
        );
        let sites = in_space(v, Space::Cluster);
        assert!(!sites.is_empty(), "{name}");
        for i in &sites {
            // A whole warp reads 32 consecutive words (4 sectors); the chase, one lane (1).
            let s = i.sample.as_ref().unwrap();
            let want = if s.mask == u32::MAX { 4 } else { 1 };
            assert_eq!(
                i.sectors,
                want * i.requests,
                "{name} line {:?}",
                i.source_line
            );
            let target = |l: usize| gpulab::analysis::spaces::cluster_target(s.addrs[l]);
            let (rank0, offset0) = target(s.mask.trailing_zeros() as usize);
            // Two blocks a cluster; an offset inside one SM's shared memory (228 KiB).
            assert!(
                rank0 < 2 && offset0 < 228 * 1024,
                "{name}: {rank0} {offset0}"
            );
            if s.mask == u32::MAX {
                for lane in 0..32 {
                    assert_eq!(target(lane), (rank0, offset0 + 4 * lane as u32), "{name}");
                }
            }
        }
    }
}

/// A copy of `n` floats over 64 blocks of 128 threads whose block `odd` (37) strays, by
/// `kernel` in kernels/`kernel`.cu, traced in `blocks` blocks by default: the census's
/// probes, which differ only in their kernel.
fn census_lesson(kernel: &str, space: &str, blocks: u32) -> String {
    let id = kernel.replace('_', "-");
    format!(
        r#"format_version: 1
id: {id}
title: Census
space: {space}
pages: [{{ title: t, text: x }}]
problem: {{ n: 8192, odd: 37 }}
buffers:
  - {{ name: in, type: f32, len: "n", init: random }}
  - {{ name: out, type: f32, len: "n", init: poison }}
variants:
  - name: copy
    source: kernels/{kernel}.cu
    kernel: {kernel}
    launch: {{ grid: "n / 128", block: 128 }}
    args: [in, out, n, odd]
reference: {{ builtin: copy, from: in, to: out }}
trace: {{ blocks: {blocks} }}
"#
    )
}

/// A check's sample (seeded) leaves most blocks out; the census counts every block's global
/// requests and sectors, and a block outside the sample that runs a line no sampled block
/// ran is traced too. Block 37 of 64 reads its inputs a second time, 32 words apart: 4
/// warps × 1 request × 32 sectors more than a copy's 64 × 4 × 2 requests of 4 sectors.
#[test]
fn the_census_counts_every_block_and_traces_the_path_only_one_took() {
    use gpulab::model::protocol::RunOptions;
    let seed = 7;
    let options = RunOptions {
        trace: true,
        time: false,
        trace_blocks: 2,
        sample_seed: seed,
        ..Default::default()
    };
    let Some((_, results)) = common::run_probe_on_gpu_with(
        "01-census.yaml",
        &census_lesson("census", "global", 2),
        options,
    ) else {
        return;
    };
    let v = by(&results, "copy");
    assert_eq!(v.correct, Some(true), "{:?}", v.error);
    let m = v
        .memory
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", v.trace_error));
    assert_eq!(m.overflow, 0);
    assert_eq!(m.global.requests, 64 * 4 * 2 + 4, "{:?}", m.global);
    assert_eq!(m.global.sectors, 64 * 4 * 2 * 4 + 4 * 32, "{:?}", m.global);
    assert_eq!(m.global.bytes_used, 64 * 128 * 4 * 2 + 4 * 32 * 4);
    let census = m
        .census
        .expect("a seeded sample of 2 of 64 blocks has a census");
    // The sample the worker drew, as the logger draws it.
    let lesson =
        common::load_probe("01-census.yaml", &census_lesson("census", "global", 2)).unwrap();
    let drawn = gpulab::trace::sample::BlockSample::of(&lesson.variants[0], lesson.trace_blocks, 2)
        .hashed(seed);
    let odd_sampled = drawn.traces(37);
    assert_eq!(census.added_blocks, u64::from(!odd_sampled), "{drawn:?}");
    assert_eq!(m.traced_blocks, drawn.traced + census.added_blocks);
    // The odd block's second read is traced, whichever way it came in: 32 sectors a request.
    let strided: Vec<_> = (m.instructions.iter())
        .filter(|i| i.space == Space::Global && i.requests > 0 && i.sectors == 32 * i.requests)
        .collect();
    assert_eq!(strided.len(), 1, "{:#?}", m.instructions);
}

/// The census costs every block's shared loads and stores as a trace of every block does,
/// wavefront for wavefront, whatever their width, pairing or pitch: a seeded sample of 2 of
/// 64 blocks that vary by block gives the whole trace's shared totals exactly, the odd
/// block's 32-way conflict included, where the sample alone says otherwise.
#[test]
fn the_census_costs_every_block_s_shared_requests_as_a_whole_trace_does() {
    use gpulab::model::protocol::RunOptions;
    let run = |trace_blocks, sample_seed| {
        let options = RunOptions {
            trace: true,
            time: false,
            trace_blocks,
            sample_seed,
            ..Default::default()
        };
        let (_, results) = common::run_probe_on_gpu_with(
            "01-census-shared.yaml",
            &census_lesson("census_shared", "shared", 64),
            options,
        )?;
        let v = by(&results, "copy");
        assert_eq!(v.correct, Some(true), "{:?}", v.error);
        let m = v
            .memory
            .clone()
            .unwrap_or_else(|| panic!("{:?}", v.trace_error));
        assert_eq!(m.overflow, 0);
        Some(m)
    };
    let Some(whole) = run(64, 0) else { return };
    assert_eq!((whole.traced_blocks, whole.total_blocks), (64, 64));
    assert!(whole.census.is_none(), "a whole trace takes no census");
    // Which SASS the loads became: a site made in pieces keeps the sample's figures.
    let pieces: Vec<_> = (whole.instructions.iter())
        .filter(|i| i.sass.as_ref().is_some_and(|s| !s.pieces.is_empty()))
        .collect();
    assert!(pieces.is_empty(), "{pieces:#?}");
    for seed in [7, 8] {
        let m = run(2, seed).expect("the GPU is still there");
        assert!(
            m.census.is_some(),
            "a seeded sample of 2 of 64 has a census"
        );
        assert_eq!(m.shared.ld, whole.shared.ld, "loads, seed {seed}");
        assert_eq!(m.shared.st, whole.shared.st, "stores, seed {seed}");
        let all = |m: &gpulab::model::results::MemoryStats| {
            (
                m.shared.requests,
                m.shared.wavefronts,
                m.shared.ideal_wavefronts,
            )
        };
        assert_eq!(all(&m), all(&whole), "seed {seed}");
    }
}
