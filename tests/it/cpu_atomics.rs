//! The atomics model on the calibration kernels (tests/fixtures/atomics), with no GPU: the
//! CPU interpreter runs every shape, checks its output, and traces its atomics as the SASS
//! NVRTC makes for sm_90 says (nvdisasm): what ptxas made of each atomic, and what each
//! request costs. The figures asserted are the model's, derived from the addresses: they
//! are what tests/it/ncu.rs compares with the H100's counters (`atomics_match_the_hardware_
//! counters`), and where the H100 disagrees, the model and this table change together.
//! NVRTC and nvdisasm only; skipped, saying why, without them.

use crate::support::common;

use gpulab::model::access::{AccessKind, AtomShape, InstructionSummary, Space};
use gpulab::model::results::{LessonResult, VariantResult};
use std::process::Command;

/// What the model says of a variant's atomic, per PTX warp request.
struct Want {
    variant: &'static str,
    space: Space,
    kind: AccessKind,
    shape: AtomShape,
    /// SASS atomic requests per PTX request.
    requests: f64,
    /// Shared: wavefronts per SASS atomic request; global: sectors per request.
    cost: f64,
    /// Lanes of the SASS requests per distinct address.
    lanes_per_address: f64,
    /// A compare-and-swap loop's loads per PTX request.
    loop_loads: f64,
}

const fn want(
    variant: &'static str,
    space: Space,
    kind: AccessKind,
    shape: AtomShape,
    (requests, cost, lanes_per_address, loop_loads): (f64, f64, f64, f64),
) -> Want {
    Want {
        variant,
        space,
        kind,
        shape,
        requests,
        cost,
        lanes_per_address,
        loop_loads,
    }
}

use AccessKind::{Atomic, Reduction};
use AtomShape::{AggregatedWhenFull, AsWritten, CasLoop, WarpAggregated};
use Space::{Global, Shared};

/// Every variant of the calibration pack. Shared atomics: lanes on distinct words of one
/// bank take a wavefront each, as loads; lanes on one word take one each too (each a
/// read-modify-write), except ATOMS.POPC.INC, which counts a word once. The float adds are
/// compare-and-swap loops: a round per lane on the busiest word (32 lanes on one word: 32
/// rounds of 32, 31, ..., 1 lanes, 528 wavefronts in all, 16.5 a round).
const MODEL: [Want; 28] = [
    want(
        "s-int-uniform",
        Shared,
        Atomic,
        WarpAggregated,
        (1.0, 1.0, 1.0, 0.0),
    ),
    want(
        "s-int-banks",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 1.0, 1.0, 0.0),
    ),
    want(
        "s-int-stride32",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 32.0, 1.0, 0.0),
    ),
    want(
        "s-int-2way",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 2.0, 1.0, 0.0),
    ),
    want(
        "s-int-pairs",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 2.0, 2.0, 0.0),
    ),
    want(
        "s-int-one-word",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 32.0, 32.0, 0.0),
    ),
    want(
        "s-int-uniform-used",
        Shared,
        Atomic,
        AggregatedWhenFull,
        (1.0, 1.0, 1.0, 0.0),
    ),
    want(
        "s-int-banks-used",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 1.0, 1.0, 0.0),
    ),
    want(
        "s-inc-uniform",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 1.0, 32.0, 0.0),
    ),
    want(
        "s-inc-banks",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 1.0, 1.0, 0.0),
    ),
    want(
        "s-inc-stride32",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 32.0, 1.0, 0.0),
    ),
    want(
        "s-inc-pairs",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 1.0, 2.0, 0.0),
    ),
    want(
        "s-inc-one-word",
        Shared,
        Atomic,
        AsWritten,
        (1.0, 1.0, 32.0, 0.0),
    ),
    want(
        "s-f32-uniform",
        Shared,
        Atomic,
        CasLoop,
        (32.0, 16.5, 16.5, 32.0),
    ),
    want("s-f32-banks", Shared, Atomic, CasLoop, (1.0, 1.0, 1.0, 1.0)),
    want(
        "s-f32-stride32",
        Shared,
        Atomic,
        CasLoop,
        (1.0, 32.0, 1.0, 1.0),
    ),
    want("s-f32-2way", Shared, Atomic, CasLoop, (1.0, 2.0, 1.0, 1.0)),
    want("s-f32-pairs", Shared, Atomic, CasLoop, (2.0, 1.5, 1.5, 2.0)),
    want(
        "g-int-contended",
        Global,
        Reduction,
        WarpAggregated,
        (1.0, 1.0, 1.0, 0.0),
    ),
    want(
        "g-int-spread",
        Global,
        Reduction,
        AsWritten,
        (1.0, 4.0, 1.0, 0.0),
    ),
    want(
        "g-int-sectors",
        Global,
        Reduction,
        AsWritten,
        (1.0, 32.0, 1.0, 0.0),
    ),
    want(
        "g-int-one-word",
        Global,
        Reduction,
        AsWritten,
        (1.0, 32.0, 32.0, 0.0),
    ),
    want(
        "g-int-contended-used",
        Global,
        Atomic,
        AggregatedWhenFull,
        (1.0, 1.0, 1.0, 0.0),
    ),
    want(
        "g-int-spread-used",
        Global,
        Atomic,
        AsWritten,
        (1.0, 4.0, 1.0, 0.0),
    ),
    want(
        "g-inc-contended",
        Global,
        Reduction,
        WarpAggregated,
        (1.0, 1.0, 1.0, 0.0),
    ),
    want(
        "g-f32-contended",
        Global,
        Reduction,
        AsWritten,
        (1.0, 32.0, 32.0, 0.0),
    ),
    want(
        "g-f32-spread",
        Global,
        Reduction,
        AsWritten,
        (1.0, 4.0, 1.0, 0.0),
    ),
    want(
        "g-f32-spread-used",
        Global,
        Atomic,
        AsWritten,
        (1.0, 4.0, 1.0, 0.0),
    ),
];

