//! An exercise in the lab: its row under its lesson, the learner's kernel as one more
//! column (`yours`) beside the lesson's variants, checked again on every save of the
//! learner's file and on `r`. Pure state, like `app.rs`: the check runs on the worker
//! thread, the file is watched beside it, the editor is the main loop's to open.

use crate::model::Lesson;
use crate::model::exercise::Exercise;
use crate::model::protocol::PIP_HINT;
use crate::model::results::LessonResult;
use crate::session::exercise::progress::ExerciseBook;
use crate::session::exercise::report::{CheckReport, Mark};
use crate::session::workspace::Workspace;
use std::collections::HashMap;
use std::path::PathBuf;

/// The exercise in progress: the one on screen, the checks of this session, the progress
/// book, and where the learner's files are. Its fields are its own.
#[derive(Default)]
pub struct Exercises {
    /// The exercise on screen, in place of its lesson's prose.
    open: Option<Box<ExerciseView>>,
    /// The last check of each exercise this session, by id.
    reports: HashMap<String, CheckReport>,
    /// The exercise progress, and where it is written (nowhere: not written).
    book: ExerciseBook,
    book_path: Option<PathBuf>,
    /// Where the learner's exercise files are (none: exercises can be read, not done).
    workspace: Option<Workspace>,
    /// The learner's file to open in their editor, for the main loop.
    edit: Option<PathBuf>,
}

impl Exercises {
    /// Exercises done in `workspace` (none: read, not done), their progress `book`
    /// written to `book_path` (none: not written).
    pub fn new(
        workspace: Option<Workspace>,
        book: ExerciseBook,
        book_path: Option<PathBuf>,
    ) -> Exercises {
        Exercises {
            workspace,
            book,
            book_path,
            ..Exercises::default()
        }
    }

    /// The exercise on screen.
    pub fn open(&self) -> Option<&ExerciseView> {
        self.open.as_deref()
    }

    pub fn open_mut(&mut self) -> Option<&mut ExerciseView> {
        self.open.as_deref_mut()
    }

    /// The exercise on screen, if it is exercise `id`.
    pub fn open_as(&mut self, id: &str) -> Option<&mut ExerciseView> {
        self.open_mut().filter(|x| x.ex.id == id)
    }

    /// `x` comes on screen in place of its lesson's prose.
    pub fn enter(&mut self, x: ExerciseView) {
        self.open = Some(Box::new(x));
    }

    /// Back to the lesson's prose; false where no exercise was on screen.
    pub fn leave(&mut self) -> bool {
        self.open.take().is_some()
    }

    /// The last check of exercise `id` this session.
    pub fn report(&self, id: &str) -> Option<&CheckReport> {
        self.reports.get(id)
    }

    /// Exercise `id` was checked (or its figures came): the report its column shows.
    pub fn record_report(&mut self, id: String, report: CheckReport) {
        self.reports.insert(id, report);
    }

    /// The exercise progress.
    pub fn book(&self) -> &ExerciseBook {
        &self.book
    }

    pub fn book_mut(&mut self) -> &mut ExerciseBook {
        &mut self.book
    }

    /// Where the exercise progress is written (none: it is not).
    pub fn book_path(&self) -> Option<&PathBuf> {
        self.book_path.as_ref()
    }

    /// Where the learner's exercise files are.
    pub fn workspace(&self) -> Option<&Workspace> {
        self.workspace.as_ref()
    }

    /// The learner's file goes to their editor (by the main loop).
    pub fn edit(&mut self, file: PathBuf) {
        self.edit = Some(file);
    }

    /// The file to open in the learner's editor, asked once.
    pub fn take_edit(&mut self) -> Option<PathBuf> {
        self.edit.take()
    }
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
