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
    panes: Panes,
    /// By (lesson id, variant name).
    listings: HashMap<(String, String), SassState>,
}

impl CodeState {
    pub fn panes(&self) -> Panes {
        self.panes
    }

    /// Whether the panes shown include the SASS.
    pub fn shows_sass(&self) -> bool {
        self.panes != Panes::Source
    }

    /// `s`: source, then SASS, then both side by side.
    pub fn cycle_panes(&mut self) {
        self.panes = match self.panes {
            Panes::Source => Panes::Sass,
            Panes::Sass => Panes::Both,
            Panes::Both => Panes::Source,
        };
    }

    /// A variant's SASS as far as it has come, by (lesson id, variant name).
    pub fn listing(&self, lesson: &str, variant: &str) -> Option<&SassState> {
        self.listings
            .get(&(lesson.to_string(), variant.to_string()))
    }

    /// Whether a variant's SASS was asked for (or came, or cannot come).
    pub fn has(&self, key: &(String, String)) -> bool {
        self.listings.contains_key(key)
    }

    /// What came of asking for a variant's SASS.
    pub fn set(&mut self, key: (String, String), state: SassState) {
        self.listings.insert(key, state);
    }
}
