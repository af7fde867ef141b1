//! How outputs are judged and what a kernel measures itself: the comparison tolerance
//! (`tolerance:`) and figures a kernel writes into a buffer (`measures:`), summarised into a
//! result. Each key has a default that means "not given", so recordings made before it
//! existed still read.

use serde::{Deserialize, Serialize};

/// How far a float output may be from the reference and still be right:
/// |got − want| ≤ abs + rel × max(|got|, |want|). NaN never passes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tolerance {
    pub rel: f64,
    pub abs: f64,
}

impl Default for Tolerance {
    /// Enough for the same function computed in another order by a few operations.
    fn default() -> Self {
        Tolerance {
            rel: 1e-4,
            abs: 1e-6,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Summary {
    Median,
    Mean,
    Min,
    Max,
}

impl Summary {
    pub const ALL: [(&'static str, Summary); 4] = [
        ("median", Summary::Median),
        ("mean", Summary::Mean),
        ("min", Summary::Min),
        ("max", Summary::Max),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, s)| *s == self)
            .map_or("?", |(n, _)| n)
    }
}

/// `measures: [{ name, from, summary, per, unit }]`: a figure the kernel writes into an
/// output buffer (clock64 deltas, say), summarised over the buffer's elements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measure {
    pub name: String,
    /// Index into `Lesson::buffers`; such a buffer holds timings and is not compared.
    pub buffer: usize,
    pub summary: Summary,
    pub unit: String,
}

/// A measured figure in a result: the summary of its buffer divided by `per`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub value: f64,
    pub unit: String,
}
