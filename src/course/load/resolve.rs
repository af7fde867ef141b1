//! From `RawLesson` to `Lesson`: every rule of the format that serde cannot check, each
//! error placed at the most specific part of the file that it concerns.

use super::Errors;
use super::variants;
use crate::course::bundle::CourseRoot;
use crate::course::expr::{self, FUNCTIONS, is_identifier};
use crate::course::schema::{Expr, RawBuiltin, RawInit, RawLesson, RawReference};
use crate::course::spans::{Pos, Spans};
use crate::model::claim::parse_claim;
use crate::model::{Buffer, ElemType, Init, Lesson, MemSpace, Metrics, Page, Question, Reference};
use std::collections::HashSet;
use std::path::Path;

pub(super) const DEFAULT_TRACE_BLOCKS: u32 = 4;

/// Where errors go, and what is already known to be broken (so that it is not blamed twice).
pub(super) struct Cx<'a> {
    pub spans: &'a Spans,
    pub errs: &'a mut Errors,
    /// Names whose own definition failed: an expression naming one says nothing new.
    pub broken_names: HashSet<String>,
}

impl Cx<'_> {
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
    fn has(&self, key: &str) -> bool {
        self.spans.key(key).is_some()
    }
}

pub(super) fn resolve(
    raw: RawLesson,
    root: &CourseRoot,
    file: &str,
    spans: &Spans,
    errs: &mut Errors,
) -> Option<Lesson> {
    let mut cx = Cx {
        spans,
        errs,
        broken_names: HashSet::new(),
    };
    let failed: HashSet<&str> = raw.failed.iter().map(String::as_str).collect();
    let head = &raw.head;
    // A key that is absent is reported here; one whose value failed to read already was.
    let missing = |cx: &mut Cx, key: &str, what: &str| {
        if failed.contains(key) {
            return;
        }
        if cx.has(key) {
            cx.err_key(key, format!("`{key}` has no value; it should be {what}"));
        } else {
            cx.errs.at(Pos::START, format!("missing `{key}` ({what})"));
        }
    };

    match head.format_version {
        Some(1) => {}
        Some(v) => cx.err(
            "format_version",
            format!("format_version {v} is not supported (this gpulab reads version 1)"),
        ),
        None => missing(&mut cx, "format_version", "1"),
    }
    let valid = head.id.as_deref().filter(|id| valid_id(id));
    let order = file_order(&mut cx, file, valid);
    let id = match &head.id {
        Some(id) if valid_id(id) => Some(id.clone()),
        Some(id) => {
            cx.err(
                "id",
                format!("id `{id}` may hold only lower-case letters, digits and '-'"),
            );
            None
        }
        None => {
            missing(&mut cx, "id", "lower-case letters, digits and '-'");
            None
        }
    };
    let title = match &head.title {
        Some(t) if !t.trim().is_empty() => Some(t.clone()),
        _ => {
            missing(&mut cx, "title", "the lesson's title");
            None
        }
    };
    let space = match &head.space {
        Some(s) => MemSpace::ALL
            .into_iter()
            .find(|m| space_name(*m) == s)
            .or_else(|| {
                let names: Vec<&str> = MemSpace::ALL.into_iter().map(space_name).collect();
                cx.err(
                    "space",
                    format!("unknown space `{s}` (spaces: {})", names.join(", ")),
                );
                None
            }),
        None => {
            missing(&mut cx, "space", "the memory space the lesson is about");
            None
        }
    };

    let pages = pages(&mut cx, &raw, &missing);
    let problem = problem(&mut cx, &raw);
    let buffer_names = names_of(&cx, "buffers", raw.buffers.len());
    let buffers = buffers(&mut cx, &raw, &problem);
    let variant_names = names_of(&cx, "variants", raw.variants.len());
    if raw.variants.is_empty() && !failed.contains("variants") {
        if cx.has("variants") {
            cx.err(
                "variants",
                "`variants` is empty: a lesson needs at least one",
            );
        } else {
            missing(&mut cx, "variants", "the kernels to compare");
        }
    }
    let vars = variants::resolve_all(
        &mut cx,
        root,
        &raw.variants,
        &problem,
        &buffers,
        &buffer_names,
    );
    let reference = match &head.reference {
        Some(r) => reference(
            &mut cx,
            r,
            &variant_names,
            &buffers,
            &buffer_names,
            &problem,
        ),
        None => {
            missing(
                &mut cx,
                "reference",
                "a variant's name or { builtin: copy, from: .., to: .. }",
            );
            None
        }
    };
    let metrics = metrics(&mut cx, &raw, &problem);
    let names: Vec<&str> = variant_names.iter().map(String::as_str).collect();
    let mut expect = Vec::new();
    for (k, text) in head.expect.iter().flatten().enumerate() {
        match parse_claim(text, &names) {
            Ok(c) => expect.push(c),
            Err(m) => cx.err(&format!("expect[{k}]"), m),
        }
    }
    let trace_blocks = match head.trace.as_ref().and_then(|t| t.blocks) {
        Some(0) => {
            cx.err("trace.blocks", "`trace.blocks` must be at least 1");
            DEFAULT_TRACE_BLOCKS
        }
        Some(n) => n,
        None => DEFAULT_TRACE_BLOCKS,
    };
    let checkpoint = checkpoint(&mut cx, &raw);

    Some(Lesson {
        id: id?,
        title: title?,
        space: space?,
        order: order?,
        file: file.to_string(),
        pages: pages?,
        problem,
        buffers: buffers.into_iter().collect::<Option<_>>()?,
        variants: vars?,
        reference: reference?,
        metrics,
        expect,
        checkpoint: checkpoint?,
        trace_blocks,
    })
}

