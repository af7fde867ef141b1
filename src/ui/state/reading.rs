//! Where the learner is in the course: the lesson on screen, its page, the checkpoint
//! answers and the progress they make (pages read, lessons finished, figures revealed).

use crate::course::Broken;
use crate::course::bundle::CourseRoot;
use crate::course::glossary::Term;
use crate::model::Lesson;
use crate::session::progress::Progress;
use std::collections::HashMap;

/// Where the learner is in the course: the lessons, the one on screen, its page and how far
/// it is scrolled, the checkpoint answers, and the progress kept on disk.
pub struct Reading {
    pub lessons: Vec<Lesson>,
    pub selected: usize,
    pub page: usize,
    /// The first prose row on screen, as asked; the pane clamps it to the page.
    pub prose_scroll: usize,
    /// On the checkpoint page, keep the question being asked in view (until the learner
    /// scrolls away from it).
    pub follow_question: bool,
    /// The checkpoint question just answered: while the page follows, its explanation
    /// is kept in view.
    pub feedback: Option<usize>,
    /// A hint just given or a solution just opened, to bring into view (until the learner
    /// scrolls).
    pub show_new: bool,
    /// The glossary's terms by the page of the course that uses each first:
    /// (lesson index, page) and its terms. Made when the lessons are.
    pub terms: Vec<((usize, usize), Vec<&'static Term>)>,
    /// Checkpoint answers, as saved in the progress: (lesson id, question) -> choice.
    pub answers: HashMap<(String, usize), usize>,
    pub progress: Progress,
    /// Progress changed and should be written; the event loop hands it to a writer thread
    /// so the UI thread never waits on the disk.
    pub save_requested: bool,
    /// The course, to read a lesson again at other sizes (an exercise's, the CPU's).
    pub course_root: CourseRoot,
    /// The lesson files that do not load, each in `lessons` as a stand-in of one page
    /// that says why (`loading::stand_in`), with the same `file`.
    pub broken: Vec<Broken>,
}
