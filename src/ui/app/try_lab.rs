//! `gpulab try` in the lab: the tried kernel remade and run again.

use super::App;
use crate::course::tried::lesson::{self as try_lesson, Tried};
use crate::model::protocol::{PIP_HINT, RunOptions};
use crate::session::progress::Progress;
use crate::session::source::{self, Ask, Subject};
use crate::session::try_run;
use crate::ui::event::{CpuSize, Job};
use crate::ui::state::try_lab::*;
use std::path::{Path, PathBuf};

impl App {
    /// The lab on a try: its one lesson, its figures shown as they come, its files
    /// watched for saves.
    pub fn for_try(lab: TryLab) -> App {
        let mut progress = Progress::default();
        // The page answers nothing: the figures are what the learner came for.
        progress.mark_revealed(try_lesson::LESSON_ID);
        let mut app = App::new(vec![lab.tried().lesson.clone()], None, progress);
        app.outbox
            .push(Job::WatchFiles(baselines(&lab.tried().files)));
        app.message = Some("every save of the file runs it again (r: now, e: edit)".into());
        app.tried = Some(Box::new(lab));
        app
    }

    /// `r` on a try: run it now where it can run, as the try's plan says.
    pub(in crate::ui) fn start_try_run(&mut self) {
        if self.tried.is_none() {
            return;
        }
        if self.runs.running().is_some() {
            if let Some(lab) = self.tried.as_mut() {
                lab.again();
            }
            self.message = Some("a run is going: it runs again once this one is over".into());
            return;
        }
        if self.memcheck_running() {
            self.message = Some("memcheck is going: r works once it is done".into());
            return;
        }
        let Some(caps) = self.runs.caps().clone() else {
            self.message =
                Some("still looking for a GPU: the try runs once the worker has said".into());
            return;
        };
        if caps.device.is_none() && caps.nvrtc.is_none() {
            let no_gpu = caps.no_gpu.as_deref().unwrap_or("none found");
            self.message = Some(format!(
                "no GPU ({no_gpu}) and no NVRTC for the CPU interpreter: nothing here can run \
                 the kernel (get NVRTC with: {PIP_HINT})"
            ));
            return;
        }
        let Some(lab) = self.tried.as_ref() else {
            return;
        };
        let lesson = Box::new(lab.tried().lesson.clone());
        let plan = source::plan(Ask::run(lab.cpu()), &caps, Subject::Try(&lesson));
        let options = try_run::options(lab.tried(), RunOptions::default());
        // On the interpreter the outputs are checked at the try's CPU sizes, made with it.
        let cpu_size = CpuSize::Given(lab.tried().sized.clone().map(Box::new));
        self.runs.set_memcheck(None);
        self.start_planned(plan, lesson, options, cpu_size);
    }

    /// The worker has said what this machine has: the try's first run.
    pub(in crate::ui) fn try_ready(&mut self) {
        if self.tried.is_some() {
            self.start_try_run();
        }
    }

    /// A save of `path`: the lesson made again from the files as they are now, and run
    /// (once the run going is over).
    pub(in crate::ui) fn try_saved(&mut self, path: &Path) {
        let Some(lab) = self.tried.as_mut() else {
            return;
        };
        if !lab.tried().files.iter().any(|f| same_file(f, path)) {
            return;
        }
        if self.runs.running().is_some() {
            lab.again();
            self.message = Some("saved: it runs again once this run is over".into());
            return;
        }
        self.remake_try();
    }

    /// A run of the try is over: its result as the try's reference has it, and the run a
    /// save asked for meanwhile.
    pub(in crate::ui) fn try_finished(&mut self, lesson: &str, was_run: bool) {
        let Some(lab) = self.tried.as_mut() else {
            return;
        };
        if lesson != lab.tried().lesson.id || !was_run {
            return;
        }
        for on_cpu in [true, false] {
            if let Some(r) = self.runs.result_mut(lesson, on_cpu) {
                try_run::finish(lab.tried(), r);
            }
        }
        if lab.take_again() {
            self.remake_try();
        }
    }

    /// Make the lesson again from the files and flags, and run it: the worker thread reads
    /// the files (`Job::RemakeTry`) and `try_remade` takes the lesson it makes.
    fn remake_try(&mut self) {
        if let Some(lab) = self.tried.as_ref() {
            self.outbox
                .push(Job::RemakeTry(Box::new(lab.spec().clone())));
        }
    }

    /// The try's lesson made again: it takes the old one's place and runs; a problem (a
    /// header broken mid-edit) is said, and the lesson as it was stays.
    pub(in crate::ui) fn try_remade(&mut self, remade: Result<Box<Tried>, (String, usize)>) {
        let Some(lab) = self.tried.as_mut() else {
            return;
        };
        match remade {
            Ok(tried) => {
                self.reading.only(tried.lesson.clone());
                let n = tried.lesson.variants.len();
                self.view
                    .focus(self.view.variant().min(n.saturating_sub(1)));
                lab.remade(*tried);
                self.start_try_run();
            }
            Err((first, count)) => {
                let more = match count {
                    0 | 1 => String::new(),
                    n => format!(" (and {} more)", n - 1),
                };
                // One line on the status line, and said of what stays on screen: the cards
                // are the last run's, of the files as they were then.
                let first = first.split_whitespace().collect::<Vec<_>>().join(" ");
                let ran = self.runs.results().contains_key(&lab.tried().lesson.id)
                    || self.runs.interpreted().contains_key(&lab.tried().lesson.id);
                let stays = if ran {
                    " · the figures shown are the last run's, before this edit"
                } else {
                    ""
                };
                self.message = Some(format!("not run: {first}{more}{stays}"));
            }
        }
    }

    /// `e` on a try: the focused variant's file in the learner's editor.
    pub(in crate::ui) fn edit_try(&mut self) {
        let Some(v) = self
            .lesson()
            .and_then(|l| l.variants.get(self.view.variant()))
        else {
            return;
        };
        self.exercises.edit(PathBuf::from(&v.source_path));
    }
}

/// Each file with its text as it is now, so that only a change counts as a save.
fn baselines(files: &[PathBuf]) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    files
        .iter()
        .map(|f| (f.clone(), std::fs::read(f).ok()))
        .collect()
}

/// Whether `a` and `b` name one file (the watcher gives the path it was given).
fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}
