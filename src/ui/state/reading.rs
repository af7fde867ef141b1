//! Where the learner is in the course: the lesson on screen, its page, the checkpoint
//! answers and the progress they make (pages read, lessons finished, figures revealed).
//! Its fields are its own: moving to a lesson or a page goes through the methods below,
//! which start the page from its top and let the checkpoint's question lead again.

use crate::course::Broken;
use crate::course::bundle::CourseRoot;
use crate::course::glossary::Term;
use crate::model::Lesson;
use crate::session::progress::Progress;
use std::collections::HashMap;

/// Where the learner is in the course: the lessons, the one on screen, its page and how far
/// it is scrolled, the checkpoint answers, and the progress kept on disk.
pub struct Reading {
    lessons: Vec<Lesson>,
    selected: usize,
    page: usize,
    /// The first prose row on screen, as asked; the pane clamps it to the page.
    prose_scroll: usize,
    /// On the checkpoint page, keep the question being asked in view (until the learner
    /// scrolls away from it).
    follow_question: bool,
    /// The checkpoint question just answered: while the page follows, its explanation
    /// is kept in view.
    feedback: Option<usize>,
    /// A hint just given or a solution just opened, to bring into view (until the learner
    /// scrolls).
    show_new: bool,
    /// The glossary's terms by the page of the course that uses each first:
    /// (lesson index, page) and its terms. Made when the lessons are.
    terms: Vec<((usize, usize), Vec<&'static Term>)>,
    /// Checkpoint answers, as saved in the progress: (lesson id, question) -> choice.
    answers: HashMap<(String, usize), usize>,
    progress: Progress,
    /// Progress changed and should be written; the event loop hands it to a writer thread
    /// so the UI thread never waits on the disk.
    save_requested: bool,
    /// The course, to read a lesson again at other sizes (an exercise's, the CPU's).
    course_root: CourseRoot,
    /// The lesson files that do not load, each in `lessons` as a stand-in of one page
    /// that says why (`loading::stand_in`), with the same `file`.
    broken: Vec<Broken>,
}

impl Reading {
    /// The course at its first unfinished lesson, with the answers the progress kept.
    pub fn new(lessons: Vec<Lesson>, progress: Progress) -> Reading {
        let mut r = Reading {
            lessons: Vec::new(),
            selected: 0,
            page: 0,
            prose_scroll: 0,
            follow_question: true,
            feedback: None,
            show_new: false,
            terms: Vec::new(),
            answers: HashMap::new(),
            progress,
            save_requested: false,
            course_root: CourseRoot::Bundled,
            broken: Vec::new(),
        };
        r.open_course(lessons, Vec::new());
        r
    }

    /// The course came in: at its first unfinished lesson, its glossary's first uses and
    /// the answers the progress kept; `broken` are the files that stand in for lessons.
    pub fn open_course(&mut self, lessons: Vec<Lesson>, broken: Vec<Broken>) {
        let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
        self.selected = self.progress.first_unfinished(&ids);
        self.answers = (self.progress.lessons.iter())
            .flat_map(|(id, p)| p.answers.iter().map(|(&q, &c)| ((id.clone(), q), c)))
            .collect();
        self.terms = crate::course::glossary::first_uses(&lessons);
        self.lessons = lessons;
        self.broken = broken;
    }

    /// The same lessons read again (at a GPU's sizes): taken only where they are the
    /// lessons of this list, in its order (a course loaded since is newer).
    pub fn read_again(&mut self, lessons: Vec<Lesson>) -> bool {
        let same = lessons.len() == self.lessons.len()
            && (lessons.iter().zip(&self.lessons)).all(|(a, b)| a.id == b.id);
        if same {
            self.lessons = lessons;
        }
        same
    }

    /// A tried kernel's lesson, made again from its files: the lab's only lesson.
    pub fn only(&mut self, lesson: Lesson) {
        self.terms = crate::course::glossary::first_uses(std::slice::from_ref(&lesson));
        self.lessons = vec![lesson];
        self.selected = 0;
    }

