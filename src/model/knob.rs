//! Knobs: a define (or the register cap) of one variant that the learner turns in the lab.
//! The loader resolves every value into a whole variant, launch and arguments evaluated
//! again, so that turning the knob runs exactly what the lesson file describes.

use super::lesson::Variant;
use serde::{Deserialize, Serialize};

/// What a knob sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KnobKind {
    /// `-DNAME=value`, with every expression over the define evaluated again.
    Define(String),
    /// `-maxrregcount=value`: the most registers ptxas may give a thread.
    MaxRegCount,
}

impl KnobKind {
    /// The knob's name in messages and in its settings' names: the define, or `maxrregcount`.
    pub fn name(&self) -> &str {
        match self {
            KnobKind::Define(d) => d,
            KnobKind::MaxRegCount => "maxrregcount",
        }
    }

    /// The name of the variant that `variant` becomes at `value`: `coalesced@STRIDE=4`.
    /// `@` and `=` are not allowed in a lesson's own variant names, so none can clash.
    pub fn setting_name(&self, variant: &str, value: i64) -> String {
        format!("{variant}@{}={value}", self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knob {
    /// The variant it turns, by name.
    pub variant: String,
    pub kind: KnobKind,
    /// The title of its table and chart: `label:` as written, else the knob's name.
    pub label: String,
    /// In the order written, at least two.
    pub settings: Vec<KnobSetting>,
    /// The setting equal to the variant as written, when one is: the knob stands there
    /// until it is turned.
    pub start: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnobSetting {
    pub value: i64,
    /// The variant at this value, named by `KnobKind::setting_name`.
    pub variant: Variant,
}
