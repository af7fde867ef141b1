//! Pop-ups over the lesson: the help and a variant's code.

use super::theme::Theme;
use crate::model::Variant;
use crate::ui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

pub const KEYS: &[(&str, &str)] = &[
    ("↑ ↓ / j k", "previous / next lesson"),
    ("n p", "next / previous page of prose"),
    ("PgDn PgUp / Space", "scroll the page; at its end, turn it"),
    ("J K / wheel", "scroll the page a row (the wheel: three)"),
    ("← → / Tab", "previous / next variant"),
    ("1-6", "answer the checkpoint question on screen"),
    ("r", "run the lesson on this GPU"),
    ("v", "show the recorded figures before predicting"),
    ("l", "loop: run again and again to watch the noise"),
    ("m", "rerun a faulted variant under memcheck: its line"),
    ("c", "the code of the focused variant"),
    ("h", "heatmap of the focused variant's accesses"),
    ("[ ]", "previous / next traced instruction (worst first)"),
    ("a", "heatmap: one request / all instructions"),
    ("?", "this help"),
    ("q / Esc", "quit (or close a pop-up)"),
];

/// Keys only a lesson with a sweep has; the help lists them on such a lesson.
pub const SWEEP_KEYS: &[(&str, &str)] = &[("g", "chart of the sweep, in place of the variants")];

/// Keys only a lesson with a knob has.
pub const KNOB_KEYS: &[(&str, &str)] = &[
    (
        "+ -",
        "turn the focused variant's knob: rerun it at the next value",
    ),
    ("o", "knob table / variant columns"),
    ("*", "the variant's next knob, when it has several"),
];

/// Keys only a lesson with a texture has.
pub const TEXTURE_KEYS: &[(&str, &str)] = &[(
    "f",
    "footprint: where a warp's texture fetches land ([ ] warp, a all)",
)];

/// What the marks on the screen mean.
pub const MARKS: &[(&str, &str)] = &[
    ("▸", "the lesson on screen"),
    ("•", "lesson started"),
    ("✓", "lesson finished: pages read, checkpoint answered"),
    ("◆", "lesson run live on this machine"),
    ("✓ ✗ ?", "beside a claim: holds, fails, not measured"),
    (
        "spill",
        "bytes ptxas spilled to local memory: stores / loads",
    ),
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

/// The help, as wide as its longest line (or the screen, wrapping what does not fit).
/// Keys only an exercise has.
pub const EXERCISE_KEYS: &[(&str, &str)] = &[
    ("e", "exercise: open your file in $VISUAL / $EDITOR"),
    (
        "r",
        "exercise: check your file now (every save checks it too)",
    ),
    ("t", "exercise: the next hint"),
];

/// The keys, with those of the lesson's sweeps, knobs, textures or exercise on screen.
pub fn render_help(area: Rect, buf: &mut Buffer, th: &Theme, on: (bool, bool, bool, bool)) {
    let (sweeps, textures, exercise, knobs) = on;
    let extra: Vec<(&str, &str)> = [
        (sweeps, SWEEP_KEYS),
        (knobs, KNOB_KEYS),
        (textures, TEXTURE_KEYS),
        (exercise, EXERCISE_KEYS),
    ]
    .into_iter()
    .filter(|(on, _)| *on)
    .flat_map(|(_, keys)| keys.iter().copied())
    .collect();
    let extra = extra.as_slice();
    let key_w = KEYS
        .iter()
        .chain(extra)
        .chain(MARKS)
        .map(|(k, _)| Line::raw(*k).width())
        .max()
        .unwrap_or(0);
    let row = |(k, what): &(&str, &str)| {
        Line::from(vec![
            Span::styled(format!("{k:>key_w$}  "), th.strong),
            Span::raw(what.to_string()),
        ])
    };
    let mut lines: Vec<Line> = KEYS.iter().chain(extra).map(row).collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled("Marks", th.title));
    lines.extend(MARKS.iter().map(row));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Figures say whether they are live or recorded, and on which GPU.",
        th.dim,
    ));
    let widest = lines.iter().map(Line::width).max().unwrap_or(0) as u16;
    let w = (widest + 2).min(area.width);
    let text_w = w.saturating_sub(2).max(1);
    let rows: u16 = lines
        .iter()
        .map(|l| (l.width() as u16).div_ceil(text_w).max(1))
        .sum();
    let rect = centered(area, w, rows + 2);
    Clear.render(rect, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
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