fn space_name(m: MemSpace) -> &'static str {
    match m {
        MemSpace::Global => "global",
        MemSpace::Shared => "shared",
        MemSpace::Register => "register",
        MemSpace::Local => "local",
        MemSpace::Constant => "constant",
        MemSpace::Texture => "texture",
        MemSpace::L2 => "l2",
        MemSpace::Dsmem => "dsmem",
        MemSpace::Capstone => "capstone",
    }
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The `NN` of `NN-<id>.yaml`; the rest of the name must be the id.
fn file_order(cx: &mut Cx, file: &str, id: Option<&str>) -> Option<u32> {
    let name = Path::new(file)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(file);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let digits = stem.chars().take_while(char::is_ascii_digit).count();
    let rest = stem[digits..].strip_prefix('-');
    let (Some(rest), true) = (rest, digits >= 2) else {
        cx.errs.at(
            Pos::START,
            format!(
                "file name `{name}` must start with its place in the course, as in `05-{stem}.yaml`"
            ),
        );
        return None;
    };
    if let Some(id) = id
        && id != rest
    {
        cx.err(
            "id",
            format!("id `{id}` differs from the file name `{name}` (expected `{rest}`)"),
        );
    }
    stem[..digits].parse().ok()
}

/// The names given in a list, including elements that failed to read (so that a reference to
/// one is not reported as unknown as well).
fn names_of(cx: &Cx, list: &str, n: usize) -> Vec<String> {
    (0..n)
        .filter_map(|i| {
            cx.spans
                .scalar(&format!("{list}[{i}].name"))
                .map(str::to_string)
        })
        .collect()
}

fn pages(
    cx: &mut Cx,
    raw: &RawLesson,
    missing: &impl Fn(&mut Cx, &str, &str),
) -> Option<Vec<Page>> {
    if raw.pages.is_empty() {
        if cx.has("pages") && !raw.failed.iter().any(|f| f == "pages") {
            cx.err(
                "pages",
                "`pages` is empty: a lesson needs at least one page",
            );
        } else {
            missing(cx, "pages", "the lesson's prose, a list of { title, text }");
        }
        return None;
    }
    raw.pages
        .iter()
        .map(|p| {
            p.as_ref().map(|p| Page {
                title: p.title.clone(),
                text: p.text.clone(),
            })
        })
        .collect()
}

fn problem(cx: &mut Cx, raw: &RawLesson) -> Vec<(String, i64)> {
    let mut env: Vec<(String, i64)> = Vec::new();
    for (name, e) in raw.head.problem.iter().flat_map(|p| &p.0) {
        let path = format!("problem.{name}");
        if !is_identifier(name) || FUNCTIONS.contains(&name.as_str()) {
            cx.err_key(
                &path,
                format!("`{name}` cannot be a size name (use letters, digits and '_', not a function name)"),
            );
            cx.broken_names.insert(name.clone());
            continue;
        }
        match cx.eval(&path, e, &env) {
            Some(v) => env.push((name.clone(), v)),
            None => {
                cx.broken_names.insert(name.clone());
            }
        }
    }
    env
}

