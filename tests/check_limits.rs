//! `gpulab check` warns, without failing, where a lesson asks more of a GPU than the one its
//! recording was made on has: device memory for its buffers, shared memory for a launch.

mod common;

use common::{bin, fixture};
use std::process::Command;

#[test]
fn buffers_and_shared_memory_beyond_the_recorded_gpu_are_warned_about() {
    let out = Command::new(bin())
        .args(["check", "--lessons"])
        .arg(fixture("faultpack/lessons"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "warnings do not fail check: {text}"
    );
    assert!(
        text.contains("buffer `out` needs 200 GiB, the NVIDIA H200 it was recorded on has 140 GiB"),
        "{text}"
    );
    assert!(
        text.contains(
            "variant too-much-shared: the launch asks for 1 MiB of dynamic shared memory"
        ),
        "{text}"
    );
    assert!(text.contains("227 KiB per block"), "{text}");
}
