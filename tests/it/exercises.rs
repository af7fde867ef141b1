//! `gpulab ex`: the learner's file is never overwritten, reset keeps a backup, a starter
//! that changed upstream is noticed, the solution is gated, and (with NVRTC) the loop from
//! a spilling file to a fixed one. Each test has its own data directory and workspace.

use crate::support::common;

use common::{bin, fixture, nvrtc_or_skip};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A data directory, a workspace and a course for one test.
struct Lab {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    ws: PathBuf,
    lessons: PathBuf,
}

impl Lab {
    /// The fixture pack, copied so that a test may change its starter.
    fn new() -> Lab {
        let tmp = tempfile::tempdir().unwrap();
        let course = tmp.path().join("course");
        copy_dir(&fixture("expack"), &course);
        Lab {
            data: tmp.path().join("data"),
            ws: tmp.path().join("ws"),
            lessons: course.join("lessons"),
            _tmp: tmp,
        }
    }

    fn ex(&self, args: &[&str]) -> Output {
        Command::new(bin())
            .arg("--lessons")
            .arg(&self.lessons)
            .arg("ex")
            .arg("--workspace")
            .arg(&self.ws)
            .args(args)
            .env("GPULAB_DATA_DIR", &self.data)
            .env_remove("GPULAB_WORKSPACE")
            .output()
            .unwrap()
    }

    fn mine(&self) -> PathBuf {
        self.ws.join("fix-copy.cu")
    }

