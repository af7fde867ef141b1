//! The course and the device arriving: the lab made whole once they are in.

use super::App;
use crate::session::progress::Progress;
use crate::ui::state::loading::*;

impl App {
    /// The lab before its course is in: it says how many lessons are coming, and `q` works.
    pub fn loading(count: usize, progress: Progress) -> App {
        let mut app = App::new(Vec::new(), None, progress);
        app.loading = Some(Loading::Pending(count));
        app
    }

    /// The course is in: the lab opens at the first unfinished lesson, as if it had been
    /// there from the start; a GPU found meanwhile gets its compile jobs now.
    pub(in crate::ui) fn on_loaded(&mut self, loaded: Result<Course, LoadFailure>) {
        match loaded {
            Ok(course) => {
                let fresh = App::new(
                    course.lessons,
                    course.recording,
                    self.reading.progress.clone(),
                );
                self.reading.lessons = fresh.reading.lessons;
                self.reading.terms = fresh.reading.terms;
                self.reading.selected = fresh.reading.selected;
                self.runs.results = fresh.runs.results;
                // A stand-in has no figures, even where a recording has its lesson's.
                for l in &self.reading.lessons {
                    if course.broken.iter().any(|b| b.file == l.file) {
                        self.runs.results.remove(&l.id);
                    }
                }
                self.reading.broken = course.broken;
                self.reading.answers = fresh.reading.answers;
                self.loading = None;
                self.note_seen();
                // The course came after the worker's answer: read at the recording's sizes,
                // its lessons wait for this GPU's before anything runs on them.
                if let Some(caps) = self.runs.caps.take() {
                    if self.size_for(&caps) {
                        self.runs.sizing = Some(caps);
                    } else {
                        self.plan_compiles(&caps);
                        self.runs.caps = Some(caps);
                    }
                }
            }
            Err(f) => self.loading = Some(Loading::Failed(f)),
        }
    }
}
