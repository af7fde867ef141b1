//! The races the trace must see beyond a block's warps, on the CPU interpreter: lanes of one
//! warp exchanging through shared memory without `__syncwarp()`, blocks of a cluster
//! without a cluster barrier before reading each other's tiles or before exiting, and a
//! race behind more records than the trace buffer once held; and inputs re-read through
//! `cp.async`, which count as global traffic. The kernels are the test pack
//! tests/fixtures/races; tests/it/gpu_race_scopes.rs runs them on a GPU beside racecheck.

use crate::support::common::{bin, fixture, nvrtc_or_skip};
use gpulab::model::results::{LessonResult, Race, RaceScope, VariantResult};
use std::process::Command;

/// `gpulab run LESSON` of the race pack, as JSON (`cpu`: on the interpreter).
pub fn run_pack(lesson: &str, cpu: bool) -> LessonResult {
    let mut cmd = Command::new(bin());
    cmd.arg("--lessons")
        .arg(fixture("races/lessons"))
        .args(["run", lesson, "--json"]);
    if cpu {
        // The padded kernel's trace is over a million records: an interpreter on a busy
        // machine can go past the default 20 s between replies, which is slowness, not a
        // hang.
        cmd.arg("--cpu").env("GPULAB_TIMEOUT_S", "180");
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{lesson}: {e}\n{stderr}"))
}

pub fn variant<'a>(r: &'a LessonResult, name: &str) -> &'a VariantResult {
    (r.variants.iter())
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variant {name}"))
}

/// The races of a traced variant (its trace must have followed every barrier, and be
/// whole).
pub fn races<'a>(r: &'a LessonResult, name: &str) -> &'a [Race] {
    let v = variant(r, name);
    let m = (v.memory.as_ref()).unwrap_or_else(|| {
        panic!(
            "{name}: no trace: {:?} (the variant: correct {:?}, error {:?})",
            v.trace_error, v.correct, v.error
        )
    });
    assert!(m.races_checked && m.races_in_warps_and_clusters, "{name}");
    assert_eq!(m.overflow, 0, "{name}: the trace was cut short");
    &m.races
}

pub fn scopes(races: &[Race]) -> Vec<RaceScope> {
    let mut s: Vec<RaceScope> = races.iter().map(|r| r.scope).collect();
    s.sort();
    s.dedup();
    s
}

/// The 1-based line of a pack kernel that holds `text`.
pub fn line_of(kernel: &str, text: &str) -> u32 {
    let source =
        std::fs::read_to_string(fixture(&format!("races/kernels/races/{kernel}"))).unwrap();
    1 + source
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("`{text}` not in {kernel}")) as u32
}

#[test]
fn lanes_of_a_warp_exchanging_without_syncwarp_race_and_with_it_do_not() {
    if !nvrtc_or_skip("lanes_of_a_warp_exchanging_without_syncwarp_race") {
        return;
    }
    let r = run_pack("warp-swap", true);
    assert!(races(&r, "synced").is_empty(), "{:?}", races(&r, "synced"));
    let racy = races(&r, "unsynced");
    assert_eq!(scopes(racy), [RaceScope::Warp], "{racy:?}");
    let (store, load) = (
        line_of("warp.cu", "s[t] = "),
        line_of("warp.cu", "s[t ^ 1]"),
    );
    assert_eq!(
        (racy[0].first_line, racy[0].second_line),
        (Some(store), Some(load))
    );
    // Every lane of every traced warp read a word its neighbour lane wrote.
    assert_eq!(racy[0].count, 4 * 4 * 32, "{racy:?}");
}

/// The handover's checks, the same on the interpreter and the GPU: behind a release store
/// and an acquire load no race; behind a plain store and a volatile load the data read
/// races with the neighbour's store, and the owner may exit before the stores land.
pub fn check_handover(r: &LessonResult) {
    let fine = races(r, "release-acquire");
    assert!(fine.is_empty(), "{fine:?}");
    let racy = races(r, "plain-volatile");
    assert!(scopes(racy).contains(&RaceScope::Cluster), "{racy:?}");
    assert!(scopes(racy).contains(&RaceScope::Exit), "{racy:?}");
    let (store, read) = (
        line_of(
            "handover.cu",
            "asm volatile(\"st.shared::cluster.u32 [%0], %1;\" : : \"r\"(there)",
        ),
        line_of("handover.cu", "out[blockIdx.x] = data;"),
    );
    assert!(
        racy.iter().any(|x| x.scope == RaceScope::Cluster
            && [x.first_line, x.second_line] == [Some(store), Some(read)]),
        "{racy:?}"
    );
    for v in ["release-acquire", "plain-volatile"] {
        assert_eq!(variant(r, v).correct, Some(true), "{v}");
    }
}

#[test]
fn a_flag_with_release_and_acquire_orders_a_handover_between_blocks_and_a_plain_one_does_not() {
    if !nvrtc_or_skip("a_flag_with_release_and_acquire_orders_a_handover") {
        return;
    }
    check_handover(&run_pack("handover", true));
}

