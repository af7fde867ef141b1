//! The knob table, in place of the variant columns: one row per setting turned to this
//! session (value → time, the lesson's headline figure, sectors or wavefronts per request,
//! registers and spills), a bar of the headline figure as a small chart, and under it the
//! compile error of the setting the knob stands at, by its line.

use crate::model::results::{Source, VariantResult};
use crate::model::{Knob, Lesson};
use crate::ui::app::App;
use crate::ui::state::knobs::Figures;
use crate::ui::views::fit::{self, Part};
use crate::ui::views::knob_chart;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

/// A figure of a row, and how it is written.
pub(super) type Column = (
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
    let rows = app.knob_rows(lesson, k);
    let figs: Vec<Option<&Figures>> = rows
        .iter()
        .map(|&i| app.knob_figures(lesson, &lesson.knobs[k], i))
        .collect();
    let shown: Vec<Option<&VariantResult>> = figs
        .iter()
        .map(|f| f.filter(|f| visible(app, f)).map(|f| &f.result))
        .collect();
    let t = Table {
        lesson,
        knob: &lesson.knobs[k],
        at: app.knob_at(lesson, k),
        cols: columns(lesson, &shown),
        head: headline(lesson),
        rows,
        figs,
        shown,
    };
    let errors = error_lines(app, lesson, t.knob, t.at, th);
    let points = t.points();
    // The bars go in a chart under the table where it fits, else beside each row.
    let table_h = t.rows.len().max(1) as u16 + 4 + errors.len() as u16;
    let chart = points.len() >= 2 && area.height >= table_h + knob_chart::HEIGHT;
    let mut lines = t.lines(app, area.width, chart, th);
    lines.push(Line::raw(""));
    lines.extend(errors);
    // At 80 columns a long label leaves no room for the rest: the count of values goes
    // first, then the keys, each whole; the knob itself loses words last.
    let title = fit::fit_parts(
        vec![
            Part::new(
                format!(" knob {} on {}", t.knob.label, t.knob.variant),
                th.title,
                0,
            ),
            Part::new(format!(" · {} values", t.knob.settings.len()), th.title, 2),
            Part::new(" · + - turn, o columns", th.title, 1),
            Part::new(" ", th.title, 0),
        ],
        area.width.saturating_sub(3) as usize,
    );
    let (table, below) = match chart {
        true => knob_chart::split(area, table_h),
        false => (area, Rect::default()),
    };
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(th.border)
                .title(title),
        )
        .render(table, buf);
    if chart {
        knob_chart::render(&points, t.head, t.knob, below, buf, th);
    }
}

/// What the table shows: the settings turned to, their figures, and which columns.
struct Table<'a> {
    lesson: &'a Lesson,
    knob: &'a Knob,
    at: Option<usize>,
    cols: Vec<Column>,
    head: Column,
    rows: Vec<usize>,
    figs: Vec<Option<&'a Figures>>,
    /// The figures of each row that may be shown.
    shown: Vec<Option<&'a VariantResult>>,
}

