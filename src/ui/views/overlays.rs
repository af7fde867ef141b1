//! Pop-ups over the lesson: the help and a variant's code.

use super::theme::Theme;
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
    (
        "r",
        "run the lesson on this GPU (none: the CPU interpreter)",
    ),
    ("v", "show the recorded figures before predicting"),
    ("s", "after a CPU run: its figures / the recording's"),
    ("l", "loop: run again and again to watch the noise (GPU)"),
    ("m", "rerun a faulted variant under memcheck: its line"),
    (
        "c",
        "the code of the focused variant (s: its SASS, or both)",
    ),
    ("d", "the focused variant against the one before it"),
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
    ("·", "beside a claim: not judged here, needs a GPU"),
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
    // The interpreter's model, said where a learner without a GPU meets it.
    for l in [
        "Without a GPU, r runs the kernels on the CPU interpreter: outputs and",
        "traces, no times. Its warps run in lockstep and reconverge where the",
        "branches meet again, a cluster's blocks together; effects of weak",
        "memory ordering are not modelled.",
    ] {
        lines.push(Line::styled(l, th.dim));
    }
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