fn buffers(cx: &mut Cx, raw: &RawLesson, problem: &[(String, i64)]) -> Vec<Option<Buffer>> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for (i, b) in raw.buffers.iter().enumerate() {
        let Some(b) = b else {
            out.push(None);
            continue;
        };
        let at = |k: &str| format!("buffers[{i}].{k}");
        let mut ok = true;
        if !is_identifier(&b.name) {
            cx.err(
                &at("name"),
                format!(
                    "buffer name `{}` is not a name ([A-Za-z_][A-Za-z0-9_]*)",
                    b.name
                ),
            );
            ok = false;
        } else if seen.contains(&b.name.as_str()) {
            cx.err(&at("name"), format!("buffer `{}` is defined twice", b.name));
            ok = false;
        } else if problem.iter().any(|(n, _)| *n == b.name) {
            cx.err(
                &at("name"),
                format!("buffer `{}` has the name of a problem size", b.name),
            );
            ok = false;
        }
        seen.push(&b.name);
        let len = cx.eval(&at("len"), &b.len, problem);
        if let Some(n) = len
            && n <= 0
        {
            cx.err(
                &at("len"),
                format!("a buffer's length must be > 0 (`{}` is {n})", b.len.0),
            );
            ok = false;
        }
        let init = init(cx, i, b.init, b.ty, b.value, b.range);
        match (ok, len, init) {
            (true, Some(len), Some(init)) => out.push(Some(Buffer {
                name: b.name.clone(),
                ty: b.ty,
                len: len as u64,
                init,
            })),
            _ => out.push(None),
        }
    }
    out
}

fn init(
    cx: &mut Cx,
    i: usize,
    init: RawInit,
    ty: ElemType,
    value: Option<f64>,
    range: Option<(f64, f64)>,
) -> Option<Init> {
    let at = |k: &str| format!("buffers[{i}].{k}");
    let mut ok = true;
    if value.is_some() && init != RawInit::Const {
        cx.err_key(&at("value"), "`value` is only for `init: const`");
        ok = false;
    }
    if range.is_some() && init != RawInit::Random {
        cx.err_key(&at("range"), "`range` is only for `init: random`");
        ok = false;
    }
    let out = match init {
        RawInit::Random => {
            let float = matches!(ty, ElemType::F32 | ElemType::F64);
            let (lo, hi) = range.unwrap_or(if float { (-1.0, 1.0) } else { (0.0, 65536.0) });
            if lo >= hi || !lo.is_finite() || !hi.is_finite() {
                cx.err(
                    &at("range"),
                    format!("`range: [{lo}, {hi}]` is empty: lo must be < hi"),
                );
                ok = false;
            }
            Init::Random { lo, hi }
        }
        RawInit::Seq => Init::Seq,
        RawInit::Zeros => Init::Zeros,
        RawInit::Poison => Init::Poison,
        RawInit::Const => match value {
            Some(v) => Init::Const(v),
            None => {
                cx.err(&at("init"), "`init: const` needs a `value`");
                return None;
            }
        },
    };
    ok.then_some(out)
}

fn reference(
    cx: &mut Cx,
    r: &RawReference,
    variant_names: &[String],
    buffers: &[Option<Buffer>],
    buffer_names: &[String],
    problem: &[(String, i64)],
) -> Option<Reference> {
    match r {
        RawReference::Variant(name) => match variant_names.iter().position(|n| n == name) {
            Some(i) => Some(Reference::Variant(i)),
            None => {
                cx.err(
                    "reference",
                    format!(
                        "unknown variant `{name}` (variants: {})",
                        variant_names.join(", ")
                    ),
                );
                None
            }
        },
        RawReference::Builtin(b) => builtin(cx, b, buffers, buffer_names, problem),
    }
}

