//! Shared by the integration tests: where the binary is, and the NVRTC skip rule.

#![allow(dead_code)]

use std::path::PathBuf;

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gpulab"))
}

pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// True when NVRTC can be loaded. Without it the test skips, saying why, unless
/// GPULAB_REQUIRE_NVRTC=1 (CI), where a missing NVRTC is a failure.
pub fn nvrtc_or_skip(test: &str) -> bool {
    match gpulab::cuda::discover::ensure_nvrtc() {
        Ok(_) => true,
        Err(why) => {
            if std::env::var("GPULAB_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
                panic!("{test}: GPULAB_REQUIRE_NVRTC=1 but NVRTC is missing: {why}");
            }
            eprintln!("skipped {test}: {why}");
            false
        }
    }
}
