//! What the worker's news does to the lab: what this machine has, each reply of a request
//! folded into its lesson's result, and the end of a request. The folding itself is
//! `session::fold`, the same the command line uses.

use crate::model::Lesson;
use crate::model::protocol::Reply;
use crate::session::client::WorkerFailure;
use crate::session::fold::Capabilities;
use crate::session::queue_news::shown_stage;
use crate::session::source::{self, Ask, Plan, Subject};
use crate::ui::app::App;
use crate::ui::event::{Job, WorkerEvent};

impl App {
    pub fn on_worker(&mut self, ev: WorkerEvent) {
        match ev {
            WorkerEvent::Ready(Ok(caps)) => self.on_ready(caps),
            WorkerEvent::Remade(remade) => self.try_remade(remade),
            WorkerEvent::Sized(lessons) => self.on_sized(lessons),
            WorkerEvent::Ready(Err(e)) => {
                self.runs.set_caps(Some(Capabilities {
                    no_gpu: Some(e.to_string()),
                    ..Default::default()
                }));
            }
            WorkerEvent::Reply { lesson, reply } if self.is_knob_run(&lesson) => {
                self.knob_reply(&reply)
            }
            WorkerEvent::Finished { lesson, outcome } if self.is_knob_run(&lesson) => {
                self.knob_finished(outcome)
            }
            WorkerEvent::Reply { lesson, reply } => self.on_reply(lesson, reply),
            WorkerEvent::Finished { lesson, outcome } => self.on_finished(lesson, outcome),
            WorkerEvent::Sanitizer(path) => self.runs.set_sanitizer(path),
            WorkerEvent::MemcheckTick(seconds) => self.on_memcheck_tick(seconds),
            WorkerEvent::Memchecked {
                lesson,
                variant,
                outcome,
            } => self.on_memchecked(lesson, variant, outcome),
            WorkerEvent::ExStage { exercise, text } => self.on_ex_stage(&exercise, text),
            WorkerEvent::Sass {
                lesson,
                variant,
                listing,
            } => self.on_sass(lesson, variant, listing),
            WorkerEvent::Checked { exercise, outcome } => self.on_checked(exercise, outcome),
            WorkerEvent::ExFigures { exercise, report } => {
                self.exercises.record_report(exercise, *report);
            }
        }
        // The lesson's figures may have changed under the exercise's columns.
        self.refresh_shown();
    }

    /// No GPU but NVRTC: the timings stay the recording's, and the compile reports are
    /// made live for every lesson.
    fn on_ready(&mut self, caps: Capabilities) {
        // A GPU here: its lessons are sized for it, as its runs will be. Where that reads
        // files, the worker thread reads them, and the lab is ready when they are in.
        if self.size_for(&caps) {
            self.runs.hold_while_sizing(caps);
            return;
        }
        self.ready(caps);
    }

    /// Whether `caps`'s GPU sizes some loaded lesson otherwise than it was read; if so, the
    /// job that reads them again is queued.
    pub(in crate::ui) fn size_for(&mut self, caps: &Capabilities) -> bool {
        let Some(dev) = &caps.device else {
            return false;
        };
        if self.loading.is_some()
            || !(self.reading.lessons().iter()).any(|l| source::sized_otherwise(l, dev))
        {
            return false;
        }
        self.outbox.push(Job::Size {
            lessons: self.reading.lessons().to_vec(),
            root: self.reading.course_root().clone(),
            device: Box::new(dev.clone()),
        });
        true
    }

    /// The lessons at the GPU's sizes: the lab is ready with them.
    fn on_sized(&mut self, lessons: Vec<Lesson>) {
        // Only lessons read for this list take its place (a course loaded since is newer).
        self.reading.read_again(lessons);
        if let Some(caps) = self.runs.take_sizing() {
            self.ready(caps);
        }
    }

    fn ready(&mut self, caps: Capabilities) {
        self.plan_compiles(&caps);
        self.runs.set_caps(Some(caps));
        // A code or diff view opened before the worker answered asks for its SASS now.
        self.ask_for_overlay();
        self.try_ready();
    }

    /// The compile jobs `caps` calls for, one a lesson whose reports can be made here.
    pub(in crate::ui) fn plan_compiles(&mut self, caps: &Capabilities) {
        // A try has no recording for compile reports to sit beside: its run compiles it.
        if self.tried.is_some() {
            return;
        }
        for l in self.reading.lessons() {
            if self.reading.broken().iter().any(|b| b.file == l.file) {
                continue;
            }
            let Some(shown) = self.runs.results().get(&l.id) else {
                continue;
            };
            let of = Subject::Lesson {
                lesson: l,
                shown: shown.device.as_ref(),
            };
            let plan = source::plan(Ask::Figures, caps, of);
            if let Plan::CompileHere { .. } = plan {
                self.runs.compile_asked(&l.id);
                self.outbox.push(Job::Run {
                    plan,
                    lesson: Box::new(l.clone()),
                    options: Default::default(),
                    cpu_size: Default::default(),
                });
            }
        }
    }

    fn on_reply(&mut self, lesson: String, reply: Reply) {
        if let Some((variant, stage)) = shown_stage(&reply) {
            self.runs.at_stage(Some(&lesson), Some(variant), stage);
        }
        let mut fold = self.runs.take_fold(&lesson);
        if let Some(res) = self.fold_target(&lesson) {
            fold.apply(res, &reply);
        }
        self.runs.keep_fold(lesson, fold);
    }

    fn on_finished(&mut self, lesson: String, outcome: Result<(), WorkerFailure>) {
        let fold = self.runs.take_fold(&lesson);
        let on_cpu = (self.runs.running().as_ref()).is_some_and(|r| r.lesson == lesson && r.on_cpu)
            && !self.runs.is_compiling(&lesson);
        let l = self
            .reading
            .lessons()
            .iter()
            .find(|l| l.id == lesson)
            .cloned();
        let outcome = match (l, self.fold_target(&lesson)) {
            (Some(l), Some(res)) => fold.finish(&l, res, outcome),
            _ => outcome,
        };
        // The worker serves jobs in order: a compile asked before a run ends before it.
        let compiled = self.runs.compiled(&lesson);
        let was_run = !compiled
            && self
                .runs
                .running()
                .as_ref()
                .is_some_and(|r| r.lesson == lesson);
        if was_run {
            self.runs.end();
            // The run it spoke of is over: the claims' count, or the error, shows.
            if self.message.as_deref() == Some(crate::ui::state::runs::ALREADY_GOING) {
                self.message = None;
            }
        }
        match outcome {
            Ok(()) if was_run => {
                // Only a run on a GPU is a lesson "run live on this machine".
                if !on_cpu {
                    self.reading.progress_mut().mark_run(&lesson);
                }
                self.save_progress();
                // A lesson queued meanwhile goes first: the loop ends for it.
                if self.runs.queued().is_some() {
                    self.runs.set_looping(false);
                } else if self.runs.looping() && self.lesson().is_some_and(|l| l.id == lesson) {
                    self.start_run();
                }
            }
            Ok(()) => {}
            Err(f) => {
                if was_run {
                    self.runs.set_looping(false);
                }
                self.message = Some(f.to_string());
            }
        }
        self.try_finished(&lesson, was_run);
        if was_run && self.runs.running().is_none() {
            self.run_queued();
        }
    }
}
