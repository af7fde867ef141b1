//! The exercises live on a GPU: each shipped starter fails at least one check and each
//! solution passes them all, and the output check catches kernels that are wrong only at
//! some sizes or that leave outputs unwritten. Skipped, saying why, without a GPU; run on
//! one with `cargo test --release --test gpu_exercises -- --nocapture --test-threads=1`.

mod common;

use common::{bin, fixture};
use gpulab::course::bundle::CourseRoot;
use std::path::Path;
use std::process::Command;

fn check(lessons: Option<&Path>, ws: &Path, id: &str) -> (i32, serde_json::Value, String) {
    let mut cmd = Command::new(bin());
    if let Some(l) = lessons {
        cmd.arg("--lessons").arg(l);
    }
    let out = cmd
        .args(["ex", "--workspace"])
        .arg(ws)
        .args(["check", id, "--json"])
        .env("GPULAB_DATA_DIR", ws.join("data"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{id}: {e}\n{stderr}"));
    (out.status.code().unwrap_or(-1), v, stderr)
}

fn summary(r: &serde_json::Value) -> String {
    let mut s = String::new();
    for l in r["lines"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "  {} {}  {}\n",
            l["mark"], l["check"], l["detail"]
        ));
    }
    if let Some(e) = r["compile_error"].as_str() {
        s.push_str(&format!("  compile error: {e}\n"));
    }
    s
}

#[test]
fn each_shipped_starter_fails_a_check_and_each_solution_passes_all() {
    let Some(dev) = common::gpu() else { return };
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path();
    let mut problems = Vec::new();
    for ex in lessons.iter().flat_map(|l| &l.exercises) {
        let mine = ws.join(format!("{}.cu", ex.id));
        std::fs::write(&mine, &ex.starter).unwrap();
        let (code, r, _) = check(None, ws, &ex.id);
        eprintln!(
            "{} starter on {} (exit {code}):\n{}",
            ex.id,
            dev.name,
            summary(&r)
        );
        let fails = r["lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["mark"] == "fail");
        if code == 0 || !fails {
            problems.push(format!("{}: the starter fails no check", ex.id));
        }
        std::fs::write(&mine, &ex.solution).unwrap();
        let (code, r, err) = check(None, ws, &ex.id);
        eprintln!("{} solution (exit {code}):\n{}", ex.id, summary(&r));
        let all = r["lines"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["mark"] == "pass");
        if code != 0 || !all || !r["compile_error"].is_null() {
            problems.push(format!("{}: the solution does not pass\n{err}", ex.id));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Right at the lesson's size (a multiple of the block) and wrong at the others.
const FULL_BLOCKS_ONLY: &str = r#"
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 256 * 256) out[i] = in[i];
}
"#;

/// Writes every element, but not what the reference wants.
const OFF_BY_ONE: &str = r#"
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + 1 < n ? i + 1 : i];
}
"#;

#[test]
fn the_output_check_catches_a_kernel_wrong_only_at_sizes_off_the_block() {
    let Some(_) = common::gpu() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let lessons = fixture("expack/lessons");
    let mine = tmp.path().join("fix-copy.cu");
    // The fixture's starter has no bounds check: its last block writes past the output at
    // n = 1000, into the guard zone.
    let starter =
        std::fs::read_to_string(fixture("expack/exercises/tiny/fix-copy/starter.cu")).unwrap();
    let cases = [
        ("full blocks only", FULL_BLOCKS_ONLY, "wrong at n = 1000"),
        ("off by one", OFF_BY_ONE, "wrong at"),
        ("no bounds check", starter.as_str(), "past the end of `out`"),
    ];
    for (name, src, says) in cases {
        std::fs::write(&mine, src).unwrap();
        let (code, r, err) = check(Some(&lessons), tmp.path(), "fix-copy");
        let first = &r["lines"][0];
        assert_eq!(first["mark"], "fail", "{name}: {}\n{err}", summary(&r));
        let detail = first["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(says), "{name}: {detail}");
        assert_eq!(code, 1, "{name}");
        eprintln!("{name}: {detail}");
    }
    let solution = fixture("expack/exercises/tiny/fix-copy/solution.cu");
    std::fs::copy(solution, &mine).unwrap();
    let (code, r, err) = check(Some(&lessons), tmp.path(), "fix-copy");
    assert_eq!(code, 0, "{}\n{err}", summary(&r));
    assert_eq!(r["lines"][0]["mark"], "pass", "{}", summary(&r));
}