    fn starter(&self) -> PathBuf {
        self.lessons
            .parent()
            .unwrap()
            .join("exercises/tiny/fix-copy/starter.cu")
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn start_copies_the_starter_once_and_never_overwrites_the_learners_file() {
    let lab = Lab::new();
    let o = lab.ex(&["start", "fix-copy"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(&lab.mine().display().to_string()),
        "{}",
        text(&o)
    );
    let starter = std::fs::read_to_string(lab.starter()).unwrap();
    assert_eq!(std::fs::read_to_string(lab.mine()).unwrap(), starter);
    std::fs::write(lab.mine(), "// my work\n").unwrap();
    let o = lab.ex(&["start", "fix-copy"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("left as it is"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(lab.mine()).unwrap(), "// my work\n");
}

#[test]
fn reset_keeps_the_learners_file_as_a_timestamped_backup() {
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    std::fs::write(lab.mine(), "// attempt one\n").unwrap();
    let o = lab.ex(&["reset", "fix-copy"]);
    assert!(o.status.success(), "{}", text(&o));
    std::fs::write(lab.mine(), "// attempt two\n").unwrap();
    let o = lab.ex(&["reset", "fix-copy"]);
    assert!(o.status.success(), "{}", text(&o));
    let mut backups: Vec<String> = std::fs::read_dir(&lab.ws)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("fix-copy.cu.") && n.ends_with(".bak"))
        .collect();
    backups.sort();
    assert_eq!(backups.len(), 2, "{backups:?}");
    let kept: Vec<String> = backups
        .iter()
        .map(|b| std::fs::read_to_string(lab.ws.join(b)).unwrap())
        .collect();
    assert!(kept.contains(&"// attempt one\n".to_string()), "{kept:?}");
    assert!(kept.contains(&"// attempt two\n".to_string()), "{kept:?}");
    let starter = std::fs::read_to_string(lab.starter()).unwrap();
    assert_eq!(std::fs::read_to_string(lab.mine()).unwrap(), starter);
}

#[test]
fn a_starter_changed_upstream_leaves_the_learners_file_and_says_so() {
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    std::fs::write(lab.mine(), "// mine\n").unwrap();
    let o = lab.ex(&["start", "fix-copy"]);
    assert!(!text(&o).contains("changed"), "{}", text(&o));
    let mut s = std::fs::read_to_string(lab.starter()).unwrap();
    s.push_str("// a later edition\n");
    std::fs::write(lab.starter(), s).unwrap();
    let o = lab.ex(&["start", "fix-copy"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("the starter changed"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(lab.mine()).unwrap(), "// mine\n");
}

#[test]
fn the_solution_waits_for_a_pass_unless_asked_anyway_which_is_recorded() {
    let lab = Lab::new();
    let o = lab.ex(&["solution", "fix-copy"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(o.stdout.is_empty(), "{}", text(&o));
    assert!(text(&o).contains("--show-anyway"), "{}", text(&o));
    let o = lab.ex(&["solution", "fix-copy", "--show-anyway"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("if (i < n)"));
    let o = lab.ex(&["list", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(list[0]["id"], "fix-copy");
    assert_eq!(list[0]["solution_shown"], true);
    assert_eq!(list[0]["passed"], false);
    let book = std::fs::read_to_string(lab.data.join("exercises.json")).unwrap();
    assert!(book.contains("\"shown_before_passing\": true"), "{book}");
}

#[test]
fn hints_come_one_at_a_time_and_are_counted() {
    let lab = Lab::new();
    let first = lab.ex(&["hint", "fix-copy"]);
    assert!(
        text(&first).contains("hint 1 of 2: First hint."),
        "{}",
        text(&first)
    );
    let second = lab.ex(&["hint", "fix-copy", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(
        (j["hint"].as_u64(), j["text"].as_str()),
        (Some(2), Some("Second hint."))
    );
    let list: serde_json::Value =
        serde_json::from_slice(&lab.ex(&["list", "--json"]).stdout).unwrap();
    assert_eq!(list[0]["hints_shown"], 2);
}

#[test]
fn list_rows_fit_80_columns_and_count_in_words() {
    let lab = Lab::new();
    assert!(lab.ex(&["start", "fix-copy"]).status.success());
    assert!(lab.ex(&["hint", "fix-copy"]).status.success());
    let o = lab.ex(&["list"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", text(&o));
    for row in out.lines().filter(|l| !l.starts_with("workspace: ")) {
        assert!(
            row.chars().count() <= 80,
            "{} columns: {row}",
            row.chars().count()
        );
    }
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("fix-copy "))
        .unwrap();
    assert!(row.ends_with("started, 1 hint"), "{row}");
    // The title, on the row under its exercise.
    let title = lab.ex(&["list", "--json"]);
    let j: serde_json::Value = serde_json::from_slice(&title.stdout).unwrap();
    let title = j[0]["title"].as_str().unwrap();
    let below = out.lines().skip_while(|l| *l != row).nth(1).unwrap();
    assert_eq!(below.trim(), title);
}

#[test]
fn a_file_without_the_kernel_is_said_so_by_name() {
    if !nvrtc_or_skip("a_file_without_the_kernel_is_said_so_by_name") {
        return;
    }
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    let mine = "// my copy, to come\n// nothing yet\n\n\
                extern \"C\" __global__ void copy_other(float* out) { out[0] = 1.0f; }\n";
    std::fs::write(lab.mine(), mine).unwrap();
    let want = format!("no kernel named copy_mine in {}", lab.mine().display());
    for cpu in [false, true] {
        let args = if cpu {
            vec!["check", "fix-copy", "--cpu"]
        } else {
            vec!["check", "fix-copy"]
        };
        let o = lab.ex(&args);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(out.contains(&want), "cpu {cpu}: {out}");
        assert!(
            !out.contains("is undefined") && !out.contains(":2:"),
            "{out}"
        );
    }
}

#[test]
fn start_and_hint_print_the_task_as_paragraphs() {
    let lab = Lab::new();
    let yaml = lab.lessons.join(
        std::fs::read_dir(&lab.lessons)
            .unwrap()
            .find_map(|e| {
                let n = e.unwrap().file_name().into_string().unwrap();
                n.ends_with(".yaml").then_some(n)
            })
            .unwrap(),
    );
    let lesson = std::fs::read_to_string(&yaml).unwrap();
    let task = "      Copy in to out without spilling under the register cap. The cap is\n\
                \x20     thirty-two registers,\n\
                \x20     so keep little live.\n\
                \n\
                \x20     Then check it.\n";
    let lesson = lesson.replacen(
        "      Copy in to out without spilling under the register cap.\n",
        task,
        1,
    );
    let lesson = lesson.replacen(
        "      - \"First hint.\"",
        "      - |\n        First hint, written\n        over two lines.",
        1,
    );
    std::fs::write(&yaml, lesson).unwrap();
    let o = lab.ex(&["start", "fix-copy"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        out.contains(
            "Copy in to out without spilling under the register cap. The cap is thirty-two\n\
             registers, so keep little live.\n\nThen check it.\n"
        ),
        "joined, wrapped at 80, the blank line kept:\n{out}"
    );
    assert!(out.lines().all(|l| l.chars().count() <= 80), "{out}");
    let o = lab.ex(&["hint", "fix-copy"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with("hint 1 of 2: First hint, written over two lines.\n"),
        "{out}"
    );
}

#[test]
fn check_before_start_says_how_to_start() {
    let lab = Lab::new();
    let o = lab.ex(&["check", "fix-copy"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        text(&o).contains("gpulab ex start fix-copy"),
        "{}",
        text(&o)
    );
}

/// 64 live words under -maxrregcount=32: spills.
const SPILLS: &str = r#"
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float w[64];
#pragma unroll
    for (int k = 0; k < 64; ++k) w[k] = in[(i + k * 97) % n];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 64; ++k) s += w[k];
#pragma unroll
    for (int k = 0; k < 64; ++k) s = s * w[k] + w[63 - k];
    out[i] = in[i] + 0.0f * s;
}
"#;

#[test]
fn the_loop_from_a_spilling_file_to_a_fixed_one() {
    if !nvrtc_or_skip("the_loop_from_a_spilling_file_to_a_fixed_one") {
        return;
    }
    let lab = Lab::new();
    assert!(lab.ex(&["start", "fix-copy"]).status.success());
    std::fs::write(lab.mine(), SPILLS).unwrap();
    let o = lab.ex(&["check", "fix-copy"]);
    let out = text(&o);
    assert!(out.contains("✗ yours spill stores (bytes) = 0"), "{out}");
    assert_eq!(o.status.code(), Some(1), "{out}");
    let fix = lab
        .lessons
        .parent()
        .unwrap()
        .join("exercises/tiny/fix-copy/solution.cu");
    std::fs::copy(fix, lab.mine()).unwrap();
    let o = lab.ex(&["check", "fix-copy"]);
    let out = text(&o);
    assert!(out.contains("✓ yours spill stores (bytes) = 0"), "{out}");
    assert!(!out.contains('✗'), "{out}");
    // With no GPU but NVRTC a check runs on the CPU interpreter, as the lab's does: every
    // check is one the interpreter judges, so it passes (exit 0, with --cpu alike).
    assert!(out.contains("on the CPU interpreter"), "{out}");
    assert_eq!(o.status.code(), Some(0), "{out}");
    let list: serde_json::Value =
        serde_json::from_slice(&lab.ex(&["list", "--json"]).stdout).unwrap();
    assert_eq!(list[0]["attempts"], 2);
}

#[test]
fn a_file_that_does_not_compile_shows_the_compilers_words_and_fails() {
    if !nvrtc_or_skip("a_file_that_does_not_compile_shows_the_compilers_words_and_fails") {
        return;
    }
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    std::fs::write(
        lab.mine(),
        "extern \"C\" __global__ void copy_mine(const float* in, float* out, int n)\n{\n    out[0] = in[0]\n}\n",
    )
    .unwrap();
    let o = lab.ex(&["check", "fix-copy", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let err = r["compile_error"].as_str().unwrap_or_default();
    assert!(err.contains("expected a \";\""), "{}", text(&o));
}

#[test]
fn gpulab_check_compiles_each_exercises_starter_and_solution() {
    if !nvrtc_or_skip("gpulab_check_compiles_each_exercises_starter_and_solution") {
        return;
    }
    let lab = Lab::new();
    let check = || {
        Command::new(bin())
            .arg("--lessons")
            .arg(&lab.lessons)
            .arg("check")
            .output()
            .unwrap()
    };
    let o = check();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    std::fs::write(
        lab.starter(),
        "extern \"C\" __global__ void copy_mine(const float* in, float* out, int n) { out[0] = in[0] }\n",
    )
    .unwrap();
    let o = check();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("(variant fix-copy starter)"),
        "{}",
        text(&o)
    );
}

/// Waits until `path` holds `needle` at least `times` times, or 60 s pass.
fn wait_for(path: &Path, needle: &str, times: usize) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(60) {
        let seen = std::fs::read_to_string(path).unwrap_or_default();
        if seen.matches(needle).count() >= times {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    false
}

#[test]
fn watch_checks_at_once_and_again_after_a_save() {
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    let log = lab.data.join("watch.log");
    std::fs::create_dir_all(&lab.data).unwrap();
    let out = std::fs::File::create(&log).unwrap();
    let mut child = Command::new(bin())
        .arg("--lessons")
        .arg(&lab.lessons)
        .args(["ex", "--workspace"])
        .arg(&lab.ws)
        .args(["watch", "fix-copy"])
        .env("GPULAB_DATA_DIR", &lab.data)
        .stdout(std::process::Stdio::null())
        .stderr(out)
        .spawn()
        .unwrap();
    let first = wait_for(&log, "· watching", 1);
    std::fs::write(lab.mine(), "// saved by an editor\n").unwrap();
    let second = first && wait_for(&log, "· watching", 2);
    child.kill().unwrap();
    child.wait().unwrap();
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(first, "no first check:\n{said}");
    assert!(second, "no check after the save:\n{said}");
}

fn fake_check(lab: &Lab, mode: &str) -> (Option<i32>, serde_json::Value, String) {
    let o = Command::new(bin())
        .arg("--lessons")
        .arg(&lab.lessons)
        .args(["ex", "--workspace"])
        .arg(&lab.ws)
        .args(["check", "fix-copy", "--json"])
        .env("GPULAB_DATA_DIR", &lab.data)
        .env("GPULAB_WORKER_FAKE", mode)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    (o.status.code(), v, text(&o))
}

#[test]
fn on_a_gpu_the_output_is_checked_at_every_size_with_fresh_runs() {
    // The fake worker stands for a GPU on which every variant is right: one run at the
    // lesson's size, then `seeds` (2) at the one extra size.
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    let (code, r, all) = fake_check(&lab, "gpu");
    assert_eq!(r["live"], true, "{all}");
    let first = &r["lines"][0];
    assert_eq!(first["mark"], "pass", "{all}");
    let detail = first["detail"].as_str().unwrap();
    assert!(detail.contains("right in 3 runs"), "{detail}");
    assert!(detail.contains("n = 1000"), "{detail}");
    // The fake GPU reports no compile figures: those checks were not measured, which is
    // not a pass.
    assert_eq!(r["lines"][1]["mark"], "not_measured", "{all}");
    assert_eq!(code, Some(1), "{all}");
    assert!(all.contains("checking the output at n = 1000"), "{all}");
}

#[test]
fn a_kernel_that_faults_fails_the_output_check_in_words() {
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    let (code, r, all) = fake_check(&lab, "gpu,fault-on:yours");
    let first = &r["lines"][0];
    assert_eq!(first["mark"], "fail", "{all}");
    let detail = first["detail"].as_str().unwrap();
    assert!(detail.contains("illegal memory access"), "{detail}");
    assert_eq!(code, Some(1), "{all}");
    let list: serde_json::Value =
        serde_json::from_slice(&lab.ex(&["list", "--json"]).stdout).unwrap();
    assert_eq!(list[0]["passed"], false);
    assert_eq!(list[0]["attempts"], 1);
}

/// `--reuse-figures DIR` (the exercise table's): the first check times and traces the
/// solution and keeps its figures in DIR, at the lesson's size and at each extra size; a later check of the exercise on the same GPU
/// runs only `yours` and says where the solution's figures came from; a solution edited
/// since is measured again.
#[test]
fn a_table_times_the_solution_once_and_says_so() {
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    let kept = lab.data.join("kept");
    let run = || {
        let o = Command::new(bin())
            .arg("--lessons")
            .arg(&lab.lessons)
            .args(["ex", "--workspace"])
            .arg(&lab.ws)
            .args(["check", "fix-copy", "--json", "--reuse-figures"])
            .arg(&kept)
            .env("GPULAB_DATA_DIR", &lab.data)
            .env("GPULAB_WORKER_FAKE", "gpu,traced")
            .output()
            .unwrap();
        let v: serde_json::Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
        (v, text(&o))
    };
    let timed_solution = |all: &str| {
        all.lines()
            .any(|l| l.contains("solution") && l.contains("timing"))
    };
    let (first, all) = run();
    assert!(
        timed_solution(&all),
        "the first check times the solution: {all}"
    );
    assert!(!all.contains("by an earlier check"), "{all}");
    // One entry at the lesson's size and one at the extra size (n = 1000), where the
    // checks judged on the trace have the solution traced beside yours.
    let files: Vec<_> = std::fs::read_dir(&kept).unwrap().flatten().collect();
    assert_eq!(files.len(), 2, "two entries, written whole: {files:?}");
    let (second, all) = run();
    assert!(!timed_solution(&all), "only yours is timed: {all}");
    assert!(
        all.contains("solution timed and traced by an earlier check"),
        "{all}"
    );
    assert_eq!(second["solution_ms"], first["solution_ms"], "{all}");
    // An edited solution is another variant: its kept figures are not used.
    let solution = lab
        .lessons
        .parent()
        .unwrap()
        .join("exercises/tiny/fix-copy/solution.cu");
    let src = std::fs::read_to_string(&solution).unwrap();
    std::fs::write(&solution, format!("{src}\n// edited\n")).unwrap();
    let (_, all) = run();
    assert!(
        timed_solution(&all),
        "an edited solution is timed again: {all}"
    );
}

/// The same for a shipped exercise whose checks name the solution and a lesson variant
/// (coalesce-copy: `at most 1.1x solution`, `faster than stride-32`): both are kept once.
#[test]
fn a_table_times_a_compared_lesson_variant_once_too() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let data = tmp.path().join("data");
    let kept = tmp.path().join("kept");
    let ex = |args: &[&str]| {
        Command::new(bin())
            .args(["ex", "--workspace"])
            .arg(&ws)
            .args(args)
            .env("GPULAB_DATA_DIR", &data)
            .env("GPULAB_WORKER_FAKE", "gpu,traced")
            .output()
            .unwrap()
    };
    ex(&["start", "coalesce-copy"]);
    let run = || {
        let k = kept.to_str().unwrap();
        text(&ex(&[
            "check",
            "coalesce-copy",
            "--json",
            "--reuse-figures",
            k,
        ]))
    };
    let timed = |all: &str, v: &str| all.contains(&format!("· {v} timing"));
    let all = run();
    assert!(timed(&all, "solution") && timed(&all, "stride-32"), "{all}");
    let all = run();
    assert!(
        !timed(&all, "solution") && !timed(&all, "stride-32"),
        "{all}"
    );
    assert!(timed(&all, "yours"), "{all}");
    let said = (all.lines())
        .find(|l| l.contains("timed and traced by an earlier check"))
        .unwrap_or_else(|| panic!("{all}"));
    assert!(
        said.contains("solution") && said.contains("stride-32"),
        "{said}"
    );
}

/// `--deciding CHECK` (the table's, for an answer that must fail): the check judged first,
/// with only the runs it needs. The output alone for `correct`: a kernel that faults fails
/// it, and nothing is timed or traced. A trace's figure: traced, not timed, and failing
/// there (the fake GPU's trace is empty) it stops the check. A check that is not failed on
/// its runs (the fake makes no compile figures) sends the check on to every run
/// (`--fail-fast`). A check the exercise does not have is an error naming the ones it has.
#[test]
fn a_deciding_check_takes_only_the_runs_it_needs_and_holding_runs_them_all() {
    let lab = Lab::new();
    lab.ex(&["start", "fix-copy"]);
    let deciding = |mode: &str, check: &str| {
        let o = Command::new(bin())
            .arg("--lessons")
            .arg(&lab.lessons)
            .args(["ex", "--workspace"])
            .arg(&lab.ws)
            .args(["check", "fix-copy", "--json", "--deciding", check])
            .env("GPULAB_DATA_DIR", &lab.data)
            .env("GPULAB_WORKER_FAKE", mode)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
        (o.status.code(), v, text(&o))
    };
    let mark = |r: &serde_json::Value, check: &str| {
        (r["lines"].as_array().into_iter().flatten())
            .find(|l| l["check"] == check)
            .map(|l| l["mark"].clone())
    };
    let (code, r, all) = deciding("gpu,traced,fault-on:yours", "correct");
    assert_eq!(code, Some(1), "{all}");
    assert_eq!(r["lines"][0]["mark"], "fail", "{all}");
    assert!(!all.contains("timing"), "nothing timed: {all}");
    assert!(!all.contains("tracing"), "nothing traced: {all}");
    assert!(!all.contains("every check runs now"), "{all}");

    let sectors = "yours global.sectors_per_request <= 4";
    let (code, r, all) = deciding("gpu,traced", sectors);
    assert_eq!(code, Some(1), "{all}");
    assert_eq!(mark(&r, sectors), Some("fail".into()), "{all}");
    assert!(all.contains("yours tracing"), "{all}");
    assert!(
        !all.contains("timing"),
        "a trace's figure times nothing: {all}"
    );
    assert!(!all.contains("every check runs now"), "{all}");

    let (code, _, all) = deciding("gpu,traced", "yours spill_stores == 0");
    let (first, rest) = all
        .split_once("every check runs now")
        .unwrap_or_else(|| panic!("a check not failed runs every check: {all}"));
    assert!(!first.contains("timing"), "{first}");
    assert!(rest.contains("yours timing"), "{rest}");
    assert_eq!(code, Some(1), "{all}");

    let (code, _, all) = deciding("gpu", "yours faster than nothing");
    assert_eq!(code, Some(2), "{all}");
    assert!(
        all.contains("has no check `yours faster than nothing`") && all.contains(sectors),
        "{all}"
    );
}
