//! The knob bench: a knob turned, its runs asked for and folded.

use super::App;
use crate::model::protocol::Reply;
use crate::model::results::{LessonResult, Source};
use crate::model::{Knob, KnobSetting, Lesson};
use crate::session::client::WorkerFailure;
use crate::session::fold::{self, Fold};
use crate::session::knobs;
use crate::session::queue_news::shown_stage;
use crate::session::source::{self, Ask, Plan, Subject};
use crate::ui::event::{CpuSize, Job};
use crate::ui::state::knobs::*;

impl App {
    /// The knob the keys turn on the lesson screen: one of the focused variant's.
    pub fn focused_knob(&self) -> Option<(&Lesson, usize)> {
        let (l, mine) = self.focused_knobs()?;
        let k = *mine.get(self.runs.knobs().pick(mine.len()))?;
        Some((l, k))
    }

    /// The lesson on screen and the indices of the focused variant's knobs (none on an
    /// exercise: its columns are the learner's).
    fn focused_knobs(&self) -> Option<(&Lesson, Vec<usize>)> {
        if self.exercises.open().is_some() {
            return None;
        }
        let l = self.reading.lessons().get(self.reading.selected())?;
        let v = l.variants.get(self.view.variant())?;
        let mine = (0..l.knobs.len())
            .filter(|&k| l.knobs[k].variant == v.name)
            .collect();
        Some((l, mine))
    }

    /// Where knob `k` of `lesson` stands: turned, else the variant as written.
    pub fn knob_at(&self, lesson: &Lesson, k: usize) -> Option<usize> {
        (self.runs.knobs().at(&lesson.id, k)).or(lesson.knobs[k].start)
    }

    /// `+` (up) or `-`: the focused variant's knob to its next value.
    pub(in crate::ui) fn turn_knob(&mut self, up: bool) {
        let Some((lesson, k)) = self.focused_knob().map(|(l, k)| (l.clone(), k)) else {
            self.message = Some(no_knob_words(self));
            return;
        };
        if self.runs.running().is_some() || self.memcheck_running() {
            self.message = Some("a run is going: the knob turns once it is done".into());
            return;
        }
        let knob = &lesson.knobs[k];
        let last = knob.settings.len() - 1;
        let now = self.knob_at(&lesson, k);
        let next = match (now, up) {
            (None, _) => 0,
            (Some(i), true) => (i + 1).min(last),
            (Some(i), false) => i.saturating_sub(1),
        };
        (self.runs.knobs_mut()).turn(&lesson.id, k, &knob.variant, now, next);
        if now == Some(next) {
            let end = if up { "highest" } else { "lowest" };
            let v = knob.settings[next].value;
            self.message = Some(format!("{} is at its {end} value, {v}", knob.label));
        } else {
            self.message = None;
        }
        for i in now.into_iter().chain([next]) {
            self.replay_setting(&lesson, k, i);
        }
        if now != Some(next) {
            let bare = now.filter(|&i| self.knob_figures(&lesson, knob, i).is_none());
            let mut which: Vec<usize> = bare.into_iter().collect();
            which.push(next);
            self.measure_settings(&lesson, k, &which);
        }
    }

    /// Whether the focused variant's knob table is on screen in place of the columns.
    pub fn knob_table_shown(&self) -> bool {
        let focus = self
            .focused_knob()
            .map(|(l, k)| (&l.id, &l.knobs[k].variant));
        focus.is_some_and(|(l, v)| self.runs.knobs().shown() == Some(&(l.clone(), v.clone())))
    }

    /// `o`: the focused variant's knob table, or back to the columns.
    pub(in crate::ui) fn toggle_knob_table(&mut self) {
        let shown = self.knob_table_shown();
        let focus = self
            .focused_knob()
            .map(|(l, k)| (l.id.clone(), l.knobs[k].variant.clone()));
        self.runs.knobs_mut().show(if shown { None } else { focus });
    }

    /// `*`: the next of the focused variant's knobs, when it has several.
    pub(in crate::ui) fn next_knob(&mut self) {
        let n = self.focused_knobs().map_or(0, |(_, mine)| mine.len());
        self.runs.knobs_mut().pick_next(n);
    }

    /// The setting's figures among those shown for its lesson, unless it has its own.
    fn replay_setting(&mut self, lesson: &Lesson, k: usize, i: usize) {
        let setting = &lesson.knobs[k].settings[i];
        let name = &setting.variant.name;
        if self.runs.knobs().figures(&lesson.id, name).is_some() {
            return;
        }
        let Some(shown) = self.runs.results().get(&lesson.id) else {
            return;
        };
        if let Some(result) = knobs::figures(lesson, shown, setting) {
            let compiled_here = shown.compile == Some(Source::Live) && result.ptxas.is_some();
            let source = shown.source;
            let figures = Figures {
                result,
                source,
                compiled_here,
            };
            self.runs.knobs_mut().record(&lesson.id, name, figures);
        }
    }

