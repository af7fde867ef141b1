//! Runs asked of the worker and their results folded in.

use super::App;
use crate::model::Lesson;
use crate::model::protocol::{PIP_HINT, RunOptions};
use crate::model::results::{LessonResult, Source, VariantResult};
use crate::session::fold::{self};
use crate::session::source::{self, Ask, Plan, Subject};
use crate::ui::event::{CpuSize, Job};
use crate::ui::state::runs::*;

impl App {
    /// Ask for a live run of the current lesson (or explain why there is none).
    pub fn start_run(&mut self) {
        if self.exercises.open().is_some() {
            self.check_exercise(false);
            return;
        }
        if self.tried.is_some() {
            return self.start_try_run();
        }
        let Some(lesson) = self.lesson().cloned() else {
            return;
        };
        if let Some(r) = &self.runs.running() {
            // Another lesson's `r` is kept for when this run ends, not dropped; one lesson
            // waits at a time, and one that takes another's place says so.
            self.message = Some(match r.lesson == lesson.id {
                true => ALREADY_GOING.into(),
                false => {
                    let mut said = format!("queued: {} runs once {} is done", lesson.id, r.lesson);
                    let before = self.runs.queue(&lesson.id);
                    if let Some(b) = before.filter(|b| *b != lesson.id) {
                        said.push_str(&format!(", in place of {b}"));
                    }
                    said
                }
            });
            return;
        }
        self.run_lesson(lesson);
    }

