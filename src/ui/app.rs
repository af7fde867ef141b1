//! The lab's state. Pure: no terminal, no CUDA, so every key and every worker reply can be
//! tested; the views borrow it for a frame. Keys change it in `keys.rs`, the worker's
//! replies in `worker_events.rs`.

use super::event::Job;
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::protocol::RunOptions;
use crate::model::results::LessonResult;
use crate::session::ex_progress::ExerciseBook;
use crate::session::fold::{Capabilities, Fold};
use crate::session::progress::Progress;
use crate::session::recording::Recording;
use crate::session::source::{self, Ask, Plan};
use crate::session::workspace::Workspace;
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Code,
    Heatmap,
    /// Where a traced warp's texture fetches land in the image.
    Footprint,
    /// The memcheck rerun: going, or the lines it found.
    Memcheck,
    /// The focused variant against its neighbour: why the two differ.
    Diff,
}

/// The live run in flight, as the status line and its column show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Running {
    pub lesson: String,
    pub variant: String,
    pub stage: String,
}

/// The lab's state, in parts: where the learner is in the course (`reading`), what the
/// runs have measured (`runs`), the exercise in progress (`exercises`) and how the screen
/// shows it (`view`); the rest is the lab's own (what to tell the learner, jobs for the
/// worker, quitting). Each part's handling lives in the file named for it.
pub struct App {
    pub reading: Reading,
    pub runs: Runs,
    pub exercises: Exercises,
    pub view: View,
    /// The last thing the learner must know (a failure in words, or what just happened).
    pub message: Option<String>,
    pub quit: bool,
    /// The signal that ended the lab, if one did: the exit status reports it.
    pub terminated_by: Option<i32>,
    /// Jobs for the worker thread; the event loop drains this after each event.
    pub outbox: Vec<Job>,
    /// Set until the course is in, or when it could not be loaded.
    pub loading: Option<super::loading::Loading>,
}

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

/// What the runs have measured, and what is running.
pub struct Runs {
    /// What each lesson shows: the recording's figures until a live run replaces them.
    pub results: HashMap<String, LessonResult>,
    pub caps: Option<Capabilities>,
    pub running: Option<Running>,
    /// The fold of each request in flight, by lesson id.
    pub folds: HashMap<String, Fold>,
    /// Lessons whose compile reports were asked for and are not in yet: their request ends
    /// before any run of theirs queued after it, and is not that run's end.
    pub compiling: std::collections::HashSet<String>,
    pub looping: bool,
    /// Where compute-sanitizer is, once the worker has said.
    pub sanitizer: Option<std::path::PathBuf>,
    /// The last memcheck rerun (`m`).
    pub memcheck: Option<super::memcheck::Memcheck>,
    /// The knobs turned, their figures, and the knob run in flight.
    pub knobs: super::knobs::KnobBench,
}

/// The exercise in progress: the one on screen, the checks of this session, the progress
/// book, and where the learner's files are.
#[derive(Default)]
pub struct Exercises {
    /// The exercise on screen, in place of its lesson's prose.
    pub open: Option<Box<super::exercise::ExerciseView>>,
    /// The last check of each exercise this session, by id.
    pub reports: HashMap<String, crate::session::ex_check::CheckReport>,
    /// The exercise progress, and where it is written (nowhere: not written).
    pub book: ExerciseBook,
    pub book_path: Option<PathBuf>,
    /// Where the learner's exercise files are (none: exercises can be read, not done).
    pub workspace: Option<Workspace>,
    /// The learner's file to open in their editor, for the main loop.
    pub edit: Option<PathBuf>,
}

/// How the screen shows the lesson: the overlay, the focused variant and instruction, the
/// chart, colour, and the size of the last frame.
pub struct View {
    pub overlay: Overlay,
    pub variant: usize,
    /// Which traced instruction the heatmap shows, worst first.
    pub instr: usize,
    /// Heatmap of all instructions × banks instead of one request.
    pub aggregate: bool,
    /// A lesson with a sweep shows its chart in place of the variant columns.
    pub chart: bool,
    /// Which sweep's chart is shown when they do not all fit.
    pub sweep: usize,
    pub color: bool,
    pub code_scroll: u16,
    /// The code view's panes and the SASS listings asked for.
    pub code: super::code_view::CodeState,
    /// The size of the last frame drawn, so the scrolling keys see the screen the learner
    /// sees; empty before the first frame.
    pub viewport: ratatui::layout::Rect,
}

