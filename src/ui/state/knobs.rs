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

/// The knobs' state in the lab.
#[derive(Debug, Clone, Default)]
pub struct KnobBench {
    /// Where each knob stands, by (lesson id, knob index): a setting index.
    pub at: HashMap<(String, usize), usize>,
    /// Which of the focused variant's knobs the keys turn, when it has several.
    pub pick: usize,
    /// The settings turned to this session, by (lesson id, knob index).
    pub turned: HashMap<(String, usize), Vec<usize>>,
    /// Each setting's figures, by (lesson id, setting name).
    pub figures: HashMap<(String, String), Figures>,
    pub run: Option<KnobRun>,
    /// The lesson and variant whose knob table stands in place of the variant columns.
    pub shown: Option<(String, String)>,
}
