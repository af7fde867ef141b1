//! What every step of building a try reads: the kernel files read (`Source`), the `-D`
//! defines (`Define`), what the outputs are checked against (`Checked`), and its errors,
//! each at its `file:line:col`. `lesson` builds the try from these through `plan`, `share`
//! and `write`, none of which knows `lesson`.

use super::header::{At, Header};
use super::yaml::Origin;
use crate::course::CourseError;

/// The id of every tried lesson (there is one at a time).
pub const LESSON_ID: &str = "try";

/// What the outputs are checked against.
#[derive(Debug, Clone, PartialEq)]
pub enum Checked {
    /// A variant's outputs, by name.
    Variant(String),
    /// A built-in reference, in words.
    Builtin(String),
    /// Nothing: each variant runs on its own.
    Nothing,
}

/// One kernel file: where it is, its text and its header.
pub(super) struct Source {
    pub(super) shown: String,
    /// Its name in the folder (the lesson's `source:`).
    pub(super) name: String,
    pub(super) stem: String,
    pub(super) text: String,
    pub(super) header: Header,
}

/// A `-D` macro: its values, each with the flag that gave it.
pub(super) struct Define {
    pub(super) name: String,
    pub(super) values: Vec<(String, Origin)>,
}

pub(super) type Errors = Vec<CourseError>;

/// What the outputs are checked against, and where that was said (None: by default).
pub(super) type CheckedAt = (Checked, Option<Origin>);

pub(super) fn error(file: &str, at: At, message: impl Into<String>) -> CourseError {
    CourseError {
        file: file.to_string(),
        line: at.line,
        col: at.col,
        message: message.into(),
    }
}

pub(super) fn whole(file: &str, message: impl Into<String>) -> CourseError {
    error(file, At::default(), message)
}
