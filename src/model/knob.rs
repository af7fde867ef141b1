//! Knobs: a define (or the register cap) of one variant that the learner turns in the lab.
//! The loader resolves every value into a whole variant, launch and arguments evaluated
//! again, so that turning the knob runs exactly what the lesson file describes.

use super::lesson::{Metrics, Variant};
use super::sizes::CheckSizes;
use serde::{Deserialize, Serialize};

/// What a knob sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KnobKind {
    /// `-DNAME=value`, with every expression over the define evaluated again.
    Define(String),
    /// `-maxrregcount=value`: the most registers ptxas may give a thread.
    MaxRegCount,
    /// `problem: NAME`: the lesson read again with the problem size NAME at the value, so
    /// that buffers, launches, the reference (cuBLAS's run too) and the rates follow it.
    Problem(String),
}

impl KnobKind {
    /// The knob's name in messages and in its settings' names: the define, or `maxrregcount`.
    pub fn name(&self) -> &str {
        match self {
            KnobKind::Define(d) => d,
            KnobKind::MaxRegCount => "maxrregcount",
            KnobKind::Problem(p) => p,
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
    /// A problem-size knob's setting: what its size changes in the lesson beyond the
    /// variant, which a run of the setting is sent with (one setting a request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sized: Option<Box<SizedSetting>>,
}

/// The lesson at a problem-size knob's value: the sizes, buffers, launches and reference
/// (as a CPU run's other sizes are carried), and the figures its rates are computed over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizedSetting {
    pub sizes: CheckSizes,
    pub metrics: Metrics,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_persisting_bytes: Option<u64>,
}
