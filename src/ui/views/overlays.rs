//! Pop-ups over the lesson: the help and a variant's code.

use super::theme::Theme;
use crate::model::Variant;
use crate::ui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

pub const KEYS: &[(&str, &str)] = &[
    ("↑ ↓ / j k", "previous / next lesson"),
    ("n p / PgDn PgUp", "next / previous page of prose"),
    ("← → / Tab", "previous / next variant"),
    ("r", "run the lesson on this GPU"),
    ("l", "loop: run again and again to watch the noise"),
    ("c", "the code of the focused variant"),
    ("h", "heatmap of the focused variant's accesses"),
    ("[ ]", "previous / next traced instruction (worst first)"),
    ("a", "heatmap: one request / all instructions"),
    ("?", "this help"),
    ("q / Esc", "quit (or close a pop-up)"),
];

pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

pub fn render_help(area: Rect, buf: &mut Buffer, th: &Theme) {
    let rect = centered(area, 64, KEYS.len() as u16 + 6);
    Clear.render(rect, buf);
    let mut lines: Vec<Line> = KEYS
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:>16}  "), th.strong),
                Span::raw(*what),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Figures say whether they are live or recorded, and on which GPU.",
        th.dim,
    ));
    Paragraph::new(lines)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .title(Line::styled(" Help ", th.title)),
        )
        .render(rect, buf);
}

/// A full pop-up: all of the lesson's side but its keys line, so nothing of the screen
/// beneath shows at its edges.
pub fn full(area: Rect) -> Rect {
    Rect {
        height: area.height.saturating_sub(1),
        ..area
    }
}

fn code_rect(area: Rect) -> Rect {
    full(area)
}

/// The furthest the code can scroll in `area` with its last line still at the bottom.
pub fn code_max_scroll(app: &App, area: Rect) -> usize {
    let Some(v) = app.lesson().and_then(|l| l.variants.get(app.variant)) else {
        return 0;
    };
    let rows = 1 + v.source.lines().count() + diagnostics(app, v).len();
    let view = code_rect(area).height.saturating_sub(2) as usize;
    rows.saturating_sub(view)
}

pub fn render_code(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let Some(lesson) = app.lesson() else { return };
    let Some(v) = lesson.variants.get(app.variant) else {
        return;
    };
    let rect = code_rect(area);
    let scroll = (app.code_scroll as usize).min(code_max_scroll(app, area)) as u16;
    Clear.render(rect, buf);
    let diag_lines = diagnostics(app, v);
    let mut lines = vec![code_header(v, th)];
    for (i, text) in v.source.lines().enumerate() {
        let n = i as u32 + 1;
        lines.push(Line::from(vec![
            Span::styled(format!("{n:>4} "), th.dim),
            Span::raw(text.to_string()),
        ]));
        for (_, msg) in diag_lines.iter().filter(|(l, _)| *l == n) {
            lines.push(Line::styled(format!("     ^ {msg}"), th.bad));
        }
    }
    Paragraph::new(lines)
        .scroll((scroll, 0))
        .block(Block::default().borders(Borders::ALL).title(Line::styled(
            format!(" {} · code (↑↓ scroll, c closes) ", v.name),
            th.title,
        )))
        .render(rect, buf);
}

/// A compile error names source lines: each message by the line it is about, so it can be
/// shown under that line.
fn diagnostics(app: &App, v: &Variant) -> Vec<(u32, String)> {
    let error = app
        .result()
        .and_then(|r| r.variants.iter().find(|x| x.name == v.name))
        .and_then(|x| x.error.clone())
        .unwrap_or_default();
    error
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(&v.source_path)?.strip_prefix(':')?;
            let (n, msg) = rest.split_once(": ")?;
            Some((n.parse().ok()?, msg.to_string()))
        })
        .collect()
}

/// Which file and kernel, built how, launched how.
fn code_header<'a>(v: &Variant, th: &Theme) -> Line<'a> {
    let defines: Vec<String> = v
        .defines
        .iter()
        .map(|(k, val)| format!("{k}={val}"))
        .collect();
    Line::styled(
        format!(
            "{} · kernel {} · defines {} · grid {:?} block {:?}",
            v.source_path,
            v.kernel,
            if defines.is_empty() {
                "none".into()
            } else {
                defines.join(" ")
            },
            v.grid,
            v.block
        ),
        th.dim,
    )
}
