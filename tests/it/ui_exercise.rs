//! The exercise loop in the lab, end to end with no GPU: the real loop (`ui::run_with`) on
//! a `TestBackend`, the real worker thread over the real worker (NVRTC compiles, the CPU
//! interpreter runs), the real file watcher. The learner moves to the exercise, `e` "opens
//! the editor" (here a writer of the file, as an editor would save it), the save is noticed
//! and checked on the CPU interpreter, and the learner's column shows ✗ on the spill check;
//! the fix, saved by another writer, shows ✓. Wrong answers of a shipped exercise fail a
//! check the interpreter judges; its solution passes every one, and only the time check
//! needs a GPU. Each step runs the loop until the check is over, then reads the screen.

use crate::support::{common, ex_lab};

use common::{bin, nvrtc_or_skip};
use ex_lab::{Lab, down, key, no_editor};
use gpulab::session::client::WorkerClient;
use gpulab::session::exercise::progress::ExerciseBook;
use gpulab::session::exercise::report::{CORRECT_LINE, Mark};
use std::path::Path;
use std::time::{Duration, Instant};

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

const BROKEN: &str = "extern \"C\" __global__ void copy_mine(const float* in, float* out, int n)\n{\n    out[0] = undefined_name;\n}\n";

#[test]
fn from_a_spilling_save_to_a_fixed_one_in_the_lab() {
    if !nvrtc_or_skip("from_a_spilling_save_to_a_fixed_one_in_the_lab") {
        return;
    }
    let mut lab = Lab::new();
    // The editor: it saves a kernel that spills, as the learner's would.
    let mut opened = Vec::new();
    let mut editor = |p: &Path| {
        opened.push(p.to_path_buf());
        Ok(std::fs::write(p, SPILLS)?)
    };
    let screen = lab.play_until_checked(vec![down(), key('e')], &mut editor);
    assert_eq!(opened, [lab.mine()], "e opens the learner's file");
    assert!(screen.contains("exercise fix-copy"), "{screen}");
    assert!(screen.contains("✗ spill stores (bytes) = 0"), "{screen}");
    assert!(screen.contains("yours on the CPU"), "{screen}");
    assert!(
        screen.contains("▸    • fix-copy"),
        "the row under its lesson:\n{screen}"
    );

    // Another editor saves the fix: the watcher sees it, whoever wrote.
    let fix = lab.course.join("exercises/tiny/fix-copy/solution.cu");
    std::fs::copy(fix, lab.mine()).unwrap();
    let screen = lab.play_until_checked(vec![], &mut no_editor);
    assert!(screen.contains("✓ spill stores (bytes) = 0"), "{screen}");
    assert!(!screen.contains("✗ spill_stores"), "{screen}");
    // Every check of this one the interpreter can judge: the output at n = 1000 too.
    assert!(screen.contains("✓ correct on fresh inputs"), "{screen}");
    assert!(
        screen.contains("passed on the CPU interpreter: every check holds"),
        "{screen}"
    );

    // A compile error is shown at the learner's line.
    std::fs::write(lab.mine(), BROKEN).unwrap();
    let screen = lab.play_until_checked(vec![], &mut no_editor);
    assert!(screen.contains("✗ does not compile"), "{screen}");
    assert!(
        screen.contains("3 |     out[0] = undefined_name;"),
        "{screen}"
    );
    assert!(screen.contains("fix-copy.cu:3: error:"), "{screen}");

    // r checks again with nothing saved.
    let screen = lab.play_until_checked(vec![key('r')], &mut no_editor);
    assert!(screen.contains("✗ does not compile"), "{screen}");
    let p = lab.app.exercises.book().get("fix-copy");
    // Passed on the CPU, not on a GPU, as `gpulab ex check` keeps it.
    assert_eq!(
        (p.attempts, p.passed, p.passed_cpu),
        (4, false, true),
        "{p:?}"
    );
    // Written beside the loop: the file catches up within moments.
    let end = Instant::now() + Duration::from_secs(10);
    let mut on_disk = ExerciseBook::load_from(&lab.book).0.get("fix-copy");
    while on_disk != p && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
        on_disk = ExerciseBook::load_from(&lab.book).0.get("fix-copy");
    }
    assert_eq!(on_disk, p, "the progress file");
}