/// The one atomic instruction of a variant (the kernel makes one per shape).
fn the_atomic(v: &VariantResult) -> &InstructionSummary {
    let m = v
        .memory
        .as_ref()
        .unwrap_or_else(|| panic!("{}: no trace", v.name));
    let atomics: Vec<_> = m
        .instructions
        .iter()
        .filter(|i| i.atomic.is_some())
        .collect();
    assert_eq!(atomics.len(), 1, "{}: {atomics:?}", v.name);
    atomics[0]
}

#[test]
fn the_calibration_shapes_trace_on_the_cpu_as_the_model_says() {
    if !common::nvrtc_or_skip("cpu_atomics") {
        return;
    }
    let dir = common::fixture("atomics/lessons");
    let out = Command::new(common::bin())
        .args(["--lessons", dir.to_str().unwrap()])
        .args(["run", "atomics-cal", "--cpu", "--json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let r: LessonResult =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let sass_read = r
        .variants
        .iter()
        .all(|v| v.memory.as_ref().is_some_and(|m| m.sass_checked));
    if !sass_read && std::env::var_os("GPULAB_REQUIRE_NVRTC").is_none() {
        eprintln!("skipped: no nvdisasm to read the SASS ({stderr})");
        return;
    }
    assert_eq!(
        r.variants.len(),
        MODEL.len(),
        "every variant has its line here"
    );
    let mut wrong = Vec::new();
    for w in &MODEL {
        let v = (r.variants.iter().find(|v| v.name == w.variant))
            .unwrap_or_else(|| panic!("{} not run", w.variant));
        assert_eq!(v.correct, Some(true), "{}: {:?}", w.variant, v.error);
        let i = the_atomic(v);
        let a = i.atomic.as_ref().unwrap();
        let ptx = a.ptx_requests as f64;
        let cost = match i.space {
            Space::Shared => i.wavefronts,
            _ => i.sectors,
        } as f64;
        let got = (
            i.space,
            i.kind,
            a.shape,
            i.requests as f64 / ptx,
            cost / i.requests as f64,
            a.lanes as f64 / a.addresses as f64,
            a.loop_loads as f64 / ptx,
        );
        let expected = (
            w.space,
            w.kind,
            w.shape,
            w.requests,
            w.cost,
            w.lanes_per_address,
            w.loop_loads,
        );
        if got != expected {
            wrong.push(format!(
                "{}: got {got:?}, the model says {expected:?}",
                w.variant
            ));
        }
        // 64 blocks of 8 warps, 16 atomics each: every PTX request traced.
        assert_eq!(a.ptx_requests, 64 * 8 * 16, "{}", w.variant);
        let m = v.memory.as_ref().unwrap();
        // Atomics are never loads or stores: the global totals are the loads' and stores'
        // (the input's load, where the kernel uses it, and the output's store); the atomics
        // have their own.
        let plain: u64 = (m.instructions.iter())
            .filter(|i| i.space == Space::Global && i.atomic.is_none())
            .map(|i| i.requests)
            .sum();
        assert_eq!(m.global.requests, plain, "{}", w.variant);
        assert!(plain >= 64 * 8, "{}: the output's store", w.variant);
        let totals = &m.atomics;
        let (shared, global) = (
            totals.shared.requests,
            totals.global_atom.requests + totals.global_red.requests,
        );
        match w.space {
            Space::Shared => assert_eq!((shared, global), (i.requests, 0), "{}", w.variant),
            _ => assert_eq!((shared, global), (0, i.requests), "{}", w.variant),
        }
        assert!(m.races.is_empty(), "{}: {:?}", w.variant, m.races);
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
