//! The course and the device arriving: the lab made whole once they are in.

use super::{App, recorded};
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
                let mut results = recorded(&course.lessons, course.recording.as_ref());
                // A stand-in has no figures, even where a recording has its lesson's.
                for l in &course.lessons {
                    if course.broken.iter().any(|b| b.file == l.file) {
                        results.remove(&l.id);
                    }
                }
                self.runs.show_all(results);
                self.reading.open_course(course.lessons, course.broken);
                self.loading = None;
                self.note_seen();
                // The course came after the worker's answer: read at the recording's sizes,
                // its lessons wait for this GPU's before anything runs on them.
                if let Some(caps) = self.runs.take_caps() {
                    if self.size_for(&caps) {
                        self.runs.hold_while_sizing(caps);
                    } else {
                        self.plan_compiles(&caps);
                        self.runs.set_caps(Some(caps));
                    }
                }
            }
            Err(f) => self.loading = Some(Loading::Failed(f)),
        }
    }
}
