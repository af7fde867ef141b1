//! `gpulab try`: kernel files, each with its header (`header`), and the `--header`,
//! `-D` and `--reference` flags, made into one lesson in memory. The lesson is written as
//! the text of a lesson file (`yaml`) and read by the loader like any other, so a tried
//! kernel is checked by the same rules (expressions, buffers, arguments against the
//! kernel's parameters, launch) and runs through the same plan, worker and fold; a problem
//! is moved back to the header's `file:line:col`.
//!
//! The files' folder is the pack: the kernels are read through `confine` from it alone, and
//! what they include must stay in it, so a tried file reaches no more of the machine than a
//! lesson pack does.

use super::header::{self, At, Builtin};
pub use super::parts::{Checked, LESSON_ID};
use super::parts::{CheckedAt, Define, Errors, Source, error, whole};
use super::plan::{Planned, plan_file, with_defines};
use super::share::{Shared, evaluate, evaluate_cpu, share};
use super::write::write;
use super::yaml::Origin;
use crate::course::bundle::CourseRoot;
use crate::course::confine::{self, SourceError};
use crate::course::expr;
use crate::course::{CourseError, load_file_sized};
use crate::model::Lesson;
use std::path::{Path, PathBuf};

/// The name the lesson text is read under (the loader takes a lesson's place in the course
/// from its file's name).
const TEXT_NAME: &str = "00-try.yaml";

/// What `gpulab try` was given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrySpec {
    /// The kernel files, as given; all in one folder.
    pub files: Vec<PathBuf>,
    /// `-D NAME=VALUE` (or `-D NAME`), in order: a name given several values makes a
    /// variant of each.
    pub defines: Vec<String>,
    /// `--header "ITEMS"`: more header items, over those of every file.
    pub header: Vec<String>,
    /// `--reference FILE|VARIANT|none`.
    pub reference: Option<String>,
}

/// The lesson a try makes, and what runs it needs beside it.
#[derive(Debug, Clone)]
pub struct Tried {
    pub lesson: Lesson,
    /// The lesson at its CPU sizes (`cpu.NAME=`; the full ones where none is given), where
    /// the interpreter checks outputs; None when nothing is checked.
    pub sized: Option<Lesson>,
    pub checked: Checked,
    /// The kernel files, as given (the lab watches them).
    pub files: Vec<PathBuf>,
}

impl Tried {
    /// What the outputs are checked against, in words.
    pub fn checked_words(&self) -> String {
        match &self.checked {
            Checked::Variant(v) => format!("outputs checked against `{v}`"),
            Checked::Builtin(w) => format!("outputs checked against {w}"),
            Checked::Nothing => "outputs not compared (no reference)".into(),
        }
    }
}

