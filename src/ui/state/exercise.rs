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
        self.open_mut().filter(|x| x.ex().id == id)
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

/// The exercise on screen. Its fields are its own: a check begins, moves through its
/// stages and ends through the methods below, which keep one check at a time and a save
/// during it checked again once it is over.
#[derive(Debug, Clone)]
pub struct ExerciseView {
    /// Which of its lesson's exercises.
    index: usize,
    ex: Exercise,
    /// The lesson with `yours` as its last variant: what the columns, the code and the
    /// heatmaps show.
    lesson: Lesson,
    /// The lesson's figures with the learner's beside them.
    shown: LessonResult,
    /// The learner's file, once there is a workspace.
    file: Option<PathBuf>,
    /// The learner's text as last read (the starter before the file exists).
    src: String,
    /// A check in flight, at this stage.
    checking: Option<String>,
    /// A save came during the check: check again once it is over (quick or not).
    again: Option<bool>,
}

impl ExerciseView {
    /// Exercise `ex` (its lesson's `index`-th) on screen: `lesson` with the learner's
    /// `src` as its last variant, its figures `shown`, the learner's `file` if any.
    pub fn new(
        (index, ex): (usize, Exercise),
        lesson: Lesson,
        shown: LessonResult,
        file: Option<PathBuf>,
        src: String,
    ) -> ExerciseView {
        ExerciseView {
            index,
            ex,
            lesson,
            shown,
            file,
            src,
            checking: None,
            again: None,
        }
    }

    /// Which of its lesson's exercises it is.
    pub fn index(&self) -> usize {
        self.index
    }

    pub fn ex(&self) -> &Exercise {
        &self.ex
    }

    /// The lesson with `yours` as its last variant.
    pub fn lesson(&self) -> &Lesson {
        &self.lesson
    }

    /// The lesson's figures with the learner's beside them.
    pub fn shown(&self) -> &LessonResult {
        &self.shown
    }

    pub fn show(&mut self, shown: LessonResult) {
        self.shown = shown;
    }

    /// The learner's file, once there is a workspace.
    pub fn file(&self) -> Option<&PathBuf> {
        self.file.as_ref()
    }

    /// The learner's file, now that it exists (and is watched).
    pub fn opened(&mut self, file: PathBuf) {
        self.file = Some(file);
    }

    /// The learner's text as last read (the starter before the file exists).
    pub fn src(&self) -> &str {
        &self.src
    }

    /// The learner's text read as `src` (a screen shown for it).
    pub fn read_as(&mut self, src: String) {
        self.src = src;
    }

    /// The check in flight, at this stage.
    pub fn checking(&self) -> Option<&str> {
        self.checking.as_deref()
    }

    /// A check of `src` begins, the lesson made again with it as `yours` (`lesson`).
    pub fn begin_check(&mut self, lesson: Lesson, src: String) {
        self.lesson = lesson;
        self.src = src;
        self.checking = Some("starting".into());
    }

    /// The check in flight is at `stage`.
    pub fn at_stage(&mut self, stage: String) {
        self.checking = Some(stage);
    }

    /// A save (`quick`) or an `r` came during the check: one check again once it is over,
    /// quick only if every one asked was.
    pub fn check_again(&mut self, quick: bool) {
        self.again = Some(quick && self.again != Some(false));
    }

    /// The check is over: whether to check again, and how (quick or not).
    pub fn end_check(&mut self) -> Option<bool> {
        self.checking = None;
        self.again.take()
    }
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