fn builtin(
    cx: &mut Cx,
    b: &RawBuiltin,
    buffers: &[Option<Buffer>],
    buffer_names: &[String],
    problem: &[(String, i64)],
) -> Option<Reference> {
    let buffer = |cx: &mut Cx, key: &str, name: &str| -> Option<(usize, Buffer)> {
        match buffer_names.iter().position(|n| n == name) {
            Some(i) => buffers.get(i).cloned().flatten().map(|b| (i, b)),
            None => {
                cx.err(
                    &format!("reference.{key}"),
                    format!(
                        "unknown buffer `{name}` (buffers: {})",
                        buffer_names.join(", ")
                    ),
                );
                None
            }
        }
    };
    let from = buffer(cx, "from", &b.from);
    let to = buffer(cx, "to", &b.to);
    if let Some((_, t)) = &to
        && !t.is_output()
    {
        cx.err(
            "reference.to",
            format!("`{}` is not an output: give it `init: poison`", t.name),
        );
    }
    let (from, to) = (from?, to?);
    match b.builtin.as_str() {
        "copy" => {
            for key in ["rows", "cols"] {
                if cx.spans.key(&format!("reference.{key}")).is_some() {
                    cx.err_key(
                        &format!("reference.{key}"),
                        format!("`{key}` is only for `builtin: transpose`"),
                    );
                }
            }
            if to.1.len > from.1.len {
                cx.err(
                    "reference",
                    format!(
                        "`{}` has {} elements but `{}` only {}",
                        to.1.name, to.1.len, from.1.name, from.1.len
                    ),
                );
                return None;
            }
            Some(Reference::Copy {
                from: from.0,
                to: to.0,
            })
        }
        "transpose" => {
            let (Some(rows), Some(cols)) = (&b.rows, &b.cols) else {
                cx.err("reference", "`builtin: transpose` needs `rows` and `cols`");
                return None;
            };
            let rows = cx.eval("reference.rows", rows, problem);
            let cols = cx.eval("reference.cols", cols, problem);
            let (rows, cols) = (rows?, cols?);
            if rows <= 0 || cols <= 0 {
                cx.err(
                    "reference",
                    format!("rows and cols must be > 0 (they are {rows} and {cols})"),
                );
                return None;
            }
            let n = rows.checked_mul(cols).map_or(u64::MAX, |n| n as u64);
            for (_, buf) in [&from, &to] {
                if n > buf.len {
                    cx.err(
                        "reference",
                        format!(
                            "rows x cols = {n} but `{}` has {} elements",
                            buf.name, buf.len
                        ),
                    );
                    return None;
                }
            }
            Some(Reference::Transpose {
                from: from.0,
                to: to.0,
                rows: rows as u64,
                cols: cols as u64,
            })
        }
        other => {
            cx.err(
                "reference.builtin",
                format!("unknown builtin `{other}` (builtins: copy, transpose)"),
            );
            None
        }
    }
}

fn metrics(cx: &mut Cx, raw: &RawLesson, problem: &[(String, i64)]) -> Metrics {
    let mut out = Metrics::default();
    let Some(m) = &raw.head.metrics else {
        return out;
    };
    match m.peak.as_deref() {
        None | Some("copy") => {}
        Some("none") => out.no_peak = true,
        Some(other) => cx.err(
            "metrics.peak",
            format!("`peak` is `copy` or `none`, not `{other}`"),
        ),
    }
    for (key, e, slot) in [
        ("bytes", &m.bytes, &mut out.bytes),
        ("flops", &m.flops, &mut out.flops),
    ] {
        let Some(e) = e else { continue };
        let path = format!("metrics.{key}");
        match cx.eval(&path, e, problem) {
            Some(v) if v > 0 => *slot = Some(v as f64),
            Some(v) => cx.err(&path, format!("`{key}` must be > 0 (`{}` is {v})", e.0)),
            None => {}
        }
    }
    out
}

fn checkpoint(cx: &mut Cx, raw: &RawLesson) -> Option<Vec<Question>> {
    let mut out = Vec::new();
    let mut ok = true;
    for (k, q) in raw.checkpoint.iter().enumerate() {
        let Some(q) = q else {
            ok = false;
            continue;
        };
        let n = q.choices.len();
        if !(2..=6).contains(&n) {
            cx.err(
                &format!("checkpoint[{k}].choices"),
                format!("a question has 2 to 6 choices (this one has {n})"),
            );
            ok = false;
        } else if q.answer >= n {
            cx.err(
                &format!("checkpoint[{k}].answer"),
                format!(
                    "answer {} is out of range: choices are numbered 0 to {}",
                    q.answer,
                    n - 1
                ),
            );
            ok = false;
        }
        out.push(Question {
            q: q.q.clone(),
            choices: q.choices.clone(),
            answer: q.answer,
            why: q.why.clone(),
        });
    }
    ok.then_some(out)
}
