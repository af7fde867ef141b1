//! The memcheck rerun asked for and its findings shown.

use super::App;
use crate::model::results::Failure;
use crate::session::client::{MemcheckError, MemcheckReport};
use crate::ui::event::Job;
use crate::ui::state::memcheck::*;
use crate::ui::state::view::Overlay;

impl App {
    /// The focused variant, when memcheck can be offered for it: lost to a CUDA error, on a
    /// machine whose toolkit has compute-sanitizer.
    pub fn memcheck_offer(&self) -> Option<&str> {
        self.runs.sanitizer().as_ref()?;
        self.faulted_focus()
    }

    /// The focused variant, where a CUDA fault lost it.
    fn faulted_focus(&self) -> Option<&str> {
        let v = self.result()?.variants.get(self.view.variant())?;
        let cuda_fault = matches!(v.failure, Some(Failure::Cuda(_)));
        cuda_fault.then_some(v.name.as_str())
    }

    pub fn memcheck_running(&self) -> bool {
        self.runs
            .memcheck()
            .as_ref()
            .is_some_and(|m| matches!(m.state, MemcheckState::Running(_)))
    }

    /// Whether `m` should show the rerun already there: one going, or one done for the
    /// focused variant (a new run of the lesson forgets it).
    pub(in crate::ui) fn memcheck_shown_for_focus(&self) -> bool {
        let focus = self
            .result()
            .and_then(|r| r.variants.get(self.view.variant()));
        self.runs.memcheck().as_ref().is_some_and(|m| {
            matches!(m.state, MemcheckState::Running(_))
                || (self.lesson().is_some_and(|l| l.id == m.lesson)
                    && focus.is_some_and(|v| v.name == m.variant))
        })
    }

    /// `m`: rerun the focused variant under memcheck, or say why not.
    pub(in crate::ui) fn start_memcheck(&mut self) {
        // Why there is nothing to rerun comes before whether the worker is free for it.
        let (Some(variant), Some(sanitizer), Some(lesson)) = (
            self.memcheck_offer().map(str::to_string),
            self.runs.sanitizer().clone(),
            self.lesson().cloned(),
        ) else {
            self.message = Some(self.why_no_memcheck());
            return;
        };
        if self.memcheck_running() || self.runs.running().is_some() {
            self.message = Some("the worker is busy: m works once it is done".into());
            return;
        }
        self.runs.set_memcheck(Some(Memcheck {
            lesson: lesson.id.clone(),
            variant: variant.clone(),
            state: MemcheckState::Running(0),
        }));
        self.view.open(Overlay::Memcheck);
        self.outbox.push(Job::Memcheck {
            lesson: Box::new(lesson),
            variant,
            sanitizer,
        });
    }

    fn why_no_memcheck(&self) -> String {
        if self.faulted_focus().is_none() {
            "m reruns a variant lost to a CUDA fault; this one did not fault".into()
        } else {
            "m needs compute-sanitizer (it comes with the CUDA toolkit; see `gpulab doctor`)".into()
        }
    }

    pub(in crate::ui) fn on_memcheck_tick(&mut self, seconds: u64) {
        if let Some(m) = self.runs.memcheck_mut()
            && let MemcheckState::Running(s) = &mut m.state
        {
            *s = seconds;
        }
    }

    pub(in crate::ui) fn on_memchecked(
        &mut self,
        lesson: String,
        variant: String,
        outcome: Result<MemcheckReport, MemcheckError>,
    ) {
        let state = match outcome {
            Ok(report) => MemcheckState::Found(report),
            Err(e) => MemcheckState::Failed(e),
        };
        self.runs.set_memcheck(Some(Memcheck {
            lesson,
            variant,
            state,
        }));
    }
}
