//! With no GPU, the CPU interpreter's trace follows the SASS as the GPU's does: a 16-byte
//! shared load of which ptxas keeps two words (the calibration pack's v16-xz) is counted as
//! the two 4-byte LDS it became, each 4 wavefronts (lanes 16 bytes apart put 4 words in
//! each of 8 banks). NVRTC and nvdisasm only (CI has both).

mod common;

use gpulab::model::results::LessonResult;
use std::process::Command;

#[test]
fn an_interpreted_trace_counts_a_split_vector_load_as_its_sass_pieces() {
    if !common::nvrtc_or_skip("cpu_sass") {
        return;
    }
    let dir = common::fixture("wide_shared/lessons");
    let out = Command::new(common::bin())
        .args(["--lessons", dir.to_str().unwrap()])
        .args([
            "run",
            "wide-shared",
            "--cpu",
            "--json",
            "--variant",
            "v16-xz",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let r: LessonResult =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let m = r.variants[0].memory.as_ref().expect("traced");
    if !m.sass_checked && std::env::var_os("GPULAB_REQUIRE_NVRTC").is_none() {
        eprintln!("skipped: no nvdisasm to read the SASS ({stderr})");
        return;
    }
    assert!(m.sass_checked, "the SASS was read");
    let split: Vec<_> = m.instructions.iter().filter(|i| i.sass.is_some()).collect();
    assert_eq!(
        split.len(),
        1,
        "one PTX load is split: {:?}",
        m.instructions
    );
    let (i, s) = (split[0], split[0].sass.as_ref().unwrap());
    assert!(
        s.note
            .contains("split this 16-byte load into two 4-byte loads"),
        "{}",
        s.note
    );
    assert_eq!(i.requests, 2 * s.ptx_requests, "two LDS for each PTX load");
    assert_eq!(i.wavefronts, 4 * i.requests, "each LDS 4 wavefronts");
    assert_eq!(
        s.ptx_wavefronts,
        4 * s.ptx_requests,
        "the PTX view: 4 per 16-byte request"
    );
    assert_eq!(
        m.shared.ld.requests, i.requests,
        "the totals follow the SASS"
    );
}
