//! Finding the line that faulted: when a variant was lost to a CUDA error and the toolkit
//! has compute-sanitizer, `m` reruns that one variant under its memcheck on the worker
//! thread (minutes), the screen says it is going, and its pop-up shows the source lines the
//! sanitizer names.

use crate::session::client::{MemcheckError, MemcheckReport};

/// The memcheck rerun of one variant: going, or what came of it.
#[derive(Debug)]
pub struct Memcheck {
    pub lesson: String,
    pub variant: String,
    pub state: MemcheckState,
}

#[derive(Debug)]
pub enum MemcheckState {
    /// Seconds since it started, as the last tick said.
    Running(u64),
    Found(MemcheckReport),
    Failed(MemcheckError),
}
