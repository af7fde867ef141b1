//! Traces recorded on an NVIDIA H100 (CUDA 13.0 driver): the fixture kernels, instrumented by
//! this crate, run by tests/fixtures/trace/record.py, raw buffers saved. Decoding and
//! analysing them checks the logger's records against what each kernel is known to do.
//! Re-record them whenever the instrumenter or the fixtures change (site ids shift).

use std::collections::BTreeSet;

use gpulab::model::access::{InstructionSummary, Space};
use gpulab::trace::analyze::{summarize, totals};
use gpulab::trace::decode::{RECORD_BYTES, Record, decode};
use gpulab::trace::instrument::{Site, instrument};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// Runs recorded by an instrumenter that did not yet trace `shared::cluster`: their site ids
/// count without the cluster accesses. Empty this list when record.py has run them again.
const RECORDED_BEFORE_CLUSTER: &[&str] = &["asm_forms"];

/// Every run here was recorded by an instrumenter that did not yet log barriers: their site
/// ids count without the barriers. Set this to false when record.py has run them again.
const RECORDED_BEFORE_BARRIERS: bool = true;

/// The sites as the instrumenter that recorded `run` numbered them.
fn sites_of(ptx: &str, run: &str) -> Vec<Site> {
    let sites = instrument(ptx).unwrap().sites;
    let before_cluster = RECORDED_BEFORE_CLUSTER.contains(&run);
    sites
        .into_iter()
        .filter(|s| !(before_cluster && s.space() == Some(Space::Cluster)))
        .filter(|s| !(RECORDED_BEFORE_BARRIERS && s.is_barrier()))
        .enumerate()
        .map(|(id, s)| Site { id: id as u32, ..s })
        .collect()
}

fn load(fixture: &str, run: &str) -> (Vec<Site>, Vec<Record>) {
    let ptx = std::fs::read_to_string(format!("{DIR}/ptx/{fixture}.ptx")).unwrap();
    let sites = sites_of(&ptx, run);
    let bytes = std::fs::read(format!("{DIR}/trace/{run}.bin")).unwrap();
    let records = decode(&bytes, &sites).unwrap_or_else(|e| panic!("{run}: {e}"));
    (sites, records)
}

fn by_op<'a>(summaries: &'a [InstructionSummary], op: &str) -> Vec<&'a InstructionSummary> {
    summaries.iter().filter(|s| s.op == op).collect()
}

#[test]
fn nothing_overflowed() {
    let counts: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/trace/counts.json")).unwrap())
            .unwrap();
    for (run, count) in counts.as_object().unwrap() {
        let len = std::fs::metadata(format!("{DIR}/trace/{run}.bin"))
            .unwrap()
            .len();
        assert_eq!(len, count.as_u64().unwrap() * RECORD_BYTES as u64, "{run}");
    }
}

#[test]
fn shared_stride_wavefronts_per_request() {
    for (stride, expected) in [(1, 1), (32, 32), (33, 1)] {
        let (sites, records) = load("shared_stride", &format!("shared_stride-{stride}"));
        let s = summarize(&records, &sites);
        let load = by_op(&s, "ld.shared.f32")[0];
        // Two sampled blocks of 8 warps.
        assert_eq!(load.requests, 16, "stride {stride}");
        assert_eq!(load.wavefronts, 16 * expected, "stride {stride}");
        assert_eq!(load.ideal_wavefronts, 16);
        // Grid of 4, sampled with stride 2 and limit 2: blocks 0 and 2.
        let blocks: BTreeSet<u32> = records.iter().map(|r| r.block).collect();
        assert_eq!(blocks, BTreeSet::from([0, 2]));
    }
}

#[test]
fn padded_transpose_reads_columns_without_conflicts() {
    let (sites, records) = load("transpose_padded", "transpose_padded");
    let s = summarize(&records, &sites);
    for load in by_op(&s, "ld.shared.f32") {
        assert_eq!(load.wavefronts, load.requests, "line {}", load.ptx_line);
        // Column reads: consecutive lanes 33 words apart.
        let sample = load.sample.as_ref().unwrap();
        assert_eq!(sample.addrs[1] - sample.addrs[0], 33 * 4);
    }
    for load in by_op(&s, "ld.global.f32") {
        assert_eq!(load.sectors, 4 * load.requests);
    }
    let warps: BTreeSet<u32> = records.iter().map(|r| r.warp).collect();
    assert_eq!(warps, (0..8).collect());
}

#[test]
fn guarded_gather_traces_only_the_lanes_inside() {
    let (sites, records) = load("gather_guarded", "gather_guarded");
    // n = 200 in a block of 256: warps 0-5 full, warp 6 has 8 lanes, warp 7 none.
    let masks: BTreeSet<(u32, u32)> = records.iter().map(|r| (r.warp, r.mask)).collect();
    assert!(masks.contains(&(6, 0xFF)));
    assert!(records.iter().all(|r| r.warp < 7));
    let s = summarize(&records, &sites);
    let gather = by_op(&s, "ld.global.nc.f32")[0];
    assert_eq!(gather.sectors, 6 * 32 + 8);
    assert_eq!(by_op(&s, "ld.global.nc.u32")[0].sectors, 6 * 4 + 1);
}

