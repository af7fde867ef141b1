//! `gpulab sass` and `gpulab diff` through the real binary and worker: NVRTC builds the
//! variant, nvdisasm lists the CUBIN. Skipped, saying why, without them (CI has both).

use crate::support::common;

use std::process::Command;

fn gpulab(args: &[&str]) -> Option<serde_json::Value> {
    if !common::nvrtc_or_skip("sass_cli") {
        return None;
    }
    let out = Command::new(common::bin()).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("nvdisasm not found") && std::env::var_os("GPULAB_REQUIRE_NVRTC").is_none() {
        eprintln!("skipped: {stderr}");
        return None;
    }
    assert!(out.status.success(), "{args:?}: {stderr}");
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn sass_lists_the_16_byte_shared_loads_of_vec4_with_their_source_line() {
    let Some(v) = gpulab(&["sass", "shared-banks", "vec4", "--json"]) else {
        return;
    };
    assert_eq!(v["kernel"], "read_pattern");
    let ins = v["instructions"].as_array().unwrap();
    let lds: Vec<_> = ins.iter().filter(|i| i["opcode"] == "LDS.128").collect();
    assert!(!lds.is_empty(), "no LDS.128 in {ins:?}");
    // Each carries the line of the source that reads shared memory.
    let src = std::fs::read_to_string("kernels/shared-banks/banks.cu").unwrap();
    for i in &lds {
        let line = i["line"].as_u64().expect("a source line") as usize;
        assert!(
            src.lines().nth(line - 1).unwrap().contains("s["),
            "line {line}"
        );
    }
    assert_eq!(v["mix"]["LDS"].as_u64().unwrap() as usize, lds.len());
}

#[test]
fn diff_names_the_memory_instructions_that_changed_width() {
    let Some(v) = gpulab(&["diff", "shared-banks", "stride-1", "vec4", "--json"]) else {
        return;
    };
    let changed = v["memory_changed"].as_array().unwrap();
    let shared = |bits: u64| {
        changed
            .iter()
            .find(|c| c["kind"] == "shared_load" && c["bits"] == bits)
            .unwrap_or_else(|| panic!("no {bits}-bit shared load change in {changed:?}"))
            .clone()
    };
    // stride-1 reads 4-byte words, vec4 16-byte ones.
    assert!(shared(32)["a"].as_u64().unwrap() > 0 && shared(32)["b"] == 0);
    assert!(shared(128)["b"].as_u64().unwrap() > 0 && shared(128)["a"] == 0);
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["what"] == "registers"));
    assert!(
        rows.iter().any(|r| r["what"] == "global sectors/request"),
        "recorded trace rows"
    );
}

/// The SASS beside the recorded trace, with no GPU: the stride-32 loop's LDS line carries
/// the 32 wavefronts each of its requests took on the H100, and is listed first.
#[test]
fn sass_shows_each_memory_line_with_its_traced_figure_from_the_recording() {
    let Some(v) = gpulab(&["sass", "shared-banks", "stride-32", "--json"]) else {
        return;
    };
    let memory = v["memory"].as_array().unwrap();
    let first = &memory[0];
    assert_eq!(
        first["kind"], "shared_load",
        "the costliest first: {memory:?}"
    );
    assert_eq!(first["traced"], "32 wavefronts/request (ideal 1)");
    let out = Command::new(common::bin())
        .args(["sass", "shared-banks", "stride-32"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lds = text
        .lines()
        .find(|l| l.contains("shared load"))
        .unwrap_or_else(|| panic!("no shared load line in:\n{text}"));
    assert!(lds.contains("32 wavefronts/request"), "{lds}");
    assert!(text.contains("traced figures: recorded on"), "{text}");
}

/// A copy has no kernel: `gpulab sass` says so instead of handing NVRTC an empty file.
#[test]
fn sass_of_a_copy_says_it_has_no_kernel() {
    let out = std::process::Command::new(common::bin())
        .args(["sass", "host", "h2d-pinned"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is a copy between the host and the GPU"),
        "{err}"
    );
}
