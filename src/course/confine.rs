//! Kernel paths stay inside the course. A lesson pack from someone else must not read files
//! elsewhere on the learner's machine (`/etc/...`, `../../..`, a link out of the pack): a
//! `source:` is a path relative to the course root, the folder that holds `lessons/`.
//!
//! The same holds for what a kernel includes, since NVRTC opens any path it is given (and
//! quotes the file's words back in its errors): a file name that is absolute, climbs with
//! `..`, or comes from a macro (which could expand to any path), in any spelling the
//! preprocessor reads (`pp_scan`), is refused at its line and column in the kernel file, when
//! the file is read. The confined compile (`cuda::confined`) refuses the read again where the
//! machine's kernel has Landlock.

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

/// Refuse a place in `text` (the file `rel`, relative to the course root) where the
/// preprocessor could be made to read or look for a file outside CUDA's headers, found as the
/// preprocessor finds it (`pp_scan`: trigraphs, digraphs, splices and comments included): an
/// absolute path, a path with `..` (a kernel has no include path into the course, so a
/// relative name is looked up in CUDA's folders, and `..` climbs out of them), a name given
/// by a macro (which could expand to any path), a piece of `__has_include` in a text that
/// pastes tokens, and a backslash with blanks after it at a line's end (which compilers join
/// or not). This holds on a machine whose kernel has no Landlock to refuse the read itself.
pub fn check_includes(rel: &str, text: &str) -> Result<(), SourceError> {
    use super::pp_scan::{Naming, Operand};
    for found in super::pp_scan::scan(text) {
        let refuse = |why: String| SourceError::Include {
            path: rel.to_string(),
            line: found.line,
            col: found.col,
            why,
        };
        let (word, operand) = match found.what {
            Naming::Names { word, operand } => (word, operand),
            Naming::Piece(piece) => {
                return Err(refuse(format!(
                    "`{piece}` in a file that pastes tokens (`##`) could be pasted into \
                     `__has_include`, which asks whether any file exists: a kernel has no use \
                     for that name or its pieces"
                )));
            }
            Naming::BlankAfterBackslash => {
                return Err(refuse(
                    "a backslash with blanks after it ends this line: some compilers join the \
                     next line to it, some do not; remove the blanks"
                        .to_string(),
                ));
            }
        };
        let named = |name: &str, open: char, close: char| {
            if word.starts_with("__has") {
                format!("`{word}({open}{name}{close})`")
            } else {
                format!("`#{word} {open}{name}{close}`")
            }
        };
        let (name, shown) = match &operand {
            Operand::Quoted(n) => (n, named(n, '"', '"')),
            Operand::Angled(n) => (n, named(n, '<', '>')),
            Operand::Other => {
                let hash = if word.starts_with("__has") { "" } else { "#" };
                return Err(refuse(format!(
                    "`{hash}{word}` names its file by a macro, which could name any file: \
                     write the name in quotes"
                )));
            }
        };
        let drive = name.len() > 1 && name.as_bytes()[1] == b':';
        if name.starts_with('/') || name.starts_with('\\') || drive {
            return Err(refuse(format!(
                "{shown} is an absolute path: a kernel includes CUDA's headers by their names, \
                 nothing else"
            )));
        }
        if name.split(['/', '\\']).any(|part| part == "..") {
            return Err(refuse(format!(
                "{shown} leads outside the course: a kernel's includes are looked up in \
                 CUDA's header folders only, and `..` climbs out of them"
            )));
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
        let ok = "#include <cstdint>\n#include <cuda/std/atomic>\n#include \"common.h\"\n\
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
            ("#include \"../common.h\"\n", 1, 10, "leads outside"),
            ("%:include \"/etc/passwd\"\n", 1, 11, "absolute path"),
            ("??=include \"/etc/passwd\"\n", 1, 12, "absolute path"),
            (
                "#if __has_include(\"/etc/passwd\")\n#endif\n",
                1,
                19,
                "absolute path",
            ),
            (
                "#define C(a, b) a##b\n#if C(__has_, include)(<x>)\n#endif\n",
                2,
                7,
                "pastes",
            ),
            ("#inc\\ \nlude <x>\n", 1, 5, "blanks"),
            ("#include <../../etc/passwd>\n", 1, 10, "leads outside"),
            ("#define P \"/etc/passwd\"\n#include P\n", 2, 10, "macro"),
            ("#/**/include \"/etc/passwd\"\n", 1, 14, "absolute path"),
            ("#inc\\\nlude \"/etc/passwd\"\n", 2, 6, "absolute path"),
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