#[test]
fn generic_pointer_resolves_per_run() {
    for (run, space) in [
        ("generic_ptr-1", Space::Shared),
        ("generic_ptr-0", Space::Global),
    ] {
        let (sites, records) = load("generic_ptr", run);
        let s = summarize(&records, &sites);
        let generic = by_op(&s, "ld.f32")[0];
        assert_eq!(generic.space, space, "{run}");
        assert_eq!(generic.requests, 8);
        if space == Space::Shared {
            // Offsets in the shared window, inside the 1 KiB array, and conflict-free.
            let sample = generic.sample.as_ref().unwrap();
            assert!(sample.addrs.iter().all(|&a| a < 64 * 1024));
            assert_eq!(generic.wavefronts, 8);
        } else {
            assert!(generic.sectors >= 8 * 4);
        }
    }
}

#[test]
fn constant_uniform_versus_per_lane() {
    let (sites, records) = load("const_read", "const_read");
    let s = summarize(&records, &sites);
    let consts = by_op(&s, "ld.const.f32");
    assert_eq!((consts[0].requests, consts[0].distinct), (2, 64));
    assert_eq!((consts[1].requests, consts[1].distinct), (2, 2));
    let t = totals(&records, &sites);
    assert_eq!((t.constant.requests, t.constant.distinct), (4, 66));
}

#[test]
fn local_array_traffic() {
    let (sites, records) = load("local_array", "local_array");
    let s = summarize(&records, &sites);
    let stores = by_op(&s, "st.local.v4.f32");
    assert_eq!(stores.len(), 8);
    assert!(stores.iter().all(|st| st.local_bytes == 2 * 32 * 16));
    // Every lane's frame sits at the same local offset: local memory is per thread.
    let sample = stores[0].sample.as_ref().unwrap();
    assert!(sample.addrs.iter().all(|&a| a == sample.addrs[0]));
}

#[test]
fn vector_shared_loads_take_their_phases() {
    let (sites, records) = load("shared_vector", "shared_vector");
    let s = summarize(&records, &sites);
    let v2 = by_op(&s, "ld.shared.v2.u32")[0];
    let v4 = by_op(&s, "ld.shared.v4.u32")[0];
    assert_eq!((v2.wavefronts, v2.ideal_wavefronts), (8 * 2, 8 * 2));
    assert_eq!((v4.wavefronts, v4.ideal_wavefronts), (8 * 4, 8 * 4));
}

#[test]
fn inline_asm_forms_on_the_device() {
    let (sites, records) = load("asm_forms", "asm_forms");
    let of = |site: u32, warp: u32| {
        records
            .iter()
            .find(|r| r.site == site && r.warp == warp)
            .unwrap_or_else(|| panic!("no record of site {site} warp {warp}"))
    };
    let op = |id: u32| sites[id as usize].op.as_str();
    assert_eq!((op(1), op(2)), ("ld.shared.u32", "ld.shared::cta.u32"));
    for warp in 0..2 {
        // [%r+-4] against [%r]: four bytes lower, lane by lane.
        let (minus4, plain) = (of(1, warp), of(2, warp));
        assert!((0..32).all(|l| minus4.addrs[l] + 4 == plain.addrs[l]));
        // `@!p` with p = lane is odd: only even lanes, and the warp is whole again after.
        assert_eq!(op(3), "ld.volatile.shared.u32");
        assert_eq!(of(3, warp).mask, 0x5555_5555);
        assert_eq!(of(4, warp).mask, u32::MAX);
    }
    // One record per site and warp: the guard split nothing. The recording predates the
    // tracing of the cluster load, which the instrumenter now makes a site of its own.
    assert_eq!(records.len(), 2 * sites.len());
    let ptx = std::fs::read_to_string(format!("{DIR}/ptx/asm_forms.ptx")).unwrap();
    let now = instrument(&ptx).unwrap().sites;
    let cluster: Vec<_> = now
        .iter()
        .filter(|s| s.op == "ld.shared::cluster.u32")
        .collect();
    assert_eq!(cluster.len(), 1);
    assert_eq!(cluster[0].space(), Some(Space::Cluster));
}

/// Writes the instrumented fixtures for record.py:
/// `GPULAB_WRITE_INSTRUMENTED=DIR cargo test --test it trace_recorded:: -- --ignored`.
#[test]
#[ignore]
fn write_instrumented() {
    let out = std::env::var("GPULAB_WRITE_INSTRUMENTED").expect("set GPULAB_WRITE_INSTRUMENTED");
    std::fs::create_dir_all(&out).unwrap();
    for entry in std::fs::read_dir(format!("{DIR}/ptx")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ptx") {
            let inst = instrument(&std::fs::read_to_string(&path).unwrap()).unwrap();
            std::fs::write(
                std::path::Path::new(&out).join(path.file_name().unwrap()),
                inst.ptx,
            )
            .unwrap();
        }
    }
}
