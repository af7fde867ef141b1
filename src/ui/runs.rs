//! What the runs have measured and the run in flight: `r` asks the plan where figures come
//! from (live on the GPU, on the CPU interpreter, or none: the recording stays).

use super::app::App;
use super::event::Job;
use crate::model::Lesson;
use crate::model::protocol::RunOptions;
use crate::model::results::{LessonResult, Source};
use crate::session::fold::{self, Capabilities, Fold};
use crate::session::source::{self, Ask, Plan};
use std::collections::HashMap;

/// The live run in flight, as the status line and its column show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Running {
    pub lesson: String,
    pub variant: String,
    pub stage: String,
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

impl App {
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

    /// Start a run on the CPU interpreter, as the plan says when this machine has NVRTC
    /// and no GPU and the lesson gives a CPU size. The lesson is read at that size on the
    /// worker thread, not here.
    pub(super) fn start_cpu_run(&mut self, lesson: &Lesson) {
        (self.runs.results).insert(
            lesson.id.clone(),
            fold::blank_result(lesson, Source::Interpreted, None),
        );
        self.runs.running = Some(Running {
            lesson: lesson.id.clone(),
            variant: String::new(),
            stage: "starting on the CPU interpreter (no GPU: outputs and traces, no times)".into(),
        });
        self.message = None;
        self.outbox.push(Job::CpuRun {
            lesson: Box::new(lesson.clone()),
            root: self.reading.course_root.clone(),
        });
    }
}
