//! Variants: `like:` inheritance, the keys every variant needs and its kernel source (the
//! launch is checked in `launch.rs`, the entry point in `kernel.rs`). Inherited keys keep the
//! path where they were written, so an error in a parent's key points at the parent's text.

use super::attrs::{Written, launch_attrs};
use super::constants;
use super::cx::{Cx, Known};
use super::kernel::kernel_problem;
use super::launch::{arguments, dims, env_with_defines};
use super::params::check_args;
use super::sweeps::Expansion;
use crate::course::bundle::CourseRoot;
use crate::course::confine::SourceError;
use crate::course::schema::RawTransfer;
use crate::course::schema::{CarveoutText, RawConstant, RawL2Window};
use crate::course::schema::{DefineValue, Dims, Expr, RawArg, RawVariant};
use crate::model::Variant;
use std::collections::HashMap;

/// A value and the path it was written at.
type At<T> = Option<(T, String)>;

/// A variant after `like:` is applied, before evaluation.
#[derive(Clone, Default)]
pub(super) struct Merged {
    source: At<String>,
    kernel: At<String>,
    pub(super) defines: Vec<(String, DefineValue)>,
    grid: At<Dims>,
    block: At<Dims>,
    smem: At<Expr>,
    cluster: At<Dims>,
    l2_window: At<RawL2Window>,
    carveout: At<CarveoutText>,
    args: At<Vec<RawArg>>,
    pub(super) options: Vec<String>,
    note: Option<String>,
    constants: At<Vec<RawConstant>>,
    cold_l2: bool,
    transfer: At<RawTransfer>,
    prefetch: At<bool>,
}

impl Merged {
    /// What a transfer variant is made of, and where each kernel key it must not have was
    /// written (an inherited one at its parent's text).
    pub(super) fn transfer_parts(&self) -> super::transfer::Parts {
        let kernel_keys = [
            self.source.as_ref().map(|s| s.1.clone()),
            self.kernel.as_ref().map(|s| s.1.clone()),
            self.grid.as_ref().map(|s| s.1.clone()),
            self.block.as_ref().map(|s| s.1.clone()),
            self.smem.as_ref().map(|s| s.1.clone()),
            self.cluster.as_ref().map(|s| s.1.clone()),
            self.l2_window.as_ref().map(|s| s.1.clone()),
            self.args.as_ref().map(|s| s.1.clone()),
            self.constants.as_ref().map(|s| s.1.clone()),
            self.prefetch.as_ref().map(|s| s.1.clone()),
        ];
        super::transfer::Parts {
            transfer: self.transfer.clone(),
            kernel_keys: kernel_keys.into_iter().flatten().collect(),
            has_defines: !self.defines.is_empty() || !self.options.is_empty() || self.cold_l2,
            note: self.note.clone(),
        }
    }

    /// The exercise's solution stands where a variant's `source` would.
    pub fn with_source(mut self, path: &str, at: String) -> Merged {
        self.source = Some((path.to_string(), at));
        self
    }
}

fn over<T: Clone>(slot: &mut At<T>, value: &Option<T>, path: String) {
    if let Some(v) = value {
        *slot = Some((v.clone(), path));
    }
}

pub(super) fn merge(parent: Merged, v: &RawVariant, at: &str) -> Merged {
    let mut m = parent;
    let p = |k: &str| format!("{at}.{k}");
    over(&mut m.source, &v.source, p("source"));
    over(&mut m.kernel, &v.kernel, p("kernel"));
    if let Some(l) = &v.launch {
        over(&mut m.grid, &l.grid, p("launch.grid"));
        over(&mut m.block, &l.block, p("launch.block"));
        over(&mut m.smem, &l.smem, p("launch.smem"));
        over(&mut m.cluster, &l.cluster, p("launch.cluster"));
        over(&mut m.l2_window, &l.l2_window, p("launch.l2_window"));
        over(&mut m.carveout, &l.carveout, p("launch.carveout"));
    }
    over(&mut m.args, &v.args, p("args"));
    over(&mut m.constants, &v.constants, p("constants"));
    over(&mut m.transfer, &v.transfer, p("transfer"));
    over(&mut m.prefetch, &v.prefetch, p("prefetch"));
    for (k, val) in v.defines.iter().flat_map(|d| &d.0) {
        match m.defines.iter_mut().find(|(n, _)| n == k) {
            Some(slot) => slot.1 = val.clone(),
            None => m.defines.push((k.clone(), val.clone())),
        }
    }
    if let Some(o) = &v.options {
        m.options = o.clone();
    }
    if v.note.is_some() {
        m.note = v.note.clone();
    }
    if let Some(cold) = v.cold_l2 {
        m.cold_l2 = cold;
    }
    m
}

