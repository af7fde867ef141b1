//! A tried kernel in the lab (`gpulab try`): its lesson, made in memory from the files'
//! headers, is the lab's only lesson, with the columns, code view, heatmaps and races of
//! any. It runs as soon as the worker has said what this machine has (live on a GPU, else
//! on the CPU interpreter), and again on every save of one of its files, as an exercise is
//! checked again: the files are read again, so a changed header counts too. `r` runs it
//! now, `e` opens the focused variant's file in the learner's editor. Its progress lives as
//! long as the lab, never written.

use crate::course::tried::lesson::{Tried, TrySpec};

/// The try on screen: what it was made from, and the lesson it made.
#[derive(Debug, Clone)]
pub struct TryLab {
    pub spec: TrySpec,
    pub tried: Tried,
    /// Run on the CPU interpreter even where there is a GPU (`--cpu`).
    pub cpu: bool,
    /// A file was saved during a run: make the lesson again and run once this one is over.
    pub again: bool,
}

impl TryLab {
    pub fn new(spec: TrySpec, tried: Tried, cpu: bool) -> TryLab {
        TryLab {
            spec,
            tried,
            cpu,
            again: false,
        }
    }
}
