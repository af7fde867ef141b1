//! An exercise opened, edited, checked and shown: the lab's side of `ex`.

use super::App;
use crate::model::Lesson;
use crate::model::exercise::{Exercise, SOLUTION, YOURS};
use crate::model::results::{LessonResult, Source, VariantResult};
use crate::session::client::WorkerFailure;
use crate::session::exercise::lesson::{Oracle, Yours, exercise_lesson};
use crate::session::exercise::report::CheckReport;
use crate::session::workspace::{Started, WorkspaceError};
use crate::ui::event::{CheckJob, Job};
use crate::ui::state::exercise::*;
use std::path::Path;

/// `lesson` with the learner's `src` as the variant `yours`, after all of the lesson's.
fn with_yours(lesson: &Lesson, ex: &Exercise, src: &str, path: &str) -> Lesson {
    let names: Vec<String> = lesson.variants.iter().map(|v| v.name.clone()).collect();
    let yours = Yours { src, path };
    let mut l = exercise_lesson(lesson, ex, &yours, Oracle::Lesson, &names);
    // The note of the variant it is `like:` is about that variant, not the learner's.
    if let Some(v) = l.variants.iter_mut().find(|v| v.name == YOURS) {
        v.note = None;
    }
    l
}

/// The lesson's figures (`base`), with those the last check measured in their place and
/// `yours` last; its checks are shown from the report, not as claims.
fn merged(
    lesson: &Lesson,
    base: Option<&LessonResult>,
    report: Option<&CheckReport>,
) -> LessonResult {
    let mut out = base
        .cloned()
        .unwrap_or_else(|| crate::session::fold::blank_result(lesson, Source::None, None));
    out.variants.retain(|v| v.name != YOURS);
    for v in report.map_or(&[][..], |r| &r.result.variants[..]) {
        if v.name == SOLUTION {
            continue;
        }
        let mut v = v.clone();
        if v.name == YOURS {
            v.expect.clear();
            // Shown above the column's figures, where the checks would be.
            if report.is_some_and(|r| r.compile_error.is_some()) {
                v.error = None;
            }
        }
        match out.variants.iter_mut().find(|o| o.name == v.name) {
            Some(o) => *o = v,
            None => out.variants.push(v),
        }
    }
    if !out.variants.iter().any(|v| v.name == YOURS) {
        out.variants.push(VariantResult {
            name: YOURS.into(),
            ..Default::default()
        });
    }
    out
}

impl App {
    /// The rows the cursor keys walk: each lesson, then its exercises.
    pub fn rows(&self) -> Vec<(usize, Option<usize>)> {
        let mut rows = Vec::new();
        for (i, l) in self.reading.lessons().iter().enumerate() {
            rows.push((i, None));
            rows.extend((0..l.exercises.len()).map(|e| (i, Some(e))));
        }
        rows
    }

    pub fn current_row(&self) -> (usize, Option<usize>) {
        (
            self.reading.selected(),
            self.exercises.open().map(|x| x.index()),
        )
    }

    pub(in crate::ui) fn move_row(&mut self, down: bool) {
        let rows = self.rows();
        let Some(at) = rows.iter().position(|r| *r == self.current_row()) else {
            return;
        };
        let to = if down { at + 1 } else { at.wrapping_sub(1) };
        if let Some(&(l, e)) = rows.get(to) {
            self.select_row(l, e);
        }
    }

    /// Go to lesson `lesson`, or to its exercise `ex`.
    pub fn select_row(&mut self, lesson: usize, ex: Option<usize>) {
        if (lesson, ex) == self.current_row() {
            return;
        }
        // What was said was about the row being left (an exercise's `e`, a loop).
        self.message = None;
        self.reading.set_show_new(false);
        self.leave_exercise();
        self.select_lesson(lesson);
        if let Some(i) = ex {
            self.enter_exercise(i);
        }
    }

    fn leave_exercise(&mut self) {
        if self.exercises.leave() {
            self.outbox.push(Job::Watch(None));
            self.view.start_at(0);
            self.reading.turn_to(0);
        }
    }

