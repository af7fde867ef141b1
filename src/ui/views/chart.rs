//! A lesson's sweep as a chart: GB/s (or time, for a lesson that counts no bytes) of each
//! generated variant against the swept value. ratatui has no log axis, so values spanning
//! more than ten times are placed at their log2 and the ticks carry the real values.

use crate::analysis::describe::source_label;
use crate::model::results::LessonResult;
use crate::model::{Lesson, Sweep};
use crate::ui::app::App;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph, Widget};

/// What the chart plots, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// (x as placed, y) for each variant that has a figure, in the sweep's order.
    pub points: Vec<(f64, f64)>,
    pub log_x: bool,
    /// The x axis's bounds as placed, and its three tick labels (real values).
    pub x_bounds: [f64; 2],
    pub x_ticks: [String; 3],
    pub y_max: f64,
    pub y_title: &'static str,
}

/// The plot of `sweep` from `result`; `None` figures leave their point out.
pub fn plot(lesson: &Lesson, sweep: &Sweep, result: Option<&LessonResult>) -> Plot {
    let values: Vec<i64> = sweep.points.iter().map(|p| p.value).collect();
    let lo = values.iter().copied().min().unwrap_or(0) as f64;
    let hi = values.iter().copied().max().unwrap_or(0) as f64;
    let log_x = lo > 0.0 && hi / lo > 10.0;
    let place = |v: f64| if log_x { v.log2() } else { v };
    let by_bytes = lesson.metrics.bytes.is_some();
    let figure = |name: &str| {
        let v = result?.variants.iter().find(|v| v.name == name)?;
        if by_bytes {
            v.gbps
        } else {
            v.time_ms.as_ref().map(|t| t.median)
        }
    };
    let points: Vec<(f64, f64)> = sweep
        .points
        .iter()
        .filter_map(|p| figure(&p.variant).map(|y| (place(p.value as f64), y)))
        .collect();
    let (a, b) = (place(lo), place(hi));
    let mid = if log_x {
        (a + b) / 2.0
    } else {
        (lo + hi) / 2.0
    };
    let mid_real = if log_x { mid.exp2() } else { mid };
    let top = points.iter().map(|p| p.1).fold(0.0, f64::max);
    Plot {
        points,
        log_x,
        x_bounds: [a, b.max(a + 1e-9)],
        x_ticks: [number(lo), number(mid_real), number(hi)],
        y_max: nice_ceiling(top),
        y_title: if by_bytes { "GB/s" } else { "time (ms)" },
    }
}

/// A round number a little above `v`, so the highest point sits below the top edge.
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let step = 10f64.powf((v * 1.1).log10().floor());
    ((v * 1.1) / step).ceil() * step
}

/// A tick label: whole numbers as such, others to three significant figures.
fn number(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// Rows a chart needs to be read: its axes, ticks, titles and a few rows of plot.
const MIN_CHART_ROWS: u16 = 12;

/// The charts of the lesson's sweeps in `area`, one under another when they all fit, else
/// the one `[`/`]` chose; or a line saying there is none.
pub fn render(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let Some(lesson) = app.lesson().filter(|l| !l.sweeps.is_empty()) else {
        Paragraph::new(" This lesson sweeps nothing: no chart (g goes back).").render(area, buf);
        return;
    };
    let n = lesson.sweeps.len() as u16;
    if n == 1 || area.height / n >= MIN_CHART_ROWS {
        let rows =
            Layout::vertical(vec![Constraint::Ratio(1, u32::from(n)); n as usize]).split(area);
        for (i, (sweep, rect)) in lesson.sweeps.iter().zip(rows.iter()).enumerate() {
            let which = (n > 1).then_some((i, n as usize, false));
            render_one(app, lesson, sweep, which, *rect, buf, th);
        }
    } else {
        let i = app.view.sweep().min(n as usize - 1);
        let which = Some((i, n as usize, true));
        render_one(app, lesson, &lesson.sweeps[i], which, area, buf, th);
    }
}

/// One sweep's chart; `which` is (index, count, whether the others are hidden) when the
/// lesson has several.
fn render_one(
    app: &App,
    lesson: &Lesson,
    sweep: &Sweep,
    which: Option<(usize, usize, bool)>,
    area: Rect,
    buf: &mut Buffer,
    th: &Theme,
) {
    // A sweep is times: the recording's (or a live run's) even where the CPU interpreter's
    // figures are in the columns.
    let timed = match app.interpreted_shown() {
        Some(_) => app.timed_result(),
        None => app.result(),
    };
    let shown = timed.filter(|_| app.revealed());
    let p = plot(lesson, sweep, shown);
    let from = shown.map_or_else(
        || "v shows the recorded figures, r runs".to_string(),
        source_label,
    );
    let of = match which {
        Some((i, n, true)) => format!(" · {}/{n}, [ ] others", i + 1),
        Some((i, n, false)) => format!(" · {}/{n}", i + 1),
        None => String::new(),
    };
    // Which chart and how to reach the others first: at 80 columns the end of a title
    // is cut, by whole words, and the source's words go before the way to the next chart.
    let title = format!(
        " {}{of}: {} by {} · {from}",
        sweep.name, p.y_title, sweep.x_label
    );
    let title = format!(
        "{} ",
        crate::ui::views::fit::shorten(&title, area.width.saturating_sub(3) as usize)
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Line::styled(title, th.title));
    chart(&p, sweep, area.width, th)
        .block(block)
        .render(area, buf);
}

fn chart<'a>(p: &'a Plot, sweep: &Sweep, width: u16, th: &Theme) -> Chart<'a> {
    let line = Dataset::default()
        .marker(Marker::Braille)
        .graph_type(GraphType::Line)
        .style(th.accent)
        .data(&p.points);
    let dots = Dataset::default()
        .name(sweep.define.clone())
        .marker(Marker::Dot)
        .graph_type(GraphType::Scatter)
        .style(th.strong)
        .data(&p.points);
    let x_title = if p.log_x {
        format!("{} (log scale)", sweep.x_label)
    } else {
        sweep.x_label.clone()
    };
    let y = p.y_max;
    // The x axis's title is drawn only whole, so a long one in a narrow chart (the lesson
    // list open at 80 columns) would go altogether: it loses its last words instead.
    let y_labels = [number(0.0), number(y / 2.0), number(y)];
    let label_w = y_labels
        .iter()
        .map(|l| crate::ui::views::fit::width(l))
        .max()
        .unwrap_or(0);
    let room = (width as usize).saturating_sub(label_w + 4);
    let x_title = crate::ui::views::fit::shorten(&x_title, room);
    Chart::new(vec![line, dots])
        .hidden_legend_constraints((
            ratatui::layout::Constraint::Length(0),
            ratatui::layout::Constraint::Length(0),
        ))
        .x_axis(
            Axis::default()
                .title(Line::styled(x_title, th.dim))
                .bounds(p.x_bounds)
                .labels(p.x_ticks.iter().map(|t| Line::raw(t.clone()))),
        )
        .y_axis(
            Axis::default()
                .title(Line::styled(p.y_title, th.dim))
                .bounds([0.0, y])
                .labels(y_labels.map(Line::raw)),
        )
}
