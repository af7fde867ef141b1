//! The code view's state: which panes it shows (the source, the SASS the GPU runs, or
//! both), the SASS listings asked of the worker, and the variant a diff compares with.

use crate::analysis::sass::Listing;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Panes {
    #[default]
    Source,
    Sass,
    Both,
}

/// A variant's SASS, as far as it has come.
#[derive(Debug, Clone, PartialEq)]
pub enum SassState {
    Asked,
    Ready(Listing),
    Failed(String),
}

#[derive(Debug, Default)]
pub struct CodeState {
    pub panes: Panes,
    /// By (lesson id, variant name).
    pub listings: HashMap<(String, String), SassState>,
}