pub(super) fn resolve_all(
    cx: &mut Cx,
    root: &CourseRoot,
    raws: &[Option<RawVariant>],
    expansions: &[Expansion],
    known: &Known,
    knobs: &mut Vec<crate::model::Knob>,
) -> Option<Vec<Variant>> {
    let names = Names::new(cx, raws.len());
    let mut merged: Vec<Option<Merged>> = Vec::new();
    let mut sources = Sources::new(root);
    let mut out = Some(Vec::new());
    for (i, raw) in raws.iter().enumerate() {
        let Some(v) = raw else {
            merged.push(None);
            out = None;
            continue;
        };
        let m = inherit(cx, v, i, &names, &merged);
        merged.push(m.clone());
        let name_ok = check_name(cx, v, i, &names);
        let generated = expansions[i].generated(v);
        if generated.is_empty() {
            out = None;
        }
        for (name, define) in generated {
            let resolved = m
                .clone()
                .and_then(|m| {
                    let at = format!("variants[{i}]");
                    build(
                        cx,
                        &named(v, name),
                        &at,
                        with(m, define),
                        known,
                        &mut sources,
                    )
                })
                .filter(|_| name_ok);
            if let (Some(r), Some(m), Expansion::Plain) = (&resolved, &m, &expansions[i]) {
                knobs.extend(super::knobs::knobs(cx, v, i, m, r, known, &mut sources));
            }
            match (resolved, out.as_mut()) {
                (Some(r), Some(list)) => list.push(r),
                _ => out = None,
            }
        }
    }
    out
}

/// The written variant under a generated name (a sweep's), or itself.
pub(super) fn named(v: &RawVariant, name: String) -> RawVariant {
    RawVariant {
        name,
        sweep: None,
        knobs: None,
        ..v.clone()
    }
}

/// `m` with a sweep's define set over the written ones.
pub(super) fn with(mut m: Merged, define: Option<(String, DefineValue)>) -> Merged {
    if let Some((k, val)) = define {
        match m.defines.iter_mut().find(|(n, _)| *n == k) {
            Some(slot) => slot.1 = val,
            None => m.defines.push((k, val)),
        }
    }
    m
}

/// The variants' names as written (`None` where one is missing), and where each first
/// occurs: one lookup per variant keeps a lesson of many variants linear.
pub(super) struct Names {
    list: Vec<Option<String>>,
    pub first: HashMap<String, usize>,
}

impl Names {
    pub fn new(cx: &Cx, n: usize) -> Names {
        let list: Vec<Option<String>> = (0..n)
            .map(|i| {
                cx.spans
                    .scalar(&format!("variants[{i}].name"))
                    .map(str::to_string)
            })
            .collect();
        let mut first = HashMap::new();
        for (i, name) in list.iter().enumerate() {
            if let Some(name) = name {
                first.entry(name.clone()).or_insert(i);
            }
        }
        Names { list, first }
    }

    /// Where `name` first occurs, if that is before variant `i`.
    fn before(&self, name: &str, i: usize) -> Option<usize> {
        self.first.get(name).copied().filter(|&j| j < i)
    }
}

fn check_name(cx: &mut Cx, v: &RawVariant, i: usize, names: &Names) -> bool {
    let path = format!("variants[{i}].name");
    let valid = !v.name.is_empty()
        && v.name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        cx.err(
            &path,
            format!(
                "variant name `{}` may hold only letters, digits, '-' and '_'",
                v.name
            ),
        );
        return false;
    }
    if names.before(&v.name, i).is_some() {
        cx.err(&path, format!("variant `{}` is defined twice", v.name));
        return false;
    }
    true
}

/// Apply `like:`; `None` when the parent is unknown or itself broken.
pub(super) fn inherit(
    cx: &mut Cx,
    v: &RawVariant,
    i: usize,
    names: &Names,
    merged: &[Option<Merged>],
) -> Option<Merged> {
    let Some(parent) = &v.like else {
        return Some(merge(Merged::default(), v, &format!("variants[{i}]")));
    };
    let path = format!("variants[{i}].like");
    match names.before(parent, i) {
        Some(j) => merged[j]
            .clone()
            .map(|p| merge(p, v, &format!("variants[{i}]"))),
        None => {
            let earlier: Vec<&str> = names.list[..i]
                .iter()
                .flatten()
                .map(String::as_str)
                .collect();
            let msg = if names.first.contains_key(parent) {
                format!("`like: {parent}` must name an earlier variant (`{parent}` comes later)")
            } else if earlier.is_empty() {
                format!("unknown variant `{parent}` in `like` (no variant comes before this one)")
            } else {
                format!(
                    "unknown variant `{parent}` in `like` (earlier variants: {})",
                    earlier.join(", ")
                )
            };
            cx.err(&path, msg);
            None
        }
    }
}

/// The kernel files read so far, by path (with why, for one that cannot be read): variants
/// that share a source read it once.
pub(super) struct Sources<'r> {
    root: &'r CourseRoot,
    texts: HashMap<String, Result<String, SourceError>>,
}

impl<'r> Sources<'r> {
    pub fn new(root: &'r CourseRoot) -> Self {
        Sources {
            root,
            texts: HashMap::new(),
        }
    }

