//! Drawing the heatmaps `analysis::heatmap` counts: lanes × banks, lanes × sectors and all
//! shared instructions × banks. Readable without colour: every cell is a character of a
//! ramp; colour only adds emphasis.

use super::theme::Theme;
use crate::analysis::heatmap::{Grid, aggregate, grid_for, worst_first};
use crate::model::results::VariantResult;
use crate::ui::app::App;
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
    let shown = g.columns.min(max_cols.saturating_sub(6));
    let mut lines = Vec::new();
    let mut ticks = String::from("      ");
    for c in 0..shown {
        ticks.push(if c % 8 == 0 { '|' } else { ' ' });
    }
    if shown < g.columns {
        ticks.push('…');
    }
    lines.push(Line::styled(ticks, th.dim));
    for pair in 0..16 {
        let (a, b) = (pair * 2, pair * 2 + 1);
        if g.phase_starts.contains(&a) {
            lines.push(Line::styled(format!("      {}", "─".repeat(shown)), th.dim));
        }
        let mut spans = vec![Span::styled(format!("{a:>2}-{b:<2} "), th.dim)];
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
        app.view.instr.min(list.len() - 1)
    } else {
        0
    };
    let lines = if app.view.aggregate && focused {
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
    let rect = super::overlays::full(area);
    Clear.render(rect, buf);
    let block = Block::default().borders(Borders::ALL).title(Line::styled(
        " heatmap · [ ] instruction · a all · ←→ variant · h closes ",
        th.title,
    ));
    let inner = block.inner(rect);
    block.render(rect, buf);
    let lines = if app.revealed() {
        let mut lines = overlay_lines(app, inner.width as usize, th);
        fit_rows(&mut lines, inner, th);
        lines
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

/// Where the heatmap's rows outgrow `area` (80x24, a wide access's phases), the rows that
/// say least go first — the bank ruler, then the code line — so that the grid and the
/// legend, which says what a cell means, stay whole.
fn fit_rows(lines: &mut Vec<Line<'static>>, area: Rect, th: &Theme) {
    let rows = |ls: &[Line]| -> usize {
        let w = area.width.max(1) as usize;
        ls.iter().map(|l| l.width().max(1).div_ceil(w)).sum()
    };
    let ruler = |l: &Line| {
        let t: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
        l.style == th.dim
            && !t.trim().is_empty()
            && t.trim().chars().all(|c| c == '|' || c == ' ' || c == '…')
    };
    if rows(lines) > area.height as usize
        && let Some(i) = lines.iter().position(ruler)
    {
        lines.remove(i);
    }
    // The code line, second under the title, where the single view has one.
    if rows(lines) > area.height as usize && lines.len() > 2 && lines[1].style == th.accent {
        lines.remove(1);
    }
    // Then the phases' rule rows, all of them: the first lanes of each phase have their
    // label end in `─` instead ("16-17─").
    let rule = |l: &Line| {
        let t: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
        t.trim().chars().all(|c| c == '─') && !t.trim().is_empty()
    };
    if rows(lines) > area.height as usize {
        while let Some(i) = lines.iter().position(rule) {
            lines.remove(i);
            if let Some(first) = lines.get_mut(i).and_then(|l| l.spans.first_mut()) {
                let label = first.content.trim_end().to_string();
                first.content = format!("{label}─").into();
            }
        }
    }
}

/// The focused variant's heatmap: all instructions, or the one `[`/`]` chose, or why there
/// is none.
fn overlay_lines(app: &App, width: usize, th: &Theme) -> Vec<Line<'static>> {
    let Some(v) = app.result().and_then(|r| r.variants.get(app.view.variant)) else {
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
    if app.view.aggregate {
        let mut lines = aggregate_lines(v, width, th);
        lines.push(Line::styled(AGGREGATE_LEGEND, th.dim));
        return lines;
    }
    let idx = app.view.instr.min(list.len() - 1);
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
    let mut lines = vec![
        Line::styled(
            format!("[{}/{}] {}", idx + 1, list.len(), g.title),
            th.strong,
        ),
        // One row for the code, cut by words: at 80x24 the grid and its legend need the
        // rest (the legend is what says what a cell means).
        Line::styled(
            super::fit::shorten(&format!("  {source_line}"), width),
            th.accent,
        ),
    ];
    lines.extend(grid_lines(&g, width, th));
    lines.push(Line::styled(g.legend.clone(), th.dim));
    lines
}