#[test]
fn on_a_gpu_the_figures_come_before_the_output_is_checked_at_every_size() {
    // The fake worker stands for a GPU on which every variant is right.
    let client =
        WorkerClient::with_command(bin(), vec!["worker".into()]).env("GPULAB_WORKER_FAKE", "gpu");
    let mut lab = Lab::with_worker(client);
    let mut editor = |p: &Path| Ok(std::fs::write(p, "// saved")?);
    let (screen, early) = lab.play_noting(vec![down(), key('e')], &mut editor);
    assert!(early, "the main run's figures first:\n{screen}");
    assert!(
        screen.contains("✓ correct on fresh inputs at every size ·"),
        "{screen}"
    );
    assert!(screen.contains("right in 3 runs"), "{screen}");
    assert!(!screen.contains("being checked"), "{screen}");
    assert!(screen.contains("1.00 ms"), "yours is timed:\n{screen}");
    assert!(screen.contains("yours live on Fake GPU"), "{screen}");
}

/// The learner's text of a shipped answer of `coalesce-copy`.
fn answer(rel: &str) -> String {
    let dir = common::manifest_dir().join("exercises/global-coalescing/coalesce-copy");
    std::fs::read_to_string(dir.join(rel)).unwrap()
}

/// The check lines of the learner's column, as the screen shows them.
fn marked<'a>(screen: &'a str, check: &str) -> Vec<&'a str> {
    screen.lines().filter(|l| l.contains(check)).collect()
}

