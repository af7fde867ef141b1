//! The context every validation rule reports through: where errors go, where each path of the
//! file is, and what is already known to be broken (so that it is not blamed twice).

use super::Errors;
use crate::course::CourseError;
use crate::course::expr;
use crate::course::schema::Expr;
use crate::course::yaml::spans::{Pos, Spans};
use crate::model::{Buffer, Lesson};
use std::collections::HashSet;

pub(super) struct Cx<'a> {
    pub spans: &'a Spans,
    pub errs: &'a mut Errors,
    /// Names whose own definition failed: an expression naming one says nothing new.
    pub broken_names: HashSet<String>,
    /// Top-level keys whose value could not be read (their errors are already reported).
    pub failed: HashSet<String>,
    /// Problem sizes set from outside (an exercise's extra sizes) in place of their
    /// expressions; later sizes are evaluated over them.
    pub sizes: Vec<(String, i64)>,
    /// The lesson file read again with these sizes set (over `sizes`): what a
    /// problem-size knob's values are resolved by.
    pub reload: Option<Reload<'a>>,
    /// A problem-size knob's values at which the lesson did not load: the value's path, the
    /// setting in words, and the errors at that size. Reported once the lesson is read
    /// (`report_size_errors`), leaving out those the lesson has at its written size too.
    pub size_errors: Vec<(String, String, Vec<CourseError>)>,
}

/// Reads the lesson's file again with problem sizes set.
pub(super) type Reload<'a> = &'a dyn Fn(&[(String, i64)]) -> Result<Lesson, Vec<CourseError>>;

impl<'a> Cx<'a> {
    pub fn new(
        spans: &'a Spans,
        errs: &'a mut Errors,
        failed: &[String],
        sizes: &[(String, i64)],
    ) -> Self {
        Cx {
            spans,
            errs,
            broken_names: HashSet::new(),
            failed: failed.iter().cloned().collect(),
            sizes: sizes.to_vec(),
            reload: None,
            size_errors: Vec::new(),
        }
    }

    /// The size errors of problem-size knobs that are the size's own: an error the lesson
    /// has at every size is reported where it is, not again at each value.
    pub fn report_size_errors(&mut self) {
        for (path, setting, at_size) in std::mem::take(&mut self.size_errors) {
            let own = at_size.iter().find(|e| {
                !(self.errs.list.iter())
                    .any(|o| (o.line, o.col, &o.message) == (e.line, e.col, &e.message))
            });
            if let Some(e) = own {
                let msg = format!(
                    "{setting} breaks the lesson: {} (line {}:{})",
                    e.message, e.line, e.col
                );
                self.err(&path, msg);
            }
        }
    }

    /// An error about the value at `path` (or its nearest ancestor).
    pub fn err(&mut self, path: &str, msg: impl Into<String>) {
        let pos = self.spans.locate(path);
        self.errs.at(pos, msg);
    }

    /// An error about the key of the entry at `path`.
    pub fn err_key(&mut self, path: &str, msg: impl Into<String>) {
        let pos = self
            .spans
            .key(path)
            .unwrap_or_else(|| self.spans.locate(path));
        self.errs.at(pos, msg);
    }

    /// An error about the file as a whole, placed at its start.
    pub fn err_start(&mut self, msg: impl Into<String>) {
        self.errs.at(Pos::START, msg);
    }

    /// A required top-level key without a value. One that is absent is reported here; one
    /// whose value failed to read already was.
    pub fn missing(&mut self, key: &str, what: &str) {
        if self.failed.contains(key) {
            return;
        }
        if self.has(key) {
            self.err_key(key, format!("`{key}` has no value; it should be {what}"));
        } else {
            self.err_start(format!("missing `{key}` ({what})"));
        }
    }

    /// Evaluate the expression written at `path`; an error points into its text.
    pub fn eval(&mut self, path: &str, e: &Expr, env: &[(String, i64)]) -> Option<i64> {
        match expr::eval(&e.0, env) {
            Ok(v) => Some(v),
            Err(x) => {
                if x.unknown
                    .as_ref()
                    .is_some_and(|n| self.broken_names.contains(n))
                {
                    return None;
                }
                let pos = match self.spans.value(path) {
                    Some(span) => span.inner(x.col),
                    None => self.spans.locate(path),
                };
                self.errs.at(pos, format!("in `{}`: {}", e.0, x.message));
                None
            }
        }
    }

    /// Whether the top-level key was given.
    pub fn has(&self, key: &str) -> bool {
        self.spans.key(key).is_some()
    }
}

/// What the variants and the reference may name, once the sizes and buffers are resolved.
pub(super) struct Known<'k> {
    /// The problem sizes, in the order written.
    pub problem: &'k [(String, i64)],
    /// Each buffer, `None` where it failed (and was reported).
    pub buffers: &'k [Option<Buffer>],
    /// Every buffer's name, including those of buffers that failed.
    pub buffer_names: &'k [String],
    /// Every texture's name, and each texture, `None` where it failed (and was reported).
    pub texture_names: &'k [String],
    pub textures: &'k [Option<crate::model::Texture>],
}
