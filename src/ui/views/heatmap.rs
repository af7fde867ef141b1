//! Drawing the heatmaps `analysis::heatmap` counts: lanes × banks, lanes × sectors and all
//! shared instructions × banks. Readable without colour: every cell is a character of a
//! ramp; colour only adds emphasis.

use crate::analysis::heatmap::{Grid, aggregate, grid_for, worst_first};
use crate::model::results::VariantResult;
use crate::ui::app::App;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

fn cell_char(v: u32) -> char {
    match v {
        0 => '·',
        1..=9 => char::from_digit(v, 10).unwrap_or('?'),
        _ => '+',
    }
}

fn cell_style(v: u32, th: &Theme) -> Style {
    if !th.color {
        return Style::default();
    }
    match v {
        0 => th.dim,
        1 => Style::default().fg(Color::Green),
        2..=3 => Style::default().fg(Color::Yellow),
        4..=15 => Style::default().fg(Color::LightRed),
        _ => Style::default().fg(Color::Red).bg(Color::Rgb(60, 0, 0)),
    }
}

/// The grid as lines: two lanes a row (the larger count of the pair), phase splits drawn.
pub fn grid_lines(g: &Grid, max_cols: usize, th: &Theme) -> Vec<Line<'static>> {
    grid_lines_in(g, max_cols, Compact::default(), th)
}

/// Rows a grid can do without where the room is short (80x24, a wide access's phases).
#[derive(Default, Clone, Copy)]
struct Compact {
    /// No bank ruler above the grid.
    no_ruler: bool,
    /// No rule row between phases: the first lanes of a phase have their label end in
    /// `─` instead ("16-17─").
    phases_in_labels: bool,
}

