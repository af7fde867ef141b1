//! The async-copy lesson on the CPU interpreter (`gpulab run async-copy --cpu`): every
//! variant right, and the trace saying what each variant's tile loads are: `sync` loads
//! through registers, `async` and `double` copy with `cp.async` (their inputs are copies,
//! one request a warp and a halo request a tile, none a load), `tma` moves each tile in one
//! bulk copy. Skipped, saying why, without NVRTC unless GPULAB_REQUIRE_NVRTC=1.

use crate::support::common;

use common::{bin, nvrtc_or_skip};
use serde_json::Value;
use std::process::Command;

/// The figures of a variant's traced instructions of `kind` in `space`, summed: (requests,
/// wavefronts, sectors, bytes used).
fn summed(v: &Value, space: &str, kind: &str) -> (u64, u64, u64, u64) {
    let f = |i: &Value, k: &str| i[k].as_u64().unwrap_or(0);
    (v["memory"]["instructions"].as_array().unwrap().iter())
        .filter(|i| i["space"] == space && i["kind"] == kind)
        .fold((0, 0, 0, 0), |(r, w, s, b), i| {
            (
                r + f(i, "requests"),
                w + f(i, "wavefronts"),
                s + f(i, "sectors"),
                b + f(i, "bytes_used"),
            )
        })
}

#[test]
fn the_lessons_tile_loads_are_loads_copies_or_bulk_copies_as_written() {
    if !nvrtc_or_skip("the_lessons_tile_loads_are_loads_copies_or_bulk_copies_as_written") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(bin())
        .args(["run", "async-copy", "--cpu", "--json"])
        .env("GPULAB_DATA_DIR", tmp.path())
        .env("GPULAB_TIMEOUT_S", "180")
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    let v = |name: &str| {
        (r["variants"].as_array().unwrap().iter())
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    for name in ["sync", "async", "double", "tma"] {
        let x = v(name);
        assert_eq!(x["correct"], true, "{name}: {x}");
        assert!(
            x["memory"]["races"].as_array().is_none_or(Vec::is_empty),
            "{name}"
        );
    }
    // Two traced blocks, 8 tiles each, 8 warps a tile and one more for the halo: 144 warp
    // requests of tile inputs, whatever moves them; 32 lanes × 4 bytes a request in one
    // shared wavefront (8 halo requests cover the first and last 16 inputs).
    let blocks = v("sync")["memory"]["traced_blocks"].as_u64().unwrap();
    assert_eq!(blocks, 2);
    let tiles = blocks * 8;
    let (loads, ..) = summed(&v("sync"), "global", "load");
    assert_eq!(loads, tiles * 9);
    for name in ["async", "double"] {
        let x = v(name);
        assert_eq!(summed(&x, "global", "load").0, 0, "{name} loads no input");
        let (reads, _, sectors, _) = summed(&x, "global", "async-copy");
        let (writes, wavefronts, ..) = summed(&x, "shared", "async-copy");
        assert_eq!((reads, writes), (tiles * 9, tiles * 9), "{name}");
        assert_eq!(wavefronts, writes, "{name}: one wavefront a copy request");
        // 4 sectors a full warp (128 neighbouring bytes, 16-byte aligned and more), 2 or 3
        // for the halo: never fewer than the bytes need.
        assert!(sectors >= tiles * (8 * 4 + 2), "{name}: {sectors} sectors");
        assert_eq!(x["memory"]["copies"]["global"]["requests"].as_u64(), {
            let m = &x["memory"];
            let k = m["total_blocks"].as_u64().unwrap() / blocks;
            Some(tiles * 9 * k)
        });
    }
    // The TMA: one bulk copy a tile, of the tile's 288 inputs (less the 16 before the
    // array's start in block 0's first tile), from the copying thread alone.
    let tma = v("tma");
    assert_eq!(summed(&tma, "global", "load").0, 0);
    let (copies, _, _, bytes) = summed(&tma, "global", "bulk-copy");
    assert_eq!(copies, tiles);
    assert_eq!(bytes, tiles * 288 * 4 - 16 * 4);
}

/// At a size whose every block is traced (`--size n=65536 --trace-blocks 32`: 32 blocks),
/// each edge's work counts once, as Nsight Compute counts it: the first block's halo before
/// the array and the last block's after it each leave 2 of a tile's 36 sectors unread (the
/// loads' lanes are off there), and `tma` zeroes those 16 words with one shared store
/// wavefront at each end. The lesson's own sample (2 of the 32 blocks, each standing for
/// 16) counts block 0's edge 16 times and the last block's never.
#[test]
fn tracing_every_block_counts_each_edge_once() {
    if !nvrtc_or_skip("tracing_every_block_counts_each_edge_once") {
        return;
    }
    let run = |extra: &[&str]| -> Value {
        let tmp = tempfile::tempdir().unwrap();
        let o = Command::new(bin())
            .args(["run", "async-copy", "--cpu", "--json", "--size", "n=65536"])
            .args(extra)
            .env("GPULAB_DATA_DIR", tmp.path())
            .env("GPULAB_TIMEOUT_S", "180")
            .output()
            .unwrap();
        serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
    };
    let variant = |r: &Value, name: &str| {
        (r["variants"].as_array().unwrap().iter())
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    let all = run(&["--trace-blocks", "32"]);
    let tiles = 32 * 8;
    for name in ["sync", "async", "double", "tma"] {
        let m = &variant(&all, name)["memory"];
        assert_eq!(
            (m["traced_blocks"].as_u64(), m["total_blocks"].as_u64()),
            (Some(32), Some(32)),
            "{name}"
        );
        assert_eq!(m["overflow"], 0, "{name}");
    }
    let (loads, _, sectors, _) = summed(&variant(&all, "sync"), "global", "load");
    assert_eq!((loads, sectors), (tiles * 9, tiles * 36 - 4));
    for name in ["async", "double"] {
        let (reads, _, sectors, _) = summed(&variant(&all, name), "global", "async-copy");
        assert_eq!(reads, tiles * 9, "{name}");
        // The loads' exactly: the last tile's halo lanes past the end copy 0 bytes and
        // read nothing, so they are in no record (ncu counts no sector for them either).
        assert_eq!(sectors, tiles * 36 - 4, "{name}");
    }
    let tma = variant(&all, "tma");
    assert_eq!(
        summed(&tma, "shared", "store").1,
        2,
        "one zeroing wavefront an end"
    );
    assert_eq!(tma["memory"]["shared"]["st"]["wavefronts"], 2);
    let (_, _, bulk_sectors, bulk_bytes) = summed(&tma, "global", "bulk-copy");
    assert_eq!(
        (bulk_sectors, bulk_bytes),
        (tiles * 36 - 4, tiles * 288 * 4 - 2 * 64)
    );

    let sampled = run(&[]);
    let m = &variant(&sampled, "tma")["memory"];
    assert_eq!(
        (m["traced_blocks"].as_u64(), m["total_blocks"].as_u64()),
        (Some(2), Some(32))
    );
    assert_eq!(
        m["shared"]["st"]["wavefronts"], 16,
        "block 0's edge, once per block it stands for"
    );
}