    /// Run the settings live where there is a GPU, compile them where there is NVRTC; with
    /// neither, the recording's figures are all there is.
    fn measure_settings(&mut self, lesson: &Lesson, k: usize, which: &[usize]) {
        // A problem-size knob's settings are lessons of their own sizes: one a request,
        // the value turned to.
        let which = match lesson.knobs[k].kind {
            crate::model::KnobKind::Problem(_) => &which[which.len().saturating_sub(1)..],
            _ => which,
        };
        let settings: Vec<&KnobSetting> = which
            .iter()
            .map(|&i| &lesson.knobs[k].settings[i])
            .collect();
        let names: Vec<String> = settings.iter().map(|s| s.variant.name.clone()).collect();
        let last = names.last().cloned().unwrap_or_default();
        let sent = knobs::knob_lesson(lesson, &settings);
        let Some((job, result)) = self.knob_job(lesson, &sent, &settings) else {
            if self.runs.knobs().figures(&lesson.id, &last).is_none() {
                self.message = Some(format!(
                    "{last}: not in the recording, and no GPU here to measure it"
                ));
            }
            return;
        };
        self.runs.begin_knob(&sent.id, &last);
        self.runs.knobs_mut().begin(KnobRun {
            lesson: lesson.clone(),
            sent,
            settings: names,
            result,
            fold: Fold::new(),
        });
        self.outbox.push(job);
    }

    /// The job that measures `sent` on this machine, beside the result its replies fill in:
    /// blank and live for a run, the figures so far for a compile; none without either.
    fn knob_job(
        &self,
        lesson: &Lesson,
        sent: &Lesson,
        settings: &[&KnobSetting],
    ) -> Option<(Job, LessonResult)> {
        let shown = self.runs.results().get(&lesson.id)?;
        let of = Subject::Lesson {
            lesson,
            shown: shown.device.as_ref(),
        };
        let plan = source::plan(Ask::Figures, self.runs.caps().as_ref()?, of);
        // A knob's figures are the GPU's or the recording's; `Figures` never interprets.
        let result = match &plan {
            Plan::Live(_) => plan.blank(sent)?,
            Plan::CompileHere { .. } => {
                let mut r = fold::blank_result(sent, shown.source, shown.device.clone());
                for v in &mut r.variants {
                    if let Some(f) = self.runs.knobs().figures(&lesson.id, &v.name) {
                        *v = f.result.clone();
                    }
                }
                r
            }
            Plan::Interpreted | Plan::Recorded => return None,
        };
        // Each turn sends the same buffers: the worker keeps the inputs between turns
        // rather than filling gigabytes again (a compile takes none of it).
        let options = crate::model::protocol::RunOptions {
            keep_inputs: true,
            cold_l2: self.runs.cold_l2(),
            ..knobs::options(settings)
        };
        let job = Job::Run {
            plan,
            lesson: Box::new(sent.clone()),
            options: Box::new(options),
            cpu_size: CpuSize::default(),
        };
        Some((job, result))
    }

    /// Whether `lesson` is the id of the knob run in flight.
    pub(in crate::ui) fn is_knob_run(&self, lesson: &str) -> bool {
        (self.runs.knobs().run()).is_some_and(|r| r.sent.id == lesson)
    }

    pub(in crate::ui) fn knob_reply(&mut self, reply: &Reply) {
        if let Some((_, stage)) = shown_stage(reply) {
            self.runs.at_stage(None, None, stage);
        }
        if let Some(run) = self.runs.knobs_mut().run_mut() {
            run.fold.apply(&mut run.result, reply);
        }
    }

    /// The knob run is over: its setting's figures join the table, a failure is said.
    pub(in crate::ui) fn knob_finished(&mut self, outcome: Result<(), WorkerFailure>) {
        let Some(run) = self.runs.knobs_mut().take_run() else {
            return;
        };
        self.runs.end();
        let mut result = run.result;
        let outcome = run.fold.finish(&run.sent, &mut result, outcome);
        if let Err(f) = outcome {
            self.message = Some(f.to_string());
        }
        let compiled_here = result.compile == Some(Source::Live) && result.source != Source::Live;
        let source = result.source;
        for v in result.variants {
            if !run.settings.contains(&v.name) {
                continue;
            }
            if let Some(e) = v.error.as_ref().filter(|_| v.correct != Some(true)) {
                self.message = Some(format!("{}: {}", v.name, first_line(e)));
            }
            let name = v.name.clone();
            let figures = Figures {
                compiled_here,
                source,
                result: v,
            };
            (self.runs.knobs_mut()).record(&run.lesson.id, &name, figures);
        }
    }

    /// The rows of the knob table: each setting turned to, in the knob's order.
    pub fn knob_rows(&self, lesson: &Lesson, k: usize) -> Vec<usize> {
        self.runs.knobs().rows(&lesson.id, k)
    }

    /// The figures of setting `i` of knob `k`, if any.
    pub fn knob_figures(&self, lesson: &Lesson, knob: &Knob, i: usize) -> Option<&Figures> {
        let name = &knob.settings.get(i)?.variant.name;
        self.runs.knobs().figures(&lesson.id, name)
    }
}

fn first_line(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or(s)
}

/// Why `+`/`-` did nothing: the variants that have a knob, or that none does.
fn no_knob_words(app: &App) -> String {
    if app.exercises.open().is_some() {
        return "knobs turn the lesson's variants, not an exercise's".into();
    }
    let Some(l) = app.reading.lessons().get(app.reading.selected()) else {
        return String::new();
    };
    let mut names: Vec<&str> = l.knobs.iter().map(|k| k.variant.as_str()).collect();
    names.dedup();
    if names.is_empty() {
        "this lesson has no knobs".into()
    } else {
        format!("no knob on this variant (←→ to {})", names.join(", "))
    }
}