fn grid_lines_in(g: &Grid, max_cols: usize, c: Compact, th: &Theme) -> Vec<Line<'static>> {
    let shown = g.columns.min(max_cols.saturating_sub(6));
    let mut lines = Vec::new();
    let mut ticks = String::from("      ");
    for c in 0..shown {
        ticks.push(if c % 8 == 0 { '|' } else { ' ' });
    }
    if shown < g.columns {
        ticks.push('…');
    }
    if !c.no_ruler {
        lines.push(Line::styled(ticks, th.dim));
    }
    for pair in 0..16 {
        let (a, b) = (pair * 2, pair * 2 + 1);
        let starts = g.phase_starts.contains(&a);
        if starts && !c.phases_in_labels {
            lines.push(Line::styled(format!("      {}", "─".repeat(shown)), th.dim));
        }
        let end = if starts && c.phases_in_labels {
            '─'
        } else {
            ' '
        };
        let mut spans = vec![Span::styled(format!("{a:>2}-{b:<2}{end}"), th.dim)];
        for c in 0..shown {
            let act = |l: usize| g.active >> l & 1 == 1;
            let v = g.cells[a][c].max(g.cells[b][c]);
            let ch = if !act(a) && !act(b) {
                ' '
            } else {
                cell_char(v)
            };
            spans.push(Span::styled(ch.to_string(), cell_style(v, th)));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// The "all instructions" view's own legend: its cells are conflict degrees, as in the
/// single view, not words averaged over requests.
pub const AGGREGATE_LEGEND: &str = "rows: shared instructions, worst first · columns: banks \
    0–31 · cell: the bank's conflict degree (1 = no conflict, + = 10 or more) · right: \
    wavefronts per request";

/// All traced shared instructions × banks, each bank's conflict degree, each row ending in
/// the wavefronts per request the single view names.
pub fn aggregate_lines(v: &VariantResult, max_cols: usize, th: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!("{} · all shared instructions × banks", v.name),
        th.strong,
    )];
    let shown = max_cols.saturating_sub(6).min(32);
    for row in aggregate(v) {
        let mut spans = vec![Span::styled(
            format!(
                "{:>5} ",
                row.source_line.map(|l| format!("L{l}")).unwrap_or_default()
            ),
            th.dim,
        )];
        for &d in row.degree.iter().take(shown) {
            spans.push(Span::styled(cell_char(d).to_string(), cell_style(d, th)));
        }
        if max_cols >= shown + 6 + 10 {
            spans.push(Span::raw(format!(
                " {:>3.0} wf/req",
                row.wavefronts_per_request
            )));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// The heatmap in a variant's column: the focused column follows `[`/`]`; the others show
/// their worst instruction.
pub fn render_in_column(
    app: &App,
    v: &VariantResult,
    focused: bool,
    area: Rect,
    buf: &mut Buffer,
    th: &Theme,
) {
    let list = worst_first(v);
    if list.is_empty() {
        return;
    }
    let idx = if focused {
        app.view.instr().min(list.len() - 1)
    } else {
        0
    };
    let lines = if app.view.aggregate() && focused {
        aggregate_lines(v, area.width as usize, th)
    } else {
        let Some(g) = grid_for(&v.name, list[idx]) else {
            return;
        };
        let mut l = vec![Line::styled(
            format!(
                "[{}/{}] {}",
                idx + 1,
                list.len(),
                g.title.split(" · ").skip(1).collect::<Vec<_>>().join(" · ")
            ),
            th.accent,
        )];
        l.extend(grid_lines(&g, area.width as usize, th));
        l
    };
    Paragraph::new(lines).render(area, buf);
}

pub fn render_overlay(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let rect = crate::ui::views::overlays::full(area);
    Clear.render(rect, buf);
    let block = Block::default().borders(Borders::ALL).title(Line::styled(
        " heatmap · [ ] instruction · a all · ←→ variant · h closes ",
        th.title,
    ));
    let inner = block.inner(rect);
    block.render(rect, buf);
    let lines = if app.focus_revealed() {
        overlay_lines(app, inner, th)
    } else {
        vec![Line::raw(
            "The heatmap is a measured figure: hidden until you run the lesson (r) or show \
             the recorded figures (v).",
        )]
    };
    // The grid's rows fit; titles, source lines and legends wrap, never cut.
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(inner, buf);
}

/// The focused variant's heatmap: all instructions, or the one `[`/`]` chose, or why there
/// is none.
fn overlay_lines(app: &App, area: Rect, th: &Theme) -> Vec<Line<'static>> {
    let width = area.width as usize;
    let Some(v) = app
        .result()
        .and_then(|r| r.variants.get(app.view.variant()))
    else {
        return Vec::new();
    };
    let list = worst_first(v);
    if list.is_empty() {
        // A copy between the host and the GPU runs no kernel: there is nothing to trace.
        let copy = (app.lesson())
            .and_then(|l| l.variant(&v.name))
            .is_some_and(|x| x.transfer.is_some());
        let why = match (&v.trace_error, copy) {
            (Some(e), _) => e.clone(),
            (None, true) => format!(
                "`{}` is a copy between the host and the GPU, not a kernel: no access of it \
                 is traced (its time and bandwidth are on its card)",
                v.name
            ),
            (None, false) => {
                "no shared, global, constant or cluster accesses traced for this variant".into()
            }
        };
        return vec![Line::raw(why)];
    }
    if app.view.aggregate() {
        let mut lines = aggregate_lines(v, width, th);
        lines.push(Line::styled(AGGREGATE_LEGEND, th.dim));
        return lines;
    }
    let idx = app.view.instr().min(list.len() - 1);
    let Some(g) = grid_for(&v.name, list[idx]) else {
        return Vec::new();
    };
    let source_line = app
        .lesson()
        .and_then(|l| l.variant(&v.name))
        .and_then(|lv| {
            list[idx]
                .source_line
                .and_then(|n| lv.source.lines().nth(n as usize - 1))
        })
        .unwrap_or("")
        .trim()
        .to_string();
    let title = Line::styled(
        format!("[{}/{}] {}", idx + 1, list.len(), g.title),
        th.strong,
    );
    // One row for the code, cut by words: at 80x24 the grid and its legend need the rest.
    let code = Line::styled(
        crate::ui::views::fit::shorten(&format!("  {source_line}"), width),
        th.accent,
    );
    let legend = Line::styled(g.legend.clone(), th.dim);
    // Where the rows outgrow the pop-up (80x24, a wide access's phases), those that say
    // least give way first: the bank ruler, the code line, then the phases' rule rows.
    // The grid and the legend, which says what a cell means, stay whole.
    let rows = |ls: &[Line]| -> usize {
        ls.iter()
            .map(|l| l.width().max(1).div_ceil(width.max(1)))
            .sum()
    };
    let fits = |c: Compact, code: bool| {
        rows(&[title.clone(), legend.clone()])
            + usize::from(code)
            + rows(&grid_lines_in(&g, width, c, th))
            <= area.height as usize
    };
    let mut c = Compact::default();
    let mut with_code = true;
    if !fits(c, with_code) {
        c.no_ruler = true;
    }
    if !fits(c, with_code) {
        with_code = false;
    }
    if !fits(c, with_code) {
        c.phases_in_labels = true;
    }
    let mut lines = vec![title];
    lines.extend(with_code.then_some(code));
    lines.extend(grid_lines_in(&g, width, c, th));
    lines.push(legend);
    lines
}
