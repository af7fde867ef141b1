//! The tracer's counts against the hardware's: for every variant of the traced lessons, run
//! the uninstrumented build once under Nsight Compute and compare its counters with the
//! traced totals (scaled from the sampled blocks to the grid). Runs where there is a GPU and
//! ncu; skips, saying why, elsewhere. Writes the comparison table to $GPULAB_NCU_TABLE.

mod common;

use common::bin;
use gpulab::course::bundle::CourseRoot;
use gpulab::model::Reference;
use gpulab::model::access::{AccessKind, Space};
use gpulab::model::results::LessonResult;
use std::collections::BTreeMap;
use std::process::Command;

const LESSONS: [&str; 3] = ["global-coalescing", "shared-banks", "shared-transpose"];

const METRICS: [&str; 10] = [
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
];

/// Parse ncu's `--csv` details output into metric -> value.
fn parse_ncu_csv(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let mut cols: Option<(usize, usize)> = None;
    for line in text.lines() {
        let fields: Vec<String> = line
            .trim()
            .trim_matches('"')
            .split("\",\"")
            .map(str::to_string)
            .collect();
        if let (Some(n), Some(v)) = (
            fields.iter().position(|f| f == "Metric Name"),
            fields.iter().position(|f| f == "Metric Value"),
        ) {
            cols = Some((n, v));
            continue;
        }
        if let Some((n, v)) = cols
            && fields.len() > n.max(v)
            && let Ok(x) = fields[v].replace(',', "").parse::<f64>()
        {
            out.insert(fields[n].clone(), x);
        }
    }
    out
}

/// Traced totals per (space, kind), scaled from the sampled blocks to the whole grid.
fn traced(r: &LessonResult, variant: &str) -> BTreeMap<&'static str, f64> {
    let v = r.variants.iter().find(|v| v.name == variant).unwrap();
    let m = v
        .memory
        .as_ref()
        .unwrap_or_else(|| panic!("{variant}: no trace ({:?})", v.trace_error));
    let k = m.total_blocks as f64 / m.traced_blocks.max(1) as f64;
    let mut t = BTreeMap::new();
    for i in &m.instructions {
        let key = |a: &'static str, b: &'static str| if i.kind == AccessKind::Load { a } else { b };
        match i.space {
            Space::Shared => {
                *t.entry(key("shared requests ld", "shared requests st"))
                    .or_insert(0.0) += i.requests as f64 * k;
                *t.entry(key("shared wavefronts ld", "shared wavefronts st"))
                    .or_insert(0.0) += i.wavefronts as f64 * k;
                *t.entry(key("shared ideal ld", "shared ideal st"))
                    .or_insert(0.0) += i.ideal_wavefronts as f64 * k;
            }
            Space::Global => {
                *t.entry(key("global requests ld", "global requests st"))
                    .or_insert(0.0) += i.requests as f64 * k;
                *t.entry(key("global sectors ld", "global sectors st"))
                    .or_insert(0.0) += i.sectors as f64 * k;
            }
            _ => {}
        }
    }
    t
}

fn hw_key(label: &str) -> &'static str {
    match label {
        "shared requests ld" => METRICS[0],
        "shared requests st" => METRICS[1],
        "shared wavefronts ld" => METRICS[2],
        "shared wavefronts st" => METRICS[3],
        "global requests ld" => METRICS[4],
        "global requests st" => METRICS[5],
        "global sectors ld" => METRICS[6],
        "global sectors st" => METRICS[7],
        "shared ideal ld" => METRICS[8],
        "shared ideal st" => METRICS[9],
        _ => unreachable!(),
    }
}

/// ncu, when there is a GPU to use it on.
fn ncu_and_gpu() -> Option<std::path::PathBuf> {
    let Some(ncu) = gpulab::cuda::discover::find().ncu.clone() else {
        eprintln!("skipped: ncu not found");
        return None;
    };
    let probe = Command::new(bin()).arg("doctor").output().unwrap();
    if !String::from_utf8_lossy(&probe.stdout).contains("✓ GPU") {
        eprintln!("skipped: no GPU");
        return None;
    }
    Some(ncu)
}

#[test]
fn traced_counts_match_the_hardware_counters() {
    let Some(ncu) = ncu_and_gpu() else {
        return;
    };
    compare(
        &ncu,
        &CourseRoot::Bundled,
        &[],
        &LESSONS,
        "GPULAB_NCU_TABLE",
    );
}

/// The 8- and 16-byte shapes the bank model's pairing rule was calibrated on
/// (tests/fixtures/wide_shared), against the hardware.
#[test]
fn wide_shared_loads_match_the_hardware_counters() {
    let Some(ncu) = ncu_and_gpu() else {
        return;
    };
    let dir = common::fixture("wide_shared/lessons");
    let root = CourseRoot::Dir(dir.clone());
    let args = ["--lessons", dir.to_str().unwrap()];
    compare(
        &ncu,
        &root,
        &args,
        &["wide-shared"],
        "GPULAB_NCU_WIDE_TABLE",
    );
}

