//! The host lesson live: the copies, the kernel on mapped and managed memory, the PCIe link
//! the worker read from NVML and every claim of the lesson holding. Skips where there is no
//! GPU; with one, `cargo test --test it gpu_host::` (`scripts/host_gpu.sh` checks the same
//! figures against nvidia-smi and a cudaMemcpy program of its own).

use crate::support::common;

use common::bin;
use gpulab::model::results::{LessonResult, Source};
use std::process::Command;

#[test]
fn the_host_lesson_runs_live_and_every_claim_holds() {
    let Some(dev) = common::gpu() else { return };
    let out = Command::new(bin())
        .args(["run", "host", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let r: LessonResult =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{stderr}"));
    assert_eq!(r.source, Source::Live);
    let link = dev.pcie.expect("NVML gave the PCIe link");
    eprintln!("link: {}", link.describe());
    let link_gbps = r.peak.link_gbps.expect("a theoretical link bandwidth");
    assert_eq!(Some(link_gbps), link.theoretical_gbps());
    for v in &r.variants {
        let t = v.time_ms.as_ref().expect("timed");
        let g = v.gbps.expect("GB/s");
        eprintln!(
            "{:<18} {:>9.4} ms {:>8.2} GB/s {:>6.1}% of the link  {:?}",
            v.name,
            t.median,
            g,
            v.pct_of_peak.unwrap_or(f64::NAN),
            v.error
        );
        assert_eq!(v.correct, Some(true), "{}: {:?}", v.name, v.error);
        assert!(t.runs >= 10, "{}: {t:?}", v.name);
    }
    // A copy cannot beat the wire: more than the theoretical figure would be a timing
    // that missed part of the copy.
    for name in ["h2d-pageable", "h2d-pinned", "d2h-pageable", "d2h-pinned"] {
        let v = r.variants.iter().find(|v| v.name == name).unwrap();
        assert!(v.gbps.unwrap() < link_gbps, "{name}: {:?}", v.gbps);
        assert!(v.ptxas.is_none(), "{name} compiled something");
    }
    for c in &r.expect {
        eprintln!("{:?} {} ({})", c.holds, c.claim, c.detail);
    }
    for c in &r.expect {
        assert_eq!(c.holds, Some(true), "{}: {}", c.claim, c.detail);
    }
}
