//! `exercises:`: each becomes a `model::Exercise` whose `yours` variant is built by the same
//! rules as the lesson's variants (`like:`, launch, args), with the solution as its source.

use super::cx::{Cx, Known};
use super::kernel::kernel_problem;
use super::variants::{self, Merged, Names, Sources};
use crate::course::bundle::CourseRoot;
use crate::course::claims::parse_claim;
use crate::course::schema::RawExercise;
use crate::course::schema::{OrderedMap, RawLesson};
use crate::course::schema::{RawArg, RawReference};
use crate::model::claim::Claim;
use crate::model::exercise::{DrawnArg, DrawnSize, Exercise, SOLUTION, YOURS};
use crate::model::{Init, Variant};

const DEFAULT_SEEDS: u32 = 2;
const MAX_SEEDS: u32 = 16;

pub(super) fn exercises(
    cx: &mut Cx,
    root: &CourseRoot,
    raw: &RawLesson,
    known: &Known,
    variant_names: &[String],
) -> Option<Vec<Exercise>> {
    let mut out = Some(Vec::new());
    let mut seen: Vec<&str> = Vec::new();
    for (k, e) in raw.exercises.iter().enumerate() {
        let Some(e) = e else {
            out = None;
            continue;
        };
        let at = format!("exercises[{k}]");
        let fresh = !seen.contains(&e.id.as_str());
        if !fresh {
            cx.err(
                &format!("{at}.id"),
                format!("exercise `{}` is defined twice", e.id),
            );
        }
        seen.push(&e.id);
        let ex = exercise(cx, root, raw, e, &at, known, variant_names).filter(|_| fresh);
        match (ex, out.as_mut()) {
            (Some(x), Some(list)) => list.push(x),
            _ => out = None,
        }
    }
    out
}

fn exercise(
    cx: &mut Cx,
    root: &CourseRoot,
    raw: &RawLesson,
    e: &RawExercise,
    at: &str,
    known: &Known,
    variant_names: &[String],
) -> Option<Exercise> {
    let head = head(cx, e, at);
    let yours = yours(cx, root, raw, e, at, known);
    let starter = source(cx, root, &e.starter, &format!("{at}.starter"));
    let solution = source(cx, root, &e.solution, &format!("{at}.solution"));
    if let (Some(y), Some(s)) = (&yours, &starter)
        && let Some(msg) = kernel_problem(s, &y.kernel, &e.starter)
    {
        cx.err(&format!("{at}.starter"), msg);
    }
    let checks = checks(cx, e, at, variant_names);
    let checks = checks.filter(|c| measures_known(cx, raw, c, at));
    let sizes_cpu = match e.sizes_cpu.as_deref() {
        Some(list) => sizes(cx, Some(list), &format!("{at}.sizes_cpu"), known.problem).map(Some),
        None => Some(None),
    };
    let sizes = sizes(
        cx,
        e.sizes.as_deref(),
        &format!("{at}.sizes"),
        known.problem,
    );
    let drawn_size = drawn_size(
        cx,
        e.drawn_size.as_ref(),
        &format!("{at}.drawn_size"),
        known.problem,
    );
    let editing = e.editing.as_ref().map_or(Some(Vec::new()), |set| {
        size_set(cx, set, &format!("{at}.editing"), known.problem)
    });
    let seeds = seeds(cx, e, at);
    let solution_reference = reference(cx, e, at);
    let random_inputs = random(cx, e, at, known);
    let variant_reference = matches!(raw.head.reference, Some(RawReference::Variant(_)));
    let drawn_args = drawn(cx, e, at, (solution_reference, variant_reference));
    head?;
    Some(Exercise {
        id: e.id.clone(),
        title: e.title.clone(),
        task: e.task.clone(),
        starter_path: e.starter.clone(),
        starter: starter?,
        solution_path: e.solution.clone(),
        solution: solution?,
        yours: yours?,
        difficulty: e.difficulty,
        minutes: e.minutes,
        hints: e.hints.clone(),
        checks: checks?,
        sizes: sizes?,
        sizes_cpu: sizes_cpu?,
        editing: editing?,
        seeds: seeds?,
        times_at_every_size: e.times_at_every_size.unwrap_or(false),
        solution_reference: solution_reference?,
        random_inputs: random_inputs?,
        drawn_args: drawn_args?,
        drawn_size: drawn_size?,
    })
}

