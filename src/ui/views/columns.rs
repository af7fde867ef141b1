//! What a variant's card says: timing with a live sparkline, the ratio to the fastest, the
//! check, the ptxas report, occupancy, memory behaviour and the lesson's claims about it
//! (where the cards go is `cards`).

use crate::analysis::describe::{
    census_note, first_race, per_request, race_lines, shared_text, unseen_note,
};
use crate::analysis::stats::{differ_beyond_noise, fmt_ms};
use crate::model::results::{LessonResult, VariantResult};
use crate::ui::app::App;
use crate::ui::views::theme::Theme;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

const SPARK: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The last `width` samples as a sparkline, scaled between their min and max.
pub fn sparkline(samples: &[f64], width: usize) -> String {
    let tail = &samples[samples.len().saturating_sub(width)..];
    let (lo, hi) = tail
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    tail.iter()
        .map(|&x| {
            if hi - lo <= f64::EPSILON * hi.abs() {
                SPARK[0]
            } else {
                SPARK[(((x - lo) / (hi - lo)) * 7.0).round() as usize]
            }
        })
        .collect()
}

/// The fastest correct variant with a time.
pub fn fastest(r: &LessonResult) -> Option<&VariantResult> {
    r.variants
        .iter()
        .filter(|v| v.correct == Some(true) && !v.stale && first_race(v).is_none())
        .filter(|v| v.time_ms.is_some())
        .min_by(|a, b| {
            let (a, b) = (a.time_ms.as_ref().unwrap(), b.time_ms.as_ref().unwrap());
            a.median.total_cmp(&b.median)
        })
}

pub fn ratio_text(v: &VariantResult, best: Option<&VariantResult>) -> Option<String> {
    Some(match against(v, best)? {
        Against::Fastest => "fastest".into(),
        Against::WithinNoise(b) => format!("≈ {b} (within noise)"),
        Against::Slower(x, b) => format!("{x:.1}× slower than {b}"),
    })
}

/// How a variant's time stands to the fastest's.
enum Against<'r> {
    Fastest,
    /// Within the noise of the fastest (named).
    WithinNoise(&'r str),
    /// This many times slower than the fastest (named).
    Slower(f64, &'r str),
}

fn against<'r>(v: &VariantResult, best: Option<&'r VariantResult>) -> Option<Against<'r>> {
    let t = v.time_ms.as_ref()?;
    if v.correct != Some(true) || first_race(v).is_some() {
        return None;
    }
    let b = best?;
    let bt = b.time_ms.as_ref()?;
    if b.name == v.name {
        return Some(Against::Fastest);
    }
    if !differ_beyond_noise(t, bt) {
        return Some(Against::WithinNoise(&b.name));
    }
    Some(Against::Slower(t.median / bt.median, &b.name))
}