#[test]
fn a_clusters_blocks_race_without_a_cluster_barrier_and_an_exit_may_overtake_a_read() {
    if !nvrtc_or_skip("a_clusters_blocks_race_without_a_cluster_barrier") {
        return;
    }
    let r = run_pack("cluster-swap", true);
    assert!(races(&r, "both").is_empty(), "{:?}", races(&r, "both"));
    let (store, load) = (
        line_of("cluster.cu", "tile[t] = "),
        line_of("cluster.cu", "asm volatile(\"ld.shared::cluster"),
    );
    let first = races(&r, "no-first");
    assert_eq!(scopes(first), [RaceScope::Cluster], "{first:?}");
    assert!(
        (first.iter()).all(
            |x| [x.first_line, x.second_line] == [Some(store), Some(load)]
                || [x.first_line, x.second_line] == [Some(load), Some(store)]
        ),
        "{first:?}"
    );
    assert!(
        first
            .iter()
            .all(|x| x.first_block.is_some_and(|b| b != x.block))
    );
    let last = races(&r, "no-last");
    assert_eq!(scopes(last), [RaceScope::Exit], "{last:?}");
    assert_eq!(last[0].first_line, Some(load));
    let why = gpulab::analysis::race_words::race_why(&last[0]);
    assert!(why.contains("may exit"), "{why}");
}

/// The bulk-relay pack's verdicts, on either tracer: a bulk copy's bytes read by a warp
/// whose every reader waited, or whose lane 0 waited and met the others at a
/// `__syncwarp()`, are no race; read with no wait of the warp's own, they race with the copy.
pub fn check_bulk_relay(r: &LessonResult) {
    for v in ["all-wait", "relay"] {
        assert!(races(r, v).is_empty(), "{v}: {:?}", races(r, v));
    }
    assert_eq!(scopes(races(r, "no-wait")), [RaceScope::Copy]);
}

#[test]
fn a_bulk_copy_s_bytes_are_handed_on_by_a_syncwarp_after_one_lane_s_wait() {
    if !nvrtc_or_skip("a_bulk_copy_s_bytes_are_handed_on") {
        return;
    }
    check_bulk_relay(&run_pack("bulk-relay", true));
}

#[test]
fn inputs_re_read_through_async_copies_count_as_global_traffic() {
    if !nvrtc_or_skip("inputs_re_read_through_async_copies") {
        return;
    }
    let r = run_pack("copy-reread", true);
    for c in &r.expect {
        assert_eq!(c.holds, Some(true), "{}: {}", c.claim, c.detail);
    }
    let sectors = |name: &str| {
        let m = variant(&r, name).memory.as_ref().unwrap();
        m.global.sectors + m.copies.global.sectors
    };
    assert!(sectors("reread") >= 8 * sectors("tile"));
}

#[test]
fn a_race_behind_more_records_than_the_old_buffer_held_is_found_in_a_whole_trace() {
    if !nvrtc_or_skip("a_race_behind_more_records") {
        return;
    }
    let r = run_pack("padded-race", true);
    let padded = races(&r, "padded");
    assert!(scopes(padded).contains(&RaceScope::Block), "{padded:?}");
    // Block 0's padding alone is more records than the 2^20 the buffer used to keep.
    let m = variant(&r, "padded").memory.as_ref().unwrap();
    let pad = line_of("padded.cu", "ld.shared.f32");
    // The compiler may unroll the loop: every load site of that line counts.
    let requests: u64 = (m.instructions.iter())
        .filter(|i| i.source_line == Some(pad))
        .map(|i| i.requests)
        .sum();
    assert!(requests > 1 << 20, "{requests} requests");
}

/// A barrier not every thread waits at orders nothing between the warps it leaves out: a
/// `bar.sync 1, 32` each warp passes alone, a `bar.sync 1, 128` that holds half the warps,
/// and a `bar.arrive` no thread waits at, race where `__syncthreads()` and a `bar.sync 1,
/// 256` that holds all 8 warps do not; nor do neighbouring warps that meet in pairs at
/// barriers of their own, while pairs that leave two neighbours apart race.
#[test]
fn warps_across_a_barrier_each_passes_alone_or_none_waits_at_race() {
    if !nvrtc_or_skip("warps_across_a_barrier_each_passes_alone") {
        return;
    }
    let r = run_pack("named-barrier", true);
    for v in ["block", "whole-count", "pairs"] {
        assert!(races(&r, v).is_empty(), "{v}: {:?}", races(&r, v));
    }
    for v in ["warp-alone", "arrive-only", "half-count", "two-by-two"] {
        assert_eq!(scopes(races(&r, v)), [RaceScope::Block], "{v}");
    }
    // A counted barrier that holds some of the warps is named beside its race, with its
    // count; an arrive waits for nothing, and is no barrier to name.
    let partial = |v: &str| races(&r, v)[0].partial_barrier.map(|p| p.threads);
    assert_eq!(partial("warp-alone"), Some(32));
    assert_eq!(partial("half-count"), Some(128));
    assert_eq!(partial("two-by-two"), Some(64));
    assert_eq!(partial("arrive-only"), None);
    let why = gpulab::analysis::race_words::race_why(&races(&r, "half-count")[0]);
    assert!(why.contains("`bar.sync id, 128`"), "{why}");
}