    pub fn lessons(&self) -> &[Lesson] {
        &self.lessons
    }

    /// The lesson on screen (an index into `lessons`).
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Open lesson `idx` at its first page; false (and nothing changes) where it is the
    /// lesson on screen or no lesson.
    pub fn select(&mut self, idx: usize) -> bool {
        if idx >= self.lessons.len() || idx == self.selected {
            return false;
        }
        self.selected = idx;
        self.turn_to(0);
        true
    }

    /// Open the lesson whose id is `id`, as `select` does: its index, or None where no
    /// lesson has it.
    pub fn select_id(&mut self, id: &str) -> Option<usize> {
        let idx = self.lessons.iter().position(|l| l.id == id)?;
        self.select(idx);
        Some(idx)
    }

    pub fn page(&self) -> usize {
        self.page
    }

    /// Page `p` from its top, the checkpoint's question leading.
    pub fn turn_to(&mut self, p: usize) {
        self.page = p;
        self.prose_scroll = 0;
        self.follow_question = true;
        self.feedback = None;
        self.show_new = false;
    }

    /// The first prose row on screen, as asked; the pane clamps it to the page.
    pub fn prose_scroll(&self) -> usize {
        self.prose_scroll
    }

    /// The learner scrolled the page to `row`: the question and what is new stop leading.
    pub fn scroll_prose_to(&mut self, row: usize) {
        self.prose_scroll = row;
        self.follow_question = false;
        self.show_new = false;
    }

    /// Whether the checkpoint page keeps the question being asked in view.
    pub fn follow_question(&self) -> bool {
        self.follow_question
    }

    /// The checkpoint question whose explanation is kept in view.
    pub fn feedback(&self) -> Option<usize> {
        self.feedback
    }

    /// The checkpoint leads again: with question `answered`'s explanation in view, or with
    /// the question being asked.
    pub fn follow(&mut self, answered: Option<usize>) {
        self.feedback = answered;
        self.follow_question = true;
    }

    /// Whether a hint just given or a solution just opened is to be brought into view.
    pub fn show_new(&self) -> bool {
        self.show_new
    }

    /// Bring what was just added (a hint, a solution) into view, or stop doing so.
    pub fn set_show_new(&mut self, on: bool) {
        self.show_new = on;
    }

    /// The glossary's terms that page `page` of lesson `lesson` is the first to use.
    pub fn terms_of(&self, lesson: usize, page: usize) -> &[&'static Term] {
        (self.terms.iter())
            .find(|(p, _)| *p == (lesson, page))
            .map_or(&[], |(_, ts)| ts.as_slice())
    }

    /// The choice given to question `q` of lesson `id`, if any.
    pub fn answer(&self, id: &str, q: usize) -> Option<usize> {
        self.answers.get(&(id.to_string(), q)).copied()
    }

    /// Whether any checkpoint question has an answer.
    pub fn any_answer(&self) -> bool {
        !self.answers.is_empty()
    }

    /// Choice `c` to question `q` of lesson `id`, kept in the progress too.
    pub fn record_answer(&mut self, id: &str, q: usize, c: usize) {
        self.answers.insert((id.to_string(), q), c);
        self.progress.record_answer(id, q, c);
    }

    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    pub fn progress_mut(&mut self) -> &mut Progress {
        &mut self.progress
    }

    /// The progress is to be written (by a thread of the event loop's).
    pub fn request_save(&mut self) {
        self.save_requested = true;
    }

    /// Whether the progress is to be written; it is asked once.
    pub fn take_save_request(&mut self) -> bool {
        std::mem::take(&mut self.save_requested)
    }

    /// The course, to read a lesson again at other sizes.
    pub fn course_root(&self) -> &CourseRoot {
        &self.course_root
    }

    pub fn set_course_root(&mut self, root: CourseRoot) {
        self.course_root = root;
    }

    /// The lesson files that do not load.
    pub fn broken(&self) -> &[Broken] {
        &self.broken
    }
}
