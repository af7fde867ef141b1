//! Without a GPU but with NVRTC, `r` runs the lesson on the CPU interpreter: its outputs
//! checked at the lesson's CPU size and its sampled blocks traced at its own, no times.
//! The header says so ("run on the CPU interpreter"), as `gpulab run --cpu` does.

use super::app::{App, Running};
use super::event::Job;
use crate::model::Lesson;
use crate::model::results::Source;
use crate::session::fold;

impl App {
    /// Start a run on the CPU interpreter when this machine has NVRTC and no GPU and the
    /// lesson gives a CPU size; false when that is not the case (nothing started). The
    /// lesson is read at that size on the worker thread, not here.
    pub(super) fn start_cpu_run(&mut self, lesson: &Lesson) -> bool {
        let cpu_only =
            (self.caps.as_ref()).is_some_and(|c| c.device.is_none() && c.nvrtc.is_some());
        if !cpu_only || lesson.problem_cpu.is_empty() {
            return false;
        }
        (self.results).insert(
            lesson.id.clone(),
            fold::blank_result(lesson, Source::Interpreted, None),
        );
        self.running = Some(Running {
            lesson: lesson.id.clone(),
            variant: String::new(),
            stage: "starting on the CPU interpreter (no GPU: outputs and traces, no times)".into(),
        });
        self.message = None;
        self.outbox.push(Job::CpuRun {
            lesson: Box::new(lesson.clone()),
            root: self.course_root.clone(),
        });
        true
    }
}
