//! `gpulab sass` and `gpulab diff`: what the hardware runs, and why two variants differ.

use super::say::{say, say_part};
use super::{find_lesson, open_course};
use crate::analysis::sass::{self, Listing, MemKind};
use crate::analysis::sass_diff::{self, Rows};
use crate::analysis::sass_figures::{LineFigure, line_figure};
use crate::course::bundle::CourseRoot;
use crate::model::access::InstructionSummary;
use crate::model::results::{LessonResult, Source, VariantResult};
use crate::model::{Lesson, Variant};
use crate::session::client::{NoListing, WorkerClient};
use crate::session::{fold, recording};
use anyhow::{Context, Result, anyhow, bail};
use serde_json::json;
use std::collections::BTreeMap;

/// The architecture the recording was made on (so SASS sits beside figures of the same
/// code), else the lab's default; never below what the lesson requires.
fn arch(root: &CourseRoot, lesson: &Lesson) -> String {
    let rec = recording::newest(&root.recordings());
    let shown = rec.and_then(|r| r.replay(lesson)).and_then(|r| r.device);
    lesson.arch_on(shown.as_ref())
}

fn variant<'a>(lesson: &'a Lesson, name: &str) -> Result<&'a Variant> {
    let found = lesson.variants.iter().find(|v| v.name == name);
    if let Some(v) = found.filter(|v| v.transfer.is_some()) {
        bail!(
            "`{}` in {} is a copy between the host and the GPU (`transfer:`), not a kernel: \
             it has no SASS",
            v.name,
            lesson.id
        );
    }
    found.ok_or_else(|| {
        let names: Vec<&str> = lesson.variants.iter().map(|v| v.name.as_str()).collect();
        anyhow!(
            "no variant '{name}' in {}; its variants are: {}",
            lesson.id,
            names.join(", ")
        )
    })
}

fn listing(client: &mut WorkerClient, lesson: &Lesson, v: &Variant, arch: &str) -> Result<Listing> {
    let text = match client.sass(lesson, &v.name, arch) {
        Ok(text) => text,
        Err(NoListing::Worker(failure)) => return Err(failure.into()),
        Err(why) => bail!("{}: {why}", v.name),
    };
    let mut all = sass::parse(&text);
    let at = all.iter().position(|l| l.kernel == v.kernel).unwrap_or(0);
    (at < all.len())
        .then(|| all.swap_remove(at))
        .with_context(|| format!("{}: nvdisasm listed no kernel", v.name))
}

pub fn cmd_sass(root: &CourseRoot, lesson: &str, name: &str, json: bool) -> Result<i32> {
    let course = open_course(root)?;
    let lesson = find_lesson(&course, lesson)?;
    let v = variant(lesson, name)?;
    let arch = arch(root, lesson);
    let l = listing(&mut WorkerClient::new(), lesson, v, &arch)?;
    if json {
        say!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "lesson": lesson.id, "variant": v.name, "arch": arch, "kernel": l.kernel,
                "instructions": l.instructions, "mix": sass::mix(&l),
                "memory": annotated(&l, &traced_of(root, lesson, &v.name).0).iter().map(|(line, kind, bits, n, f)| json!({
                    "line": line, "kind": kind, "bits": bits, "count": n,
                    "traced": f.as_ref().map(|f| &f.text), "note": f.as_ref().and_then(|f| f.note.as_ref()),
                    "lanes": f.as_ref().and_then(|f| f.lanes),
                })).collect::<Vec<_>>(),
            }))?
        );
        return Ok(0);
    }
    say!(
        "{} · {} · SASS for {arch} (nvdisasm of the CUBIN a run loads)",
        lesson.id,
        v.name
    );
    let (traced, from) = traced_of(root, lesson, &v.name);
    say!("traced figures: {from}");
    say!("\nmemory instructions by source line, the costliest first:");
    let src: Vec<&str> = v.source.lines().collect();
    for (line, kind, bits, n, fig) in annotated(&l, &traced) {
        let text = src
            .get(line.wrapping_sub(1) as usize)
            .map_or("", |s| s.trim());
        let figure = fig.as_ref().map_or(String::new(), |f| f.full());
        say!(
            "  line {line:>4}  {:<22} {bits:>3}-bit x{n:<3} {figure:<38} {text}",
            kind.word()
        );
        if let Some(note) = fig.and_then(|f| f.note) {
            say!("             {note}");
        }
    }
    say!("\ninstruction mix ({} in all):", l.instructions.len());
    say!("  {}", mix_words(&sass::mix(&l)));
    Ok(0)
}

/// The recorded trace of `variant` (the per-instruction figures) and where it came from.
fn traced_of(
    root: &CourseRoot,
    lesson: &Lesson,
    variant: &str,
) -> (Vec<InstructionSummary>, String) {
    let rec = recording::newest(&root.recordings()).and_then(|r| r.replay(lesson));
    let Some(r) = rec else {
        return (Vec::new(), "none (no recording of this lesson)".into());
    };
    let on = r
        .device
        .as_ref()
        .map_or("?".to_string(), |d| d.name.clone());
    let traced = (r.variants.iter())
        .find(|x| x.name == variant)
        .and_then(|x| x.memory.as_ref())
        .map(|m| m.instructions.clone())
        .unwrap_or_default();
    match traced.is_empty() {
        true => (
            traced,
            format!("none (the recording from {on} has no trace of {variant})"),
        ),
        false => (traced, format!("recorded on {on}")),
    }
}

