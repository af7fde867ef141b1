//! `gpulab try`: kernel files, each with its header (`try_header`), and the `--header`,
//! `-D` and `--reference` flags, made into one lesson in memory. The lesson is written as
//! the text of a lesson file (`try_yaml`) and read by the loader like any other, so a tried
//! kernel is checked by the same rules (expressions, buffers, arguments against the
//! kernel's parameters, launch) and runs through the same plan, worker and fold; a problem
//! is moved back to the header's `file:line:col`.
//!
//! The files' folder is the pack: the kernels are read through `confine` from it alone, and
//! what they include must stay in it, so a tried file reaches no more of the machine than a
//! lesson pack does.

use super::bundle::CourseRoot;
use super::confine::{self, SourceError};
use super::expr;
use super::signature::{self, ParamKind, Signature};
use super::try_header::{self, At, BufferItem, Builtin, Fill, Header, Written};
use super::try_yaml::{Origin, Yaml};
use super::{CourseError, load_file_sized};
use crate::model::{ElemType, Lesson};
use std::path::{Path, PathBuf};

/// The id of every tried lesson (there is one at a time).
pub const LESSON_ID: &str = "try";
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
    /// The lesson file's text, as the loader read it.
    pub text: String,
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

/// One kernel file: where it is, its text and its header.
struct Source {
    shown: String,
    /// Its name in the folder (the lesson's `source:`).
    name: String,
    stem: String,
    text: String,
    header: Header,
}

/// A size or another item of the whole try, and the file (or flag) that gave it.
#[derive(Debug, Clone)]
struct Given<T> {
    value: T,
    file: String,
}

/// What the files share: sizes, buffers, metrics, the check and the traced blocks.
#[derive(Default)]
struct Shared {
    sizes: Vec<Given<(Written, Written)>>,
    cpu_sizes: Vec<Given<(Written, Written)>>,
    buffers: Vec<Given<BufferItem>>,
    bytes: Option<Given<Written>>,
    flops: Option<Given<Written>>,
    peak: Option<Given<(bool, At)>>,
    check: Option<Given<(Builtin, At)>>,
    trace: Option<Given<(u32, At)>>,
}

/// A `-D` macro: its values, each with the flag that gave it.
struct Define {
    name: String,
    values: Vec<(String, Origin)>,
}

/// A variant as it will be written: its file, kernel, defines, launch and arguments.
#[derive(Clone)]
struct Planned {
    name: String,
    source: usize,
    kernel: (String, Origin),
    defines: Vec<(String, String, Origin)>,
    grid: Given<Vec<Written>>,
    block: Given<Vec<Written>>,
    smem: Option<Given<Written>>,
    args: Vec<(ArgText, Origin)>,
    note: String,
}

