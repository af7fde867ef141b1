//! `gpulab run` without `--json`: the figures as a plain table, the claims under it.

use crate::analysis::describe::{per_request, source_label, status};
use crate::analysis::stats::fmt_ms;
use crate::model::Lesson;
use crate::model::results::{LessonResult, Source};

pub fn text_report(lesson: &Lesson, r: &LessonResult) -> String {
    let mut out = format!("{} · {} · {}\n", lesson.id, lesson.title, source_label(r));
    if let Some(p) = r.peak.copy_gbps {
        out.push_str(&format!(
            "copy peak (device-to-device, read+write): {p:.0} GB/s\n"
        ));
    }
    if r.compile == Some(Source::Live) && r.source == Source::Recorded {
        out.push_str("compile reports: live (NVRTC on this machine)\n");
    }
    out.push('\n');
    out.push_str(&format!(
        "{:<20} {:>10} {:>7} {:>9} {:>6} {:>5} {:>6} {:>7} {:>6} {:>8} {:>8}  {}\n",
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
        "status"
    ));
    for v in &r.variants {
        let t = v.time_ms.as_ref();
        let m = v.memory.as_ref();
        let p = v.ptxas.as_ref();
        let opt = |x: Option<String>| x.unwrap_or_else(|| "-".into());
        out.push_str(&format!(
            "{:<20} {:>10} {:>7} {:>9} {:>6} {:>5} {:>6} {:>7} {:>6} {:>8} {:>8}  {}\n",
            v.name,
            opt(t.map(|t| fmt_ms(t.median))),
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
            status(v),
        ));
    }
    for v in &r.variants {
        if let Some(m) = v.memory.as_ref().filter(|m| m.overflow > 0) {
            out.push_str(&format!(
                "{}: trace buffer full, {} records lost; its figures come from the rest\n",
                v.name, m.overflow
            ));
        }
    }
    if !r.expect.is_empty() {
        out.push_str("\nclaims:\n");
        for c in &r.expect {
            let mark = match c.holds {
                Some(true) => "✓",
                Some(false) => "✗",
                None => "?",
            };
            out.push_str(&format!("  {mark} {}", c.claim));
            if !c.detail.is_empty() {
                out.push_str(&format!("  ({})", c.detail));
            }
            out.push('\n');
        }
    }
    out
}