impl Table<'_> {
    /// (value, headline figure) of each row that shows one.
    fn points(&self) -> Vec<(i64, f64)> {
        let value = |i: usize| self.knob.settings[i].value;
        let y = |v: &Option<&VariantResult>| (self.head.1)(self.lesson, (*v)?);
        let rows = self.rows.iter().zip(&self.shown);
        rows.filter_map(|(&i, v)| Some((value(i), y(v)?))).collect()
    }

    /// The header and a line per row, with bars beside the rows unless a chart has them.
    fn lines<'l>(&self, app: &App, width: u16, chart: bool, th: &Theme) -> Vec<Line<'l>> {
        let top = self.points().iter().map(|p| p.1).fold(0.0, f64::max);
        let cells: Vec<Option<Cells>> = (0..self.rows.len())
            .map(|n| self.figs[n].map(|f| self.cells(f, self.shown[n])))
            .collect();
        let w = self.widths(&cells);
        let header = header(self.knob, &self.cols, &w, th);
        let room = match chart {
            true => 0,
            false => (width as usize).saturating_sub(header.width() + 3),
        };
        let mut lines = vec![header];
        for (n, &i) in self.rows.iter().enumerate() {
            let row = Row {
                value: self.knob.settings[i].value,
                name: self.knob.settings[i].variant.name.clone(),
                here: self.at == Some(i),
                figures: self.figs[n],
                shown: self.shown[n],
            };
            let scale = (self.head, top, room);
            let cells = (cells[n].as_ref(), &w);
            lines.push(row_line(app, self.lesson, &row, cells, scale, th));
        }
        if self.rows.is_empty() {
            lines.push(Line::styled("  + or - turns the knob", th.dim));
        }
        lines
    }

    /// What a row with figures writes in each column.
    fn cells(&self, f: &Figures, shown: Option<&VariantResult>) -> Cells {
        let figures = (self.cols.iter())
            .map(|c| match shown.and_then(|v| (c.1)(self.lesson, v)) {
                Some(x) => format!("{x:.*}", c.2),
                None => "—".into(),
            })
            .collect();
        // The compile report is a figure too, hidden with the rest before r or v.
        let (regs, spill) = match shown.and_then(|v| v.ptxas.as_ref()) {
            Some(p) => (
                p.registers.to_string(),
                format!("{}/{}", p.spill_stores, p.spill_loads),
            ),
            None => ("—".into(), "—".into()),
        };
        Cells {
            figures,
            regs,
            spill,
            from: from(f),
        }
    }

    /// Each column as wide as its header or its widest figure, no wider: at 80 columns what
    /// is left is the bars'.
    fn widths(&self, cells: &[Option<Cells>]) -> Widths {
        let cells: Vec<&Cells> = cells.iter().flatten().collect();
        let widest = |head: usize, f: &dyn Fn(&Cells) -> usize| {
            cells.iter().map(|c| f(c)).fold(head, usize::max)
        };
        let values = self.rows.iter().map(|&i| self.knob.settings[i].value);
        Widths {
            value: (values.map(|v| v.to_string().len()))
                .fold(fit::width(&clip(self.knob.kind.name(), 8)), usize::max),
            figures: (self.cols.iter().enumerate())
                .map(|(i, c)| widest(fit::width(c.0), &|x| fit::width(&x.figures[i])))
                .collect(),
            regs: widest(fit::width(REGS), &|x| fit::width(&x.regs)),
            spill: widest(fit::width(SPILL), &|x| fit::width(&x.spill)),
            from: widest(fit::width(FROM), &|x| fit::width(x.from)),
        }
    }
}

const REGS: &str = "regs";
const SPILL: &str = "spill st/ld";
const FROM: &str = "from";

/// A row's figures as written.
struct Cells {
    figures: Vec<String>,
    regs: String,
    spill: String,
    from: &'static str,
}

/// The width of each column.
struct Widths {
    value: usize,
    figures: Vec<usize>,
    regs: usize,
    spill: usize,
    from: usize,
}

/// Live figures always; recorded ones once the learner has predicted (or revealed them).
fn visible(app: &App, f: &Figures) -> bool {
    f.source == Source::Live || app.revealed()
}

fn header<'a>(knob: &Knob, cols: &[Column], w: &Widths, th: &Theme) -> Line<'a> {
    let mut s = format!("  {:>n$}", clip(knob.kind.name(), 8), n = w.value);
    for (c, n) in cols.iter().zip(&w.figures) {
        s.push_str(&format!("  {:>n$}", c.0));
    }
    s.push_str(&format!(
        "  {REGS:>r$}  {SPILL:>s$}  {FROM:<f$}",
        r = w.regs,
        s = w.spill,
        f = w.from
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
    (cells, w): (Option<&Cells>, &Widths),
    (head, top, room): (Column, f64, usize),
    th: &Theme,
) -> Line<'a> {
    let mark = if row.here { "▸" } else { " " };
    let mut spans = vec![Span::styled(
        format!("{mark} {:>n$}", row.value, n = w.value),
        if row.here { th.focus } else { th.strong },
    )];
    let running = app
        .runs
        .knobs()
        .run()
        .filter(|r| r.lesson.id == lesson.id && r.settings.contains(&row.name));
    let (Some(f), Some(c)) = (row.figures, cells) else {
        let words = match (running, &app.runs.running()) {
            (Some(_), Some(r)) => format!("  {}…", r.stage),
            _ => "  not recorded".into(),
        };
        spans.push(Span::styled(words, th.dim));
        return Line::from(spans);
    };
    let mut text = String::new();
    for (x, n) in c.figures.iter().zip(&w.figures) {
        text.push_str(&format!("  {x:>n$}"));
    }
    text.push_str(&format!(
        "  {:>r$}  {:>s$}  {:<f$}",
        c.regs,
        c.spill,
        c.from,
        r = w.regs,
        s = w.spill,
        f = w.from
    ));
    spans.push(Span::raw(text));
    spans.push(Span::raw(" "));
    spans.extend(tail(app, row, &f.result, (head, top, room), lesson, th));
    if let Some(r) = running.and(app.runs.running().as_ref()) {
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
        (Source::Interpreted, _) => "cpu",
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