/// Everything a variant's column says, top to bottom: the lesson's note on it (`whole`:
/// with what a sweep's variants share, see `variant_note`), then the figures, or only the
/// compile report while the figures are hidden.
pub fn column_lines<'a>(
    app: &App,
    r: &LessonResult,
    (v, whole): (&VariantResult, bool),
    width: u16,
    th: &Theme,
) -> Vec<Line<'a>> {
    let mut lines: Vec<Line> = variant_note(app, &v.name, whole)
        .map(|n| Line::styled(n, th.dim))
        .into_iter()
        .collect();
    if v.name == crate::model::exercise::YOURS {
        lines.extend(crate::ui::views::exercise::yours_lines(app, th));
    }
    if !app.revealed_for(&v.name) {
        // A compile error is the compiler's report, not a measured figure.
        if v.error.is_some() && v.correct.is_none() {
            lines.push(status_line(v, th));
        }
        // The compile report is a figure too (a page may ask for the stack frame): one
        // rule for every view and pane, nothing measured before r or v.
        lines.push(Line::styled("figures hidden (v shows them)", th.dim));
        return lines;
    }
    // Where the CPU interpreter ran the variant, its verdict comes first and the times
    // under it are the recording's, each labelled; the trace below says whose it is.
    let cpu = app.interpreted_variant(&v.name);
    match app.recorded_beside(&v.name) {
        Some((rec, rv)) => {
            lines.push(interpreted_status(v, th));
            // The label takes room from the sparkline, not a row of its own.
            let label = recorded_label(rv);
            let narrower = width.saturating_sub(label.chars().count() as u16);
            let mut timing = timing_lines(app, (rec, rv), false, narrower, th);
            if let Some(first) = timing.first_mut() {
                first.spans.insert(0, Span::styled(label, th.dim));
            }
            lines.extend(timing);
            lines.extend(measured_lines(rv, th));
            lines.extend(clock_line(rv, width, th));
        }
        None => {
            lines.extend(timing_lines(app, (r, v), cpu, width, th));
            lines.extend(measured_lines(v, th));
            lines.push(match cpu {
                true => interpreted_status(v, th),
                false => status_line(v, th),
            });
            // What the time was taken at comes after the verdict: a short card keeps
            // whether the variant is right before the clocks it ran at.
            lines.extend(clock_line(v, width, th));
        }
    }
    lines.extend(tolerance_line(v, th));
    lines.extend(compile_lines(v));
    lines.extend(memory_lines(v, cpu, th));
    lines.extend(claim_lines(v, th));
    lines
}

/// The status of a variant run on the CPU interpreter, labelled so.
fn interpreted_status<'a>(v: &VariantResult, th: &Theme) -> Line<'a> {
    let status = status_line(v, th);
    let mut spans = vec![Span::styled("interpreted: ", th.dim)];
    spans.extend(status.spans);
    Line::from(spans).style(status.style)
}

/// What the recording's time is labelled with (stale where the kernel changed since the
/// recording, as its status would say).
fn recorded_label(rv: &VariantResult) -> &'static str {
    if rv.stale {
        "recorded (stale): "
    } else {
        "recorded: "
    }
}

/// Whether variant `b` follows `a` in the sweep that made both: it then leaves the note
/// they share to the first of them.
pub(super) fn same_sweep(app: &App, a: Option<&str>, b: &str) -> bool {
    let Some(l) = app.lesson() else { return false };
    let sweep = |n: &str| l.sweep_point(n).map(|(s, _)| s.name.clone());
    a.is_some_and(|a| sweep(a).is_some() && sweep(a) == sweep(b))
}

/// The lesson's note on variant `name`, read where it has room to wrap. A sweep's variants share one note, so each is
/// told by its point, in the axis's unit ("working set 4 MiB", where `ws-4` gives no unit):
/// before the note where `whole`, else alone, as the rows of a list under the sweep's
/// first have it.
pub(super) fn variant_note(app: &App, name: &str, whole: bool) -> Option<String> {
    let l = app.lesson()?;
    let note = l.variant(name)?.note.clone();
    let Some((sweep, point)) = l.sweep_point(name) else {
        return note;
    };
    let at = sweep.point_words(point.value);
    Some(match note.filter(|_| whole) {
        Some(n) => format!("{at} · {n}"),
        None => at,
    })
}

/// The time (or the samples so far), how it compares or the stage of a run on it, and the
/// throughput; `interpreted`: run on the CPU interpreter, which has no time to give.
fn timing_lines<'a>(
    app: &App,
    (r, v): (&LessonResult, &VariantResult),
    interpreted: bool,
    width: u16,
    th: &Theme,
) -> Vec<Line<'a>> {
    let mut lines = vec![time_line(v, interpreted, width, th)];
    if let Some(run) = running_here(app, v) {
        lines.push(Line::styled(format!("… {}", run.stage), th.accent));
    } else if let Some(t) = ratio_text(v, fastest(r)) {
        lines.push(Line::styled(t, th.accent));
    }
    // The share of the lesson's ceiling goes with the rate it is a share of.
    let of = app.lesson().map(|l| peak_of(&l.metrics));
    let pct = |on: bool| match (v.pct_of_peak, of, on) {
        (Some(p), Some(of), true) => format!(" · {p:.0}% {of}"),
        _ => String::new(),
    };
    let cublas = app.lesson().is_some_and(|l| l.metrics.cublas_peak);
    if let Some(g) = v.gbps {
        lines.push(Line::raw(format!("{g:.0} GB/s{}", pct(!cublas))));
    }
    if let Some(g) = v.gflops {
        lines.push(Line::raw(format!("{g:.0} GFLOP/s{}", pct(cublas))));
    }
    lines
}

