//! `gpulab run` without `--json`: the figures as a plain table, the claims under it.

use crate::analysis::claim_words::{detail_words, words};
use crate::analysis::describe::{first_race, per_request, source_label, space_lines, status};
use crate::analysis::margin::margin_words;
use crate::analysis::stats::fmt_ms;
use crate::model::Lesson;
use crate::model::results::{LessonResult, Source, VariantResult};

pub fn text_report(lesson: &Lesson, r: &LessonResult) -> String {
    let mut out = heading(lesson, r);
    out.push('\n');
    out.push_str(&row([
        "variant",
        "median",
        "±",
        "GB/s",
        "%peak",
        "regs",
        "stack",
        "spill",
        "occ",
        "smem wf/r",
        "sect/r",
        "status",
    ]));
    let shared = shared_errors(r);
    for v in &r.variants {
        let said_below = shared.iter().any(|(e, _)| v.error.as_deref() == Some(*e));
        out.push_str(&variant_row(v, said_below));
    }
    out.push_str(&shared_error_notes(&shared));
    out.push_str(&space_notes(r));
    out.push_str(&overflow_notes(r));
    out.push_str(&clock_notes(r));
    out.push_str(&knob_rows(r));
    out.push_str(&claims(r));
    out
}

/// The trace's figures that have no column (atomics, asynchronous copies, clusters,
/// textures), under the table: a variant's first beside its name, the rest under it.
fn space_notes(r: &LessonResult) -> String {
    let mut out = String::new();
    for v in &r.variants {
        let lines = v.memory.as_ref().map(space_lines).unwrap_or_default();
        for (i, line) in lines.iter().enumerate() {
            let name = if i == 0 { v.name.as_str() } else { "" };
            out.push_str(&format!("  {name:<20} {line}\n"));
        }
    }
    if out.is_empty() {
        return out;
    }
    format!("\nmore traced figures:\n{out}")
}

/// The knob settings the run holds (`gpulab run --knobs`, or a recording's), one row each,
/// in the variants' columns.
fn knob_rows(r: &LessonResult) -> String {
    if r.knobs.is_empty() {
        return String::new();
    }
    let mut out = String::from("\nknob settings:\n");
    for v in &r.knobs {
        out.push_str(&variant_row(v, false));
    }
    out
}

/// The lesson, where the figures come from, and the ceiling they are compared with.
fn heading(lesson: &Lesson, r: &LessonResult) -> String {
    // A title that leads with the id (a try's "try: copy.cu") is not told it twice.
    let id = match lesson.title.starts_with(&format!("{}:", lesson.id)) {
        true => String::new(),
        false => format!("{} · ", lesson.id),
    };
    let mut out = format!("{id}{} · {}\n", lesson.title, source_label(r));
    if let Some(p) = r.peak.copy_gbps {
        let other = lesson.metrics.link_peak || lesson.metrics.cublas_peak;
        let base = if other { "" } else { " = 100%" };
        out.push_str(&format!(
            "copy peak (device-to-device, read+write): {p:.0} GB/s{base}\n"
        ));
    }
    // A lesson about the link rates its bytes against the link, not the GPU's memory.
    if let (true, Some(p)) = (lesson.metrics.link_peak, r.peak.link_gbps) {
        let link = (r.device.as_ref().and_then(|d| d.pcie.as_ref()))
            .map(|l| format!("PCIe Gen {} x{}, ", l.gen_max, l.width_max))
            .unwrap_or_default();
        out.push_str(&format!(
            "link peak ({link}one way, theoretical): {p:.0} GB/s = 100%\n"
        ));
    }

    if r.compile == Some(Source::Live) && r.source != Source::Live {
        out.push_str("compile reports: live (NVRTC on this machine)\n");
    }
    out
}

/// One line of the table; the heading and the variants share it so their columns line up.
fn row<S: AsRef<str>>(cells: [S; 12]) -> String {
    let [
        name,
        median,
        spread,
        gbps,
        peak,
        regs,
        stack,
        spill,
        occ,
        wf,
        sect,
        status,
    ] = cells.each_ref().map(AsRef::as_ref);
    format!(
        "{name:<20} {median:>10} {spread:>7} {gbps:>9} {peak:>6} {regs:>5} {stack:>6} {spill:>7} \
         {occ:>6} {wf:>8} {sect:>8}  {status}\n"
    )
}

