//! From `RawLesson` to `Lesson`: every rule of the format that serde cannot check, each
//! error placed at the most specific part of the file that it concerns. The rules for sizes
//! and buffers, references and variants live in sibling files; this one holds the lesson's
//! head and the lists that need nothing else.

use super::Errors;
use super::cx::{Cx, Known, Reload};
use super::sweeps::{self, Expansion};
use super::{
    attrs, exercises, measures, reference, requires, sizes, templates, textures, variants,
};
use crate::course::bundle::CourseRoot;
use crate::course::claims::parse_claim;
use crate::course::schema::RawLesson;
use crate::course::yaml::spans::Spans;
use crate::model::claim::Claim;
use crate::model::{Lesson, Metrics, Page, Question, Topic};
use std::path::Path;

const DEFAULT_TRACE_BLOCKS: u32 = 4;

/// What identifies the lesson: the keys at its top, and its place from the file name.
struct Head {
    id: Option<String>,
    title: Option<String>,
    space: Option<Topic>,
    order: Option<u32>,
}

pub(super) fn resolve(
    raw: RawLesson,
    root: &CourseRoot,
    file: &str,
    spans: &Spans,
    errs: &mut Errors,
    (sizes, reload): (&[(String, i64)], Reload),
) -> Option<Lesson> {
    let mut cx = Cx::new(spans, errs, &raw.failed, sizes);
    cx.reload = Some(reload);
    let head = head(&mut cx, &raw, file);
    let problem = sizes::problem(&mut cx, &raw);
    let pages = pages(&mut cx, &raw, &problem);
    let problem_cpu = (raw.head.problem_cpu.as_ref())
        .and_then(|s| exercises::size_set(&mut cx, s, "problem_cpu", &problem))
        .unwrap_or_default();
    let buffer_names = names_of(&cx, "buffers", raw.buffers.len());
    let buffers = sizes::buffers(&mut cx, &raw, &problem);
    let expansions = sweeps::expand(&mut cx, &raw.variants, &problem);
    let variant_names = variant_names(&cx, &raw, &expansions);
    if raw.variants.is_empty() {
        no_variants(&mut cx);
    }
    let (texture_names, textures) = textures::textures(&mut cx, &raw, &problem, &buffers);
    let known = Known {
        problem: &problem,
        buffers: &buffers,
        buffer_names: &buffer_names,
        texture_names: &texture_names,
        textures: &textures,
    };
    let mut knobs = Vec::new();
    let mut vars = variants::resolve_all(
        &mut cx,
        root,
        &raw.variants,
        &expansions,
        &known,
        &mut knobs,
    );
    sweep_knobs(&mut cx, &raw);
    let reference = lesson_reference(&mut cx, &raw, &variant_names, &known);
    if let (Some(crate::model::Reference::Variant(i)), Some(vs)) = (&reference, vars.as_deref())
        && vs.get(*i).is_some_and(|v| v.transfer.is_some())
    {
        // A copy has no outputs for the kernels to match.
        cx.err(
            "reference",
            format!(
                "the reference must be a kernel; `{}` is a `transfer`",
                vs[*i].name
            ),
        );
    }
    let metrics = metrics(&mut cx, &raw, &problem);
    let expect = expect(&mut cx, &raw, &variant_names);
    let measures = measures::measures(&mut cx, &raw, &known);
    for v in vars.iter_mut().flatten() {
        measures::set_per(&mut cx, &raw, &known, v);
    }
    measures::check_measure_claims(&mut cx, &raw, &expect);
    let tolerance = measures::tolerance(&mut cx, &raw);
    let requires = attrs::with_peer_requirement(
        attrs::with_cluster_requirement(requires::requires(&mut cx, &raw), vars.as_deref()),
        &buffers,
    );
    let l2_persisting_bytes = attrs::persisting_bytes(&mut cx, &raw, &problem);
    let trace_blocks = trace_blocks(&mut cx, &raw);
    let checkpoint = checkpoint(&mut cx, &raw, &problem);
    let mut exercises = exercises::exercises(&mut cx, root, &raw, &known, &variant_names);
    // An exercise's `yours` (and its solution, built from it) divides by its own defines.
    for e in exercises.iter_mut().flatten() {
        measures::set_per(&mut cx, &raw, &known, &mut e.yours);
    }
    cx.report_size_errors();
    Some(Lesson {
        id: head.id?,
        title: head.title?,
        topic: head.space?,
        order: head.order?,
        file: file.to_string(),
        pages: pages?,
        problem,
        problem_cpu,
        buffers: buffers.into_iter().collect::<Option<_>>()?,
        variants: vars?,
        reference: reference?,
        metrics,
        expect,
        checkpoint: checkpoint?,
        trace_blocks,
        tolerance,
        measures,
        requires,
        sweeps: sweeps::sweeps(expansions),
        l2_persisting_bytes,
        textures: textures.into_iter().collect::<Option<_>>()?,
        exercises: exercises?,
        knobs,
    })
}

/// A sweep's variants are the lesson's own figures; a knob turns one variant, not many.
fn sweep_knobs(cx: &mut Cx, raw: &RawLesson) {
    for (i, v) in raw.variants.iter().enumerate() {
        if let Some(v) = v
            && v.sweep.is_some()
            && v.knobs.is_some()
        {
            let msg = "a variant with a `sweep` cannot have `knobs` as well";
            cx.err(&format!("variants[{i}].knobs"), msg);
        }
    }
}

