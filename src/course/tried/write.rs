//! The lesson file a try is read as: its text, each value placed at the header item (or
//! flag) it came from, and the page the lab shows beside the columns.

use super::header::{Builtin, Fill, Written};
use super::parts::{Checked, CheckedAt, LESSON_ID, Source};
use super::plan::{ArgText, Planned};
use super::share::{Given, Shared};
use super::yaml::{Origin, Yaml};
use crate::course::signature;
use crate::model::ElemType;

/// The lesson file's text.
pub(super) fn write(
    sources: &[Source],
    shared: &Shared,
    cpu: &[(String, i64)],
    planned: &[Planned],
    checked: &CheckedAt,
    env: &[(String, i64)],
) -> Yaml {
    let mut y = Yaml::default();
    let first = Origin::file(&sources[0].shown);
    let q = super::yaml::quoted;
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
        q(&page(sources, shared, planned, (checked, cpu), env))
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
    (checked, cpu): (&CheckedAt, &[(String, i64)]),
    env: &[(String, i64)],
) -> String {
    let mut out = String::new();
    let files: Vec<String> = sources.iter().map(|s| printable(&s.shown)).collect();
    out.push_str(&format!("{}, run as a lesson: ", files.join(", ")));
    let mut launches: Vec<String> = Vec::new();
    for p in planned {
        let dims = |d: &Given<Vec<Written>>| match d.value.as_slice() {
            [one] => one.text.clone(),
            many => {
                let texts: Vec<&str> = many.iter().map(|w| w.text.as_str()).collect();
                format!("({})", texts.join(","))
            }
        };
        let l = format!("{}<<<{}, {}>>>", p.kernel.0, dims(&p.grid), dims(&p.block));
        if !launches.contains(&l) {
            launches.push(l);
        }
    }
    out.push_str(&launches.join("; "));
    let said = |list: &[(String, i64)]| {
        let items: Vec<String> = list.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        items.join(", ")
    };
    if !env.is_empty() {
        out.push_str(&format!(" with {}", said(env)));
    }
    out.push_str(". ");
    for (role, output) in [("Inputs", false), ("Outputs", true)] {
        let names: Vec<&str> = (shared.buffers.iter())
            .filter(|b| (b.value.fill == Fill::Output) == output)
            .map(|b| b.value.name.text.as_str())
            .collect();
        if !names.is_empty() {
            out.push_str(&format!("{role}: {}. ", names.join(", ")));
        }
    }
    out.push_str(&match &checked.0 {
        Checked::Variant(v) => format!("Outputs checked against `{v}`"),
        Checked::Builtin(w) => format!("Outputs checked against {w}"),
        Checked::Nothing => "Outputs not compared: no reference".into(),
    });
    if checked.0 != Checked::Nothing && !cpu.is_empty() {
        out.push_str(&format!(" (on the CPU interpreter at {})", said(cpu)));
    }
    out.push_str(
        ".\n\nEach save of a file runs it again (r: now). c shows the code with its SASS, \
         h the heatmap, i every figure of the focused variant.",
    );
    out
}
