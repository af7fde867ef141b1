//! The stencil lesson's race on a real GPU: the lab's trace finds it in `no-sync` and not in
//! `shared`, with both source lines, and compute-sanitizer's racecheck, which watches the
//! kernels run, agrees on both. Skips where there is no GPU; the racecheck part also where
//! there is no compute-sanitizer, saying so.

use crate::support::common;

use common::bin;
use gpulab::analysis::describe::status;
use gpulab::course::bundle::CourseRoot;
use gpulab::model::results::{LessonResult, RaceScope, VariantResult};
use gpulab::session::client::racecheck;
use std::process::Command;

fn run_stencil() -> LessonResult {
    let out = Command::new(bin())
        .args(["run", "stencil", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{stderr}");
    // A wrong output of the racy variant is explained by its race: the run still passes.
    assert!(out.status.success(), "gpulab run stencil failed: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{stderr}"))
}

fn by<'a>(r: &'a LessonResult, name: &str) -> &'a VariantResult {
    r.variants.iter().find(|v| v.name == name).unwrap()
}

/// The 1-based line of the stencil kernel that holds `text`.
fn line_of(text: &str) -> u32 {
    let source = std::fs::read_to_string("kernels/stencil/stencil.cu").unwrap();
    1 + source
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("`{text}` not in the kernel")) as u32
}

/// The lines that write the tile (its own word and the two halos).
fn store_lines() -> [u32; 3] {
    [
        line_of("tile[t + R] = "),
        line_of("tile[t] = "),
        line_of("tile[t + BLOCK + R] = "),
    ]
}

#[test]
fn the_lab_finds_the_race_of_no_sync_and_none_in_shared() {
    if common::gpu().is_none() {
        return;
    }
    let r = run_stencil();
    for c in &r.expect {
        eprintln!("{:?} {} ({})", c.holds, c.claim, c.detail);
    }
    for name in ["global", "shared"] {
        let v = by(&r, name);
        assert_eq!(v.correct, Some(true), "{name}: {:?}", v.error);
        let m = v
            .memory
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: {:?}", v.trace_error));
        assert!(
            m.races_checked && m.races.is_empty(),
            "{name}: {:?}",
            m.races
        );
        assert!(v.time_ms.is_some(), "{name}");
    }
    let v = by(&r, "no-sync");
    let m = v
        .memory
        .as_ref()
        .unwrap_or_else(|| panic!("{:?}", v.trace_error));
    assert!(!m.races.is_empty(), "no race found in no-sync");
    let sum = line_of("sum += tile[");
    for race in &m.races {
        eprintln!("no-sync: {race:?}");
        let lines = [race.first_line.unwrap(), race.second_line.unwrap()];
        // Every hazard is between a store to the tile and the sum that reads it.
        assert!(lines.contains(&sum), "{race:?}");
        assert!(store_lines().iter().any(|s| lines.contains(s)), "{race:?}");
        // Between warps with no barrier, or between a warp's own lanes (a halo one lane
        // writes and another reads) with no `__syncwarp()`.
        match race.scope {
            RaceScope::Block => assert_ne!(race.first_warp, race.second_warp, "{race:?}"),
            RaceScope::Warp => {
                assert_eq!(race.first_warp, race.second_warp, "{race:?}");
                assert!(race.lanes.is_some_and(|(a, b)| a != b), "{race:?}");
            }
            RaceScope::Cluster | RaceScope::Exit => {
                panic!("a cluster race without clusters: {race:?}")
            }
            RaceScope::Copy => panic!("a bulk copy's race without bulk copies: {race:?}"),
        }
    }
    let s = status(v);
    assert!(s.starts_with("race: line "), "{s}");
    assert!(s.contains("no barrier between"), "{s}");
    for claim in ["no-sync shared.races > 0", "shared shared.races == 0"] {
        let c = r.expect.iter().find(|c| c.claim == claim).unwrap();
        assert_eq!(c.holds, Some(true), "{claim}: {}", c.detail);
    }
}

#[test]
fn racecheck_agrees_on_the_racy_and_the_fixed_stencil() {
    if common::gpu().is_none() {
        return;
    }
    let Some(sanitizer) = gpulab::cuda::discover::find().compute_sanitizer.clone() else {
        eprintln!("skipped racecheck: no compute-sanitizer on PATH or beside the CUDA toolkit");
        return;
    };
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let lesson = lessons.iter().find(|l| l.id == "stencil").unwrap();
    let racy = racecheck(lesson, "no-sync", &sanitizer, &bin(), 0).unwrap();
    eprintln!("racecheck no-sync:\n{}", racy.log);
    assert!(racy.hazards.is_some_and(|n| n > 0), "{}", racy.log);
    assert!(!racy.races.is_empty(), "{}", racy.log);
    // It names the same lines as the lab: the sum, and a store to the tile.
    let sum = line_of("sum += tile[");
    assert!(racy.lines.contains(&sum), "{:?}", racy.lines);
    assert!(
        store_lines().iter().any(|s| racy.lines.contains(s)),
        "{:?}",
        racy.lines
    );
    let fixed = racecheck(lesson, "shared", &sanitizer, &bin(), 0).unwrap();
    eprintln!("racecheck shared:\n{}", fixed.log);
    assert_eq!(fixed.hazards, Some(0), "{}", fixed.log);
    assert!(fixed.races.is_empty(), "{}", fixed.log);
}