/// What a lesson's percentages are of: the device-to-device copy unless it says another
/// ceiling (`metrics.peak`).
pub(super) fn peak_of(m: &crate::model::lesson::Metrics) -> &'static str {
    if m.link_peak {
        "of link"
    } else if m.cublas_peak {
        "of cuBLAS"
    } else {
        "of copy"
    }
}

/// The run in flight, when it is on `v` of the lesson shown.
fn running_here<'r>(
    app: &'r App,
    v: &VariantResult,
) -> Option<&'r crate::ui::state::runs::Running> {
    app.runs.running().as_ref().filter(|run| {
        Some(run.lesson.as_str()) == app.lesson().map(|l| l.id.as_str()) && run.variant == v.name
    })
}

/// The time a variant's list row shows: the median, that of the samples so far while it
/// is timed (with "…"), or "-".
pub(super) fn time_text(v: &VariantResult) -> String {
    match (&v.time_ms, v.samples_ms.is_empty()) {
        (Some(t), _) => fmt_ms(t.median),
        (None, false) => {
            let mut s = v.samples_ms.clone();
            s.sort_by(f64::total_cmp);
            format!("{}…", fmt_ms(s[s.len() / 2]))
        }
        (None, true) => "-".into(),
    }
}

/// The rate a variant's list row shows, and apart the share of the lesson's ceiling it is
/// (of the copy or the link for bytes, of cuBLAS for FLOPs), each empty where there is
/// none: the list aligns each in a column of its own.
pub(super) fn rate_cells(app: &App, v: &VariantResult) -> (String, String) {
    let pct = v
        .pct_of_peak
        .map(|p| format!("{p:.0}%"))
        .unwrap_or_default();
    let cublas = app.lesson().is_some_and(|l| l.metrics.cublas_peak);
    let rate = match (v.gbps, v.gflops) {
        (_, Some(g)) if cublas => format!("{g:.0} GFLOP/s"),
        (Some(g), _) => format!("{g:.0} GB/s"),
        (None, Some(g)) => return (format!("{g:.0} GFLOP/s"), String::new()),
        (None, None) => String::new(),
    };
    (rate, pct)
}

/// How `v` compares with the fastest of `r`, in a list whose fastest row says "fastest":
/// "1.3× slower", "≈ fastest".
pub(super) fn fastest_ratio((r, v): (&LessonResult, &VariantResult)) -> Option<String> {
    Some(match against(v, fastest(r))? {
        Against::Fastest => "fastest".into(),
        Against::WithinNoise(_) => "≈ fastest".into(),
        Against::Slower(x, _) => format!("{x:.1}× slower"),
    })
}

/// The verdict a variant's list row shows: the stage of a run on it, else its status as
/// its card says it.
pub(super) fn row_status<'a>(app: &App, v: &VariantResult, th: &Theme) -> Line<'a> {
    if let Some(run) = running_here(app, v) {
        return Line::styled(format!("… {}", run.stage), th.accent);
    }
    match app.interpreted_variant(&v.name) {
        true => interpreted_status(v, th),
        false => status_line(v, th),
    }
}

