//! What a check says: its lines, each marked, and the report they make; the exercise being
//! checked (`Target`); the words the correctness line and a refused interpreter run are
//! known by. Every part of the check writes in these terms, and this file imports none of
//! them.

use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::exercise::{Exercise, YOURS};
use crate::model::protocol::Reply;
use crate::model::results::{Failure, LessonResult, PtxasReport, VariantResult};
use crate::session::queue_news::QueueNews;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    Pass,
    Fail,
    /// Not judged here: no GPU. Neither a pass nor a failure.
    NeedsGpu,
    /// Run, but its figure was not measured (a failed trace, a wrong output).
    NotMeasured,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckLine {
    pub check: String,
    pub mark: Mark,
    pub detail: String,
    /// The extra size a check judged at every size failed at (`sizes::judge_at`), where
    /// its detail names it too; None where it was judged at the lesson's size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub exercise: String,
    /// Measured on a GPU (false: compile reports only).
    pub live: bool,
    /// What the compiler said, when the learner's file does not compile.
    pub compile_error: Option<String>,
    pub ptxas: Option<PtxasReport>,
    /// The median time of `yours` at the lesson's size.
    pub time_ms: Option<f64>,
    /// The solution's median in the same run (a full check on a GPU times it beside
    /// `yours`, so the two compare on one device).
    #[serde(default)]
    pub solution_ms: Option<f64>,
    pub lines: Vec<CheckLine>,
    /// The main run, every figure of it.
    pub result: LessonResult,
}

impl CheckReport {
    /// Every check ran and held.
    pub fn passed(&self) -> bool {
        self.compile_error.is_none() && self.lines.iter().all(|l| l.mark == Mark::Pass)
    }

    /// Something is wrong: a compile error or a check that does not hold. Checks that
    /// need a GPU are neither.
    pub fn failed(&self) -> bool {
        self.compile_error.is_some()
            || self
                .lines
                .iter()
                .any(|l| matches!(l.mark, Mark::Fail | Mark::NotMeasured))
    }

    /// How many of the checks that were not judged NVRTC would let the CPU interpreter
    /// judge (none where NVRTC is here, or where a GPU is).
    pub fn nvrtc_would_judge(&self) -> usize {
        (self.lines.iter())
            .filter(|l| l.mark == Mark::NeedsGpu && needs_nvrtc(&l.detail))
            .count()
    }

    /// The checks counted in the words every screen uses: "4 hold, 1 fails, 2 need a GPU".
    pub fn tally(&self) -> String {
        let count = |m: Mark| self.lines.iter().filter(|l| l.mark == m).count();
        crate::analysis::claims::tally(
            count(Mark::Pass),
            count(Mark::Fail),
            count(Mark::NotMeasured),
            count(Mark::NeedsGpu),
        )
    }
}

/// Where the learner's exercise is checked: the course (to reload the lesson at other
/// sizes), its lesson, and the exercise.
pub struct Target<'a> {
    pub root: &'a CourseRoot,
    pub lesson: &'a Lesson,
    pub ex: &'a Exercise,
    /// A short timing budget, as while the learner edits: the figures sooner, a little
    /// noisier. The full budget is for a check asked for on purpose.
    pub quick: bool,
    /// Stop once a check has failed at the lesson's size (`ex check --fail-fast`).
    pub fail_fast: bool,
    /// A folder where a full check keeps the solution's and the compared variants' figures
    /// for later checks of the exercise on this GPU, and takes them from
    /// (`ex check --reuse-figures`, `kept_figures`).
    pub reuse: Option<&'a std::path::Path>,
    /// The check an answer that must fail names (`ex check --deciding`): judged first,
    /// with only the runs it needs (`deciding`), the check stopping where it fails.
    pub deciding: Option<&'a str>,
}

/// The words the correctness line is known by.
pub const CORRECT_LINE: &str = "yours correct on fresh inputs at every size";

/// How a check that NVRTC would let the CPU interpreter judge says so.
pub(super) const NEEDS_NVRTC: &str = "needs NVRTC for the CPU interpreter";

/// Whether a check's detail says that NVRTC would let the CPU interpreter judge it (the
/// lab then says so in short on each check, and how to get NVRTC once, on its status line).
pub fn needs_nvrtc(detail: &str) -> bool {
    detail.starts_with(NEEDS_NVRTC)
}

pub(super) fn yours_of(result: &LessonResult) -> Option<&VariantResult> {
    result.variants.iter().find(|v| v.name == YOURS)
}

/// A live run's progress in a few words: its stages, and the queue for the GPU as it moves.
pub(super) fn progress(say: &mut impl FnMut(&str)) -> impl FnMut(&Reply) + '_ {
    let mut news = QueueNews::default();
    move |r| {
        if let Reply::Stage { variant, stage } = r {
            say(&format!("{variant} {stage}"));
        } else if let Some((variant, words)) = news.words(r) {
            say(&format!("{variant} {words}"));
        }
    }
}

pub(super) fn line(mark: Mark, detail: String) -> CheckLine {
    CheckLine {
        check: CORRECT_LINE.into(),
        mark,
        detail,
        at: None,
    }
}

/// `n = 1000, blocks = 4`.
pub(super) fn sizes_text(sizes: &[(String, i64)]) -> String {
    let parts: Vec<String> = sizes.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    parts.join(", ")
}

/// What a check of a kernel the CPU interpreter does not run says.
pub(super) const REFUSED: &str = "needs a GPU: the CPU interpreter does not run yours";

/// Whether `line` says the interpreter refused to run yours (`REFUSED`).
pub(super) fn refused_line(line: &CheckLine) -> bool {
    line.mark == Mark::NeedsGpu && line.detail.starts_with(REFUSED)
}

/// The CPU interpreter refused the kernel (textures, tensor cores, ...): not wrong, only
/// out of its reach.
pub(super) fn not_interpreted(v: &VariantResult) -> bool {
    v.failure == Some(Failure::NotInterpreted)
}
