//! Kernel paths stay inside the course. A lesson pack from someone else must not read files
//! elsewhere on the learner's machine (`/etc/...`, `../../..`, a link out of the pack): a
//! `source:` is a path relative to the course root, the folder that holds `lessons/`.
//!
//! The same holds for what a kernel includes, since NVRTC opens any path it is given (and
//! quotes the file's words back in its errors): an `#include` of an absolute path, one that
//! climbs out of the course, or one named by a macro (which could expand to any path) is
//! refused at its line and column in the kernel file, when the file is read.

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
    #[error("{path}:{line}:{col}: {why}")]
    Include {
        path: String,
        line: usize,
        col: usize,
        why: String,
    },
}

/// Refuse an `#include` in `text` (the file `rel`, relative to the course root) that could
/// read outside the course: an absolute path, a path climbing above the course root from
/// the file's own folder (or any `..` in a `<...>` include, which is looked up in CUDA's
/// folders), or a name given by a macro.
pub fn check_includes(rel: &str, text: &str) -> Result<(), SourceError> {
    let code = super::signature::blank_comments(text, true);
    // Where the file itself sits: how far an include may climb.
    let depth = Path::new(rel).parent().map_or(0, |d| {
        d.components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .count()
    });
    let mut line_no = 0;
    let mut lines = code.split('\n').peekable();
    while let Some(first) = lines.next() {
        line_no += 1;
        let start_line = line_no;
        // A directive continues over backslash-newlines.
        let mut line = first.trim_end_matches('\r').to_string();
        while line.ends_with('\\') {
            line.pop();
            match lines.next() {
                Some(next) => {
                    line_no += 1;
                    line.push_str(next.trim_end_matches('\r'));
                }
                None => break,
            }
        }
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let rest = rest.trim_start();
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !matches!(
            word.as_str(),
            "include" | "include_next" | "import" | "embed"
        ) {
            continue;
        }
        let operand = rest[word.len()..].trim_start();
        let col = line[..line.len() - operand.len()].chars().count() + 1;
        let refuse = |why: String| SourceError::Include {
            path: rel.to_string(),
            line: start_line,
            col,
            why,
        };
        let (close, angle) = match operand.chars().next() {
            Some('"') => ('"', false),
            Some('<') => ('>', true),
            _ => {
                return Err(refuse(format!(
                    "`#{word}` names its file by a macro, which could name any file: write \
                     the file in quotes, inside the course"
                )));
            }
        };
        let name = operand[1..].split(close).next().unwrap_or_default();
        if name.starts_with('/') || name.starts_with('\\') {
            return Err(refuse(format!(
                "`#{word} {}{name}{close}` is an absolute path: a kernel includes only files of \
                 the course, by a path relative to its own folder",
                &operand[..1]
            )));
        }
        let mut at = depth as isize;
        for c in Path::new(name).components() {
            match c {
                Component::ParentDir => at -= 1,
                Component::Normal(_) => at += 1,
                _ => {}
            }
            if at < 0 || (angle && matches!(c, Component::ParentDir)) {
                return Err(refuse(format!(
                    "`#{word} {}{name}{close}` leads outside the course (an include stays \
                     inside the folder that holds `lessons/`)",
                    &operand[..1]
                )));
            }
        }
    }
    Ok(())
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
        e @ (FileError::NotAFile(_) | FileError::TooLarge { .. }) => SourceError::NotAFile {
            path: rel.to_string(),
            why: e.to_string(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_that_leave_the_course_are_refused_at_their_place() {
        let ok = "#include <cstdint>\n#include <cuda/std/atomic>\n#include \"../common.h\"\n\
                  // #include \"/etc/passwd\"\n/* #include \"/etc/shadow\" */\nconst char* s = \"#include </x>\";\n";
        assert_eq!(check_includes("kernels/a/k.cu", ok), Ok(()));
        let cases = [
            (
                "int x;\n  #  include \"/etc/passwd\"\n",
                2,
                14,
                "absolute path",
            ),
            ("#include \"../../../x.h\"\n", 1, 10, "leads outside"),
            ("#include <../../etc/passwd>\n", 1, 10, "leads outside"),
            ("#define P \"/etc/passwd\"\n#include P\n", 2, 10, "macro"),
            ("#/**/include \"/etc/passwd\"\n", 1, 14, "absolute path"),
            ("#inc\\\nlude \"/etc/passwd\"\n", 1, 10, "absolute path"),
        ];
        for (src, line, col, why) in cases {
            match check_includes("kernels/a/k.cu", src) {
                Err(SourceError::Include {
                    line: l,
                    col: c,
                    why: w,
                    ..
                }) => {
                    assert_eq!((l, c), (line, col), "{src:?}");
                    assert!(w.contains(why), "{src:?}: {w}");
                }
                other => panic!("{src:?}: {other:?}"),
            }
        }
    }

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