impl App {
    /// The lab at the first unfinished lesson, showing the recording until the worker says
    /// what this machine can do.
    pub fn new(lessons: Vec<Lesson>, recording: Option<Recording>, progress: Progress) -> App {
        let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
        let selected = progress.first_unfinished(&ids);
        let results = lessons
            .iter()
            .map(|l| (l.id.clone(), source::recorded(recording.as_ref(), l)))
            .collect();
        let answers = progress
            .lessons
            .iter()
            .flat_map(|(id, p)| p.answers.iter().map(|(&q, &c)| ((id.clone(), q), c)))
            .collect();
        App {
            reading: Reading {
                lessons,
                selected,
                page: 0,
                prose_scroll: 0,
                follow_question: true,
                answers,
                progress,
                save_requested: false,
                course_root: CourseRoot::Bundled,
            },
            runs: Runs {
                results,
                caps: None,
                running: None,
                folds: HashMap::new(),
                compiling: Default::default(),
                looping: false,
                sanitizer: None,
                memcheck: None,
                knobs: Default::default(),
            },
            exercises: Exercises::default(),
            view: View {
                overlay: Overlay::None,
                variant: 0,
                instr: 0,
                aggregate: false,
                chart: false,
                sweep: 0,
                color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
                code_scroll: 0,
                code: Default::default(),
                viewport: Default::default(),
            },
            message: None,
            quit: false,
            terminated_by: None,
            outbox: Vec::new(),
            loading: None,
        }
    }

    /// The lesson on screen: on an exercise, its lesson with the learner's kernel as the
    /// last variant.
    pub fn lesson(&self) -> Option<&Lesson> {
        match &self.exercises.open {
            Some(x) => Some(&x.lesson),
            None => self.reading.lessons.get(self.reading.selected),
        }
    }

    pub fn result(&self) -> Option<&LessonResult> {
        match &self.exercises.open {
            Some(x) => Some(&x.shown),
            None => self.lesson().and_then(|l| self.runs.results.get(&l.id)),
        }
    }

    /// Prose pages, plus one for the checkpoint questions when the lesson has them.
    pub fn page_count(&self) -> usize {
        self.lesson()
            .map_or(0, |l| l.pages.len() + usize::from(!l.checkpoint.is_empty()))
    }

    pub fn on_checkpoint_page(&self) -> bool {
        self.lesson()
            .is_some_and(|l| self.reading.page == l.pages.len() && !l.checkpoint.is_empty())
    }

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
    }

    pub(super) fn reveal(&mut self) {
        if let Some(id) = self.lesson().map(|l| l.id.clone()) {
            self.reading.progress.mark_revealed(&id);
            self.save_progress();
        }
    }

    /// Ask for a live run of the current lesson (or explain why there is none).
    pub fn start_run(&mut self) {
        if self.exercises.open.is_some() {
            self.check_exercise(false);
            return;
        }
        let Some(lesson) = self.lesson().cloned() else {
            return;
        };
        if self.runs.running.is_some() {
            self.message = Some("a run is already going; it shows as it is measured".into());
            return;
        }
        if self.memcheck_running() {
            self.message = Some("memcheck is going: r works once it is done".into());
            return;
        }
        // Its lines were about the kernel as it was; a new run may tell another story.
        self.runs.memcheck = None;
        let plan = self.runs.caps.as_ref().zip(self.result());
        let plan = plan.map(|(caps, shown)| source::plan(caps, &lesson, shown, Ask::Run));
        let device = match plan {
            Some(Plan::Live(device)) => device,
            Some(Plan::Interpreted) => return self.start_cpu_run(&lesson),
            _ => return self.explain_no_run(&lesson),
        };
        self.runs
            .results
            .insert(lesson.id.clone(), source::live(&lesson, device));
        self.runs.running = Some(Running {
            lesson: lesson.id.clone(),
            variant: String::new(),
            stage: "starting".into(),
        });
        self.message = None;
        self.outbox.push(Job::Run {
            lesson: Box::new(lesson),
            options: RunOptions::default(),
        });
    }

    fn explain_no_run(&mut self, lesson: &Lesson) {
        let caps = self.runs.caps.as_ref();
        let why = match caps.and_then(|c| crate::session::fold::unmet(lesson, c)) {
            Some(unmet) => format!("this lesson {unmet}"),
            None => caps
                .and_then(|c| c.no_gpu.clone())
                .unwrap_or_else(|| "still looking for a GPU".into()),
        };
        self.message = Some(format!(
            "no live run: {why}. The figures shown are replayed from the recording."
        ));
        self.runs.looping = false;
    }
}
