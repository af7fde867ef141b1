//! Loading the course behind the first frame: the lab counts the lesson files (names only,
//! nothing read), draws "loading N lessons…", and a thread of its own loads and checks them
//! and sends the course as one event. A large pack costs time, never a blank screen.

use super::app::App;
use super::event::UiEvent;
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::session::progress::Progress;
use crate::session::recording::{self, Recording};
use std::sync::mpsc::Sender;
use thiserror::Error;

/// What the lab needs once the lessons are in.
#[derive(Debug)]
pub struct Course {
    pub lessons: Vec<Lesson>,
    pub recording: Option<Recording>,
}

/// Why the course could not be opened: every problem, each at its `file:line:col`.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{} problem(s) in the lessons (run `gpulab check` for all of them)", .problems.len())]
pub struct LoadFailure {
    pub problems: Vec<String>,
}

/// Where the lab is with its course.
#[derive(Debug, Clone, PartialEq)]
pub enum Loading {
    /// Being loaded: how many lesson files there are.
    Pending(usize),
    Failed(LoadFailure),
}

/// Load and check the whole course, and the newest recording shipped with it.
pub fn load(root: &CourseRoot) -> Result<Course, LoadFailure> {
    let (lessons, errors) = crate::course::load_course(root);
    if !errors.is_empty() {
        let problems = errors.iter().map(ToString::to_string).collect();
        return Err(LoadFailure { problems });
    }
    if lessons.is_empty() {
        let problems = vec!["no lessons found".to_string()];
        return Err(LoadFailure { problems });
    }
    let recording = recording::newest(&root.recordings());
    Ok(Course { lessons, recording })
}

/// Run `loader` on a thread of its own and send what it gives, once.
pub fn spawn<F>(ui: Sender<UiEvent>, loader: F)
where
    F: FnOnce() -> Result<Course, LoadFailure> + Send + 'static,
{
    std::thread::spawn(move || {
        let _ = ui.send(UiEvent::Loaded(loader()));
    });
}

impl App {
    /// The lab before its course is in: it says how many lessons are coming, and `q` works.
    pub fn loading(count: usize, progress: Progress) -> App {
        let mut app = App::new(Vec::new(), None, progress);
        app.loading = Some(Loading::Pending(count));
        app
    }

    /// The course is in: the lab opens at the first unfinished lesson, as if it had been
    /// there from the start; a GPU found meanwhile gets its compile jobs now.
    pub(super) fn on_loaded(&mut self, loaded: Result<Course, LoadFailure>) {
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
                self.reading.answers = fresh.reading.answers;
                self.loading = None;
                self.note_seen();
                if let Some(caps) = self.runs.caps.clone() {
                    self.plan_compiles(&caps);
                }
            }
            Err(f) => self.loading = Some(Loading::Failed(f)),
        }
    }
}
