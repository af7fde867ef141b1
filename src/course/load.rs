//! Loading and validation: a lesson file becomes a `Lesson`, or every problem it has, each
//! with `file:line:col`.

mod read;
mod resolve;
mod variants;

use super::bundle::CourseRoot;
use super::spans::{Pos, Spans};
use crate::model::Lesson;
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LessonError {
    pub file: String,
    /// 1-based; 0 when the problem is with the file as a whole (it cannot be read).
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.col, self.message
            )
        }
    }
}

impl std::error::Error for LessonError {}

/// Every lesson of the course, sorted by their place in it, and every error of every file.
pub fn load_course(root: &CourseRoot) -> (Vec<Lesson>, Vec<LessonError>) {
    match root.lesson_files() {
        Ok(files) => load_files(root, files),
        Err(e) => (
            Vec::new(),
            vec![whole_file(&root_name(root), e.to_string())],
        ),
    }
}

/// Load one lesson; `file` is the name shown in messages.
pub fn load_file(root: &CourseRoot, file: &str, text: &str) -> Result<Lesson, Vec<LessonError>> {
    let mut errs = Errors {
        file: file.to_string(),
        list: Vec::new(),
    };
    let lesson = read::read(text, &mut errs).and_then(|(raw, spans)| {
        let lesson = resolve::resolve(raw, root, file, &spans, &mut errs);
        lesson.filter(|_| errs.list.is_empty())
    });
    match lesson {
        Some(l) if errs.list.is_empty() => Ok(l),
        None if errs.list.is_empty() => {
            // Every failure reports itself; this guards against a silent one.
            errs.at(Pos::START, "the lesson could not be loaded");
            Err(errs.finish())
        }
        _ => Err(errs.finish()),
    }
}

/// Validate files and folders (a folder: the lesson files in it). A file's kernels resolve
/// against the folder above the one that holds it. Returns how many lessons loaded.
pub fn check_paths(paths: &[PathBuf]) -> (usize, Vec<LessonError>) {
    let (lessons, errors) = load_paths(paths);
    (lessons.len(), errors)
}

/// `check_paths`, keeping the lessons that loaded (for `check` to compile them).
pub fn load_paths(paths: &[PathBuf]) -> (Vec<Lesson>, Vec<LessonError>) {
    let mut loaded = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        let name = p.display().to_string();
        if p.is_dir() {
            let root = CourseRoot::Dir(p.clone());
            match root.lesson_files() {
                Ok(files) if files.is_empty() => errors.push(whole_file(
                    &name,
                    "no lesson files (named NN-<id>.yaml) in this folder".into(),
                )),
                Ok(files) => {
                    let (lessons, errs) = load_files(&root, files);
                    loaded.extend(lessons);
                    errors.extend(errs);
                }
                Err(e) => errors.push(whole_file(&name, e.to_string())),
            }
        } else if p.is_file() {
            let dir = p.parent().map(PathBuf::from).unwrap_or_default();
            match std::fs::read_to_string(p) {
                Ok(text) => match load_file(&CourseRoot::Dir(dir), &name, &text) {
                    Ok(lesson) => loaded.push(lesson),
                    Err(errs) => errors.extend(errs),
                },
                Err(e) => errors.push(whole_file(&name, e.to_string())),
            }
        } else {
            errors.push(whole_file(&name, "no such file or folder".into()));
        }
    }
    (loaded, errors)
}

fn load_files(root: &CourseRoot, files: Vec<(String, String)>) -> (Vec<Lesson>, Vec<LessonError>) {
    let mut lessons: Vec<Lesson> = Vec::new();
    let mut errors = Vec::new();
    let mut first_file: HashMap<String, String> = HashMap::new();
    for (file, text) in files {
        match load_file(root, &file, &text) {
            Ok(lesson) => {
                if let Some(other) = first_file.get(&lesson.id) {
                    let at = Spans::parse(&text)
                        .ok()
                        .and_then(|s| s.value("id"))
                        .map_or(Pos::START, |s| s.pos);
                    errors.push(LessonError {
                        file,
                        line: at.line,
                        col: at.col,
                        message: format!("id `{}` is already used by {other}", lesson.id),
                    });
                } else {
                    first_file.insert(lesson.id.clone(), file);
                    lessons.push(lesson);
                }
            }
            Err(errs) => errors.extend(errs),
        }
    }
    lessons.sort_by(|a, b| (a.order, &a.file).cmp(&(b.order, &b.file)));
    (lessons, errors)
}

fn root_name(root: &CourseRoot) -> String {
    match root {
        CourseRoot::Bundled => "lessons".into(),
        CourseRoot::Dir(d) => d.display().to_string(),
    }
}

fn whole_file(file: &str, message: String) -> LessonError {
    LessonError {
        file: file.to_string(),
        line: 0,
        col: 0,
        message,
    }
}

/// The errors of one file, as they are found.
struct Errors {
    file: String,
    list: Vec<LessonError>,
}

impl Errors {
    fn at(&mut self, pos: Pos, message: impl Into<String>) {
        self.list.push(LessonError {
            file: self.file.clone(),
            line: pos.line,
            col: pos.col,
            message: message.into(),
        });
    }

    /// In file order, each once (a variant that inherits a bad key reports it only once).
    fn finish(mut self) -> Vec<LessonError> {
        self.list.sort_by_key(|e| (e.line, e.col));
        let mut out: Vec<LessonError> = Vec::new();
        for e in self.list {
            if !out.contains(&e) {
                out.push(e);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
