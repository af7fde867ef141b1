//! Loading and validation: a lesson file becomes a `Lesson`, or every problem it has, each
//! with `file:line:col`.

mod attrs;
mod constants;
mod cx;
mod exercises;
mod kernel;
mod knobs;
mod launch;
mod measures;
mod options;
mod params;
mod read;
mod reference;
mod requires;
mod resolve;
mod sizes;
mod sweeps;
mod templates;
mod textures;
mod transfer;
mod variants;

use super::bundle::CourseRoot;
use super::text::{self, FileError};
use super::yaml::spans::{Pos, Spans, YamlError};
use crate::model::{Lesson, Topic};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A problem with a lesson file, where it is. Shown as `file:line:col: message`, or
/// `file: message` when it concerns the file as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Error)]
#[error("{}", located(.file, *.line, *.col, .message))]
pub struct CourseError {
    pub file: String,
    /// 1-based; 0 when the problem is with the file as a whole (it cannot be read).
    pub line: usize,
    pub col: usize,
    pub message: String,
}

fn located(file: &str, line: usize, col: usize, message: &str) -> String {
    // A message about a folder names it itself ("no lesson files ... in DIR").
    if line == 0 && message.contains(file) {
        message.to_string()
    } else if line == 0 {
        format!("{file}: {message}")
    } else {
        format!("{file}:{line}:{col}: {message}")
    }
}

/// A lesson file that did not load: where its name puts it in the course, and why. One
/// broken lesson costs only itself: the rest of the course lists, runs and opens, with this
/// one shown as broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The file, as shown in messages.
    pub file: String,
    /// The `NN` of `NN-<id>.yaml`; 0 for a name without one.
    pub order: u32,
    /// The `<id>` of `NN-<id>.yaml` (which the lesson's id must be), else the file's stem.
    pub name: String,
    /// Every problem of the file, in file order; never empty.
    pub problems: Vec<CourseError>,
    /// The memory space the file gives (`space: shared`), where its text can be read for
    /// one: the lab lists it under that heading, not under the lesson's before it.
    pub space: Option<Topic>,
}

impl Broken {
    /// `text`: the file's text, where it could be read as text.
    fn new(file: &str, problems: Vec<CourseError>, text: Option<&str>) -> Broken {
        let (order, name) = place_in_course(file);
        Broken {
            file: file.to_string(),
            order,
            name,
            problems,
            space: text.and_then(space_written),
        }
    }

    /// The first problem, and how many more there are, on one line.
    pub fn summary(&self) -> String {
        let first = self.problems.first().map(ToString::to_string);
        match (first, self.problems.len()) {
            (Some(f), 1) => f,
            (Some(f), n) => format!("{f} (and {} more)", n - 1),
            (None, _) => format!("{}: does not load", self.file),
        }
    }
}

/// The space a lesson file names on a top-level `space:` line, read line by line: the
/// file does not load, so its YAML may not parse.
fn space_written(text: &str) -> Option<Topic> {
    let line = text.lines().find_map(|l| l.strip_prefix("space:"))?;
    let value = line.split(" #").next().unwrap_or(line).trim();
    Topic::from_id(value.trim_matches(['"', '\'']))
}

/// The course as far as it loads: the lessons that did, sorted by their place in it, the
/// lesson files that did not, and the problems that are no one lesson's (a folder that
/// cannot be read, or holds no lesson files).
#[derive(Debug, Clone, Default)]
pub struct Course {
    pub lessons: Vec<Lesson>,
    pub broken: Vec<Broken>,
    pub problems: Vec<CourseError>,
}

impl Course {
    /// Every problem: the course's, then each broken lesson's, in file order.
    pub fn errors(&self) -> Vec<CourseError> {
        let of_lessons = self.broken.iter().flat_map(|b| b.problems.iter().cloned());
        self.problems.iter().cloned().chain(of_lessons).collect()
    }
}

/// Every lesson of the course, sorted by their place in it, and every error of every file.
/// A folder without lesson files is an error, so that every command refuses it alike.
pub fn load_course(root: &CourseRoot) -> (Vec<Lesson>, Vec<CourseError>) {
    let course = open_course(root);
    let errors = course.errors();
    (course.lessons, errors)
}