/// The lesson `spec` makes, or every problem that stops it, each at its `file:line:col`.
pub fn build(spec: &TrySpec) -> Result<Tried, Errors> {
    let (dir, sources) = read_files(&spec.files)?;
    let flags = header::parse_flags(&spec.header)?;
    let defines = defines(&spec.defines)?;
    let shared = share(&sources, &flags)?;
    let env = evaluate(&shared.sizes)?;
    let cpu = evaluate_cpu(&shared, &env)?;
    let define_names: Vec<&str> = defines.iter().map(|d| d.name.as_str()).collect();
    let mut errs = Vec::new();
    let mut planned = Vec::new();
    let combos = combinations(&defines);
    for i in 0..sources.len() {
        match plan_file(i, &sources, &flags, &shared, (&env, &define_names)) {
            Ok(p) => {
                for combo in &combos {
                    planned.push(with_defines(&p, combo, &sources, &defines));
                }
            }
            Err(e) => errs.extend(e),
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    name_variants(&mut planned, &sources, &defines);
    let checked = reference(spec, &planned, &sources, &shared)?;
    let yaml = write(&sources, &shared, &cpu, &planned, &checked, &env);
    // A course's kernels are read from the folder above its lessons folder: here, the
    // files' own folder, and nothing above it.
    let root = CourseRoot::Dir(dir.join("lessons"));
    let first = sources[0].shown.clone();
    let place =
        |errs: Errors| -> Errors { errs.into_iter().map(|e| yaml.place(e, &first)).collect() };
    let mut lesson = load_file_sized(&root, TEXT_NAME, &yaml.text, &[]).map_err(place)?;
    let mut sized = match checked.0 {
        Checked::Nothing => None,
        _ if cpu.is_empty() => Some(lesson.clone()),
        _ => Some(load_file_sized(&root, TEXT_NAME, &yaml.text, &cpu).map_err(place)?),
    };
    // Messages and the code view name the files as they were given.
    lesson.file = first;
    for l in std::iter::once(&mut lesson).chain(sized.as_mut()) {
        for (v, p) in l.variants.iter_mut().zip(&planned) {
            v.source_path = sources[p.source].shown.clone();
        }
    }
    Ok(Tried {
        lesson,
        sized,
        checked: checked.0,
        files: spec.files.clone(),
    })
}

/// The files' folder (the pack) and each file read from it through `confine`.
fn read_files(files: &[PathBuf]) -> Result<(PathBuf, Vec<Source>), Errors> {
    if files.is_empty() {
        return Err(vec![whole("gpulab try", "name a kernel file (FILE.cu)")]);
    }
    let mut errs = Vec::new();
    let mut dir: Option<(PathBuf, String)> = None;
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    for f in files {
        let shown = f.display().to_string();
        if !f.is_file() {
            let why = if f.exists() {
                "is not a plain file"
            } else {
                "no such file"
            };
            errs.push(whole(&shown, why));
            continue;
        }
        let parent = f
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let Ok(real_dir) = parent.canonicalize() else {
            errs.push(whole(&shown, "its folder cannot be read"));
            continue;
        };
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match &dir {
            Some((d, first)) if *d != real_dir => {
                errs.push(whole(
                    &shown,
                    format!(
                        "files tried together sit in one folder, whose files alone a try may \
                         read; {first} is in {}, this one in {}",
                        d.display(),
                        real_dir.display()
                    ),
                ));
                continue;
            }
            Some(_) => {}
            None => dir = Some((real_dir.clone(), shown.clone())),
        }
        let real = real_dir.join(&name);
        if seen.contains(&real) {
            errs.push(whole(&shown, "is given twice"));
            continue;
        }
        seen.push(real);
        let text = match confine::read_under(&real_dir, &name)
            .and_then(|t| confine::check_includes(&name, &t).map(|()| t))
        {
            Ok(t) => t,
            Err(e) => {
                errs.push(source_error(&shown, e));
                continue;
            }
        };
        match header::parse(&shown, &text) {
            Ok(header) => out.push(Source {
                stem: Path::new(&name)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                shown,
                name,
                text,
                header,
            }),
            Err(e) => errs.extend(e),
        }
    }
    match (dir, errs.is_empty()) {
        (Some((d, _)), true) => Ok((d, out)),
        _ => Err(errs),
    }
}

/// A kernel file that cannot be read from the folder, in words that name it as given.
fn source_error(shown: &str, e: SourceError) -> CourseError {
    match e {
        SourceError::Include { line, col, why, .. } => error(
            shown,
            At { line, col },
            why.replace("the course", "the kernel's folder"),
        ),
        SourceError::LinkOutside(_) => whole(
            shown,
            "is a link that leads outside its folder (a try reads only the kernel's folder)",
        ),
        SourceError::NotUtf8 { err, .. } => error(
            shown,
            At {
                line: err.line,
                col: err.col,
            },
            err.to_string(),
        ),
        SourceError::NotAFile { why, .. } => whole(shown, why),
        _ => whole(shown, "cannot be read"),
    }
}

/// `-D NAME=VALUE` and `-D NAME` (which defines NAME as 1, as a compiler does).
fn defines(given: &[String]) -> Result<Vec<Define>, Errors> {
    let mut out: Vec<Define> = Vec::new();
    let mut errs = Vec::new();
    for (k, d) in given.iter().enumerate() {
        let (name, value) = d.split_once('=').unwrap_or((d.as_str(), "1"));
        let at = At {
            line: k + 1,
            col: name.chars().count() + 2,
        };
        if !expr::is_identifier(name) {
            errs.push(error(
                "-D",
                At {
                    line: k + 1,
                    col: 1,
                },
                format!("`-D {d}`: a macro is NAME=VALUE, NAME a C identifier"),
            ));
            continue;
        }
        if value.contains(['\n', '\r', '\0']) || value.trim().is_empty() {
            errs.push(error(
                "-D",
                at,
                format!("`-D {name}=`: the value is one line of text"),
            ));
            continue;
        }
        let origin = Origin::new("-D", at);
        match out.iter_mut().find(|x| x.name == name) {
            Some(x) if x.values.iter().any(|(v, _)| v == value) => {}
            Some(x) => x.values.push((value.to_string(), origin)),
            None => out.push(Define {
                name: name.to_string(),
                values: vec![(value.to_string(), origin)],
            }),
        }
    }
    if errs.is_empty() { Ok(out) } else { Err(errs) }
}

/// Every setting of the macros given several values (in the order given), each with the
/// macros given one value: one variant of each file for each.
fn combinations(defines: &[Define]) -> Vec<Vec<(usize, usize)>> {
    let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
    for (i, d) in defines.iter().enumerate() {
        out = out
            .into_iter()
            .flat_map(|c| {
                (0..d.values.len()).map(move |j| {
                    let mut c = c.clone();
                    c.push((i, j));
                    c
                })
            })
            .collect();
    }
    out
}

/// Each variant's name: its file's stem where there are several files (or no macro with
/// several values), and `NAME-VALUE` of each macro given several values; letters, digits,
/// `-` and `_` only, each name once.
fn name_variants(planned: &mut [Planned], sources: &[Source], defines: &[Define]) {
    let varied: Vec<&str> = (defines.iter())
        .filter(|d| d.values.len() > 1)
        .map(|d| d.name.as_str())
        .collect();
    let mut taken: Vec<String> = Vec::new();
    for p in planned.iter_mut() {
        let mut parts = Vec::new();
        if sources.len() > 1 || varied.is_empty() {
            parts.push(sources[p.source].stem.clone());
        }
        for (n, v, _) in &p.defines {
            if varied.contains(&n.as_str()) {
                parts.push(format!("{n}-{v}"));
            }
        }
        let mut name: String = parts
            .join("-")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if name.is_empty() {
            name = "kernel".into();
        }
        let base = name.clone();
        let mut k = 2;
        while taken.contains(&name) {
            name = format!("{base}-{k}");
            k += 1;
        }
        taken.push(name.clone());
        p.name = name;
    }
}

/// What the outputs are checked against, and where that was said: `--reference` (a file,
/// as given or by its name or stem, or a variant's name, or `none`), else `check=` of the
/// headers, else the first variant where there are several, else nothing.
fn reference(
    spec: &TrySpec,
    planned: &[Planned],
    sources: &[Source],
    shared: &Shared,
) -> Result<CheckedAt, Errors> {
    if let Some(r) = &spec.reference {
        let origin = Origin::file("--reference");
        if r == "none" {
            return Ok((Checked::Nothing, None));
        }
        let by_file = sources.iter().position(|s| {
            s.shown == *r || s.name == *r || s.stem == *r || Path::new(&s.shown) == Path::new(r)
        });
        let found = match by_file {
            Some(i) => planned.iter().find(|p| p.source == i),
            None => planned.iter().find(|p| p.name == *r),
        };
        return match found {
            Some(p) => Ok((Checked::Variant(p.name.clone()), Some(origin))),
            None => {
                let names: Vec<&str> = planned.iter().map(|p| p.name.as_str()).collect();
                Err(vec![whole(
                    "--reference",
                    format!(
                        "`{r}` is none of the files or variants tried (files: {}; variants: \
                         {}; or `none`)",
                        sources
                            .iter()
                            .map(|s| s.shown.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                        names.join(", ")
                    ),
                )])
            }
        };
    }
    if let Some(c) = &shared.check {
        let origin = Origin::new(&c.file, c.value.1);
        let words = match &c.value.0 {
            Builtin::Copy { from, to } => {
                format!("the built-in copy ({} to {})", from.text, to.text)
            }
            Builtin::Transpose { from, to, .. } => {
                format!("the built-in transpose ({} to {})", from.text, to.text)
            }
        };
        return Ok((Checked::Builtin(words), Some(origin)));
    }
    match planned {
        [first, _, ..] => Ok((Checked::Variant(first.name.clone()), None)),
        _ => Ok((Checked::Nothing, None)),
    }
}

#[cfg(test)]
#[path = "lesson_tests.rs"]
mod tests;
