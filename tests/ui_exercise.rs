//! The exercise loop in the lab, end to end with no GPU: the real loop (`ui::run_with`) on
//! a `TestBackend`, the real worker thread over the real worker (NVRTC compiles), the real
//! file watcher. The learner moves to the exercise, `e` "opens the editor" (here a writer
//! of the file, as an editor would save it), the save is noticed and checked, and the
//! learner's column shows ✗ on the spill check; the fix, saved by another writer, shows ✓.
//! Each step runs the loop until the check is over, then reads the screen.

mod common;
#[path = "support/ex_lab.rs"]
mod ex_lab;

use common::{bin, nvrtc_or_skip};
use ex_lab::{Lab, down, key, no_editor};
use gpulab::session::client::WorkerClient;
use gpulab::session::ex_progress::ExerciseBook;
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
    assert!(screen.contains("needs a GPU"), "{screen}");
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
    assert!(
        screen.contains("need a GPU, so the exercise is not passed here"),
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
    let p = lab.app.exercises.book.get("fix-copy");
    assert_eq!((p.attempts, p.passed), (4, false), "{p:?}");
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
