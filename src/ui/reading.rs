//! Where the learner is in the course: the lesson on screen, its page, the checkpoint
//! answers and the progress they make (pages read, lessons finished, figures revealed).

use super::app::App;
use crate::course::bundle::CourseRoot;
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
    /// Checkpoint answers, as saved in the progress: (lesson id, question) -> choice.
    pub answers: HashMap<(String, usize), usize>,
    pub progress: Progress,
    /// Progress changed and should be written; the event loop hands it to a writer thread
    /// so the UI thread never waits on the disk.
    pub save_requested: bool,
    /// The course, to read a lesson again at other sizes (an exercise's, the CPU's).
    pub course_root: CourseRoot,
}

impl App {
    /// Answer the first unanswered checkpoint question with choice `c`.
    pub(super) fn answer(&mut self, c: usize) {
        let Some(l) = self.lesson() else { return };
        let id = l.id.clone();
        let next =
            (0..l.checkpoint.len()).find(|q| !self.reading.answers.contains_key(&(id.clone(), *q)));
        if let Some(q) = next
            && c < l.checkpoint[q].choices.len()
        {
            self.reading.answers.insert((id.clone(), q), c);
            self.reading.progress.record_answer(&id, q, c);
            self.note_seen();
        }
    }

    pub(super) fn save_progress(&mut self) {
        self.reading.save_requested = true;
    }

    pub(super) fn select_lesson(&mut self, idx: usize) {
        if idx < self.reading.lessons.len() && idx != self.reading.selected {
            self.reading.selected = idx;
            self.reading.page = 0;
            self.reading.prose_scroll = 0;
            self.reading.follow_question = true;
            self.view.variant = 0;
            self.view.instr = 0;
            self.view.code_scroll = 0;
            self.runs.looping = false;
            self.note_seen();
        }
    }

    /// The page on screen counts as read; with every page read and every question answered
    /// the lesson is finished, GPU or not.
    pub fn note_seen(&mut self) {
        if self.exercises.open.is_some() {
            return;
        }
        let Some(l) = self.lesson() else { return };
        let (id, pages, questions) = (l.id.clone(), l.pages.len(), l.checkpoint.len());
        self.reading.progress.mark_seen(&id);
        self.reading.progress.mark_page(&id, self.reading.page);
        self.reading.progress.check_finished(&id, pages, questions);
        self.save_progress();
    }

    /// Whether the lesson's figures may be shown: once run live (on the GPU or the CPU
    /// interpreter), or once the learner asked to see them (`v`). Before that they would
    /// answer the page's "Predict:".
    pub fn revealed(&self) -> bool {
        // An exercise comes after its lesson; the learner's own figures answer nothing.
        self.exercises.open.is_some()
            || self
                .lesson()
                .is_some_and(|l| self.reading.progress.get(&l.id).revealed)
            || self.result().is_some_and(|r| {
                use crate::model::results::Source;
                matches!(r.source, Source::Live | Source::Interpreted)
            })
            // Run on the CPU interpreter, with the recording's figures in front.
            || (self.lesson()).is_some_and(|l| self.runs.interpreted.contains_key(&l.id))
    }

    pub(super) fn reveal(&mut self) {
        if let Some(id) = self.lesson().map(|l| l.id.clone()) {
            self.reading.progress.mark_revealed(&id);
            self.save_progress();
        }
    }
}