/// The id, title, task and hints: what the learner reads.
fn head(cx: &mut Cx, e: &RawExercise, at: &str) -> Option<()> {
    let mut ok = true;
    let valid = !e.id.is_empty()
        && e.id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        cx.err(
            &format!("{at}.id"),
            format!(
                "exercise id `{}` may hold only lower-case letters, digits and '-'",
                e.id
            ),
        );
        ok = false;
    }
    for (key, text) in [("title", &e.title), ("task", &e.task)] {
        if text.trim().is_empty() {
            cx.err(&format!("{at}.{key}"), format!("`{key}` is empty"));
            ok = false;
        }
    }
    if !(1..=3).contains(&e.difficulty) {
        cx.err(
            &format!("{at}.difficulty"),
            format!(
                "difficulty {} is not 1 (a first step), 2 or 3 (a puzzle)",
                e.difficulty
            ),
        );
        ok = false;
    }
    if e.minutes == 0 || e.minutes > 240 {
        cx.err(
            &format!("{at}.minutes"),
            format!("minutes {} is not between 1 and 240", e.minutes),
        );
        ok = false;
    }
    if e.hints.is_empty() {
        cx.err(
            &format!("{at}.hints"),
            "an exercise needs at least one hint",
        );
        ok = false;
    }
    for (j, h) in e.hints.iter().enumerate() {
        if h.trim().is_empty() {
            cx.err(&format!("{at}.hints[{j}]"), "a hint is empty");
            ok = false;
        }
    }
    ok.then_some(())
}

fn source(cx: &mut Cx, root: &CourseRoot, path: &str, at: &str) -> Option<String> {
    match root.read_source(path) {
        Ok(t) => Some(t),
        Err(e) => {
            cx.err(at, e.to_string());
            None
        }
    }
}

/// The learner's variant: the `like:` variant as the lesson resolves it, the exercise's own
/// keys over it, and the solution as its source (replaced by the learner's file when run).
fn yours(
    cx: &mut Cx,
    root: &CourseRoot,
    raw: &RawLesson,
    e: &RawExercise,
    at: &str,
    known: &Known,
) -> Option<Variant> {
    let raws = &raw.variants;
    let names = Names::new(cx, raws.len());
    let mut merged: Vec<Option<Merged>> = Vec::new();
    for (i, r) in raws.iter().enumerate() {
        let m = r
            .as_ref()
            .and_then(|r| variants::inherit(cx, r, i, &names, &merged));
        merged.push(m);
    }
    let parent = match &e.like {
        None => Merged::default(),
        Some(p) => match names.first.get(p) {
            Some(&j) => merged[j].clone()?,
            None => {
                let mut known: Vec<&String> = names.first.keys().collect();
                known.sort();
                let list: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
                cx.err(
                    &format!("{at}.like"),
                    format!(
                        "unknown variant `{p}` in `like` (variants: {})",
                        list.join(", ")
                    ),
                );
                return None;
            }
        },
    };
    let v = crate::course::schema::RawVariant {
        name: YOURS.to_string(),
        like: e.like.clone(),
        kernel: e.kernel.clone(),
        defines: e.defines.clone(),
        launch: e.launch.clone(),
        args: e.args.clone(),
        options: e.options.clone(),
        ..Default::default()
    };
    let m = variants::merge(parent, &v, at).with_source(&e.solution, format!("{at}.solution"));
    variants::build(cx, &v, at, m, known, &mut Sources::new(root))
}

