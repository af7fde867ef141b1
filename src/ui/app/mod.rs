//! The lab's state and what the lab does with it. Pure: no terminal, no CUDA, so every key
//! and every worker reply can be tested; the views borrow it for a frame. Its parts are in
//! `ui::state`, none of which knows the `App`; what the lab does to them lives here, a file
//! for each part (`reading`, `runs`, `knobs`, `memcheck`, `exercise`, `code_view`,
//! `loading`, `try_lab`); a key starts in `keys`, a worker's reply in `worker_events`, a
//! scroll in `scroll`.

mod code_view;
mod exercise;
mod keys;
mod knobs;
mod loading;
mod memcheck;
mod reading;
mod runs;
mod scroll;
mod try_lab;
mod worker_events;

use crate::model::Lesson;
use crate::model::results::LessonResult;
use crate::session::progress::Progress;
use crate::session::recording::Recording;
use crate::session::source;
use crate::ui::event::Job;
use crate::ui::state::exercise::Exercises;
use crate::ui::state::reading::Reading;
use crate::ui::state::runs::Runs;
use crate::ui::state::view::ViewState;
use std::collections::HashMap;

/// The lab's state, in parts: where the learner is in the course (`reading`), what the
/// runs have measured (`runs`), the exercise in progress (`exercises`) and how the screen
/// shows it (`view`); the rest is the lab's own (what to tell the learner, jobs for the
/// worker, quitting). Each part's handling lives in the file named for it.
pub struct App {
    pub reading: Reading,
    pub runs: Runs,
    pub exercises: Exercises,
    pub view: ViewState,
    /// The last thing the learner must know (a failure in words, or what just happened).
    pub message: Option<String>,
    pub quit: bool,
    /// The signal that ended the lab, if one did: the exit status reports it.
    pub terminated_by: Option<i32>,
    /// Jobs for the worker thread; the event loop drains this after each event.
    pub outbox: Vec<Job>,
    /// Set until the course is in, or when it could not be loaded.
    pub loading: Option<crate::ui::state::loading::Loading>,
    /// The try on screen (`gpulab try`), whose lesson is the lab's only one.
    pub tried: Option<Box<crate::ui::state::try_lab::TryLab>>,
}

/// What each lesson shows from a GPU before any run here: the recording's figures.
pub(super) fn recorded(
    lessons: &[Lesson],
    recording: Option<&Recording>,
) -> HashMap<String, LessonResult> {
    (lessons.iter())
        .map(|l| (l.id.clone(), source::recorded(recording, l)))
        .collect()
}

impl App {
    /// The lab at the first unfinished lesson, showing the recording until the worker says
    /// what this machine can do.
    pub fn new(lessons: Vec<Lesson>, recording: Option<Recording>, progress: Progress) -> App {
        let results = recorded(&lessons, recording.as_ref());
        App {
            reading: Reading::new(lessons, progress),
            runs: Runs::new(results),
            exercises: Exercises::default(),
            view: ViewState::default(),
            message: None,
            quit: false,
            terminated_by: None,
            outbox: Vec::new(),
            loading: None,
            tried: None,
        }
    }

    /// The lesson on screen: on an exercise, its lesson with the learner's kernel as the
    /// last variant.
    pub fn lesson(&self) -> Option<&Lesson> {
        match self.exercises.open() {
            Some(x) => Some(x.lesson()),
            None => self.reading.lessons().get(self.reading.selected()),
        }
    }

    /// The lesson file on screen when it does not load (its stand-in is shown).
    pub fn broken(&self) -> Option<&crate::course::Broken> {
        let l = self.lesson().filter(|_| self.exercises.open().is_none())?;
        self.reading.broken().iter().find(|b| b.file == l.file)
    }

    /// How far the learner has come, counted as `gpulab list` counts: the lessons that
    /// load, and the files that do not (their stand-ins are no lessons to finish).
    pub fn overview(&self) -> crate::session::overview::Overview {
        let broken = &self.reading.broken();
        let loaded =
            (self.reading.lessons().iter()).filter(|l| !broken.iter().any(|b| b.file == l.file));
        crate::session::overview::Overview::of(
            loaded,
            broken.len(),
            self.reading.progress(),
            self.exercises.book(),
        )
    }

    /// The figures the columns show: an exercise's, the CPU interpreter's run of the lesson
    /// when it is in front, else the live or recorded ones.
    pub fn result(&self) -> Option<&LessonResult> {
        match self.exercises.open() {
            Some(x) => Some(x.shown()),
            None => self.interpreted_shown().or_else(|| self.timed_result()),
        }
    }

    /// Prose pages, plus one for the checkpoint questions when the lesson has them.
    pub fn page_count(&self) -> usize {
        self.lesson()
            .map_or(0, |l| l.pages.len() + usize::from(!l.checkpoint.is_empty()))
    }

    /// The page on screen answers the predictions (or is the checkpoint) and the lesson
    /// has not run yet, nor its figures been shown: it stays closed, saying why.
    pub fn page_closed(&self) -> bool {
        let Some(l) = self.lesson().filter(|_| self.exercises.open().is_none()) else {
            return false;
        };
        if self.revealed() {
            return false;
        }
        match l.pages.get(self.reading.page()) {
            Some(p) => p.answers,
            // The checkpoint asks about what the run shows.
            None => self.on_checkpoint_page(),
        }
    }

    pub fn on_checkpoint_page(&self) -> bool {
        self.lesson()
            .is_some_and(|l| self.reading.page() == l.pages.len() && !l.checkpoint.is_empty())
    }
}