    fn enter_exercise(&mut self, index: usize) {
        let Some(lesson) = self.reading.lessons().get(self.reading.selected()) else {
            return;
        };
        let Some(ex) = lesson.exercises.get(index).cloned() else {
            return;
        };
        let file = self.exercises.workspace().as_ref().map(|w| w.file(&ex));
        let mine = file.as_ref().and_then(|f| std::fs::read_to_string(f).ok());
        // Never the solution, which `yours` holds until the learner's text replaces it.
        let src = mine.clone().unwrap_or_else(|| ex.starter.clone());
        let path = file
            .as_ref()
            .map_or(ex.starter_path.clone(), |f| f.display().to_string());
        let lesson = with_yours(lesson, &ex, &src, &path);
        let shown = merged(&lesson, None, None);
        self.view.start_at(lesson.variants.len() - 1);
        self.reading.turn_to(0);
        self.view.set_chart(false);
        self.message = Some(match &mine {
            Some(_) => "e edits your file; every save checks it (r checks now)".into(),
            None => "e copies the starter into your workspace and opens it".into(),
        });
        if let (Some(f), Some(text)) = (&file, mine) {
            self.outbox
                .push(Job::Watch(Some((f.clone(), Some(text.into_bytes())))));
        }
        (self.exercises).enter(ExerciseView::new((index, ex), lesson, shown, file, src));
        self.refresh_shown();
    }

    /// Put the columns together again from the lesson's figures and the last check.
    pub fn refresh_shown(&mut self) {
        let Some(x) = self.exercises.open() else {
            return;
        };
        let base = self.runs.results().get(&x.lesson().id);
        let shown = merged(x.lesson(), base, self.exercises.report(&x.ex().id));
        if let Some(x) = self.exercises.open_mut() {
            x.show(shown);
        }
    }

    /// Check the learner's file as it is now; `quick`: the short timing budget of a save.
    pub fn check_exercise(&mut self, quick: bool) {
        self.check_if(quick, false);
    }

    /// `check_exercise`, or nothing where `if_changed` and the learner's file holds the
    /// text the last check read (the file read once, for the comparison and the check).
    fn check_if(&mut self, quick: bool, if_changed: bool) {
        let ws = self.exercises.workspace().cloned();
        let Some(x) = self.exercises.open_mut() else {
            return;
        };
        if x.checking().is_some() {
            // One check at a time; the newest text is checked once this one is over.
            x.check_again(quick);
            return;
        }
        let Some(ws) = ws else {
            self.message = Some(no_workspace());
            return;
        };
        let src = match ws.read(x.ex()) {
            Ok(s) => s,
            Err(WorkspaceError::NotStarted(_)) => {
                self.message = Some("not started: e copies the starter and opens it".into());
                return;
            }
            Err(e) => {
                self.message = Some(e.to_string());
                return;
            }
        };
        if if_changed && src == x.src() {
            return;
        }
        let path = ws.file(x.ex()).display().to_string();
        let lesson = with_yours(
            &self.reading.lessons()[self.reading.selected()],
            x.ex(),
            &src,
            &path,
        );
        x.begin_check(lesson, src.clone());
        self.outbox.push(Job::Check(Box::new(CheckJob {
            root: self.reading.course_root().clone(),
            lesson: self.reading.lessons()[self.reading.selected()].clone(),
            ex: x.ex().clone(),
            src,
            path,
            quick,
        })));
    }

    /// A save of a file: the exercise on screen is checked again if it is its file.
    pub(in crate::ui) fn on_saved(&mut self, path: &Path) {
        if (self.exercises.open())
            .is_some_and(|x| x.file().map(std::path::PathBuf::as_path) == Some(path))
        {
            self.check_exercise(true);
        }
    }

    pub(in crate::ui) fn on_ex_stage(&mut self, exercise: &str, text: String) {
        if let Some(x) = self.exercises.open_as(exercise) {
            x.at_stage(text);
        }
    }

