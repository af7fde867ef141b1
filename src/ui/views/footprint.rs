//! Where the focused variant's texture fetches land in the image: a window of texels around
//! one traced warp's fetches (or all the sampled warps'), each cell the number of fetches of
//! that texel. Counted by `analysis::footprint`; readable without colour, like the heatmap.

use crate::analysis::footprint::{Footprint, footprint, warps};
use crate::model::results::VariantResult;
use crate::ui::app::App;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

pub const LEGEND: &str = "cell: fetches of a texel by the texture instructions (· none, + 10 or \
    more; squeezed, a cell is its busiest texel) · x right, y down · texel = floor(coordinate)";

/// The legend where every texel has a cell of its own: one row at 120 columns, so a
/// window of 33 rows is drawn whole below the lesson's header there.
pub const LEGEND_WHOLE: &str =
    "cell: fetches of a texel (· none, + 10 or more); x right, y down; texel = floor(coordinate)";

fn cell(v: u32) -> char {
    match v {
        0 => '·',
        1..=9 => char::from_digit(v, 10).unwrap_or('?'),
        _ => '+',
    }
}

fn style(v: u32, th: &Theme) -> Style {
    match (th.color, v) {
        (false, _) => Style::default(),
        (true, 0) => th.dim,
        (true, 1) => Style::default().fg(Color::Green),
        (true, _) => Style::default().fg(Color::Yellow),
    }
}

/// The busiest texel of the block of `fy` rows × `fx` columns at (row, col) of the window.
fn busiest(f: &Footprint, row: usize, col: usize, (fy, fx): (usize, usize)) -> u32 {
    let rows = f.cells.iter().skip(row * fy).take(fy);
    rows.flat_map(|r| r.iter().skip(col * fx).take(fx))
        .copied()
        .max()
        .unwrap_or(0)
}

/// The window as lines, squeezed (whole texels per cell) to fit `cols` × `rows`; a narrow
/// window's cells are drawn up to three characters wide, so it reads as a shape.
pub fn grid_lines(f: &Footprint, cols: usize, rows: usize, th: &Theme) -> Vec<Line<'static>> {
    const LABEL: usize = 7;
    let room = cols.saturating_sub(LABEL).max(1);
    let fx = f.width.div_ceil(room);
    let fy = f.height.div_ceil(rows.max(1));
    let (w, h) = (f.width.div_ceil(fx), f.height.div_ceil(fy));
    let cell_w = (room / w.max(1)).clamp(1, 3);
    // The heading gives the window's first x and its width: the rows need no x ticks.
    let mut lines = Vec::new();
    for r in 0..h {
        let y = f.origin.1 + (r * fy) as i64;
        let mut spans = vec![Span::styled(format!("{:>5}  ", format!("y{y}")), th.dim)];
        for c in 0..w {
            let v = busiest(f, r, c, (fy, fx));
            spans.push(Span::styled(format!("{:<cell_w$}", cell(v)), style(v, th)));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// The view's heading: what is drawn, the footprint's size, and the trace's figures.
fn heading(v: &VariantResult, f: &Footprint, index: Option<(usize, usize)>) -> Vec<String> {
    let which = index.map_or_else(String::new, |(i, n)| format!("[{}/{n}] ", i + 1));
    let mut squeeze = String::new();
    if f.cut {
        squeeze = format!(
            " · only the first {0} × {0} texels",
            crate::analysis::footprint::MAX_SIDE
        );
    }
    vec![
        format!(
            "{which}{} · {} · whole trace: {:.1} texels and {:.1} rows per request",
            v.name, f.label, f.texels_per_request, f.rows_per_request
        ),
        format!(
            "{} fetches · {} texels on {} rows · window {} × {} texels from x {}, y {}{squeeze}",
            f.fetches, f.texels, f.rows, f.width, f.height, f.origin.0, f.origin.1
        ),
    ]
}

/// The focused variant's footprint, or why there is none, for an area `width` × `height`.
pub fn lines(app: &App, width: usize, height: usize, th: &Theme) -> Vec<Line<'static>> {
    let Some(v) = app
        .result()
        .and_then(|r| r.variants.get(app.view.variant()))
    else {
        return Vec::new();
    };
    let n = warps(v).len();
    let which = (!app.view.aggregate()).then_some(app.view.instr());
    let Some(f) = footprint(v, which) else {
        let why = v.trace_error.clone().unwrap_or_else(|| {
            "no texture fetches traced for this variant (a recording made before the tracer \
             followed them has none)"
                .into()
        });
        return vec![Line::styled(v.name.clone(), th.strong), Line::raw(why)];
    };
    let head = heading(v, &f, which.map(|i| (i.min(n - 1), n)));
    let mut out: Vec<Line> = vec![Line::styled(head[0].clone(), th.strong)];
    out.extend(head[1..].iter().map(|h| Line::styled(h.clone(), th.accent)));
    // The legend wraps below the grid: keep it two or three rows, or one where the window
    // fits texel for texel beside the short legend (nothing squeezed to explain).
    let rows = |legend: &str| crate::ui::views::page::wrap(legend, width).len();
    let whole =
        f.height + out.len() + rows(LEGEND_WHOLE) <= height && f.width <= width.saturating_sub(7);
    let legend = if whole { LEGEND_WHOLE } else { LEGEND };
    let room = height.saturating_sub(out.len() + rows(legend));
    out.extend(grid_lines(&f, width, room, th));
    out.push(Line::styled(legend, th.dim));
    out
}

pub fn render_overlay(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let rect = crate::ui::views::overlays::full(area);
    Clear.render(rect, buf);
    let block = Block::default().borders(Borders::ALL).title(Line::styled(
        " texture footprint · [ ] warp · a all warps · ←→ variant · f closes ",
        th.title,
    ));
    let inner = block.inner(rect);
    block.render(rect, buf);
    let text = if app.focus_revealed() {
        lines(app, inner.width as usize, inner.height as usize, th)
    } else {
        vec![Line::raw(
            "The footprint is a measured figure: hidden until you run the lesson (r) or show \
             the recorded figures (v).",
        )]
    };
    Paragraph::new(text)
        .wrap(Wrap { trim: false })
        .render(inner, buf);
}
