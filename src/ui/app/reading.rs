//! Moving through the course: lessons, pages, checkpoint answers.

use super::App;
use crate::course::glossary::Term;

impl App {
    /// Answer the first unanswered checkpoint question with choice `c`.
    pub(in crate::ui) fn answer(&mut self, c: usize) {
        let Some(l) = self.lesson() else { return };
        let id = l.id.clone();
        let next = (0..l.checkpoint.len()).find(|&q| self.reading.answer(&id, q).is_none());
        if let Some(q) = next
            && c < l.checkpoint[q].choices.len()
        {
            self.reading.record_answer(&id, q, c);
            self.note_seen();
        }
    }

    pub(in crate::ui) fn save_progress(&mut self) {
        // A try's lesson lives as long as this lab: nothing of it is kept.
        if self.tried.is_none() {
            self.reading.request_save();
        }
    }

    pub(in crate::ui) fn select_lesson(&mut self, idx: usize) {
        if self.reading.select(idx) {
            self.view.start_at(0);
            self.runs.set_looping(false);
            self.note_seen();
        }
    }

    /// The page on screen counts as read; with every page read and every question answered
    /// the lesson is finished, GPU or not.
    pub fn note_seen(&mut self) {
        // A lesson that does not load is never read, nor finished, by opening it.
        if self.exercises.open().is_some() || self.broken().is_some() {
            return;
        }
        let Some(l) = self.lesson() else { return };
        let (id, pages, questions) = (l.id.clone(), l.pages.len(), l.checkpoint.len());
        let page = self.reading.page();
        let progress = self.reading.progress_mut();
        progress.mark_seen(&id);
        progress.mark_page(&id, page);
        progress.check_finished(&id, pages, questions);
        self.save_progress();
    }

    /// Whether the lesson's figures may be shown: once run live (on the GPU or the CPU
    /// interpreter), or once the learner asked to see them (`v`). Before that they would
    /// answer the page's "Predict:", on the lesson's pages and on its exercises' screens
    /// alike (↓ steps from a lesson into its exercises).
    pub fn revealed(&self) -> bool {
        self.lesson()
            .is_some_and(|l| self.reading.progress().get(&l.id).revealed)
            || self.result().is_some_and(|r| {
                use crate::model::results::Source;
                matches!(r.source, Source::Live | Source::Interpreted)
            })
            // Run on the CPU interpreter, with the recording's figures in front.
            || (self.lesson()).is_some_and(|l| self.runs.interpreted().contains_key(&l.id))
    }

    /// Whether the figures of `variant` may be shown: the lesson's once revealed; on an
    /// exercise, the learner's own (`yours`) always, as they answer no prediction.
    pub fn revealed_for(&self, variant: &str) -> bool {
        let mine = self.exercises.open().is_some() && variant == crate::model::exercise::YOURS;
        mine || self.revealed()
    }

    /// Whether the focused variant's figures may be shown (the pop-ups of one variant).
    pub fn focus_revealed(&self) -> bool {
        let name = (self.result()).and_then(|r| r.variants.get(self.view.variant()));
        name.map_or_else(|| self.revealed(), |v| self.revealed_for(&v.name))
    }

    /// The glossary's terms this page is the first of the course to use (none on the
    /// checkpoint or an exercise).
    pub fn page_terms(&self) -> &[&'static Term] {
        if self.exercises.open().is_some() || self.on_checkpoint_page() {
            return &[];
        }
        (self.reading).terms_of(self.reading.selected(), self.reading.page())
    }

    pub(in crate::ui) fn reveal(&mut self) {
        if let Some(id) = self.lesson().map(|l| l.id.clone()) {
            self.reveal_lesson(&id);
        }
    }

    /// Reveal lesson `id`'s figures, whichever lesson is on screen: a queued `r` is
    /// answered after the learner has moved on, and must not give away the page they are
    /// on now.
    pub(in crate::ui) fn reveal_lesson(&mut self, id: &str) {
        self.reading.progress_mut().mark_revealed(id);
        self.save_progress();
    }
}
