//! The exercise loop in the lab on a GPU: the starter's save fails the output check (it
//! writes past the end at a size that is not a multiple of the block), the solution's save
//! passes every check, marks the exercise passed in the progress file and opens the
//! solution. Skipped, saying why, without a GPU; run on one with
//! `cargo test --release --test it gpu_ui_exercise:: -- --nocapture`.

use crate::support::{common, ex_lab};

use common::bin;
use ex_lab::{Lab, down, key, no_editor};
use gpulab::session::client::WorkerClient;

#[test]
fn the_starter_fails_and_the_solution_passes_in_the_lab() {
    let Some(dev) = common::gpu() else { return };
    let mut lab = Lab::with_worker(WorkerClient::with_command(bin(), vec!["worker".into()]));
    // `e` copies the starter; the editor leaves it as it is and the learner checks it (r).
    let mut editor = |_: &std::path::Path| Ok(());
    let screen = lab.play_until_checked(vec![down(), key('e'), key('r')], &mut editor);
    eprintln!("the starter on {}:\n{screen}", dev.name);
    assert!(
        screen.contains("✗ correct on fresh inputs at every size"),
        "{screen}"
    );
    assert!(!lab.app.exercises.book().get("fix-copy").passed);

    let fix = lab.course.join("exercises/tiny/fix-copy/solution.cu");
    std::fs::copy(fix, lab.mine()).unwrap();
    let screen = lab.play_until_checked(vec![], &mut no_editor);
    eprintln!("the solution on {}:\n{screen}", dev.name);
    assert!(screen.contains("✓ spill stores (bytes) = 0"), "{screen}");
    assert!(screen.contains("passed: every check holds"), "{screen}");
    assert!(screen.contains("✓ passed"), "the solution opens:\n{screen}");
    let p = lab.app.exercises.book().get("fix-copy");
    assert!(p.passed && p.best_ms.is_some(), "{p:?}");
    assert!(p.solution_shown && !p.shown_before_passing, "{p:?}");
}
