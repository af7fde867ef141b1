//! The knob table, in place of the variant columns: one row per setting turned to this
//! session (value → time, the lesson's headline figure, sectors or wavefronts per request,
//! registers and spills), a bar of the headline figure as a small chart, and under it the
//! compile error of the setting the knob stands at, by its line.

use super::theme::Theme;
use crate::model::results::{Source, VariantResult};
use crate::model::{Knob, Lesson};
use crate::ui::app::App;
use crate::ui::knobs::Figures;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Borders, Paragraph, Widget, Wrap};

/// A figure of a row, and how it is written.
type Column = (
    &'static str,
    fn(&Lesson, &VariantResult) -> Option<f64>,
    usize,
);

const TIME: Column = ("time ms", |_, v| v.time_ms.as_ref().map(|t| t.median), 3);
const GBPS: Column = ("GB/s", |_, v| v.gbps, 0);
const GFLOPS: Column = ("GFLOP/s", |_, v| v.gflops, 0);
const SECTORS: Column = ("sect/req", |_, v| per_request(v, Space::Global), 1);
const WAVES: Column = ("wf/req", |_, v| per_request(v, Space::Shared), 1);

#[derive(Clone, Copy)]
enum Space {
    Global,
    Shared,
}

/// Sectors per global request, or wavefronts per shared load request (the stores that
/// fill a tile would dilute the loads the lessons are about), in the traced blocks.
fn per_request(v: &VariantResult, space: Space) -> Option<f64> {
    let m = v.memory.as_ref()?;
    let (n, d) = match space {
        Space::Global => (m.global.sectors, m.global.requests),
        Space::Shared => (m.shared.ld.wavefronts, m.shared.ld.requests),
    };
    (d > 0).then(|| n as f64 / d as f64)
}

/// The lesson's headline figure: bandwidth where it counts bytes, GFLOP/s where it counts
/// flops, else the time.
fn headline(lesson: &Lesson) -> Column {
    if lesson.metrics.bytes.is_some() {
        GBPS
    } else if lesson.metrics.flops.is_some() {
        GFLOPS
    } else {
        TIME
    }
}

/// The columns worth a place: time, the headline, and the per-request counts some row has.
fn columns(lesson: &Lesson, rows: &[Option<&VariantResult>]) -> Vec<Column> {
    let mut out = vec![TIME];
    let head = headline(lesson);
    if head.0 != TIME.0 {
        out.push(head);
    }
    for c in [SECTORS, WAVES] {
        if rows.iter().flatten().any(|v| (c.1)(lesson, v).is_some()) {
            out.push(c);
        }
    }
    out
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let Some((lesson, k)) = app.focused_knob() else {
        return;
    };
    let knob = &lesson.knobs[k];
    let at = app.knob_at(lesson, k);
    let rows = app.knob_rows(lesson, k);
    let figs: Vec<Option<&Figures>> = rows
        .iter()
        .map(|&i| app.knob_figures(lesson, knob, i))
        .collect();
    let shown: Vec<Option<&VariantResult>> = figs
        .iter()
        .map(|f| f.filter(|f| visible(app, f)).map(|f| &f.result))
        .collect();
    let cols = columns(lesson, &shown);
    let head = headline(lesson);
    let top = shown
        .iter()
        .flatten()
        .filter_map(|v| (head.1)(lesson, v))
        .fold(0.0, f64::max);
    let points: Vec<(i64, f64)> = rows
        .iter()
        .zip(&shown)
        .filter_map(|(&i, v)| Some((knob.settings[i].value, (head.1)(lesson, (*v)?)?)))
        .collect();
    let header = header(knob, &cols, th);
    // The bars go in a chart under the table where it fits, else beside each row.
    let table_h =
        rows.len().max(1) as u16 + 4 + error_lines(app, lesson, knob, at, th).len() as u16;
    let chart = points.len() >= 2 && area.height >= table_h + CHART_H;
    let room = match chart {
        true => 0,
        false => (area.width as usize).saturating_sub(header.width() + 3),
    };
    let mut lines = vec![header];
    for (n, &i) in rows.iter().enumerate() {
        let row = Row {
            value: knob.settings[i].value,
            name: knob.settings[i].variant.name.clone(),
            here: at == Some(i),
            figures: figs[n],
            shown: shown[n],
        };
        lines.push(row_line(app, lesson, &row, &cols, (head, top, room), th));
    }
    if rows.is_empty() {
        lines.push(Line::styled("  + or - turns the knob", th.dim));
    }
    lines.push(Line::raw(""));
    lines.extend(error_lines(app, lesson, knob, at, th));
    let title = format!(
        " knob {} on {} · {} values · + - turn, o columns ",
        knob.label,
        knob.variant,
        knob.settings.len()
    );
    let (table, below) = match chart {
        true => split(area, table_h),
        false => (area, Rect::default()),
    };
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(th.border)
                .title(Line::styled(title, th.title)),
        )
        .render(table, buf);
    if chart {
        render_chart(&points, head, knob, below, buf, th);
    }
}