/// The course, each lesson file loaded on its own: a file that does not load is kept aside
/// with its problems, and the others load as if it were not there.
pub fn open_course(root: &CourseRoot) -> Course {
    let name = root_name(root);
    let problems = match root.lesson_files() {
        Ok(files) if files.is_empty() => vec![no_lessons(&name)],
        Ok(files) => return load_files(root, files),
        Err(e) => vec![whole_file(&name, e.to_string())],
    };
    Course {
        problems,
        ..Course::default()
    }
}

/// The `NN` and `<id>` of a file named `NN-<id>.yaml` (0 and the stem for another name).
fn place_in_course(file: &str) -> (u32, String) {
    let name = Path::new(file)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(file);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let digits = stem.chars().take_while(char::is_ascii_digit).count();
    match (stem[..digits].parse(), stem[digits..].strip_prefix('-')) {
        (Ok(order), Some(id)) => (order, id.to_string()),
        _ => (0, stem.to_string()),
    }
}

fn no_lessons(dir: &str) -> CourseError {
    whole_file(dir, format!("no lesson files (NN-<id>.yaml) in {dir}"))
}

/// Load one lesson; `file` is the name shown in messages.
pub fn load_file(root: &CourseRoot, file: &str, text: &str) -> Result<Lesson, Vec<CourseError>> {
    load_file_sized(root, file, text, &[])
}

/// As `load_file`, with some problem sizes set to the values given (an exercise's extra
/// sizes): everything evaluated over them is evaluated again.
pub fn load_file_sized(
    root: &CourseRoot,
    file: &str,
    text: &str,
    sizes: &[(String, i64)],
) -> Result<Lesson, Vec<CourseError>> {
    let text = text::without_bom(text);
    let mut errs = Errors {
        file: file.to_string(),
        list: Vec::new(),
        seen: HashSet::new(),
    };
    let lesson = read::read(text, &mut errs).and_then(|(raw, spans)| {
        // A problem-size knob's values read the file again with that size set.
        let reload = |more: &[(String, i64)]| load_file_sized(root, file, text, more);
        let lesson = resolve::resolve(raw, root, file, &spans, &mut errs, (sizes, &reload));
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

/// The lesson in `file` of `root` loaded again with some problem sizes set: an exercise
/// checks the learner's output at its extra sizes this way.
pub fn reload_sized(
    root: &CourseRoot,
    file: &str,
    sizes: &[(String, i64)],
) -> Result<Lesson, Vec<CourseError>> {
    let files = root
        .lesson_files()
        .map_err(|e| vec![whole_file(file, e.to_string())])?;
    let Some((name, text)) = files.into_iter().find(|(n, _)| n == file) else {
        return Err(vec![whole_file(file, "the lesson file is gone".into())]);
    };
    let text = text.map_err(|e| vec![unreadable(&name, e)])?;
    load_file_sized(root, &name, &text, sizes)
}

/// Validate files and folders (a folder: the lesson files in it), as `gpulab check` does.
/// A file's kernels resolve against the folder above the one that holds it. Returns the
/// lessons that loaded and the errors of the rest.
pub fn check_paths(paths: &[PathBuf]) -> (Vec<Lesson>, Vec<CourseError>) {
    let mut lessons = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        let (l, e) = if p.is_dir() {
            check_dir(p)
        } else if p.is_file() {
            check_file(p)
        } else {
            let name = p.display().to_string();
            (
                Vec::new(),
                vec![whole_file(&name, "no such file or folder".into())],
            )
        };
        lessons.extend(l);
        errors.extend(e);
    }
    (lessons, errors)
}

fn check_dir(dir: &Path) -> (Vec<Lesson>, Vec<CourseError>) {
    load_course(&CourseRoot::Dir(dir.to_path_buf()))
}

fn check_file(file: &Path) -> (Vec<Lesson>, Vec<CourseError>) {
    let name = file.display().to_string();
    let dir = file.parent().map(PathBuf::from).unwrap_or_default();
    let course = load_files(&CourseRoot::Dir(dir), vec![(name, text::read(file))]);
    let errors = course.errors();
    (course.lessons, errors)
}

/// Where a file that cannot be read as text fails.
fn unreadable(file: &str, e: FileError) -> CourseError {
    match e {
        FileError::NotUtf8(bad) => CourseError {
            file: file.to_string(),
            line: bad.line,
            col: bad.col,
            message: bad.to_string(),
        },
        FileError::Io(io) => whole_file(file, io.to_string()),
        e @ (FileError::NotAFile(_) | FileError::TooLarge { .. }) => {
            whole_file(file, e.to_string())
        }
    }
}

type FileTexts = Vec<(String, Result<String, FileError>)>;

fn load_files(root: &CourseRoot, files: FileTexts) -> Course {
    let mut lessons: Vec<Lesson> = Vec::new();
    let mut broken = Vec::new();
    let mut first_file: HashMap<String, String> = HashMap::new();
    let mut first_exercise: HashMap<String, String> = HashMap::new();
    for (file, text) in files {
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                broken.push(Broken::new(&file, vec![unreadable(&file, e)], None));
                continue;
            }
        };
        let lesson = match load_file(root, &file, &text) {
            Ok(lesson) => lesson,
            Err(errs) => {
                broken.push(Broken::new(&file, errs, Some(&text)));
                continue;
            }
        };
        if let Some(other) = first_file.get(&lesson.id) {
            let at = Spans::parse(&text)
                .ok()
                .and_then(|s| s.value("id"))
                .map_or(Pos::START, |s| s.pos);
            let e = CourseError {
                file: file.clone(),
                line: at.line,
                col: at.col,
                message: format!("id `{}` is already used by {other}", lesson.id),
            };
            broken.push(Broken::new(&file, vec![e], Some(&text)));
            continue;
        }
        let clashes = exercise_clashes(&lesson, &text, &file, &first_exercise);
        if !clashes.is_empty() {
            broken.push(Broken::new(&file, clashes, Some(&text)));
            continue;
        }
        for ex in &lesson.exercises {
            first_exercise.insert(ex.id.clone(), file.clone());
        }
        first_file.insert(lesson.id.clone(), file);
        lessons.push(lesson);
    }
    lessons.sort_by(|a, b| (a.order, &a.file).cmp(&(b.order, &b.file)));
    Course {
        lessons,
        broken,
        problems: Vec::new(),
    }
}

