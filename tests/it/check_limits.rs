//! `gpulab check` warns, without failing, where a lesson asks more of a GPU than the one its
//! recording was made on has (device memory for its buffers); a launch no GPU of the
//! lesson's architecture makes (dynamic shared memory past its limit per block) is a
//! problem at the `smem:` that asks for it.

use crate::support::common;

use common::{bin, fixture};
use std::process::Command;

#[test]
fn buffers_beyond_the_recorded_gpu_are_warned_about_and_shared_memory_past_the_arch_refused() {
    let out = Command::new(bin())
        .args(["check", "--lessons"])
        .arg(fixture("faultpack/lessons"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the shared memory fails check, the warnings do not: {text}"
    );
    assert!(text.contains("1 problem(s)"), "{text}");
    assert!(
        text.contains("buffer `out` needs 200 GiB, the NVIDIA H200 it was recorded on has 140 GiB"),
        "{text}"
    );
    assert!(
        text.contains(
            "01-corpus.yaml:34:50: variant `too-much-shared` asks for 1 MiB (1048576 bytes) \
             of dynamic shared memory; a block may have at most 227 KiB on sm_90"
        ),
        "{text}"
    );
    assert!(
        !text.contains("warning: ") || !text.contains("too-much-shared: the launch asks"),
        "said once, as a problem: {text}"
    );
}
