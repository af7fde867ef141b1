//! An exercise in the lab: its row under its lesson, the learner's kernel as one more
//! column (`yours`) beside the lesson's variants, checked again on every save of the
//! learner's file and on `r`. Pure state, like `app.rs`: the check runs on the worker
//! thread, the file is watched beside it, the editor is the main loop's to open.

use crate::model::Lesson;
use crate::model::exercise::Exercise;
use crate::model::protocol::PIP_HINT;
use crate::model::results::LessonResult;
use crate::session::exercise::report::{CheckReport, Mark};
use std::path::PathBuf;

/// The exercise in progress: the one on screen, the checks of this session, the progress
/// book, and where the learner's files are.
#[derive(Default)]
pub struct Exercises {
    /// The exercise on screen, in place of its lesson's prose.
    pub open: Option<Box<crate::ui::state::exercise::ExerciseView>>,
    /// The last check of each exercise this session, by id.
    pub reports: std::collections::HashMap<String, crate::session::exercise::report::CheckReport>,
    /// The exercise progress, and where it is written (nowhere: not written).
    pub book: crate::session::exercise::progress::ExerciseBook,
    pub book_path: Option<std::path::PathBuf>,
    /// Where the learner's exercise files are (none: exercises can be read, not done).
    pub workspace: Option<crate::session::workspace::Workspace>,
    /// The learner's file to open in their editor, for the main loop.
    pub edit: Option<std::path::PathBuf>,
}

/// The exercise on screen.
#[derive(Debug, Clone)]
pub struct ExerciseView {
    /// Which of its lesson's exercises.
    pub index: usize,
    pub ex: Exercise,
    /// The lesson with `yours` as its last variant: what the columns, the code and the
    /// heatmaps show.
    pub lesson: Lesson,
    /// The lesson's figures with the learner's beside them.
    pub shown: LessonResult,
    /// The learner's file, once there is a workspace.
    pub file: Option<PathBuf>,
    /// The learner's text as last read (the starter before the file exists).
    pub src: String,
    /// A check in flight, at this stage.
    pub checking: Option<String>,
    /// A save came during the check: check again once it is over (quick or not).
    pub again: Option<bool>,
}

/// The check's verdict in a few words.
pub fn verdict(r: &CheckReport) -> String {
    let count = |m: Mark| r.lines.iter().filter(|l| l.mark == m).count();
    if r.compile_error.is_some() {
        "your kernel does not compile: the error is in its column".into()
    } else if r.passed() {
        let on = if r.live {
            ""
        } else {
            " on the CPU interpreter"
        };
        format!(
            "passed{on}: every check holds; the solution is open above, as a diff against yours"
        )
    } else if r.failed() {
        format!("not yet: {}", r.tally())
    } else if count(Mark::Pass) == 0 {
        match r.nvrtc_would_judge() {
            0 => format!("no check judged here: {}", r.tally()),
            // The one thing a newcomer with neither can do here, said where they look.
            n => format!(
                "no check judged here: {}; with NVRTC the CPU interpreter would judge {n} \
                 ({PIP_HINT})",
                r.tally()
            ),
        }
    } else {
        // Checks only a GPU can judge are neither passed nor failed: counted apart. Without
        // a GPU the exercise cannot pass here, so the way to the solution is said: in the
        // lab, where the interpreter judged it right (as the book's `passed_cpu` records).
        let on_cpu = r.result.source == crate::model::results::Source::Interpreted;
        if on_cpu && r.lines.first().is_some_and(|l| l.mark == Mark::Pass) {
            return format!(
                "no check fails: {}, so the exercise is not passed here; t opens its solution \
                 once the hints are shown",
                r.tally()
            );
        }
        format!(
            "no check fails: {}, so the exercise is not passed here (its solution: gpulab ex \
             solution {} --show-anyway)",
            r.tally(),
            r.exercise
        )
    }
}