fn compare(ncu: &std::path::Path, root: &CourseRoot, pre: &[&str], ids: &[&str], table_env: &str) {
    let (lessons, errors) = gpulab::course::load_course(root);
    assert!(errors.is_empty(), "{errors:?}");
    let mut table = String::from(
        "| lesson | variant | counter | traced | ncu | difference |\n|---|---|---|---|---|---|\n",
    );
    let mut worst: f64 = 0.0;
    for &id in ids {
        let l = lessons.iter().find(|l| l.id == id).expect(id);
        for (vi, v) in l.variants.iter().enumerate() {
            let out = Command::new(bin())
                .args(pre)
                .args(["run", id, "--variant", &v.name, "--json", "--no-time"])
                .output()
                .unwrap();
            let r: LessonResult = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!(
                    "{id} {}: {e} {}",
                    v.name,
                    String::from_utf8_lossy(&out.stderr)
                )
            });
            let t = traced(&r, &v.name);
            // The reference variant runs first when it is another variant.
            let skip = match l.reference {
                Reference::Variant(r) if r != vi => 1,
                _ => 0,
            };
            let prof = Command::new(ncu)
                .args([
                    "--csv",
                    "--clock-control",
                    "none",
                    "--target-processes",
                    "all",
                ])
                .args(["--launch-skip", &skip.to_string(), "--launch-count", "1"])
                .args(["--metrics", &METRICS.join(",")])
                .arg(bin())
                .args(pre)
                .args(["run", id, "--variant", &v.name, "--no-time", "--no-trace"])
                .output()
                .unwrap();
            let hw = parse_ncu_csv(&String::from_utf8_lossy(&prof.stdout));
            assert!(
                !hw.is_empty(),
                "ncu gave nothing for {id} {}:\n{}",
                v.name,
                String::from_utf8_lossy(&prof.stderr)
            );
            for (label, traced) in &t {
                let mut hw_v = hw.get(hw_key(label)).copied().unwrap_or(f64::NAN);
                if label.starts_with("shared ideal") {
                    // The hardware's wavefront counter also counts wavefronts lost to
                    // arbitration with other traffic, which its bank-conflict counter counts
                    // too (on conflict-free code the two excesses are equal), so wavefronts
                    // minus conflicts is what the addresses alone demand.
                    let wf = if label.ends_with("ld") {
                        METRICS[2]
                    } else {
                        METRICS[3]
                    };
                    hw_v = hw.get(wf).copied().unwrap_or(f64::NAN) - hw_v;
                }
                let diff = if hw_v == 0.0 && *traced == 0.0 {
                    0.0
                } else {
                    (traced - hw_v) / hw_v * 100.0
                };
                // Traced shared wavefronts may sit below the hardware's count by what it lost
                // to arbitration, but never below what the addresses alone demand (its
                // wavefronts minus its conflicts) and never above its count by over 1%.
                let arbitration = label.starts_with("shared wavefronts");
                if arbitration {
                    let side = if label.ends_with("ld") { "ld" } else { "st" };
                    let conflicts = hw
                        .get(hw_key(&format!("shared ideal {side}")))
                        .copied()
                        .unwrap_or(f64::NAN);
                    let floor = hw_v - conflicts;
                    // 0.01%: what scaling the sampled blocks to the grid can move a count.
                    let under = (floor - traced) / floor * 100.0;
                    let over = diff;
                    // NaN (a counter ncu did not give) fails too.
                    let within = under <= 0.01 && over <= 1.0;
                    if !within {
                        worst = f64::INFINITY;
                    }
                } else {
                    worst = worst.max(diff.abs());
                }
                let note = if arbitration && diff.abs() > 1.0 {
                    " (arbitration)"
                } else {
                    ""
                };
                table.push_str(&format!(
                    "| {id} | {} | {label} | {traced:.0} | {hw_v:.0} | {diff:+.2}%{note} |\n",
                    v.name
                ));
            }
            // A counter the hardware saw but the trace did not is a miss too.
            for label in [
                "shared requests ld",
                "shared requests st",
                "global requests ld",
                "global requests st",
            ] {
                let hw_v = hw.get(hw_key(label)).copied().unwrap_or(0.0);
                if hw_v > 0.0 && !t.contains_key(label) {
                    worst = f64::INFINITY;
                    table.push_str(&format!(
                        "| {id} | {} | {label} | 0 | {hw_v:.0} | missed |\n",
                        v.name
                    ));
                }
            }
        }
    }
    println!("{table}");
    if let Ok(path) = std::env::var(table_env) {
        std::fs::write(path, &table).unwrap();
    }
    assert!(worst <= 1.0, "worst disagreement {worst:.2}%:\n{table}");
}