/// Claims about `yours`, in the lesson's claim grammar.
fn checks(cx: &mut Cx, e: &RawExercise, at: &str, variant_names: &[String]) -> Option<Vec<Claim>> {
    let mut names: Vec<&str> = variant_names.iter().map(String::as_str).collect();
    names.push(YOURS);
    // The exercise's own solution runs beside `yours` when a check names it: where speed or
    // structure is the point, `yours` is held to the solution, not only to a slow variant.
    if !names.contains(&SOLUTION) {
        names.push(SOLUTION);
    }
    let mut out = Some(Vec::new());
    for (j, text) in e.checks.iter().enumerate() {
        let path = format!("{at}.checks[{j}]");
        match parse_claim(text, &names) {
            Ok(c) if c.subject() == YOURS => {
                if let Some(list) = out.as_mut() {
                    list.push(c);
                }
            }
            Ok(c) => {
                let about = c.subject().to_string();
                cx.err(
                    &path,
                    format!("a check is about `{YOURS}`, not `{about}`: write `{YOURS} ...`"),
                );
                out = None;
            }
            Err(err) => {
                cx.err(&path, err.to_string());
                out = None;
            }
        }
    }
    out
}

/// A `measured.NAME` check names one of the lesson's `measures`.
fn measures_known(cx: &mut Cx, raw: &RawLesson, checks: &[Claim], at: &str) -> bool {
    if cx.failed.contains("measures") {
        return false;
    }
    let known: Vec<&str> = raw
        .head
        .measures
        .iter()
        .flatten()
        .map(|m| m.name.as_str())
        .collect();
    let mut ok = true;
    for (j, c) in checks.iter().enumerate() {
        if let Some(name) = c.measure()
            && !known.contains(&name)
        {
            cx.err(
                &format!("{at}.checks[{j}]"),
                format!("unknown measure `{name}` (measures: {})", known.join(", ")),
            );
            ok = false;
        }
    }
    ok
}

/// Each extra size: problem sizes of the lesson, each > 0.
fn sizes(
    cx: &mut Cx,
    list: Option<&[OrderedMap<i64>]>,
    at: &str,
    problem: &[(String, i64)],
) -> Option<Vec<Vec<(String, i64)>>> {
    let mut out = Some(Vec::new());
    for (j, set) in list.into_iter().flatten().enumerate() {
        let one = size_set(cx, set, &format!("{at}[{j}]"), problem);
        match (one, out.as_mut()) {
            (Some(one), Some(list)) => list.push(one),
            _ => out = None,
        }
    }
    out
}

/// One set of overrides of the lesson's problem sizes, each a size it has, > 0.
pub(super) fn size_set(
    cx: &mut Cx,
    set: &OrderedMap<i64>,
    at: &str,
    problem: &[(String, i64)],
) -> Option<Vec<(String, i64)>> {
    let mut ok = true;
    let mut one = Vec::new();
    for (name, v) in &set.0 {
        let path = format!("{at}.{name}");
        if !problem.iter().any(|(n, _)| n == name) {
            let list: Vec<&str> = problem.iter().map(|(n, _)| n.as_str()).collect();
            cx.err_key(
                &path,
                format!(
                    "`{name}` is not a problem size (sizes: {})",
                    list.join(", ")
                ),
            );
            ok = false;
        } else if *v <= 0 {
            cx.err(&path, format!("a size must be > 0 (`{name}` is {v})"));
            ok = false;
        }
        one.push((name.clone(), *v));
    }
    ok.then_some(one)
}

fn seeds(cx: &mut Cx, e: &RawExercise, at: &str) -> Option<u32> {
    match e.seeds {
        None => Some(DEFAULT_SEEDS),
        Some(n) if (1..=MAX_SEEDS).contains(&n) => Some(n),
        Some(n) => {
            cx.err(
                &format!("{at}.seeds"),
                format!("`seeds` is 1 to {MAX_SEEDS} (not {n})"),
            );
            None
        }
    }
}

fn reference(cx: &mut Cx, e: &RawExercise, at: &str) -> Option<bool> {
    match e.reference.as_deref() {
        None | Some("lesson") => Some(false),
        Some("solution") => Some(true),
        Some(other) => {
            cx.err(
                &format!("{at}.reference"),
                format!("`reference` is `lesson` or `solution`, not `{other}`"),
            );
            None
        }
    }
}