#[test]
fn without_a_gpu_each_save_is_checked_on_the_cpu_interpreter_and_a_wrong_kernel_shows_it() {
    if !nvrtc_or_skip("ui_exercise on the CPU") {
        return;
    }
    let mut lab = Lab::bundled("global-coalescing", "coalesce-copy");
    let mine = lab.file("coalesce-copy");
    // A wrong answer: neighbouring lanes gridDim.x floats apart. The trace catches it.
    let wrong = answer("wrong/block-major.cu");
    let mut editor = |p: &Path| Ok(std::fs::write(p, &wrong)?);
    let screen = lab.play_until_checked(vec![key('e')], &mut editor);
    assert!(screen.contains("yours on the CPU"), "{screen}");
    assert!(
        screen.contains("✗ % of global sector bytes used ≥ 98"),
        "{screen}"
    );
    assert!(screen.contains("not yet:"), "{screen}");
    let report = lab.app.exercises.report("coalesce-copy").unwrap().clone();
    assert_eq!(
        report.result.source,
        gpulab::model::results::Source::Interpreted
    );

    // Another wrong answer: coalesced, but the last part-filled round is never copied.
    std::fs::write(&mine, answer("wrong/whole-rounds.cu")).unwrap();
    let screen = lab.play_until_checked(vec![], &mut no_editor);
    let correct = marked(&screen, "correct on fresh inputs");
    assert!(
        correct
            .iter()
            .any(|l| l.contains("✗ correct on fresh inputs")),
        "{screen}"
    );
    assert!(screen.contains("not yet:"), "{screen}");

    // The solution: ✓ on every check the CPU judges; only the time needs a GPU.
    std::fs::write(&mine, answer("solution.cu")).unwrap();
    let screen = lab.play_until_checked(vec![], &mut no_editor);
    assert!(screen.contains("✓ correct on fresh inputs"), "{screen}");
    assert!(
        screen.contains("✓ % of global sector bytes used ≥ 98"),
        "{screen}"
    );
    assert!(
        screen.contains("✓ global sectors at most 1.02× solution"),
        "{screen}"
    );
    let report = lab.app.exercises.report("coalesce-copy").unwrap();
    let marks: Vec<(&str, Mark)> = (report.lines.iter())
        .map(|l| (l.check.as_str(), l.mark))
        .collect();
    assert_eq!(
        marks,
        [
            (CORRECT_LINE, Mark::Pass),
            ("yours global.pct_used >= 98", Mark::Pass),
            ("yours global.sectors at most 1.02x solution", Mark::Pass),
            ("yours faster than stride-32 by >= 4x", Mark::NeedsGpu),
            ("yours faster than solution by >= 0.83x", Mark::NeedsGpu),
            ("yours loads.unused_pct == 0", Mark::Pass),
        ]
    );
    assert!(!screen.contains("✗"), "{screen}");
    assert!(
        screen.contains("no check fails: 4 hold, 2 need a GPU"),
        "{screen}"
    );
    // It cannot pass here, so the way to the solution is said (#35 item 14), and taken in
    // the lab: t shows the hints, then opens the solution, recorded as shown before passing.
    let said = lab.app.message.clone().unwrap_or_default();
    assert!(
        said.ends_with("; t opens its solution once the hints are shown"),
        "{said}"
    );
    // `gpulab ex check` of the same file counts the checks in the same words (#35 item 4).
    let count = said
        .strip_prefix("no check fails: ")
        .and_then(|s| s.split(", so ").next());
    let count = count.unwrap_or_else(|| panic!("{said}"));
    // Its own data folder: the lab's record of attempts stays the lab's.
    let data = tempfile::tempdir().unwrap();
    let cli = std::process::Command::new(bin())
        .args([
            "ex",
            "--workspace",
            lab.ws.to_str().unwrap(),
            "check",
            "coalesce-copy",
        ])
        .env("CUDA_VISIBLE_DEVICES", "")
        .env("GPULAB_DATA_DIR", data.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&cli.stdout);
    assert!(
        out.contains(&format!(
            "no check fails: {count}, so the exercise is not passed here"
        )),
        "{count}\n{out}"
    );
    let hints = lab.app.exercises.open().unwrap().ex().hints.len();
    for _ in 0..=hints {
        assert!(!lab.app.exercises.book().get("coalesce-copy").solution_shown);
        lab.app.on_event(key('t'));
    }
    let p = lab.app.exercises.book().get("coalesce-copy");
    assert!(p.solution_shown && p.shown_before_passing, "{p:?}");
    lab.terminal
        .draw(|f| f.render_widget(&lab.app, f.area()))
        .unwrap();
    let shown = gpulab::ui::buffer_to_text(lab.terminal.backend().buffer());
    assert!(
        shown.contains("Not passed yet, and yours is the solution line for line."),
        "{shown}"
    );
    // `r` checks again, on the CPU as a save does.
    let screen = lab.play_until_checked(vec![key('r')], &mut no_editor);
    assert!(
        screen.contains("✓ % of global sector bytes used ≥ 98"),
        "{screen}"
    );
    let p = lab.app.exercises.book().get("coalesce-copy");
    assert_eq!(
        (p.attempts, p.passed, p.passed_cpu),
        (4, false, true),
        "{p:?}"
    );
}

/// A kernel that fetches through a texture is out of the interpreter's reach: its checks
/// need a GPU, none of them fails.
#[test]
fn a_texture_fetch_needs_a_gpu_and_fails_nothing_on_the_cpu() {
    if !nvrtc_or_skip("ui_exercise texture") {
        return;
    }
    let mut lab = Lab::bundled("texture", "sample-texture");
    let dir = common::manifest_dir().join("exercises/texture/sample-texture");
    let solution = std::fs::read_to_string(dir.join("solution.cu")).unwrap();
    let mut editor = |p: &Path| Ok(std::fs::write(p, &solution)?);
    let screen = lab.play_until_checked(vec![key('e')], &mut editor);
    let report = lab.app.exercises.report("sample-texture").unwrap();
    assert!(!report.failed(), "{screen}");
    assert!(
        (report.lines.iter()).all(|l| l.mark == Mark::NeedsGpu),
        "{:?}",
        report.lines
    );
    assert!(!screen.contains("✗"), "{screen}");
    assert!(screen.contains("· correct on fresh inputs"), "{screen}");
    let n = report.lines.len();
    assert!(
        screen.contains(&format!("no check judged here: 0 hold, {n} need a GPU")),
        "{screen}"
    );
}