fn lesson_reference(
    cx: &mut Cx,
    raw: &RawLesson,
    variant_names: &[String],
    known: &Known,
) -> Option<crate::model::Reference> {
    match &raw.head.reference {
        Some(r) => reference::reference(cx, r, variant_names, known),
        None => {
            cx.missing(
                "reference",
                "a variant's name or { builtin: copy, from: .., to: .. }",
            );
            None
        }
    }
}

/// The names of the variants the lesson will have, in order: a sweep stands for the
/// variants it generates. A variant that could not be read keeps its written name, so that
/// a claim naming it is not blamed as well.
fn variant_names(cx: &Cx, raw: &RawLesson, expansions: &[Expansion]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, e) in expansions.iter().enumerate() {
        match (e, &raw.variants[i]) {
            (Expansion::Sweep(_), Some(v)) => out.extend(e.generated(v).into_iter().map(|g| g.0)),
            (Expansion::Broken(names), Some(v)) if v.sweep.is_some() => {
                out.extend(names.iter().cloned())
            }
            _ => out.extend(
                cx.spans
                    .scalar(&format!("variants[{i}].name"))
                    .map(str::to_string),
            ),
        }
    }
    out
}

fn no_variants(cx: &mut Cx) {
    if cx.failed.contains("variants") {
        return;
    }
    if cx.has("variants") {
        cx.err(
            "variants",
            "`variants` is empty: a lesson needs at least one",
        );
    } else {
        cx.missing("variants", "the kernels to compare");
    }
}

fn head(cx: &mut Cx, raw: &RawLesson, file: &str) -> Head {
    let head = &raw.head;
    match head.format_version {
        Some(1) => {}
        Some(v) => cx.err(
            "format_version",
            format!("format_version {v} is not supported (this gpulab reads version 1)"),
        ),
        None => cx.missing("format_version", "1"),
    }
    let valid = head.id.as_deref().filter(|id| valid_id(id));
    let order = file_order(cx, file, valid);
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
            cx.missing("id", "lower-case letters, digits and '-'");
            None
        }
    };
    let title = match &head.title {
        Some(t) if !t.trim().is_empty() => Some(t.clone()),
        _ => {
            cx.missing("title", "the lesson's title");
            None
        }
    };
    let space = space(cx, head.space.as_deref());
    Head {
        id,
        title,
        space,
        order,
    }
}

fn space(cx: &mut Cx, written: Option<&str>) -> Option<Topic> {
    let Some(s) = written else {
        cx.missing("space", "the memory space the lesson is about");
        return None;
    };
    let found = Topic::ALL.into_iter().find(|m| m.id() == s);
    if found.is_none() {
        let names: Vec<&str> = Topic::ALL.into_iter().map(Topic::id).collect();
        cx.err(
            "space",
            format!("unknown space `{s}` (spaces: {})", names.join(", ")),
        );
    }
    found
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
        cx.err_start(format!(
            "file name `{name}` must start with its place in the course, as in `05-{stem}.yaml`"
        ));
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

fn pages(cx: &mut Cx, raw: &RawLesson, problem: &[(String, i64)]) -> Option<Vec<Page>> {
    if raw.pages.is_empty() {
        if cx.has("pages") && !cx.failed.contains("pages") {
            cx.err(
                "pages",
                "`pages` is empty: a lesson needs at least one page",
            );
        } else {
            cx.missing("pages", "the lesson's prose, a list of { title, text }");
        }
        return None;
    }
    let mut out = Vec::new();
    let mut ok = true;
    for (k, p) in raw.pages.iter().enumerate() {
        let Some(p) = p else {
            ok = false;
            continue;
        };
        let text = templates::expand(cx, &format!("pages[{k}].text"), &p.text, problem);
        match text {
            Some(text) => out.push(Page {
                title: p.title.clone(),
                text,
                answers: p.answers,
            }),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn expect(cx: &mut Cx, raw: &RawLesson, variant_names: &[String]) -> Vec<Claim> {
    let names: Vec<&str> = variant_names.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for (k, text) in raw.head.expect.iter().flatten().enumerate() {
        match parse_claim(text, &names) {
            Ok(c) => out.push(c),
            Err(e) => cx.err(&format!("expect[{k}]"), e.to_string()),
        }
    }
    out
}

fn trace_blocks(cx: &mut Cx, raw: &RawLesson) -> u32 {
    match raw.head.trace.as_ref().and_then(|t| t.blocks) {
        Some(0) => {
            cx.err("trace.blocks", "`trace.blocks` must be at least 1");
            DEFAULT_TRACE_BLOCKS
        }
        Some(n) => n,
        None => DEFAULT_TRACE_BLOCKS,
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
        Some("cublas") => out.cublas_peak = true,
        Some("link") => out.link_peak = true,
        Some(other) => cx.err(
            "metrics.peak",
            format!("`peak` is `copy`, `cublas`, `link` or `none`, not `{other}`"),
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

fn checkpoint(cx: &mut Cx, raw: &RawLesson, problem: &[(String, i64)]) -> Option<Vec<Question>> {
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
        // Figures in the question's text come from the problem, as in pages.
        let at = format!("checkpoint[{k}]");
        let mut text = |s: &str| templates::expand(cx, &at, s, problem);
        let (Some(qq), Some(why)) = (text(&q.q), text(&q.why)) else {
            ok = false;
            continue;
        };
        let choices: Option<Vec<String>> = q.choices.iter().map(|c| text(c)).collect();
        let Some(choices) = choices else {
            ok = false;
            continue;
        };
        out.push(Question {
            q: qq,
            choices,
            answer: q.answer,
            why,
        });
    }
    ok.then_some(out)
}
