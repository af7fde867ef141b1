//! The exercises live on a GPU, times included: every starter fails a check, every wrong
//! answer (`wrong/*.cu`, tests/it/exercise_wrong_answers.rs runs them on the CPU) fails the
//! check its header names, judged first with only the runs it needs (`--deciding`); every
//! solution and `right/*.cu` passes them all; a table per
//! exercise says which checks caught each, and which the header named. And the output check catches kernels that are
//! wrong only at some sizes or that leave outputs unwritten. Skipped, saying why, without
//! a GPU; run on one with
//! `cargo test --release --test it gpu_exercises:: -- --nocapture --test-threads=1`
//! (`GPULAB_EXERCISES=id,id` for some of them).

use crate::support::{common, wrong_answers};

use common::{bin, fixture};
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
fn every_answer_live_starters_and_wrong_answers_fail_their_check_solutions_pass_all() {
    let Some(dev) = common::gpu() else { return };
    let (exercises, mut problems) = wrong_answers::shipped();
    // `GPULAB_EXERCISES=id,id` checks only those exercises, so the whole table can be made
    // in parts on a machine that limits how long one command runs.
    let only: Option<Vec<String>> = std::env::var("GPULAB_EXERCISES")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    // In the order `GPULAB_EXERCISES` names them: what a short slot must see comes first.
    let rank = |id: &String| (only.as_ref()).and_then(|o| o.iter().position(|x| x == id));
    let mut chosen: Vec<_> = (exercises.iter())
        .filter(|e| only.as_ref().is_none_or(|o| o.contains(&e.id)))
        .collect();
    chosen.sort_by_key(|e| rank(&e.id));
    let mut cases: Vec<_> = chosen.iter().flat_map(|e| e.cases.clone()).collect();
    // The answers that must pass are checked whole (every size, and strictly on the
    // interpreter), those that must fail stop at their first failing check: the long ones
    // start first, so that none is left to run alone at the end. The solutions first of
    // all: each keeps its figures for the exercise's later checks (`--reuse-figures`),
    // which would otherwise each measure it again.
    cases.sort_by_key(|c| match c.kind {
        wrong_answers::Kind::Solution => 0,
        wrong_answers::Kind::Right => 1,
        _ => 2,
    });
    let start = std::time::Instant::now();
    // Several checks at once: their workers take the GPU by turns (each variant's timing
    // alone on it, checks and traces side by side), while their compiles, traces' analyses
    // and the output checks on the host run beside each other. `GPULAB_TABLE_THREADS` says
    // how many (default: a core each; two a core made the table slower on an H200, the
    // timed runs waiting for the host's oversubscribed cores).
    let threads = std::env::var("GPULAB_TABLE_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(wrong_answers::threads);
    // A row as each check ends (exercise, answer, seconds, what failed, and for a wrong
    // answer its class and the check its file says must catch it); the table again in
    // order at the end.
    let row = |case: &wrong_answers::Case, o: &wrong_answers::Outcome| {
        let failed = o.failed();
        let said = if failed.is_empty() {
            format!("nothing fails (exit {})", o.code)
        } else {
            format!("✗ {}", failed.join("; "))
        };
        let named = match &case.kind {
            wrong_answers::Kind::Wrong {
                caught_by, class, ..
            } => format!("  [{class}; must: {caught_by}]"),
            _ => String::new(),
        };
        let bad = wrong_answers::verdict(case, o, false).map_or("", |_| "  <- NOT AS SHIPPED");
        format!(
            "  {:<28} {:<28} {:>5.1} s  {said}{named}{bad}",
            case.exercise, case.name, o.secs
        )
    };
    // `GPULAB_TABLE_LOGS=dir` keeps what each check said, stamped, when it began, and its
    // verdicts with their figures.
    let logs = std::env::var_os("GPULAB_TABLE_LOGS").map(std::path::PathBuf::from);
    // The solution and the variants an exercise compares with are timed and traced once
    // on this GPU, by the exercise's first check; every later one compares with them.
    let kept = tempfile::tempdir().unwrap();
    let batch = wrong_answers::Batch {
        cpu: false,
        reuse: Some(kept.path()),
    };
    let outcomes = wrong_answers::check_all_saying(&cases, batch, threads, |c, o| {
        eprintln!("{}", row(c, o));
        if let Some(dir) = &logs {
            let name = format!("{}--{}.log", c.exercise, c.name.replace('/', "-"));
            let began = start.elapsed().as_secs_f64() - o.secs;
            let text = format!(
                "began {began:.2} s into the table\n{}\n{}",
                o.stderr,
                o.summary()
            );
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(dir.join(name), text);
        }
        if wrong_answers::verdict(c, o, false).is_some() {
            eprintln!("{}", o.summary());
        }
    });
    let mut table = format!("\nThe table on {}, in order:\n", dev.name);
    for (case, o) in cases.iter().zip(&outcomes) {
        table.push_str(&row(case, o));
        table.push('\n');
        if let Some(why) = wrong_answers::verdict(case, o, false) {
            problems.push(format!(
                "{} {}: {why}\n{}",
                case.exercise,
                case.name,
                o.summary()
            ));
        }
    }
    eprintln!(
        "{table}\n{} checks live in {:.0} s",
        cases.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
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