/// What the time was taken at: "1980 MHz, 43 °C", "cold L2" when the L2 was flushed
/// before each launch; every figure (memory clock, power, throttle reasons) where the
/// line is wide, as in the detail pane. None when the result does not say.
fn clock_line<'a>(v: &VariantResult, width: u16, th: &Theme) -> Option<Line<'a>> {
    let mut parts = Vec::new();
    if let Some(c) = &v.clocks {
        parts.push(match width >= 60 {
            true => crate::analysis::clocks::long_words(c),
            false => crate::analysis::clocks::short_words(c),
        });
    }
    if v.cold_l2 {
        parts.push("cold L2".to_string());
    }
    (!parts.is_empty()).then(|| Line::styled(parts.join(" · "), th.dim))
}

/// Figures the kernel measured itself (`measures:` in the lesson), one a line.
fn measured_lines<'a>(v: &VariantResult, th: &Theme) -> Vec<Line<'a>> {
    v.measured
        .iter()
        .map(|(name, m)| {
            Line::from(vec![
                Span::raw(format!("{name} ")),
                Span::styled(crate::analysis::claims::sig3(m.value), th.strong),
                Span::raw(format!(" {}", m.unit)),
            ])
        })
        .collect()
}

/// The float tolerance the check used, when the lesson sets its own: "correct" means
/// "within this", and the learner should see how far.
fn tolerance_line<'a>(v: &VariantResult, th: &Theme) -> Option<Line<'a>> {
    let t = v.tolerance?;
    Some(Line::styled(
        format!("floats within rel {:e} · abs {:e}", t.rel, t.abs),
        th.dim,
    ))
}

fn time_line<'a>(v: &VariantResult, interpreted: bool, width: u16, th: &Theme) -> Line<'a> {
    match (&v.time_ms, v.samples_ms.is_empty()) {
        (Some(t), _) => {
            let spark = sparkline(&v.samples_ms, (width as usize).saturating_sub(22).min(16));
            Line::from(vec![
                Span::styled(fmt_ms(t.median), time_style(v, th)),
                Span::raw(format!(" ±{:.1}% ", t.spread_pct)),
                Span::styled(spark, th.spark),
            ])
        }
        (None, false) => {
            let n = v.samples_ms.len();
            let mut s = v.samples_ms.clone();
            s.sort_by(f64::total_cmp);
            Line::from(vec![
                Span::styled(format!("{} ", fmt_ms(s[n / 2])), th.strong),
                Span::styled(sparkline(&v.samples_ms, 16), th.spark),
                Span::raw(format!(" {n} runs")),
            ])
        }
        (None, true) if interpreted => {
            Line::styled("no time: the CPU interpreter has none", th.dim)
        }
        (None, true) => Line::styled("no time", th.dim),
    }
}

/// How a variant's time is drawn: struck out where a race made its output match by luck,
/// as it is no valid speed.
pub(super) fn time_style(v: &VariantResult, th: &Theme) -> ratatui::style::Style {
    match first_race(v).is_some() {
        true => th.bad.add_modifier(Modifier::CROSSED_OUT),
        false => th.strong,
    }
}

/// Right, wrong (with why), stale or not run, marked and coloured so.
fn status_line<'a>(v: &VariantResult, th: &Theme) -> Line<'a> {
    let status = crate::analysis::describe::status(v);
    let refused = v.failure == Some(crate::model::results::Failure::NotInterpreted);
    let style = if v.stale {
        th.warn
    } else if refused {
        th.dim
    } else if v.correct == Some(false) || v.error.is_some() || first_race(v).is_some() {
        th.bad
    } else if v.correct == Some(true) {
        th.good
    } else {
        th.dim
    };
    let mark = match v.correct {
        _ if first_race(v).is_some() => "✗ ",
        Some(true) if !v.stale => "✓ ",
        Some(false) => "✗ ",
        _ => "",
    };
    Line::styled(format!("{mark}{status}"), style)
}