/// The least height the chart is drawn in.
const CHART_H: u16 = 10;

fn split(area: Rect, top: u16) -> (Rect, Rect) {
    let a = Rect {
        height: top.min(area.height),
        ..area
    };
    let b = Rect {
        y: area.y + a.height,
        height: area.height - a.height,
        ..area
    };
    (a, b)
}

/// The headline figure of each setting with one, as bars over the knob's values.
fn render_chart(
    points: &[(i64, f64)],
    head: Column,
    knob: &Knob,
    area: Rect,
    buf: &mut Buffer,
    th: &Theme,
) {
    let texts: Vec<String> = points
        .iter()
        .map(|(_, y)| format!("{y:.*}", head.2))
        .collect();
    let widest = texts.iter().map(|t| t.len()).max().unwrap_or(1) as u16;
    let n = points.len() as u16;
    let fit = area.width.saturating_sub(2).saturating_sub(n) / n.max(1);
    let bar_w = widest.max(3).max(fit.min(8));
    // Bars are integers: a figure below 10 is drawn in thousandths, its text as written.
    let scale = if head.2 > 0 { 1000.0 } else { 1.0 };
    let bars: Vec<Bar> = points
        .iter()
        .zip(texts)
        .map(|((x, y), text)| {
            Bar::default()
                .value((y * scale).round() as u64)
                .text_value(text)
                .label(Line::from(x.to_string()))
                .style(th.spark)
        })
        .collect();
    let title = format!(" {} by {} ", head.0, knob.label);
    BarChart::default()
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(th.border)
                .title(Line::styled(title, th.title)),
        )
        .data(BarGroup::default().bars(&bars))
        .bar_width(bar_w)
        .bar_gap(1)
        .render(area, buf);
}

/// Live figures always; recorded ones once the learner has predicted (or revealed them).
fn visible(app: &App, f: &Figures) -> bool {
    f.source == Source::Live || app.revealed()
}

fn header<'a>(knob: &Knob, cols: &[Column], th: &Theme) -> Line<'a> {
    let mut s = format!("  {:>8}", clip(knob.kind.name(), 8));
    for c in cols {
        s.push_str(&format!(" {:>9}", c.0));
    }
    s.push_str(&format!(
        " {:>5} {:>11}  {:<5}",
        "regs", "spill st/ld", "from"
    ));
    Line::styled(s, th.strong)
}

fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

struct Row<'f> {
    value: i64,
    /// The setting's variant name.
    name: String,
    /// Where the knob stands.
    here: bool,
    figures: Option<&'f Figures>,
    /// The figures, when they may be shown.
    shown: Option<&'f VariantResult>,
}