/// `gpulab ex start ID` names an exercise by its id alone, so an id is unique in the course:
/// an exercise whose id an earlier lesson's took is an error of its lesson.
fn exercise_clashes(
    lesson: &Lesson,
    text: &str,
    file: &str,
    first: &HashMap<String, String>,
) -> Vec<CourseError> {
    let mut out = Vec::new();
    for (k, ex) in lesson.exercises.iter().enumerate() {
        if let Some(other) = first.get(&ex.id) {
            let at = Spans::parse(text)
                .ok()
                .and_then(|s| s.value(&format!("exercises[{k}].id")))
                .map_or(Pos::START, |s| s.pos);
            out.push(CourseError {
                file: file.to_string(),
                line: at.line,
                col: at.col,
                message: format!("exercise id `{}` is already used by {other}", ex.id),
            });
        }
    }
    out
}

fn root_name(root: &CourseRoot) -> String {
    match root {
        CourseRoot::Bundled => "lessons".into(),
        CourseRoot::Dir(d) => d.display().to_string(),
    }
}

fn whole_file(file: &str, message: String) -> CourseError {
    CourseError {
        file: file.to_string(),
        line: 0,
        col: 0,
        message,
    }
}

/// The errors of one file, as they are found.
struct Errors {
    file: String,
    list: Vec<CourseError>,
    /// What `list` holds, to keep each error once without searching the list: a hostile
    /// file can have tens of thousands.
    seen: HashSet<CourseError>,
}

impl Errors {
    fn at(&mut self, pos: Pos, message: impl Into<String>) {
        let e = CourseError {
            file: self.file.clone(),
            line: pos.line,
            col: pos.col,
            message: message.into(),
        };
        // Each variant a sweep generates is checked on its own: a fault in the written
        // variant would otherwise be reported once per value.
        if self.seen.insert(e.clone()) {
            self.list.push(e);
        }
    }

    /// The errors reported since the list held `before`, taken out of it.
    fn take_since(&mut self, before: usize) -> Vec<CourseError> {
        let taken: Vec<CourseError> = self.list.drain(before..).collect();
        for e in &taken {
            self.seen.remove(e);
        }
        taken
    }

    fn report(&mut self, e: YamlError) {
        self.at(e.pos, e.message);
    }

    /// In file order, each once (a variant that inherits a bad key reports it only once).
    fn finish(mut self) -> Vec<CourseError> {
        self.list.sort_by_key(|e| (e.line, e.col));
        // A set, not a search of the list so far: a file can have thousands of errors.
        let mut seen = HashSet::new();
        self.list.retain(|e| seen.insert(e.clone()));
        self.list
    }
}

#[cfg(test)]
mod tests;