/// One argument as the lesson file writes it.
#[derive(Clone)]
enum ArgText {
    Plain(String),
    Typed(&'static str, String),
    F32(f64),
}

type Errors = Vec<CourseError>;

fn error(file: &str, at: At, message: impl Into<String>) -> CourseError {
    CourseError {
        file: file.to_string(),
        line: at.line,
        col: at.col,
        message: message.into(),
    }
}

fn whole(file: &str, message: impl Into<String>) -> CourseError {
    error(file, At::default(), message)
}

/// The lesson `spec` makes, or every problem that stops it, each at its `file:line:col`.
pub fn build(spec: &TrySpec) -> Result<Tried, Errors> {
    let (dir, sources) = read_files(&spec.files)?;
    let flags = try_header::parse_flags(&spec.header)?;
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
    let root = CourseRoot::Dir(dir.join("lessons"));
    let first = sources[0].shown.clone();
    let place =
        |errs: Errors| -> Errors { errs.into_iter().map(|e| yaml.place(e, &first)).collect() };
    let mut lesson = load_file_sized(&root, TEXT_NAME, &yaml.text, &[]).map_err(place)?;
    let sized = match checked.0 {
        Checked::Nothing => None,
        _ if cpu.is_empty() => Some(lesson.clone()),
        _ => Some(load_file_sized(&root, TEXT_NAME, &yaml.text, &cpu).map_err(place)?),
    };
    // Messages and the code view name the files as they were given.
    lesson.file = first;
    let mut sized = sized;
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
        text: yaml.text,
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
        match try_header::parse(&shown, &text) {
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

/// The sizes, buffers and other items of the whole try: each file may give them, alike
/// where two do; the `--header` flags replace what the files give.
fn share(sources: &[Source], flags: &Header) -> Result<Shared, Errors> {
    let mut s = Shared::default();
    let mut errs = Vec::new();
    let headers = sources.iter().map(|s| &s.header).chain([flags]);
    for h in headers {
        let over = h.file == flags.file;
        let file = h.file.clone();
        for (n, v) in &h.sizes {
            merge_size(&mut s.sizes, (n, v), &file, over, &mut errs);
        }
        for (n, v) in &h.cpu_sizes {
            merge_size(&mut s.cpu_sizes, (n, v), &file, over, &mut errs);
        }
        for b in &h.buffers {
            let given = Given {
                value: b.clone(),
                file: file.clone(),
            };
            match s
                .buffers
                .iter_mut()
                .find(|o| o.value.name.text == b.name.text)
            {
                Some(o) if over => *o = given,
                Some(o) if o.value.text != b.text => errs.push(unlike(
                    &file,
                    b.name.at,
                    &format!("buffer `{}`", b.name.text),
                    (&b.text, &o.value.text),
                    (&o.file, o.value.name.at),
                )),
                Some(_) => {}
                None => s.buffers.push(given),
            }
        }
        merge_one(
            &mut s.bytes,
            h.bytes.clone(),
            &file,
            over,
            "bytes=",
            &mut errs,
        );
        merge_one(
            &mut s.flops,
            h.flops.clone(),
            &file,
            over,
            "flops=",
            &mut errs,
        );
        merge_one(&mut s.peak, h.peak, &file, over, "peak=", &mut errs);
        merge_one(
            &mut s.check,
            h.check.clone(),
            &file,
            over,
            "check=",
            &mut errs,
        );
        merge_one(&mut s.trace, h.trace, &file, over, "trace=", &mut errs);
    }
    if errs.is_empty() { Ok(s) } else { Err(errs) }
}

fn merge_size(
    list: &mut Vec<Given<(Written, Written)>>,
    (name, value): (&Written, &Written),
    file: &str,
    over: bool,
    errs: &mut Errors,
) {
    let given = Given {
        value: (name.clone(), value.clone()),
        file: file.to_string(),
    };
    match list.iter_mut().find(|o| o.value.0.text == name.text) {
        Some(o) if over => *o = given,
        Some(o) if o.value.1.text != value.text => errs.push(unlike(
            file,
            value.at,
            &format!("size `{}`", name.text),
            (&value.text, &o.value.1.text),
            (&o.file, o.value.1.at),
        )),
        Some(_) => {}
        None => list.push(given),
    }
}

/// An item of the whole try given once (the `--header` flags replacing a file's).
fn merge_one<T: Clone + PartialEq + Placed>(
    slot: &mut Option<Given<T>>,
    new: Option<T>,
    file: &str,
    over: bool,
    key: &str,
    errs: &mut Errors,
) {
    let Some(value) = new else { return };
    match slot {
        Some(o) if !over && o.value != value => errs.push(unlike(
            file,
            value.at(),
            &format!("`{key}`"),
            (&value.words(), &o.value.words()),
            (&o.file, o.value.at()),
        )),
        Some(_) if !over => {}
        _ => {
            *slot = Some(Given {
                value,
                file: file.to_string(),
            })
        }
    }
}

/// An item's place and text, to say where two files disagree.
trait Placed {
    fn at(&self) -> At;
    fn words(&self) -> String;
}

impl Placed for Written {
    fn at(&self) -> At {
        self.at
    }
    fn words(&self) -> String {
        self.text.clone()
    }
}

impl<T: std::fmt::Debug> Placed for (T, At) {
    fn at(&self) -> At {
        self.1
    }
    fn words(&self) -> String {
        format!("{:?}", self.0)
    }
}

fn unlike(
    file: &str,
    at: At,
    what: &str,
    (here, there): (&str, &str),
    first: (&str, At),
) -> CourseError {
    error(
        file,
        at,
        format!(
            "{what} is `{here}` here but `{there}` at {}:{}:{}: files tried together share \
             their sizes and buffers (give it in one file, or alike in each)",
            first.0, first.1.line, first.1.col
        ),
    )
}

/// The sizes' values, in order, each over those before it.
fn evaluate(sizes: &[Given<(Written, Written)>]) -> Result<Vec<(String, i64)>, Errors> {
    let mut env: Vec<(String, i64)> = Vec::new();
    let mut errs = Vec::new();
    for g in sizes {
        let (name, value) = &g.value;
        match expr::eval(&value.text, &env) {
            Ok(v) => env.push((name.text.clone(), v)),
            Err(e) => errs.push(error(
                &g.file,
                value.at.plus(e.col),
                format!("size `{}`: {}", name.text, e.message),
            )),
        }
    }
    if errs.is_empty() { Ok(env) } else { Err(errs) }
}

/// The CPU sizes: each names a size and evaluates (over the sizes) to more than 0.
fn evaluate_cpu(s: &Shared, env: &[(String, i64)]) -> Result<Vec<(String, i64)>, Errors> {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for g in &s.cpu_sizes {
        let (name, value) = &g.value;
        if !env.iter().any(|(n, _)| *n == name.text) {
            let known: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
            errs.push(error(
                &g.file,
                name.at,
                format!(
                    "`cpu.{}` names no size of the header (sizes: {})",
                    name.text,
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
            continue;
        }
        match expr::eval(&value.text, env) {
            Ok(v) if v > 0 => out.push((name.text.clone(), v)),
            Ok(v) => errs.push(error(
                &g.file,
                value.at,
                format!(
                    "`cpu.{}` must be more than 0 (`{}` is {v})",
                    name.text, value.text
                ),
            )),
            Err(e) => errs.push(error(
                &g.file,
                value.at.plus(e.col),
                format!("`cpu.{}`: {}", name.text, e.message),
            )),
        }
    }
    if errs.is_empty() { Ok(out) } else { Err(errs) }
}

/// Which kernel of the file runs, with what launch and arguments.
fn plan_file(
    i: usize,
    sources: &[Source],
    flags: &Header,
    shared: &Shared,
    (env, define_names): (&[(String, i64)], &[&str]),
) -> Result<Planned, Errors> {
    let src = &sources[i];
    let (kernel, sig) = kernel(src, flags)?;
    let first = &sources[0].header;
    // The flags, else the file's own header, else the first file's.
    let pick = |f: fn(&Header) -> Option<&Vec<Written>>| {
        [flags, &src.header, first].into_iter().find_map(|h| {
            f(h).map(|v| Given {
                value: v.clone(),
                file: h.file.clone(),
            })
        })
    };
    let grid = pick(|h| h.grid.as_ref());
    let block = pick(|h| h.block.as_ref());
    let smem = [flags, &src.header, first].into_iter().find_map(|h| {
        h.smem.as_ref().map(|v| Given {
            value: v.clone(),
            file: h.file.clone(),
        })
    });
    let given = (flags.args.as_ref().map(|a| (a, &flags.file))).or(src
        .header
        .args
        .as_ref()
        .map(|a| (a, &src.header.file)));
    let args = match given {
        Some(((_, list), file)) => Some(
            list.iter()
                .map(|a| {
                    let text = match a.ty.as_deref() {
                        None => ArgText::Plain(a.value.text.clone()),
                        Some("f32") => ArgText::F32(a.value.text.parse().unwrap_or(0.0)),
                        Some(ty) => ArgText::Typed(type_key(ty), a.value.text.clone()),
                    };
                    (text, Origin::new(file, a.value.at))
                })
                .collect(),
        ),
        None => auto_args(src, &sig, shared, (env, define_names)),
    };
    let (Some(grid), Some(block), Some(args)) = (grid, block, args) else {
        let missing = missing_items(
            &sig,
            shared,
            (env, define_names),
            [&src.header, flags, first],
        );
        return Err(vec![missing_header(src, &kernel.0, &missing)]);
    };
    Ok(Planned {
        name: String::new(),
        source: i,
        note: src.shown.clone(),
        kernel,
        defines: Vec::new(),
        grid,
        block,
        smem,
        args,
    })
}

fn type_key(ty: &str) -> &'static str {
    match ty {
        "u32" => "u32",
        "i64" => "i64",
        "u64" => "u64",
        _ => "i32",
    }
}

/// The file's kernel: the one `kernel=` names, else its only `__global__` function. It must
/// be `extern "C"`, as a lesson's kernel must, so its name is not mangled.
fn kernel(src: &Source, flags: &Header) -> Result<((String, Origin), Signature), Errors> {
    let globals = signature::global_functions(&src.text);
    let named = flags.kernel.as_ref().map(|k| (k, &flags.file)).or(src
        .header
        .kernel
        .as_ref()
        .map(|k| (k, &src.header.file)));
    let names = || {
        globals
            .iter()
            .map(|g| g.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (sig, origin) = match named {
        Some((k, file)) => match globals.iter().find(|g| g.name == k.text) {
            Some(g) => (g.clone(), Origin::new(file, k.at)),
            None => {
                return Err(vec![error(
                    file,
                    k.at,
                    format!(
                        "`{}` is no __global__ function of {} (it has: {})",
                        k.text,
                        src.shown,
                        if globals.is_empty() {
                            "none".into()
                        } else {
                            names()
                        }
                    ),
                )]);
            }
        },
        None => match globals.as_slice() {
            [] => return Err(vec![whole(&src.shown, "has no __global__ function to run")]),
            [one] => (one.clone(), Origin::file(&src.shown)),
            _ => {
                return Err(vec![error(
                    &src.shown,
                    src.header.start.unwrap_or(At { line: 1, col: 1 }),
                    format!(
                        "{} has {} kernels ({}): say which runs with `kernel=NAME` in its header",
                        src.shown,
                        globals.len(),
                        names()
                    ),
                )]);
            }
        },
    };
    if !sig.extern_c && !signature::code_only(&src.text).contains("extern \"C\"") {
        let at = if origin.at.line > 0 {
            origin.at
        } else {
            At::default()
        };
        return Err(vec![error(
            &origin.file,
            at,
            format!(
                "`{0}` is not declared extern \"C\", so its name is mangled and the lab cannot \
                 find it: write `extern \"C\" __global__ void {0}(...)`",
                sig.name
            ),
        )]);
    }
    Ok(((sig.name.clone(), origin), sig))
}

/// A parameter's name: its last word (after any default value and array brackets are cut).
fn param_name(text: &str) -> Option<String> {
    let decl = text.split('=').next().unwrap_or(text);
    let decl = decl.split('[').next().unwrap_or(decl);
    let words: Vec<&str> = decl
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let last = *words.last()?;
    // A parameter written as its type alone (`int`) has no name to match.
    let typed_only = words.len() == 1
        || matches!(
            signature::kind_of(last),
            ParamKind::Int { .. } | ParamKind::Float { .. }
        );
    (!typed_only && expr::is_identifier(last)).then(|| last.to_string())
}

/// The argument for parameter `p`, matched by its name: a pointer gets the buffer of its
/// name, a number the size (or `-D` macro) of its name; None when nothing matches.
fn matched(
    p: &signature::Param,
    shared: &Shared,
    (env, define_names): (&[(String, i64)], &[&str]),
) -> Option<ArgText> {
    let name = param_name(&p.text)?;
    let buffer = shared.buffers.iter().any(|b| b.value.name.text == name);
    let size = env.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let number = size.is_some() || define_names.contains(&name.as_str());
    match p.kind {
        ParamKind::Pointer if buffer => Some(ArgText::Plain(name)),
        ParamKind::Unknown if buffer || number => Some(ArgText::Plain(name)),
        ParamKind::Int { bytes: 4 } if number => Some(ArgText::Plain(name)),
        ParamKind::Int { bytes: 8 } if number => Some(ArgText::Typed("i64", name)),
        ParamKind::Float { bytes: 4 } => size.map(|v| ArgText::F32(v as f64)),
        _ => None,
    }
}

/// The arguments, each parameter matched by its name (`matched`); None when one matches
/// nothing (the error then says what the header lacks).
fn auto_args(
    src: &Source,
    sig: &Signature,
    shared: &Shared,
    known: (&[(String, i64)], &[&str]),
) -> Option<Vec<(ArgText, Origin)>> {
    let origin = match src.header.start {
        Some(at) => Origin::new(&src.shown, at),
        None => Origin::file(&src.shown),
    };
    (sig.params.iter())
        .map(|p| matched(p, shared, known).map(|a| (a, origin.clone())))
        .collect()
}

/// The items a header lacks for `sig` to run: a size for each number parameter and a buffer
/// for each pointer parameter that matches nothing, and a grid and a block where none is
/// given.
fn missing_items(
    sig: &Signature,
    shared: &Shared,
    known: (&[(String, i64)], &[&str]),
    headers: [&Header; 3],
) -> Vec<String> {
    let numbers: Vec<String> = (sig.params.iter())
        .filter(|p| matches!(p.kind, ParamKind::Int { .. }))
        .filter_map(|p| param_name(&p.text))
        .collect();
    // What buffers are as long as: the first number parameter, else the first size, else `n`.
    let len = (numbers.first().cloned())
        .or_else(|| shared.sizes.first().map(|s| s.value.0.text.clone()))
        .unwrap_or_else(|| "n".into());
    // Sizes first, then the buffers over them, then the launch.
    let mut sizes: Vec<String> = Vec::new();
    let mut buffers: Vec<String> = Vec::new();
    let has_size = |n: &str| known.0.iter().any(|(s, _)| s == n);
    let number = |name: &str, sizes: &mut Vec<String>| {
        let value = if sizes.is_empty() { "1<<20" } else { "32" };
        sizes.push(format!("{name}={value}"));
    };
    let buffers_unsized = (sig.params.iter())
        .any(|p| p.kind == ParamKind::Pointer && matched(p, shared, known).is_none());
    if buffers_unsized && !has_size(&len) && !numbers.contains(&len) {
        number(&len, &mut sizes);
    }
    for p in &sig.params {
        if matched(p, shared, known).is_some() {
            continue;
        }
        let Some(name) = param_name(&p.text) else {
            buffers.push(format!(
                "args=... (parameter `{}` has no name to match)",
                p.text
            ));
            continue;
        };
        match p.kind {
            ParamKind::Pointer => {
                let (ty, input) = pointee(&p.text);
                let init = if input { "=random" } else { "" };
                buffers.push(format!("{name}:{ty}[{len}]{init}"));
            }
            ParamKind::Int { bytes: 4 | 8 } => number(&name, &mut sizes),
            ParamKind::Float { bytes: 4 } => sizes.push(format!("{name}=1")),
            _ => buffers.push(format!(
                "args=... (parameter `{}` is not a buffer or a number of 4 or 8 bytes)",
                p.text
            )),
        }
    }
    let mut out = sizes;
    out.append(&mut buffers);
    let given = |f: fn(&Header) -> bool| headers.iter().any(|h| f(h));
    if !given(|h| h.grid.is_some()) {
        out.push(format!("grid=ceil_div({len},256)"));
    }
    if !given(|h| h.block.is_some()) {
        out.push("block=256".into());
    }
    out
}

/// The element type a pointer parameter points at, and whether it is read only (`const`).
fn pointee(param: &str) -> (&'static str, bool) {
    let ty = param.split('*').next().unwrap_or(param);
    let words: Vec<&str> = ty
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let elem = if has("double") {
        "f64"
    } else if has("float") {
        "f32"
    } else if has("uint64_t") || (has("unsigned") && has("long")) || has("size_t") {
        "u64"
    } else if has("unsigned") || has("uint32_t") || has("uint") {
        "u32"
    } else if has("int") || has("int32_t") {
        "i32"
    } else {
        "f32"
    };
    (elem, has("const"))
}

/// The error that says what the header lacks, and the header line that would have it.
fn missing_header(src: &Source, kernel: &str, missing: &[String]) -> CourseError {
    let mut items: Vec<String> = src.header.items.clone();
    items.extend(missing.iter().cloned());
    let line = format!("// gpulab: {}", items.join(" "));
    match src.header.start {
        None => whole(
            &src.shown,
            format!(
                "no `// gpulab:` header says how to launch `{kernel}` and what to give it; add \
                 this line to the file (and make the sizes yours):\n{line}\n(the header's \
                 items are in docs/try.md; `--header \"...\"` gives them on the command line)"
            ),
        ),
        Some(at) => error(
            &src.shown,
            at,
            format!(
                "the header does not say all that `{kernel}` needs: add {}, so that it reads:\n{line}",
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
    }
}

/// `p` with the macros of `combo` (indices into `defines` and their values).
fn with_defines(
    p: &Planned,
    combo: &[(usize, usize)],
    sources: &[Source],
    defines: &[Define],
) -> Planned {
    let defs: Vec<(String, String, Origin)> = combo
        .iter()
        .map(|&(i, j)| {
            let (v, o) = &defines[i].values[j];
            (defines[i].name.clone(), v.clone(), o.clone())
        })
        .collect();
    let mut note = sources[p.source].shown.clone();
    for (n, v, _) in &defs {
        note.push_str(&format!(" -D{n}={v}"));
    }
    Planned {
        defines: defs,
        note,
        ..p.clone()
    }
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
) -> Result<(Checked, Option<Origin>), Errors> {
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

/// The lesson file's text.
fn write(
    sources: &[Source],
    shared: &Shared,
    cpu: &[(String, i64)],
    planned: &[Planned],
    checked: &(Checked, Option<Origin>),
    env: &[(String, i64)],
) -> Yaml {
    let mut y = Yaml::default();
    let first = Origin::file(&sources[0].shown);
    let q = super::try_yaml::quoted;
    y.line("format_version: 1");
    y.line(&format!("id: {LESSON_ID}"));
    let names: Vec<String> = sources.iter().map(|s| printable(&s.name)).collect();
    y.line(&format!(
        "title: {}",
        q(&format!("try: {}", names.join(", ")))
    ));
    let shared_mem = sources
        .iter()
        .any(|s| signature::code_only(&s.text).contains("__shared__"));
    y.line(&format!(
        "space: {}",
        if shared_mem { "shared" } else { "global" }
    ));
    y.line("pages:");
    y.line(&format!("  - title: {}", q("Your kernel")));
    y.line(&format!(
        "    text: {}",
        q(&page(sources, shared, planned, checked, env))
    ));
    if !shared.sizes.is_empty() {
        y.line("problem:");
        for g in &shared.sizes {
            let (n, v) = &g.value;
            y.value(
                &format!("  {}: ", q(&n.text)),
                &v.text,
                &Origin::new(&g.file, v.at),
            );
        }
    }
    if !cpu.is_empty() {
        y.line("problem_cpu:");
        for (g, (n, v)) in shared.cpu_sizes.iter().zip(cpu) {
            y.raw(
                &format!("  {}: ", q(n)),
                &v.to_string(),
                &Origin::new(&g.file, g.value.1.at),
            );
        }
    }
    if !shared.buffers.is_empty() {
        y.line("buffers:");
        for g in &shared.buffers {
            let b = &g.value;
            let o = |at| Origin::new(&g.file, at);
            y.value("  - name: ", &b.name.text, &o(b.name.at));
            y.raw("    type: ", elem_name(b.ty), &o(b.ty_at));
            y.value("    len: ", &b.len.text, &o(b.len.at));
            let (init, extra) = match &b.fill {
                Fill::Random(r) => (
                    "random",
                    r.map(|(lo, hi)| format!("range: [{lo:?}, {hi:?}]")),
                ),
                Fill::Seq => ("seq", None),
                Fill::Zeros => ("zeros", None),
                Fill::Const(x) => ("const", Some(format!("value: {x:?}"))),
                Fill::Output => ("poison", None),
            };
            y.raw("    init: ", init, &o(b.fill_at));
            if let Some(extra) = extra {
                y.raw("    ", &extra, &o(b.fill_at));
            }
        }
    }
    y.line("variants:");
    for p in planned {
        let src = &sources[p.source];
        let file = Origin::file(&src.shown);
        y.value("  - name: ", &p.name, &file);
        y.value("    source: ", &src.name, &file);
        y.value("    kernel: ", &p.kernel.0, &p.kernel.1);
        if !p.defines.is_empty() {
            y.line("    defines:");
            for (n, v, o) in &p.defines {
                let head = format!("      {}: ", q(n));
                match v.parse::<i64>() {
                    Ok(int) => y.raw(&head, &int.to_string(), o),
                    Err(_) => y.value(&head, v, o),
                }
            }
        }
        y.line("    launch:");
        for (key, dims) in [("grid", &p.grid), ("block", &p.block)] {
            y.line(&format!("      {key}:"));
            for d in &dims.value {
                y.value("        - ", &d.text, &Origin::new(&dims.file, d.at));
            }
        }
        if let Some(s) = &p.smem {
            y.value(
                "      smem: ",
                &s.value.text,
                &Origin::new(&s.file, s.value.at),
            );
        }
        if p.args.is_empty() {
            y.line("    args: []");
        } else {
            y.line("    args:");
            for (a, o) in &p.args {
                match a {
                    ArgText::Plain(s) => y.value("      - ", s, o),
                    ArgText::Typed(t, s) => y.value(&format!("      - {t}: "), s, o),
                    ArgText::F32(x) => y.raw("      - f32: ", &format!("{x:?}"), o),
                }
            }
        }
        y.value("    note: ", &printable(&p.note), &file);
    }
    let at = |o: &Option<Origin>| o.clone().unwrap_or_else(|| first.clone());
    match (&checked.0, &shared.check) {
        (Checked::Builtin(_), Some(c)) => {
            let o = Origin::new(&c.file, c.value.1);
            y.line("reference:");
            match &c.value.0 {
                Builtin::Copy { from, to } => {
                    y.raw("  builtin: ", "copy", &o);
                    y.value("  from: ", &from.text, &Origin::new(&c.file, from.at));
                    y.value("  to: ", &to.text, &Origin::new(&c.file, to.at));
                }
                Builtin::Transpose {
                    from,
                    to,
                    rows,
                    cols,
                } => {
                    y.raw("  builtin: ", "transpose", &o);
                    y.value("  from: ", &from.text, &Origin::new(&c.file, from.at));
                    y.value("  to: ", &to.text, &Origin::new(&c.file, to.at));
                    y.value("  rows: ", &rows.text, &Origin::new(&c.file, rows.at));
                    y.value("  cols: ", &cols.text, &Origin::new(&c.file, cols.at));
                }
            }
        }
        (Checked::Variant(v), _) => y.value("reference: ", v, &at(&checked.1)),
        // Nothing is compared: the lesson still names a variant, whose run is not checked.
        _ => y.value("reference: ", &planned[0].name, &first),
    }
    if shared.bytes.is_some() || shared.flops.is_some() {
        y.line("metrics:");
        for (key, g) in [("bytes", &shared.bytes), ("flops", &shared.flops)] {
            if let Some(g) = g {
                y.value(
                    &format!("  {key}: "),
                    &g.value.text,
                    &Origin::new(&g.file, g.value.at),
                );
            }
        }
        if let Some(p) = &shared.peak {
            let word = if p.value.0 { "copy" } else { "none" };
            y.raw("  peak: ", word, &Origin::new(&p.file, p.value.1));
        }
    }
    if let Some(t) = &shared.trace {
        y.line("trace:");
        y.raw(
            "  blocks: ",
            &t.value.0.to_string(),
            &Origin::new(&t.file, t.value.1),
        );
    }
    y
}

fn elem_name(ty: ElemType) -> &'static str {
    match ty {
        ElemType::F32 => "f32",
        ElemType::F64 => "f64",
        ElemType::I32 => "i32",
        ElemType::U32 => "u32",
        ElemType::U64 => "u64",
    }
}

/// A file's name as prose may show it: no control characters, and no `{{` (a figure).
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect::<String>()
        .replace("{{", "{ {")
}

/// The page the lab shows beside the columns: what runs, at what size, checked how.
fn page(
    sources: &[Source],
    shared: &Shared,
    planned: &[Planned],
    checked: &(Checked, Option<Origin>),
    env: &[(String, i64)],
) -> String {
    let mut out = String::new();
    let files: Vec<String> = sources.iter().map(|s| printable(&s.shown)).collect();
    out.push_str(&format!("{}, run as a lesson: ", files.join(", ")));
    let mut launches: Vec<String> = Vec::new();
    for p in planned {
        let dims = |d: &Given<Vec<Written>>| {
            d.value
                .iter()
                .map(|w| w.text.clone())
                .collect::<Vec<_>>()
                .join(",")
        };
        let l = format!("{}<<<{}, {}>>>", p.kernel.0, dims(&p.grid), dims(&p.block));
        if !launches.contains(&l) {
            launches.push(l);
        }
    }
    out.push_str(&launches.join("; "));
    if !env.is_empty() {
        let sizes: Vec<String> = env.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        out.push_str(&format!(" with {}", sizes.join(", ")));
    }
    out.push_str(". ");
    let bufs: Vec<String> = (shared.buffers.iter())
        .map(|b| {
            let role = if b.value.fill == Fill::Output {
                "out"
            } else {
                "in"
            };
            format!("{} ({role})", b.value.name.text)
        })
        .collect();
    if !bufs.is_empty() {
        out.push_str(&format!("Buffers: {}. ", bufs.join(", ")));
    }
    let checked = match &checked.0 {
        Checked::Variant(v) => format!("Outputs checked against `{v}`."),
        Checked::Builtin(w) => format!("Outputs checked against {w}."),
        Checked::Nothing => "Outputs not compared: no reference.".into(),
    };
    out.push_str(&checked);
    out.push_str(
        "\n\nEach save of a file runs it again (r: now). c shows the code with its SASS, \
         h the heatmap, i every figure of the focused variant.",
    );
    out
}

#[cfg(test)]
#[path = "try_lesson_tests.rs"]
mod tests;
