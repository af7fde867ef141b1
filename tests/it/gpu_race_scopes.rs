//! The race pack (tests/fixtures/races) on a real GPU: the GPU tracer finds the races the
//! interpreter finds (a warp's lanes without `__syncwarp()`, a cluster's blocks without a
//! cluster barrier, an exit that may overtake a read, a race behind a long trace), and
//! compute-sanitizer's racecheck, which watches the kernels run, is asked about each.
//! Skips where there is no GPU; the racecheck part also without compute-sanitizer.

use super::race_scopes::{check_bulk_relay, check_handover, races, run_pack, scopes};
use crate::support::common::{bin, fixture, gpu};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::results::RaceScope;
use gpulab::session::client::racecheck;

#[test]
fn the_gpu_trace_finds_every_scope_of_race_the_interpreter_does() {
    let Some(dev) = gpu() else { return };
    let warp = run_pack("warp-swap", false);
    assert!(races(&warp, "synced").is_empty());
    assert_eq!(scopes(races(&warp, "unsynced")), [RaceScope::Warp]);
    if hopper(&dev.cc) {
        let cluster = run_pack("cluster-swap", false);
        assert!(
            races(&cluster, "both").is_empty(),
            "{:?}",
            races(&cluster, "both")
        );
        assert_eq!(scopes(races(&cluster, "no-first")), [RaceScope::Cluster]);
        assert_eq!(scopes(races(&cluster, "no-last")), [RaceScope::Exit]);
        check_handover(&run_pack("handover", false));
        // The bulk copy's record keeps its mbarrier's offset above its destination's.
        check_bulk_relay(&run_pack("bulk-relay", false));
    }
    let named = run_pack("named-barrier", false);
    for v in ["block", "whole-count", "pairs"] {
        assert!(races(&named, v).is_empty(), "{v}: {:?}", races(&named, v));
    }
    for v in ["warp-alone", "arrive-only", "half-count", "two-by-two"] {
        assert_eq!(scopes(races(&named, v)), [RaceScope::Block], "{v}");
    }
    let padded = run_pack("padded-race", false);
    assert!(scopes(races(&padded, "padded")).contains(&RaceScope::Block));
    let reread = run_pack("copy-reread", false);
    for c in &reread.expect {
        assert_eq!(c.holds, Some(true), "{}: {}", c.claim, c.detail);
    }
}

#[test]
fn racecheck_agrees_with_the_lab_on_a_warps_lanes_and_is_asked_about_clusters() {
    let Some(dev) = gpu() else { return };
    let Some(sanitizer) = gpulab::cuda::discover::find().compute_sanitizer.clone() else {
        eprintln!("skipped racecheck: no compute-sanitizer on PATH or beside the CUDA toolkit");
        return;
    };
    let root = CourseRoot::Dir(fixture("races/lessons"));
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let lesson = |id: &str| lessons.iter().find(|l| l.id == id).unwrap();
    let hazards = |id: &str, v: &str| {
        let r = racecheck(lesson(id), v, &sanitizer, &bin(), 0).unwrap();
        eprintln!(
            "racecheck {id} {v}: {:?} hazards, lines {:?}",
            r.hazards, r.lines
        );
        r.hazards.unwrap_or(0)
    };
    // racecheck watches one run: a race it sees only where that run's schedule exposes it
    // (on an H200 `two-by-two` showed 0 hazards in one run of three), so a racy variant
    // has three runs to show it.
    let seen = |id: &str, v: &str| (0..3).any(|_| hazards(id, v) > 0);
    assert_eq!(hazards("warp-swap", "synced"), 0);
    assert!(
        seen("warp-swap", "unsynced"),
        "racecheck saw no race in the warp"
    );
    // A barrier each warp passes alone, or one no thread waits at: racecheck's verdicts
    // beside the lab's (which the test above holds), and none for the block's barrier.
    assert_eq!(hazards("named-barrier", "block"), 0);
    assert_eq!(hazards("named-barrier", "whole-count"), 0);
    // Warps that meet in pairs at barriers of their own, and pairs that leave two
    // neighbours apart: racecheck's verdicts equal the lab's (on the H200, 0 and 1).
    assert_eq!(hazards("named-barrier", "pairs"), 0);
    assert!(
        seen("named-barrier", "two-by-two"),
        "racecheck saw no race between warps that never meet"
    );
    for v in ["warp-alone", "arrive-only", "half-count"] {
        eprintln!(
            "named-barrier {v}: racecheck {} hazards",
            hazards("named-barrier", v)
        );
    }
    if hopper(&dev.cc) {
        assert_eq!(hazards("cluster-swap", "both"), 0);
        // Whether racecheck follows distributed shared memory is its to say: its verdicts
        // are printed beside the lab's, which the test above holds.
        for v in ["no-first", "no-last"] {
            eprintln!(
                "cluster-swap {v}: racecheck {} hazards",
                hazards("cluster-swap", v)
            );
        }
    }
}

/// Compute capability 9.0 or later: clusters.
fn hopper(cc: &str) -> bool {
    cc.split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
        .is_some_and(|m| m >= 9)
}