fn variant_row(v: &VariantResult, said_below: bool) -> String {
    let t = v.time_ms.as_ref();
    let m = v.memory.as_ref();
    let p = v.ptxas.as_ref();
    let opt = |x: Option<String>| x.unwrap_or_else(|| "-".into());
    // A racy variant's time is marked: its output matched by luck, not a valid speed.
    let racy = if first_race(v).is_some() { "✗" } else { "" };
    row([
        v.name.clone(),
        opt(t.map(|t| format!("{racy}{}", fmt_ms(t.median)))),
        opt(t.map(|t| format!("{:.1}%", t.spread_pct))),
        opt(v.gbps.map(|g| format!("{g:.0}"))),
        opt(v.pct_of_peak.map(|g| format!("{g:.0}%"))),
        opt(p.map(|p| p.registers.to_string())),
        opt(p.map(|p| p.stack_frame.to_string())),
        opt(p.map(|p| format!("{}/{}", p.spill_stores, p.spill_loads))),
        opt(v
            .occupancy
            .as_ref()
            .map(|o| format!("{:.0}%", o.ratio * 100.0))),
        opt(m
            .and_then(|m| per_request(m.shared.wavefronts, m.shared.requests))
            .map(|x| format!("{x:.2}"))),
        opt(m
            .and_then(|m| per_request(m.global.sectors, m.global.requests))
            .map(|x| format!("{x:.2}"))),
        if said_below {
            "compile error (below)".into()
        } else {
            status(v)
        },
    ])
}

/// Errors of variants that never ran (a compile error) that more than one variant shares,
/// in the order first seen, each with the variants it hit: one source, one report.
fn shared_errors(r: &LessonResult) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    let unrun = r
        .variants
        .iter()
        .filter(|v| v.correct.is_none() && !v.stale);
    for (name, error) in unrun.filter_map(|v| Some((v.name.as_str(), v.error.as_deref()?))) {
        match out.iter_mut().find(|(e, _)| *e == error) {
            Some((_, names)) => names.push(name),
            None => out.push((error, vec![name])),
        }
    }
    out.retain(|(_, names)| names.len() > 1);
    out
}

fn shared_error_notes(shared: &[(&str, Vec<&str>)]) -> String {
    let mut out = String::new();
    for (error, names) in shared {
        out.push_str(&format!(
            "\ncompile error (variants {}):\n{error}\n",
            names.join(", ")
        ));
    }
    out
}

/// A full trace buffer is said out loud: its figures come from fewer records than ran. So
/// is memory moved by instructions the trace does not follow.
fn overflow_notes(r: &LessonResult) -> String {
    let mut out = String::new();
    for v in &r.variants {
        let Some(m) = v.memory.as_ref() else {
            continue;
        };
        if m.overflow > 0 {
            out.push_str(&format!(
                "{}: trace buffer full, {} records lost; its figures come from the rest\n",
                v.name, m.overflow
            ));
        }
        if let Some(note) = crate::analysis::describe::unseen_note(m) {
            out.push_str(&format!("{}: {note}\n", v.name));
        }
        if let Some(note) = crate::analysis::describe::census_note(m) {
            out.push_str(&format!("{}: {note}\n", v.name));
        }
    }
    out
}

/// What each timed variant ran at (the clocks, temperature and power NVML read while it
/// was timed) and whether its L2 was flushed before each launch, a line each; nothing
/// when no variant says (no NVML, or a recording made before they were kept).
fn clock_notes(r: &LessonResult) -> String {
    let said: Vec<&VariantResult> = (r.variants.iter())
        .filter(|v| v.clocks.is_some() || v.cold_l2)
        .collect();
    if said.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "
timed at:
",
    );
    for v in said {
        let mut parts = Vec::new();
        if let Some(c) = &v.clocks {
            parts.push(crate::analysis::clocks::long_words(c));
        }
        if v.cold_l2 {
            parts.push("cold L2 (flushed before every timed launch)".to_string());
        }
        out.push_str(&format!("  {:<20} {}\n", v.name, parts.join(" · ")));
    }
    out
}

fn claims(r: &LessonResult) -> String {
    let mut out = String::new();
    if r.expect.is_empty() {
        return out;
    }
    // How they fare, counted in the words the lab's status line uses (`claims::summary`):
    // held, failed, not measured here and needing a GPU apart, so the two never disagree.
    let count = crate::analysis::claims::summary(&r.expect).unwrap_or_default();
    out.push_str(&format!("\nclaims: {count}\n"));
    for c in &r.expect {
        let mark = match c.holds {
            Some(true) => "✓",
            Some(false) => "✗",
            // The lab's marks: one a GPU would judge apart from one not measured here.
            None if c.needs_gpu => "·",
            None => "?",
        };
        // Its parts joined as the lab joins a check and its detail: a detail has brackets
        // of its own ("(needs ≥ 3×)"), which a pair around it would nest.
        out.push_str(&format!("  {mark} {}", words(&c.claim)));
        if !c.detail.is_empty() {
            out.push_str(&format!(" · {}", detail_words(&c.detail)));
        }
        if let Some(m) = &c.margin {
            out.push_str(&format!(" · {}", margin_words(m)));
        }
        out.push('\n');
    }
    out
}