    pub(in crate::ui) fn on_checked(
        &mut self,
        exercise: String,
        outcome: Result<Box<CheckReport>, WorkerFailure>,
    ) {
        match outcome {
            Ok(report) => {
                // As `gpulab ex check` keeps it: a pass on a GPU, or on the CPU interpreter.
                self.exercises.book_mut().record_check(&exercise, &report);
                if report.passed() {
                    // Passing opens the solution on screen: it counts as shown, and the
                    // page scrolls to it.
                    self.exercises.book_mut().record_solution(&exercise);
                    let open = self.exercises.open();
                    if open.is_some_and(|x| x.ex().id == exercise) {
                        self.reading.set_show_new(true);
                    }
                }
                self.save_book();
                self.message = Some(verdict(&report));
                self.exercises.record_report(exercise.clone(), *report);
            }
            Err(f) => self.message = Some(format!("the check stopped: {f}")),
        }
        let again = match self.exercises.open_as(&exercise) {
            Some(x) => x.end_check(),
            None => None,
        };
        self.refresh_shown();
        if let Some(quick) = again {
            // A save that came during the check is checked again only if it changed the
            // text: one write the watcher reports twice (a busy machine splits them) would
            // otherwise count a second attempt of the same kernel. `r` always checks.
            self.check_if(quick, quick);
        }
    }

    /// The next hint, one at a time, remembered in the exercise progress.
    pub(in crate::ui) fn next_hint(&mut self) {
        let Some(x) = self.exercises.open() else {
            return;
        };
        let (id, n) = (x.ex().id.clone(), x.ex().hints.len());
        let p = self.exercises.book_mut().entry(&id);
        if (p.hints_shown as usize) < n {
            p.hints_shown += 1;
            self.reading.set_show_new(true);
            self.save_book();
        } else if p.passed_cpu && !p.passed {
            // Every check the CPU interpreter judges holds and only a GPU could pass it:
            // the solution opens here, recorded as shown before passing, as
            // `gpulab ex solution --show-anyway` records it.
            self.exercises.book_mut().record_solution(&id);
            self.reading.set_show_new(true);
            self.save_book();
            self.message = Some("the solution, against yours, below the hints".into());
        } else {
            self.message = Some("that was the last hint".into());
        }
    }

    /// Open the learner's file in their editor, copying the starter first if need be
    /// (never over their file).
    pub(in crate::ui) fn edit_exercise(&mut self) {
        let ws = self.exercises.workspace().cloned();
        let Some(x) = self.exercises.open_mut() else {
            return;
        };
        let Some(ws) = ws else {
            self.message = Some(no_workspace());
            return;
        };
        match ws.start(x.ex()) {
            Ok(Started::Fresh(p)) => {
                self.message = Some(format!("the starter, copied to {}", p.display()))
            }
            Ok(Started::Existing {
                upstream_changed: true,
                ..
            }) => {
                self.message = Some(format!(
                    "the starter changed since you started; your file is left as it is \
                     (gpulab ex reset {} takes the new one)",
                    x.ex().id
                ))
            }
            Ok(Started::Existing { .. }) => {}
            Err(e) => {
                self.message = Some(e.to_string());
                return;
            }
        }
        let path = ws.file(x.ex());
        let text = std::fs::read(&path).ok();
        x.opened(path.clone());
        self.outbox.push(Job::Watch(Some((path.clone(), text))));
        self.exercises.edit(path);
    }

    fn save_book(&mut self) {
        if let Some(path) = self.exercises.book_path() {
            self.outbox.push(Job::SaveBook {
                book: self.exercises.book().clone(),
                path: path.clone(),
            });
        }
    }

    /// The last check of the exercise on screen.
    pub fn ex_report(&self) -> Option<&CheckReport> {
        (self.exercises.open()).and_then(|x| self.exercises.report(&x.ex().id))
    }
}

fn no_workspace() -> String {
    "no workspace for your files: set GPULAB_WORKSPACE or GPULAB_DATA_DIR".into()
}

#[cfg(test)]
#[path = "exercise_tests.rs"]
mod tests;
