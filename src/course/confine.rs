//! Kernel paths stay inside the course. A lesson pack from someone else must not read files
//! elsewhere on the learner's machine (`/etc/...`, `../../..`, a link out of the pack): a
//! `source:` is a path relative to the course root, the folder that holds `lessons/`.

use super::text::{self, FileError, NotUtf8};
use std::path::{Component, Path};
use thiserror::Error;

/// Why the kernel file named by a `source:` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SourceError {
    #[error(
        "`{0}` is an absolute path; a `source` is relative to the course root, the folder that holds `lessons/`"
    )]
    Absolute(String),
    #[error("`{0}` leads outside the course (paths stay inside the folder that holds `lessons/`)")]
    Outside(String),
    #[error(
        "`{0}` is a link that leads outside the course (paths stay inside the folder that holds `lessons/`)"
    )]
    LinkOutside(String),
    #[error(
        "cannot read `{0}` (paths are relative to the course root, the folder that holds `lessons/`)"
    )]
    Unreadable(String),
    #[error("`{path}` line {}, column {}: {err}", .err.line, .err.col)]
    NotUtf8 { path: String, err: NotUtf8 },
    #[error("`{path}` is {why}")]
    NotAFile { path: String, why: String },
}

/// Refuse, from its text alone, a path that is absolute or climbs above where it starts.
pub fn check_relative(rel: &str) -> Result<(), SourceError> {
    let mut depth = 0usize;
    for c in Path::new(rel).components() {
        match c {
            Component::Prefix(_) | Component::RootDir => {
                return Err(SourceError::Absolute(rel.to_string()));
            }
            Component::ParentDir => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| SourceError::Outside(rel.to_string()))?;
            }
            Component::CurDir => {}
            Component::Normal(_) => depth += 1,
        }
    }
    Ok(())
}

/// The text of `rel` under `root`, once the path, with every link in it followed, is known
/// to stay under `root`.
pub fn read_under(root: &Path, rel: &str) -> Result<String, SourceError> {
    check_relative(rel)?;
    let root = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    let unreadable = || SourceError::Unreadable(rel.to_string());
    let real_root = root.canonicalize().map_err(|_| unreadable())?;
    let real = root.join(rel).canonicalize().map_err(|_| unreadable())?;
    if !real.starts_with(&real_root) {
        return Err(SourceError::LinkOutside(rel.to_string()));
    }
    text::read(&real).map_err(|e| match e {
        FileError::NotUtf8(err) => SourceError::NotUtf8 {
            path: rel.to_string(),
            err,
        },
        FileError::Io(_) => unreadable(),
        e @ FileError::NotAFile(_) => SourceError::NotAFile {
            path: rel.to_string(),
            why: e.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_by_their_text() {
        assert_eq!(check_relative("kernels/a.cu"), Ok(()));
        assert_eq!(check_relative("./kernels/../kernels/a.cu"), Ok(()));
        assert!(matches!(
            check_relative("/etc/passwd"),
            Err(SourceError::Absolute(_))
        ));
        assert!(matches!(
            check_relative("kernels/../../x.cu"),
            Err(SourceError::Outside(_))
        ));
        assert!(matches!(check_relative(".."), Err(SourceError::Outside(_))));
    }
}