type Annotated = (u32, MemKind, u32, u32, Option<LineFigure>);

/// Each (line, kind, width) of memory instructions with its count and traced figure, the
/// costliest first, then in line order.
fn annotated(l: &Listing, traced: &[InstructionSummary]) -> Vec<Annotated> {
    let mut rows: Vec<Annotated> = (sass::memory_by_line(l).into_iter())
        .map(|((line, kind, bits), n)| (line, kind, bits, n, line_figure(traced, line, kind)))
        .collect();
    let cost = |r: &Annotated| r.4.as_ref().map_or(0.0, |f| f.cost);
    rows.sort_by(|a, b| cost(b).total_cmp(&cost(a)).then(a.0.cmp(&b.0)));
    rows
}

/// The mix, most frequent first.
fn mix_words(m: &BTreeMap<String, u32>) -> String {
    let mut v: Vec<(&String, &u32)> = m.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn cmd_diff(root: &CourseRoot, lesson: &str, names: [&str; 2], json: bool) -> Result<i32> {
    let course = open_course(root)?;
    let lesson = find_lesson(&course, lesson)?;
    let vs = [variant(lesson, names[0])?, variant(lesson, names[1])?];
    if vs[0].name == vs[1].name {
        bail!("diff needs two different variants");
    }
    let arch = arch(root, lesson);
    let mut client = WorkerClient::new();
    let mut compiled = fold::blank_result(lesson, Source::Live, None);
    fold::compile_lesson(&mut client, lesson, &arch, &mut compiled, |_| {})?;
    let ls = [
        listing(&mut client, lesson, vs[0], &arch)?,
        listing(&mut client, lesson, vs[1], &arch)?,
    ];
    let recorded = recording::newest(&root.recordings()).and_then(|r| r.replay(lesson));
    let report = Diff::new(&vs, &ls, &compiled, recorded.as_ref());
    if json {
        say!(
            "{}",
            serde_json::to_string_pretty(&report.json(lesson, &arch))?
        );
    } else {
        say_part!("{}", report.text(lesson, &arch));
    }
    Ok(0)
}

/// Two variants side by side: rows of (what, a, b), only where something is known.
struct Diff {
    names: [String; 2],
    rows: Rows,
    changed_memory: Vec<(u32, MemKind, u32, u32, u32)>,
    recorded_on: Option<String>,
}

impl Diff {
    fn new(
        vs: &[&Variant; 2],
        ls: &[Listing; 2],
        compiled: &LessonResult,
        rec: Option<&LessonResult>,
    ) -> Diff {
        fn find<'r>(r: &'r LessonResult, n: &str) -> Option<&'r VariantResult> {
            r.variants.iter().find(|v| v.name == n)
        }
        let mut rows =
            sass_diff::report_rows([find(compiled, &vs[0].name), find(compiled, &vs[1].name)]);
        sass_diff::mix_rows(&mut rows, [&ls[0], &ls[1]]);
        let recorded_on = rec.and_then(|r| r.device.as_ref()).map(|d| d.name.clone());
        if let Some(r) = rec {
            let rv = [find(r, &vs[0].name), find(r, &vs[1].name)];
            sass_diff::traced_rows(&mut rows, rv, "recorded");
        }
        Diff {
            names: [vs[0].name.clone(), vs[1].name.clone()],
            rows,
            changed_memory: sass_diff::changed_memory(&ls[0], &ls[1]),
            recorded_on,
        }
    }

    fn text(&self, lesson: &Lesson, arch: &str) -> String {
        let mut out = format!(
            "{} · {} against {} · {arch}\n\n",
            lesson.id, self.names[0], self.names[1]
        );
        let w = self.names[0].len().max(12);
        out.push_str(&format!(
            "{:<30} {:>w$}  {}\n",
            "", self.names[0], self.names[1]
        ));
        for (what, a, b) in &self.rows {
            out.push_str(&format!("{what:<30} {a:>w$}  {b}\n"));
        }
        out.push_str(
            "\nmemory instructions that changed (source line, kind, width: count in each):\n",
        );
        if self.changed_memory.is_empty() {
            out.push_str("  none\n");
        }
        for (line, kind, bits, a, b) in &self.changed_memory {
            out.push_str(&format!(
                "  line {line:>4}  {:<22} {bits:>3}-bit  {a} -> {b}\n",
                kind.word()
            ));
        }
        match &self.recorded_on {
            Some(d) => out.push_str(&format!("\ntraced figures and times: recorded on {d}\n")),
            None => out.push_str("\ntraced figures and times: no recording of this lesson\n"),
        }
        out
    }

    fn json(&self, lesson: &Lesson, arch: &str) -> serde_json::Value {
        json!({
            "lesson": lesson.id, "a": self.names[0], "b": self.names[1], "arch": arch,
            "rows": self.rows.iter().map(|(w, a, b)| json!({"what": w.trim(), "a": a, "b": b})).collect::<Vec<_>>(),
            "memory_changed": self.changed_memory.iter().map(|(l, k, bits, a, b)| json!({"line": l, "kind": k, "bits": bits, "a": a, "b": b})).collect::<Vec<_>>(),
            "recorded_on": self.recorded_on,
        })
    }
}
