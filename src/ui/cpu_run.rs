//! Without a GPU but with NVRTC, `r` runs the lesson on the CPU interpreter: its outputs
//! checked at the lesson's CPU size and its sampled blocks traced at its own, no times.
//! The header says so ("run on the CPU interpreter"), as `gpulab run --cpu` does.

use super::app::{App, Running};
use super::event::Job;
use crate::model::Lesson;
use crate::model::results::Source;
use crate::session::fold;

impl App {
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