fn row_line<'a>(
    app: &App,
    lesson: &Lesson,
    row: &Row,
    cols: &[Column],
    (head, top, room): (Column, f64, usize),
    th: &Theme,
) -> Line<'a> {
    let mark = if row.here { "▸" } else { " " };
    let mut spans = vec![Span::styled(
        format!("{mark} {:>8}", row.value),
        if row.here { th.focus } else { th.strong },
    )];
    let running = app
        .knobs
        .run
        .as_ref()
        .filter(|r| r.lesson.id == lesson.id && r.settings.contains(&row.name));
    let Some(f) = row.figures else {
        let words = match (running, &app.running) {
            (Some(_), Some(r)) => format!("  {}…", r.stage),
            _ => "  not recorded".into(),
        };
        spans.push(Span::styled(words, th.dim));
        return Line::from(spans);
    };
    let v = &f.result;
    let mut text = String::new();
    for c in cols {
        let x = row.shown.and_then(|v| (c.1)(lesson, v));
        text.push_str(&format!(
            " {:>9}",
            x.map_or("—".into(), |x| format!("{x:.*}", c.2))
        ));
    }
    let (regs, spill) = match &v.ptxas {
        Some(p) => (
            p.registers.to_string(),
            format!("{}/{}", p.spill_stores, p.spill_loads),
        ),
        None => ("—".into(), "—".into()),
    };
    text.push_str(&format!(" {regs:>5} {spill:>11}  {:<5}", from(f)));
    spans.push(Span::raw(text));
    spans.push(Span::raw(" "));
    spans.extend(tail(app, row, v, (head, top, room), lesson, th));
    if let Some(r) = running.and(app.running.as_ref()) {
        spans.push(Span::styled(
            format!(" · measuring: {}…", r.stage),
            th.accent,
        ));
    }
    Line::from(spans)
}

/// The bar of the headline figure, or why the row has none.
fn tail<'a>(
    app: &App,
    row: &Row,
    v: &VariantResult,
    (head, top, room): (Column, f64, usize),
    lesson: &Lesson,
    th: &Theme,
) -> Vec<Span<'a>> {
    if v.stale {
        return vec![Span::styled("stale", th.warn)];
    }
    if v.error.is_some() && v.correct != Some(true) {
        let words = if v.correct.is_none() && v.time_ms.is_none() {
            "error (below when the knob is here)"
        } else {
            "WRONG"
        };
        return vec![Span::styled(words, th.bad)];
    }
    let Some(x) = row.shown.and_then(|v| (head.1)(lesson, v)) else {
        let why = if row.shown.is_none() && !app.revealed() {
            "hidden (v shows it)"
        } else {
            ""
        };
        return vec![Span::styled(why, th.dim)];
    };
    let width = room.min(24) as f64;
    let n = if top > 0.0 && width >= 1.0 {
        ((x / top) * width).round().max(1.0) as usize
    } else {
        0
    };
    vec![Span::styled("█".repeat(n), th.spark)]
}

/// `live`, `rec`, `rec+c` (recorded timings, compile report made here) or `nvrtc` (only a
/// compile report made here).
fn from(f: &Figures) -> &'static str {
    match (f.source, f.compiled_here) {
        (Source::Live, _) => "live",
        (Source::Recorded, true) => "rec+c",
        (Source::Recorded, false) => "rec",
        (Source::None, true) => "nvrtc",
        (Source::None, false) => "—",
    }
}

/// The compile error of the setting the knob stands at, each message followed by the
/// source line it names.
fn error_lines<'a>(
    app: &App,
    lesson: &Lesson,
    knob: &Knob,
    at: Option<usize>,
    th: &Theme,
) -> Vec<Line<'a>> {
    let Some(i) = at else { return Vec::new() };
    let Some(f) = app.knob_figures(lesson, knob, i) else {
        return Vec::new();
    };
    let v = &knob.settings[i].variant;
    let Some(e) = f
        .result
        .error
        .as_ref()
        .filter(|_| f.result.correct.is_none())
    else {
        return Vec::new();
    };
    let mut out = vec![Line::styled(
        format!(
            "{} at {} = {}:",
            v.name,
            knob.kind.name(),
            knob.settings[i].value
        ),
        th.strong,
    )];
    for l in e.lines().filter(|l| !l.trim().is_empty()) {
        out.push(Line::styled(l.trim_end().to_string(), th.bad));
        let line = l
            .strip_prefix(&v.source_path)
            .and_then(|r| r.strip_prefix(':'))
            .and_then(|r| r.split(':').next())
            .and_then(|n| n.parse::<usize>().ok());
        if let Some(text) = line.and_then(|n| v.source.lines().nth(n.wrapping_sub(1))) {
            out.push(Line::styled(
                format!("{:>5} | {}", line.unwrap_or(0), text.trim_end()),
                th.dim,
            ));
        }
    }
    out
}