/// `{ f32: 0.25, random: [lo, hi] }` among the exercise's args: drawn afresh for every run
/// of a check. The main run's outputs must then be compared with the solution's, which
/// gets the same value: the lesson's reference passes its own, and a built-in one none.
/// One entry of a list the loader gathers: where `why` says what is wrong with it, placed
/// at `path` and the list lost (None); else `item` is added to it.
fn keep_or_place<T>(
    cx: &mut Cx,
    out: &mut Option<Vec<T>>,
    (path, why): (&str, Option<String>),
    item: impl FnOnce() -> T,
) {
    match (why, out.as_mut()) {
        (Some(w), _) => {
            cx.err(path, w);
            *out = None;
        }
        (None, Some(list)) => list.push(item()),
        (None, None) => {}
    }
}

/// An exercise's drawn size: each name a problem size, each range `[lo, hi]` with
/// 0 < lo < hi.
fn drawn_size(
    cx: &mut Cx,
    set: Option<&OrderedMap<[i64; 2]>>,
    at: &str,
    problem: &[(String, i64)],
) -> Option<Vec<DrawnSize>> {
    let mut out = Some(Vec::new());
    for (name, [lo, hi]) in set.map(|s| s.0.as_slice()).unwrap_or_default() {
        let path = format!("{at}.{name}");
        let why = if !problem.iter().any(|(n, _)| n == name) {
            let list: Vec<&str> = problem.iter().map(|(n, _)| n.as_str()).collect();
            Some(format!(
                "`{name}` is not a problem size (sizes: {})",
                list.join(", ")
            ))
        } else if !(0 < *lo && lo < hi) {
            Some(format!(
                "`[{lo}, {hi}]` is no range of sizes: give [lo, hi] with 0 < lo < hi"
            ))
        } else {
            None
        };
        let size = || DrawnSize {
            name: name.clone(),
            lo: *lo,
            hi: *hi,
        };
        keep_or_place(cx, &mut out, (&path, why), size);
    }
    out
}

fn drawn(
    cx: &mut Cx,
    e: &RawExercise,
    at: &str,
    (solution_reference, variant_reference): (Option<bool>, bool),
) -> Option<Vec<DrawnArg>> {
    let mut out = Some(Vec::new());
    for (index, a) in e.args.iter().flatten().enumerate() {
        let RawArg::F32Drawn(_, [lo, hi]) = *a else {
            continue;
        };
        let path = format!("{at}.args[{index}].random");
        let why = if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            Some(format!(
                "`random: [{lo}, {hi}]` is no range: give [lo, hi] with lo < hi"
            ))
        } else if solution_reference == Some(false) {
            Some(
                "an argument drawn at random needs `reference: solution`: the lesson's \
                 reference runs with the value it writes"
                    .to_string(),
            )
        } else if !variant_reference {
            Some(
                "an argument drawn at random needs a lesson whose reference is a variant, \
                 for the solution to take its place: a built-in reference is given no \
                 arguments"
                    .to_string(),
            )
        } else {
            None
        };
        let arg = || DrawnArg {
            index,
            lo: lo as f32,
            hi: hi as f32,
        };
        keep_or_place(cx, &mut out, (&path, why), arg);
    }
    out
}

/// `random: [p]`: input buffers filled with random values for the exercise.
fn random(cx: &mut Cx, e: &RawExercise, at: &str, known: &Known) -> Option<Vec<usize>> {
    let mut out = Some(Vec::new());
    for (j, name) in e.random.iter().flatten().enumerate() {
        let found = known
            .buffers
            .iter()
            .position(|b| b.as_ref().is_some_and(|b| &b.name == name));
        match found.and_then(|i| known.buffers[i].as_ref().map(|b| (i, b))) {
            Some((i, b)) if b.init != Init::Poison => {
                if let Some(list) = out.as_mut() {
                    list.push(i);
                }
            }
            Some(_) => {
                cx.err(
                    &format!("{at}.random[{j}]"),
                    format!("`{name}` is an output (init: poison), not an input"),
                );
                out = None;
            }
            None => {
                cx.err(
                    &format!("{at}.random[{j}]"),
                    format!(
                        "unknown buffer `{name}` (buffers: {})",
                        known.buffer_names.join(", ")
                    ),
                );
                out = None;
            }
        }
    }
    out
}