    /// The run of a lesson whose `r` waited for another's run to end.
    pub(in crate::ui) fn run_queued(&mut self) {
        let Some(id) = self.runs.take_queued() else {
            return;
        };
        if self
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("queued: "))
        {
            self.message = None;
        }
        if let Some(lesson) = self.reading.lessons().iter().find(|l| l.id == id).cloned() {
            self.run_lesson(lesson);
        }
    }

    /// Run `lesson` (or explain why it cannot run here): nothing else is running.
    fn run_lesson(&mut self, lesson: Lesson) {
        if self.memcheck_running() {
            self.message = Some("memcheck is going: r works once it is done".into());
            return;
        }
        // Its lines were about the kernel as it was; a new run may tell another story.
        self.runs.set_memcheck(None);
        match self.run_plan(&lesson) {
            Some(plan @ Plan::Live(_)) => {
                let options = RunOptions {
                    cold_l2: self.runs.cold_l2(),
                    ..RunOptions::default()
                };
                self.start_planned(plan, Box::new(lesson), options, CpuSize::default());
            }
            Some(Plan::Interpreted) => self.start_cpu_run(&lesson),
            _ => self.explain_no_run(&lesson),
        }
    }

    /// Start carrying `plan` out for `lesson` (a run live or on the CPU interpreter; any
    /// other plan runs nothing): its blank result where its figures go (a live run's in
    /// place of what was shown, the interpreter's beside the recording, and in front), the
    /// run in flight, and the job that sends it.
    pub(in crate::ui) fn start_planned(
        &mut self,
        plan: Plan,
        lesson: Box<Lesson>,
        options: RunOptions,
        cpu_size: CpuSize,
    ) {
        let Some(blank) = plan.blank(&lesson) else {
            return;
        };
        let id = lesson.id.clone();
        let on_cpu = plan == Plan::Interpreted;
        let stage = match on_cpu {
            true => "starting on the CPU interpreter (no GPU: outputs and traces, no times)",
            false => "starting",
        };
        self.runs.begin(&id, blank, on_cpu, stage);
        self.message = None;
        self.outbox.push(Job::Run {
            plan,
            lesson,
            options: Box::new(options),
            cpu_size,
        });
    }

    /// `C`: time the next runs with the L2 flushed before every launch, or warm again.
    pub fn toggle_cold_l2(&mut self) {
        self.runs.set_cold_l2(!self.runs.cold_l2());
        let said = match self.runs.cold_l2() {
            true => "cold L2: the next runs flush the L2 before every timed launch (C: warm)",
            false => "warm L2: the next runs time launches back to back (C: cold)",
        };
        // Without a GPU nothing is timed here: the setting waits for a machine with one.
        let no_gpu = (self.runs.caps().as_ref()).is_some_and(|c| c.device.is_none());
        self.message = Some(match no_gpu {
            true => format!("{said}; no GPU here, so it applies to live runs only"),
            false => said.into(),
        });
    }

    /// Where `r` on `lesson` gets its figures; None until the worker has said what this
    /// machine has.
    pub(in crate::ui) fn run_plan(&self, lesson: &Lesson) -> Option<Plan> {
        let caps = self.runs.caps().as_ref()?;
        let shown = self.runs.results().get(&lesson.id)?;
        let of = Subject::Lesson {
            lesson,
            shown: shown.device.as_ref(),
        };
        Some(source::plan(Ask::Run, caps, of))
    }

    /// No run on this machine, GPU or CPU: say why, and show the recording, which is what
    /// `r` can give here.
    fn explain_no_run(&mut self, lesson: &Lesson) {
        self.runs.set_looping(false);
        let Some(caps) = self.runs.caps().as_ref() else {
            self.message = Some("still looking for a GPU: r runs once the worker has said".into());
            return;
        };
        let no_gpu = caps.no_gpu.as_deref().unwrap_or("none found");
        let why = match fold::unmet(lesson, caps) {
            Some(unmet) => format!("no live run: this lesson {unmet}"),
            // How to get NVRTC, whole on two rows of 80 columns: without it a newcomer's
            // lab never runs (why there is no GPU, `gpulab doctor` says).
            None if caps.nvrtc.is_none() => {
                format!("no GPU here; {PIP_HINT} lets the CPU interpreter run it")
            }
            None => format!(
                "no GPU ({no_gpu}), and no CPU size in this lesson: {}",
                why_no_cpu_size(lesson)
            ),
        };
        let recorded = self
            .runs
            .results()
            .get(&lesson.id)
            .is_some_and(|r| r.source == Source::Recorded);
        // A queued `r` is answered here once the run before it ends, maybe with another
        // lesson on screen: that lesson's figures stay hidden, and the line says which
        // lesson it is about.
        let elsewhere = self.lesson().is_none_or(|l| l.id != lesson.id);
        let said = if recorded {
            self.reveal_lesson(&lesson.id);
            if !elsewhere {
                self.runs.set_front(Front::Recorded);
            }
            format!("{why}: the figures shown are the recording's")
        } else {
            format!("{why}, and no recording of this lesson")
        };
        self.message = Some(match elsewhere {
            true => format!("{}: {said}", lesson.id),
            false => said,
        });
    }

    /// Start a run on the CPU interpreter, as the plan says when this machine has NVRTC
    /// and no GPU and the lesson gives a CPU size. The lesson is read at that size on the
    /// worker thread, not here. Its figures go beside the recording's.
    pub(in crate::ui) fn start_cpu_run(&mut self, lesson: &Lesson) {
        let cpu_size = CpuSize::Read(self.reading.course_root().clone());
        let lesson = Box::new(lesson.clone());
        self.start_planned(Plan::Interpreted, lesson, RunOptions::default(), cpu_size);
    }

    /// `l` where only a GPU can loop: the interpreter's figures are the same on every run
    /// and the recording's never change, so `r` runs once (or says why it cannot).
    pub(in crate::ui) fn once_instead_of_loop(&mut self) -> bool {
        let Some(lesson) = self.lesson().cloned() else {
            return true;
        };
        if matches!(self.run_plan(&lesson), Some(Plan::Live(_))) {
            return false;
        }
        self.runs.set_looping(false);
        if self.runs.running().is_none() {
            self.start_run();
        }
        if self.runs.running().as_ref().is_some_and(|r| r.on_cpu) {
            self.message = Some(
                "no loop without a GPU: the CPU interpreter gives the same figures every run, \
                 so it runs once"
                    .into(),
            );
        }
        true
    }

    /// The lesson's run on the CPU interpreter, when the columns show it.
    pub fn interpreted_shown(&self) -> Option<&LessonResult> {
        let l = self.lesson()?;
        (self.runs.front() == Front::Interpreted)
            .then(|| self.runs.interpreted().get(&l.id))
            .flatten()
    }

    /// The figures with times of the lesson on screen: live, or the recording's, whichever
    /// source the columns show (a sweep's chart is drawn from these).
    pub fn timed_result(&self) -> Option<&LessonResult> {
        self.lesson().and_then(|l| self.runs.results().get(&l.id))
    }

    /// Whether variant `name` on screen was run on the CPU interpreter.
    pub fn interpreted_variant(&self, name: &str) -> bool {
        let from_cpu = |r: &LessonResult| {
            r.source == Source::Interpreted && r.variants.iter().any(|v| v.name == name)
        };
        match self.exercises.open() {
            Some(_) => self.ex_report().is_some_and(|x| from_cpu(&x.result)),
            None => self.result().is_some_and(from_cpu),
        }
    }

    /// The recording's figures of variant `name`, where the columns show the CPU
    /// interpreter's: its times stand beside the interpreter's figures, labelled.
    pub fn recorded_beside(&self, name: &str) -> Option<(&LessonResult, &VariantResult)> {
        if !self.interpreted_variant(name) {
            return None;
        }
        let rec = self.timed_result()?;
        let v = (rec.source == Source::Recorded)
            .then(|| rec.variants.iter().find(|v| v.name == name))
            .flatten()?;
        Some((rec, v))
    }

    /// The recording whose times stand beside the interpreter's figures on screen, if any
    /// variant shows them.
    pub fn recorded_beside_any(&self) -> Option<&LessonResult> {
        let r = self.result()?;
        let name = &r
            .variants
            .iter()
            .find(|v| self.recorded_beside(&v.name).is_some())?
            .name;
        self.recorded_beside(name).map(|(rec, _)| rec)
    }

    /// `s`: the interpreter's figures (with the recording's times) or the recording's alone.
    pub(in crate::ui) fn switch_source(&mut self) {
        let Some(id) = self.lesson().map(|l| l.id.clone()) else {
            return;
        };
        if self.exercises.open().is_some() {
            self.message = Some("an exercise shows your last check: s works on lessons".into());
            return;
        }
        let recorded = self.runs.results().get(&id).map(|r| r.source);
        if !self.runs.interpreted().contains_key(&id) {
            self.message = Some(match recorded {
                Some(Source::Live) => "these figures are live: there is no other source".into(),
                Some(Source::None) | None => format!(
                    "no recording of this lesson, and nothing run yet: {}",
                    self.where_r_runs()
                ),
                _ => "one source so far, the recording: r runs the lesson here".into(),
            });
            return;
        }
        if matches!(recorded, Some(Source::None) | None) {
            self.message = Some(
                "no recording of this lesson: the interpreter's figures are the only ones".into(),
            );
            return;
        }
        self.runs.set_front(match self.runs.front() {
            Front::Interpreted => Front::Recorded,
            Front::Recorded => Front::Interpreted,
        });
        // The header says which is in front; the status line goes back to how the claims
        // fare on it.
        self.message = None;
    }

    /// What `r` does on this machine, in the words of the status line: measure on its GPU,
    /// run on the CPU interpreter, or neither (and what would let it).
    pub(in crate::ui) fn where_r_runs(&self) -> String {
        match &self.runs.caps() {
            Some(c) if c.device.is_some() => "r measures it on this GPU".into(),
            Some(c) if c.nvrtc.is_some() => "r runs it on the CPU interpreter".into(),
            Some(_) => format!("r needs a GPU, or NVRTC for the CPU interpreter ({PIP_HINT})"),
            None => "r runs it here".into(),
        }
    }

    /// `v`: the recorded figures, shown; where the interpreter's were in front, the
    /// recording's take their place (`s` brings them back).
    pub(in crate::ui) fn show_recorded(&mut self) {
        self.reveal();
        let ran = self
            .lesson()
            .is_some_and(|l| self.runs.interpreted().contains_key(&l.id));
        if ran && self.exercises.open().is_none() && self.runs.front() == Front::Interpreted {
            self.switch_source();
        }
    }

    /// The result a reply of `lesson`'s request fills: the interpreter's during a run on
    /// it (once the compile asked before it is in), else the lesson's.
    pub(in crate::ui) fn fold_target(&mut self, lesson: &str) -> Option<&mut LessonResult> {
        let on_cpu = !self.runs.is_compiling(lesson)
            && (self.runs.running().as_ref()).is_some_and(|r| r.lesson == lesson && r.on_cpu);
        self.runs.result_mut(lesson, on_cpu)
    }
}

/// Why a lesson gives the interpreter no size of its own, as far as the lesson shows it.
fn why_no_cpu_size(lesson: &Lesson) -> &'static str {
    if !lesson.textures.is_empty() {
        "its textures need a GPU"
    } else if lesson.problem.iter().any(|(k, _)| k.starts_with("gpu_")) {
        "its sizes are set against the GPU's own (its L2, its SMs), far past what the \
         interpreter runs"
    } else {
        "its sizes are far past what the interpreter runs"
    }
}
