//! Turning a knob: the focused variant's define (or register cap) set to its next value,
//! that setting's recorded figures shown at once, and, where this machine can, the setting
//! compiled and run again through the worker like any run. Every setting turned to this
//! session keeps its figures in the knob table.

use crate::model::Lesson;
use crate::model::results::{LessonResult, Source, VariantResult};
use crate::session::fold::Fold;
use std::collections::HashMap;

/// One setting's figures, and where they come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub result: VariantResult,
    pub source: Source,
    /// Compile reports made on this machine beside recorded timings.
    pub compiled_here: bool,
}

/// A knob setting being compiled or run by the worker.
#[derive(Debug, Clone)]
pub struct KnobRun {
    pub lesson: Lesson,
    /// The lesson sent (`knobs::knob_lesson`), whose replies fill `result`.
    pub sent: Lesson,
    /// The settings it measures, by variant name: the one turned to, and the one the knob
    /// came from when that has no figures yet.
    pub settings: Vec<String>,
    pub result: LessonResult,
    pub fold: Fold,
}

/// The knobs' state in the lab. Its fields are its own: a turn goes through `turn`, which
/// keeps where the knob stands, the table's rows and which table is shown together.
#[derive(Debug, Clone, Default)]
pub struct KnobBench {
    /// Where each knob stands, by (lesson id, knob index): a setting index.
    at: HashMap<(String, usize), usize>,
    /// Which of the focused variant's knobs the keys turn, when it has several.
    pick: usize,
    /// The settings turned to this session, by (lesson id, knob index).
    turned: HashMap<(String, usize), Vec<usize>>,
    /// Each setting's figures, by (lesson id, setting name).
    figures: HashMap<(String, String), Figures>,
    run: Option<KnobRun>,
    /// The lesson and variant whose knob table stands in place of the variant columns.
    shown: Option<(String, String)>,
}

impl KnobBench {
    /// Where knob `k` of lesson `id` was turned to, if it was.
    pub fn at(&self, id: &str, k: usize) -> Option<usize> {
        self.at.get(&(id.to_string(), k)).copied()
    }

    /// Knob `k` of lesson `id` (on `variant`) turned from setting `now` to `next`: it
    /// stands there, both are rows of its table, and its table is shown.
    pub fn turn(&mut self, id: &str, k: usize, variant: &str, now: Option<usize>, next: usize) {
        self.shown = Some((id.to_string(), variant.to_string()));
        let key = (id.to_string(), k);
        let turned = self.turned.entry(key.clone()).or_default();
        // The table starts where the knob stood, so the first turn has something to compare.
        for i in now.into_iter().chain([next]) {
            if !turned.contains(&i) {
                turned.push(i);
            }
        }
        self.at.insert(key, next);
    }

    /// The rows of knob `k`'s table of lesson `id`: each setting turned to, in order.
    pub fn rows(&self, id: &str, k: usize) -> Vec<usize> {
        let mut rows = (self.turned.get(&(id.to_string(), k)).cloned()).unwrap_or_default();
        rows.sort_unstable();
        rows
    }

    /// Which of the focused variant's knobs the keys turn, of `n` (0 where it has none).
    pub fn pick(&self, n: usize) -> usize {
        self.pick % n.max(1)
    }

    /// The next of `n` knobs is the one the keys turn.
    pub fn pick_next(&mut self, n: usize) {
        self.pick = match n {
            0 => 0,
            n => (self.pick + 1) % n,
        };
    }

    /// Setting `name`'s figures of lesson `id`, if any.
    pub fn figures(&self, id: &str, name: &str) -> Option<&Figures> {
        self.figures.get(&(id.to_string(), name.to_string()))
    }

    /// Setting `name` of lesson `id` measured (or replayed): its figures.
    pub fn record(&mut self, id: &str, name: &str, figures: Figures) {
        self.figures
            .insert((id.to_string(), name.to_string()), figures);
    }

    /// The knob run in flight.
    pub fn run(&self) -> Option<&KnobRun> {
        self.run.as_ref()
    }

    pub fn run_mut(&mut self) -> Option<&mut KnobRun> {
        self.run.as_mut()
    }

    pub fn begin(&mut self, run: KnobRun) {
        self.run = Some(run);
    }

    /// The knob run is over: what it measured.
    pub fn take_run(&mut self) -> Option<KnobRun> {
        self.run.take()
    }

    /// The lesson and variant whose knob table stands in place of the variant columns.
    pub fn shown(&self) -> Option<&(String, String)> {
        self.shown.as_ref()
    }

    pub fn show(&mut self, table: Option<(String, String)>) {
        self.shown = table;
    }
}