/// What the compiler reported, and the occupancy that follows from it.
fn compile_lines<'a>(v: &VariantResult) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    if let Some(p) = &v.ptxas {
        lines.push(Line::raw(format!(
            "{} regs · {} B stack",
            p.registers, p.stack_frame
        )));
        // ptxas counts spills in bytes: said so, stores and loads apart.
        lines.push(Line::raw(format!(
            "spill {} B st / {} B ld",
            p.spill_stores, p.spill_loads
        )));
    }
    if let Some(o) = &v.occupancy {
        let lim = if o.limiter.is_empty() {
            String::new()
        } else {
            format!(", limit: {}", o.limiter)
        };
        lines.push(Line::raw(format!(
            "occupancy {:.0}% ({}/{} warps{lim})",
            o.ratio * 100.0,
            o.active_warps,
            o.max_warps
        )));
    }
    lines
}

/// Where the traced accesses went, or why there is no trace; `cpu`: traced on the CPU
/// interpreter, which the last line says.
fn memory_lines<'a>(v: &VariantResult, cpu: bool, th: &Theme) -> Vec<Line<'a>> {
    let Some(m) = &v.memory else {
        return v
            .trace_error
            .iter()
            .map(|e| Line::styled(format!("no trace: {e}"), th.dim))
            .collect();
    };
    let mut lines: Vec<Line> = shared_text(&m.shared).map(Line::raw).into_iter().collect();
    lines.extend(
        race_lines(m)
            .into_iter()
            .map(|(l, bad)| Line::styled(l, if bad { th.bad } else { th.dim })),
    );
    if let Some(x) = per_request(m.global.sectors, m.global.requests) {
        lines.push(Line::raw(format!("global {x:.2} sectors/request")));
    }
    lines.extend(
        crate::analysis::describe::space_lines(m)
            .into_iter()
            .map(Line::raw),
    );
    if m.local.bytes > 0 {
        lines.push(Line::raw(format!(
            "local {} MiB moved",
            m.local.bytes >> 20
        )));
    }
    // Where the SASS makes an access differently from the PTX, the counts above are the
    // SASS's: said once per such access.
    lines.extend((m.instructions.iter()).filter_map(|i| {
        let s = i.sass.as_ref()?;
        let at = i
            .source_line
            .map_or(String::new(), |l| format!("line {l}: "));
        Some(Line::styled(format!("{at}{}", s.note), th.warn))
    }));
    if m.overflow > 0 {
        lines.push(Line::styled(
            format!("trace buffer full: {} records lost", m.overflow),
            th.warn,
        ));
    }
    if let Some(note) = unseen_note(m) {
        lines.push(Line::styled(note, th.warn));
    }
    if let Some(note) = census_note(m) {
        lines.push(Line::styled(note, th.dim));
    }
    // The interpreter checks the output at the CPU size but traces its sample of blocks
    // at the lesson's size, as the GPU does: the count is of that grid, and says so.
    let on = if cpu {
        " at full size, on the CPU interpreter"
    } else {
        ""
    };
    lines.push(Line::styled(
        format!(
            "traced {} of {} blocks{on}",
            m.traced_blocks, m.total_blocks
        ),
        th.dim,
    ));
    lines
}

/// The lesson's claims about this variant, each marked as it fares.
fn claim_lines<'a>(v: &VariantResult, th: &Theme) -> Vec<Line<'a>> {
    v.expect
        .iter()
        .map(|c| {
            let (mark, st) = match c.holds {
                Some(true) => ("✓", th.good),
                Some(false) => ("✗", th.bad),
                None if c.needs_gpu => ("·", th.dim),
                None => ("?", th.dim),
            };
            let claim = crate::analysis::claim_words::words(&c.claim);
            let text = claim.strip_prefix(&v.name).unwrap_or(&claim).trim();
            // What was not judged says why, in the words the counts use.
            match (c.needs_gpu, c.holds) {
                (true, _) => Line::styled(format!("{mark} {text}: not judged, needs a GPU"), st),
                (false, None) => Line::styled(format!("{mark} {text}: not measured here"), st),
                (false, Some(_)) => Line::styled(format!("{mark} {text}"), st),
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "columns_tests.rs"]
mod tests;
