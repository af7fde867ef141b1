//! A tried kernel in the lab (`gpulab try`): its lesson, made in memory from the files'
//! headers, is the lab's only lesson, with the columns, code view, heatmaps and races of
//! any. It runs as soon as the worker has said what this machine has (live on a GPU, else
//! on the CPU interpreter), and again on every save of one of its files, as an exercise is
//! checked again: the files are read again, so a changed header counts too. `r` runs it
//! now, `e` opens the focused variant's file in the learner's editor. Its progress lives as
//! long as the lab, never written.

use crate::course::tried::lesson::{Tried, TrySpec};

/// The try on screen: what it was made from, and the lesson it made. Its fields are its
/// own: a save during a run asks for one run more (`again`), taken once the run is over.
#[derive(Debug, Clone)]
pub struct TryLab {
    spec: TrySpec,
    tried: Tried,
    /// Run on the CPU interpreter even where there is a GPU (`--cpu`).
    cpu: bool,
    /// A file was saved during a run: make the lesson again and run once this one is over.
    again: bool,
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

    /// What the try was made from (its files and their headers).
    pub fn spec(&self) -> &TrySpec {
        &self.spec
    }

    /// The lesson the files made, and what its run needs.
    pub fn tried(&self) -> &Tried {
        &self.tried
    }

    /// The files made the lesson again.
    pub fn remade(&mut self, tried: Tried) {
        self.tried = tried;
    }

    /// Whether it runs on the CPU interpreter even where there is a GPU.
    pub fn cpu(&self) -> bool {
        self.cpu
    }

    /// A file was saved during a run: one more once it is over.
    pub fn again(&mut self) {
        self.again = true;
    }

    /// Whether a file was saved during the run that is over; asked once.
    pub fn take_again(&mut self) -> bool {
        std::mem::take(&mut self.again)
    }
}
