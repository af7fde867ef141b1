//! With no GPU, the CPU interpreter's trace follows the SASS as the GPU's does: a 16-byte
//! shared load of which ptxas keeps two words (the calibration pack's v16-xz) is counted as
//! the two 4-byte LDS it became, each 4 wavefronts (lanes 16 bytes apart put 4 words in
//! each of 8 banks). NVRTC and nvdisasm only (CI has both).

use crate::support::common;

use gpulab::model::results::LessonResult;
use std::process::Command;

/// `gpulab run ARGS --cpu --json` on the calibration pack `pack` of tests/fixtures, its
/// SASS read; None (said) where there is no nvdisasm to read it and none is required.
fn traced_on_cpu(pack: &str, args: &[&str]) -> Option<LessonResult> {
    let dir = common::fixture(&format!("{pack}/lessons"));
    let out = Command::new(common::bin())
        .args(["--lessons", dir.to_str().unwrap(), "run"])
        .args(args)
        .args(["--cpu", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let r: LessonResult =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let m = r.variants[0].memory.as_ref().expect("traced");
    if !m.sass_checked && std::env::var_os("GPULAB_REQUIRE_NVRTC").is_none() {
        eprintln!("skipped: no nvdisasm to read the SASS ({stderr})");
        return None;
    }
    assert!(m.sass_checked, "the SASS was read");
    Some(r)
}

#[test]
fn an_interpreted_trace_counts_a_split_vector_load_as_its_sass_pieces() {
    if !common::nvrtc_or_skip("cpu_sass") {
        return;
    }
    let Some(r) = traced_on_cpu("wide_shared", &["wide-shared", "--variant", "v16-xz"]) else {
        return;
    };
    let m = r.variants[0].memory.as_ref().expect("traced");
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

/// NVVM loads the upper half of one of the A tile's float4s again in the unrolled loop's
/// first step (tests/fixtures/reload: `ld.shared.v4 [%rd]`, then `ld.shared.v2 [%rd+8]`),
/// and ptxas reads it once. Counted as the PTX has it, that reload made an extra request a
/// warp per tile and a 2-way conflict (8-byte lanes 16 bytes apart); counted as the SASS
/// has it, there are 32 `LDS.128` a warp per tile and no conflict.
#[test]
fn a_vector_ptxas_reads_once_is_counted_once() {
    if !common::nvrtc_or_skip("a_vector_ptxas_reads_once_is_counted_once") {
        return;
    }
    let Some(r) = traced_on_cpu("reload", &["reload-cal"]) else {
        return;
    };
    let m = r.variants[0].memory.as_ref().expect("traced");
    // m = 256: 2 x 2 blocks (all traced) of 8 warps, 32 tiles of k, 8 steps of 4 loads.
    let (blocks, warps, tiles) = (4, 8, 256 / 8);
    assert_eq!(m.traced_blocks, blocks);
    assert_eq!(m.shared.ld.requests, blocks * warps * tiles * 8 * 4);
    assert_eq!(
        m.shared.ld.wavefronts, m.shared.ld.ideal_wavefronts,
        "no conflict"
    );
    let narrow: Vec<_> = (m.instructions.iter())
        .filter(|i| i.space == gpulab::model::access::Space::Shared && i.width == 8)
        .collect();
    assert!(
        narrow.is_empty(),
        "no 8-byte shared load is counted: {narrow:?}"
    );
}

/// ptxas lays a kernel's shared variables out in the order written, each at its alignment,
/// after the reserved first KiB; the CUBIN names no variable of a function's scope, so the
/// interpreter lays them out by that rule. Checked against the offsets the SASS adds to the
/// shared window's base (`UIADD3 URn, URbase, offset`).
#[test]
fn shared_variables_sit_where_ptxas_puts_them() {
    if !common::nvrtc_or_skip("shared_variables_sit_where_ptxas_puts_them") {
        return;
    }
    let source = "extern \"C\" __global__ void k(float* out) {\n\
        __shared__ char c[3]; __shared__ double d[5]; __shared__ float f[33];\n\
        __shared__ short s[7]; __shared__ float4 v[2];\n\
        int t = threadIdx.x;\n\
        c[t % 3] = t; d[t % 5] = t; f[t % 33] = t; s[t % 7] = t;\n\
        v[t % 2] = make_float4(t, t, t, t);\n__syncthreads();\n\
        out[t] = c[(t + 1) % 3] + d[(t + 1) % 5] + f[(t + 1) % 33] + s[(t + 1) % 7]\n\
            + v[(t + 1) % 2].y;\n}\n";
    use gpulab::cuda::nvrtc::{CompileJob, Output, compile};
    let job = |output| CompileJob {
        file_name: "k.cu",
        source,
        kernel: "k",
        defines: &[],
        options: &[],
        arch: "sm_90",
        output,
    };
    let ptx = compile(&job(Output::Ptx)).unwrap();
    let ptx = String::from_utf8_lossy(&ptx.image)
        .trim_end_matches('\0')
        .to_string();
    let k = gpulab::interp::prepare(&ptx, "k").unwrap();
    let mut ours: Vec<u64> = (k.prog.symbols.iter())
        .filter(|s| s.0.starts_with("_ZZ1kE"))
        .map(|s| s.2)
        .collect();
    ours.sort();
    assert_eq!(ours, [1024, 1032, 1072, 1204, 1232], "declaration order");
    let cubin = compile(&job(Output::Cubin)).unwrap();
    let sass = match gpulab::worker::sass::disassemble(&cubin.image) {
        Ok(s) => s,
        Err(e) if std::env::var_os("GPULAB_REQUIRE_NVRTC").is_none() => {
            eprintln!("skipped the SASS half: {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    // `UMOV UR4, 0x400` is the base; the other variables are `UIADD3 URn, UR4, off, URZ`.
    let mut theirs = vec![1024u64];
    for l in sass
        .lines()
        .filter(|l| l.contains("UIADD3") && l.contains("URZ"))
    {
        let off = l.split(',').nth(2).map(str::trim).unwrap_or("");
        if let Some(h) = off.strip_prefix("0x") {
            theirs.push(1024 + u64::from_str_radix(h, 16).unwrap());
        }
    }
    theirs.sort();
    assert_eq!(theirs, ours, "{sass}");
}