    fn read(&mut self, path: &str) -> Result<String, SourceError> {
        let root = self.root;
        self.texts
            .entry(path.to_string())
            .or_insert_with(|| root.read_source(path))
            .clone()
    }
}

/// The keys every variant needs, each with the path it was written at.
struct Required {
    source: (String, String),
    kernel: (String, String),
    grid: (Dims, String),
    block: (Dims, String),
    args: (Vec<RawArg>, String),
}

pub(super) fn build(
    cx: &mut Cx,
    v: &RawVariant,
    at: &str,
    m: Merged,
    known: &Known,
    sources: &mut Sources,
) -> Option<Variant> {
    // The options written here (those inherited were checked where they were written).
    let mut options_ok = true;
    for (j, o) in v.options.iter().flatten().enumerate() {
        if let Some(why) = super::options::refused(o) {
            cx.err(&format!("{at}.options[{j}]"), why);
            options_ok = false;
        }
    }
    if m.transfer.is_some() {
        return super::transfer::build(cx, v, at, &m.transfer_parts(), known);
    }
    let req = required(cx, v, at, &m).filter(|_| options_ok)?;
    let env = env_with_defines(cx, known.problem, &m.defines, at)?;
    let text = kernel_text(cx, &req, sources);
    let grid = dims(cx, &req.grid, &env, true);
    let block = dims(cx, &req.block, &env, false);
    let smem = smem(cx, m.smem.as_ref(), &env);
    let args = arguments(cx, &req.args, &env, known);
    if let (Some(text), Some(args)) = (&text, &args) {
        check_args(cx, text, &req.kernel.0, args, &req.args.1);
    }
    let constants = constants::constants(cx, m.constants.as_ref(), text.as_deref(), known);
    let prefetch = super::transfer::prefetch(cx, m.prefetch.as_ref(), args.as_deref(), known);
    let attrs = launch_attrs(
        cx,
        Written {
            cluster: m.cluster.as_ref(),
            window: m.l2_window.as_ref(),
            carveout: m.carveout.as_ref(),
        },
        &env,
        grid,
        known,
    );
    Some(Variant {
        name: v.name.clone(),
        source_path: req.source.0,
        source: text?,
        kernel: req.kernel.0,
        defines: m
            .defines
            .iter()
            .map(|(k, d)| (k.clone(), d.to_text()))
            .collect(),
        grid: grid?,
        block: block?,
        smem: smem?,
        args: args?,
        options: m.options,
        note: m.note,
        constants: constants?,
        attrs: attrs?,
        cold_l2: m.cold_l2,
        transfer: None,
        prefetch: prefetch?,
        per: vec![],
    })
}

/// The keys a variant must have (itself or through `like:`); all of those it lacks are
/// reported at once.
fn required(cx: &mut Cx, v: &RawVariant, at: &str, m: &Merged) -> Option<Required> {
    let lacking: Vec<&str> = [
        ("source", m.source.is_none()),
        ("kernel", m.kernel.is_none()),
        ("launch.grid", m.grid.is_none()),
        ("launch.block", m.block.is_none()),
        ("args", m.args.is_none()),
    ]
    .into_iter()
    .filter_map(|(k, absent)| absent.then_some(k))
    .collect();
    if !lacking.is_empty() {
        let keys: Vec<String> = lacking.iter().map(|k| format!("`{k}`")).collect();
        let hint = if v.like.is_some() {
            ""
        } else {
            " (or `like:` an earlier variant)"
        };
        cx.err(
            at,
            format!("variant `{}` needs {}{hint}", v.name, keys.join(", ")),
        );
        return None;
    }
    Some(Required {
        source: m.source.clone()?,
        kernel: m.kernel.clone()?,
        grid: m.grid.clone()?,
        block: m.block.clone()?,
        args: m.args.clone()?,
    })
}

/// The kernel file's text; reports a file that cannot be read, or a `kernel` it lacks.
fn kernel_text(cx: &mut Cx, req: &Required, sources: &mut Sources) -> Option<String> {
    let (source, source_at) = &req.source;
    let (kernel, kernel_at) = &req.kernel;
    let text = match sources.read(source) {
        Ok(text) => text,
        Err(e) => {
            cx.err(source_at, e.to_string());
            return None;
        }
    };
    if let Some(msg) = kernel_problem(&text, kernel, source) {
        cx.err(kernel_at, msg);
    }
    Some(text)
}

fn smem(cx: &mut Cx, written: Option<&(Expr, String)>, env: &[(String, i64)]) -> Option<u32> {
    let Some((e, path)) = written else {
        return Some(0);
    };
    let s = cx.eval(path, e, env)?;
    match u32::try_from(s) {
        Ok(s) => Some(s),
        Err(_) => {
            cx.err(
                path,
                format!("`smem` must be 0 to {} bytes (`{}` is {s})", u32::MAX, e.0),
            );
            None
        }
    }
}
