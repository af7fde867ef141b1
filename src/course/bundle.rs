//! Where lessons come from: the copy bundled into the binary (so the lab works from any
//! folder), or a folder on disk given with `--lessons DIR`.

use super::confine::{self, SourceError};
use super::text::{self, FileError};
use include_dir::{Dir, include_dir};
use std::path::{Path, PathBuf};

static BUNDLED_LESSONS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/lessons");
static BUNDLED_KERNELS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/kernels");
static BUNDLED_EXERCISES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/exercises");

/// A course: a `lessons/` folder and, beside it, the kernels its lessons name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CourseRoot {
    Bundled,
    /// The lessons folder; kernel paths resolve against its parent.
    Dir(PathBuf),
}

impl CourseRoot {
    pub fn from_option(dir: Option<&Path>) -> Self {
        match dir {
            Some(d) => CourseRoot::Dir(d.to_path_buf()),
            None => CourseRoot::Bundled,
        }
    }

    /// How many lesson files the course has, from their names alone, so that a first frame
    /// can say it before any is read.
    pub fn lesson_count(&self) -> usize {
        match self {
            CourseRoot::Bundled => BUNDLED_LESSONS
                .files()
                .filter(|f| is_lesson_name(f.path()))
                .count(),
            CourseRoot::Dir(d) => std::fs::read_dir(d).map_or(0, |entries| {
                entries
                    .filter_map(Result::ok)
                    .filter(|e| is_lesson_name(&e.path()))
                    .count()
            }),
        }
    }

    /// The lesson files, sorted by name, as (display path, text). A file that cannot be read
    /// as text is listed with why, so that the other lessons still load.
    pub fn lesson_files(&self) -> std::io::Result<Vec<(String, Result<String, FileError>)>> {
        let mut out = Vec::new();
        match self {
            CourseRoot::Bundled => {
                for f in BUNDLED_LESSONS.files() {
                    let p = f.path();
                    if is_lesson_name(p) {
                        let text = text::decode(f.contents().to_vec()).map_err(FileError::from);
                        out.push((format!("lessons/{}", p.display()), text));
                    }
                }
            }
            CourseRoot::Dir(d) => {
                for e in std::fs::read_dir(d)? {
                    let p = e?.path();
                    if p.is_file() && is_lesson_name(&p) {
                        out.push((p.display().to_string(), text::read(&p)));
                    }
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// The text of lesson file `file` as a lesson names it (`Lesson::file`): a bundled
    /// lesson's `lessons/NN-id.yaml`, else its path on disk.
    pub fn lesson_text(&self, file: &str) -> Option<String> {
        let bundled = match self {
            CourseRoot::Bundled => file
                .strip_prefix("lessons/")
                .and_then(|rest| BUNDLED_LESSONS.get_file(rest))
                .and_then(|f| f.contents_utf8()),
            CourseRoot::Dir(_) => None,
        };
        match bundled {
            Some(t) => Some(t.to_string()),
            None => text::read(Path::new(file)).ok(),
        }
    }

    /// Read a file named relative to the course root (e.g. `kernels/x/y.cu`).
    pub fn read(&self, rel: &str) -> Option<String> {
        self.read_source(rel).ok()
    }

    /// Read a file named relative to the course root, which it must not leave.
    /// Its `#include`s are checked too (`confine::check_includes`).
    pub fn read_source(&self, rel: &str) -> Result<String, SourceError> {
        let text = self.read_text(rel)?;
        confine::check_includes(rel, &text)?;
        Ok(text)
    }

    fn read_text(&self, rel: &str) -> Result<String, SourceError> {
        match self {
            CourseRoot::Bundled => {
                confine::check_relative(rel)?;
                let unreadable = || SourceError::Unreadable(rel.to_string());
                let file = rel
                    .strip_prefix("kernels/")
                    .and_then(|rest| BUNDLED_KERNELS.get_file(rest))
                    .or_else(|| {
                        rel.strip_prefix("exercises/")
                            .and_then(|rest| BUNDLED_EXERCISES.get_file(rest))
                    })
                    .ok_or_else(unreadable)?;
                file.contents_utf8()
                    .map(str::to_string)
                    .ok_or_else(unreadable)
            }
            CourseRoot::Dir(d) => confine::read_under(d.parent().unwrap_or(Path::new(".")), rel),
        }
    }

    /// The recordings shipped with the course, as (file name, text).
    pub fn recordings(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        match self {
            CourseRoot::Bundled => {
                if let Some(dir) = BUNDLED_LESSONS.get_dir("recordings") {
                    for f in dir.files() {
                        if f.path().extension().is_some_and(|e| e == "json") {
                            let name = f.path().file_name().unwrap_or_default();
                            let text = f.contents_utf8().unwrap_or_default().to_string();
                            out.push((name.to_string_lossy().into_owned(), text));
                        }
                    }
                }
            }
            CourseRoot::Dir(d) => {
                if let Ok(rd) = std::fs::read_dir(d.join("recordings")) {
                    for e in rd.flatten() {
                        let p = e.path();
                        if p.extension().is_some_and(|e| e == "json")
                            && let Ok(text) = std::fs::read_to_string(&p)
                        {
                            let name = p.file_name().unwrap_or_default();
                            out.push((name.to_string_lossy().into_owned(), text));
                        }
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// Where `gpulab record` writes: the lessons folder on disk (the bundled copy is
    /// read-only, so record into the source tree's `lessons/`).
    pub fn recordings_dir(&self) -> PathBuf {
        match self {
            CourseRoot::Bundled => PathBuf::from("lessons/recordings"),
            CourseRoot::Dir(d) => d.join("recordings"),
        }
    }
}

fn is_lesson_name(p: &Path) -> bool {
    let ext_ok = p.extension().is_some_and(|e| e == "yaml" || e == "yml");
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    ext_ok && name.len() > 3 && name.as_bytes()[..2].iter().all(u8::is_ascii_digit)
}
