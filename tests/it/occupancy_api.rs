//! The occupancy rules against the driver: every row of h100_api.json is what
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor` returned on an H100 (CC 9.0) for a kernel
//! with that block size, register count (read back from the loaded function) and shared
//! memory. Made with tests/fixtures/occupancy/probe.py.

use gpulab::analysis::occupancy::{Limits, occupancy};
use serde::Deserialize;

#[derive(Deserialize)]
struct Row {
    threads: u32,
    regs: u32,
    smem: u32,
    blocks: u32,
}

#[test]
fn rules_agree_with_the_driver_on_h100() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/occupancy/h100_api.json"
    );
    let rows: Vec<Row> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    // The grid covers every limiter, including launches that do not fit.
    assert!(rows.len() > 200);
    assert!(rows.iter().any(|r| r.blocks == 0));
    assert!(rows.iter().any(|r| r.blocks == 32));

    let limits = Limits::for_cc(9, 0).unwrap();
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let ours = occupancy(&limits, r.threads, r.regs, r.smem).blocks_per_sm;
            (ours != r.blocks).then(|| {
                format!(
                    "{} threads, {} regs, {} B smem: driver {}, rules {ours}",
                    r.threads, r.regs, r.smem, r.blocks
                )
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
