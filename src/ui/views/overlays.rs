//! Pop-ups over the lesson: the help and the glossary, both scrolled.

use crate::course::glossary::TERMS;
use crate::ui::app::App;
use crate::ui::views::fit;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

pub const KEYS: &[(&str, &str)] = &[
    (
        "↑ ↓ / j k",
        "previous / next row: a lesson, then its exercises",
    ),
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
    ("C", "cold L2: flush the L2 before every timed launch"),
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
    (
        "Esc",
        "back: close a pop-up, leave an exercise for its lesson",
    ),
    ("q", "quit (or close a pop-up)"),
];

/// Keys only a lesson with a sweep has; the help lists them on such a lesson.
pub const SWEEP_KEYS: &[(&str, &str)] = &[
    ("g", "chart of the sweep, in place of the variants"),
    ("[ ]", "on a chart: the lesson's other charts"),
];

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

/// Keys only an exercise has.
pub const EXERCISE_KEYS: &[(&str, &str)] = &[
    ("e", "exercise: open your file in $VISUAL / $EDITOR"),
    (
        "r",
        "exercise: check your file now (every save checks it too)",
    ),
    ("t", "exercise: the next hint"),
];

/// Keys of the screen's parts that are not always there: the detail, the list, the
/// glossary, the code sideways.
pub const VIEW_KEYS: &[(&str, &str)] = &[
    ("i / Enter", "every figure of the focused variant, scrolled"),
    ("L", "show / hide the lesson list"),
    ("w", "the glossary, at the words this page is first to use"),
    ("? g", "the glossary (from this help)"),
    ("< >", "code view: scroll the code sideways"),
];

/// The help's rows: progress, this lesson's own keys first, then every key, the marks
/// and what the figures are; wrapped to `width`.
fn help_rows(app: &App, width: usize, th: &Theme) -> Vec<Line<'static>> {
    let own: Vec<(&str, &str)> = match app.lesson() {
        Some(l) => {
            let exercise = app.exercises.open().is_some();
            let knobs = !exercise && !l.knobs.is_empty();
            let words: &[(&str, &str)] = match app.page_terms().is_empty() {
                true => &[],
                false => &[("w", "the words this page is first to use, explained")],
            };
            [
                (!l.sweeps.is_empty(), SWEEP_KEYS),
                (knobs, KNOB_KEYS),
                (!l.textures.is_empty(), TEXTURE_KEYS),
                (exercise, EXERCISE_KEYS),
                (true, words),
            ]
            .into_iter()
            .filter(|(on, _)| *on)
            .flat_map(|(_, keys)| keys.iter().copied())
            .collect()
        }
        None => Vec::new(),
    };
    let key_w = (own.iter().chain(KEYS).chain(VIEW_KEYS).chain(MARKS))
        .map(|(k, _)| fit::width(k))
        .max()
        .unwrap_or(0);
    let row = |(k, what): &(&str, &str)| {
        Line::from(vec![
            Span::styled(format!("{k:>key_w$}  "), th.strong),
            Span::raw(what.to_string()),
        ])
    };
    let overview = app.overview();
    let mut lines = vec![Line::styled(overview.line(), th.accent), Line::raw("")];
    if !own.is_empty() {
        lines.push(Line::styled("This lesson's own keys", th.title));
        lines.extend(own.iter().map(row));
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled("Keys", th.title));
    lines.extend(KEYS.iter().chain(VIEW_KEYS).map(row));
    lines.push(Line::raw(""));
    lines.push(Line::styled("Marks", th.title));
    lines.extend(MARKS.iter().map(row));
    let mut rows = fit::wrap_all(&lines, width, key_w + 2);
    rows.push(Line::raw(""));
    for l in [
        "Figures say whether they are live or recorded, and on which GPU.",
        // The interpreter's model, said where a learner without a GPU meets it.
        "Without a GPU, r runs the kernels on the CPU interpreter: outputs and traces, no \
         times. Its warps run in lockstep and reconverge where the branches meet again, a \
         cluster's blocks together; effects of weak memory ordering are not modelled.",
    ] {
        rows.extend(fit::wrap(&Line::styled(l, th.dim), width, 0));
    }
    rows
}

/// The help's pop-up in `area`: as wide as its widest key row (or the screen), as tall as
/// its rows (or the screen, then scrolled).
fn help_rect(app: &App, area: Rect) -> (Rect, Vec<Line<'static>>) {
    let th = Theme::new(false);
    let widest = help_rows(app, usize::MAX / 4, &th)
        .iter()
        .map(Line::width)
        .max()
        .unwrap_or(0)
        .min(76) as u16;
    let w = (widest + 2).min(area.width);
    // Too narrow a margin to read the screen beneath: the whole width, no slivers.
    let w = if w + 4 > area.width { area.width } else { w };
    let rows = help_rows(app, w.saturating_sub(2).max(1) as usize, &th);
    let h = (rows.len() as u16 + 2).min(full(area).height);
    (centered(full(area), w, h), rows)
}

/// The furthest the help scrolls in `area`.
pub fn help_max_scroll(app: &App, area: Rect) -> usize {
    let (rect, rows) = help_rect(app, area);
    rows.len()
        .saturating_sub(rect.height.saturating_sub(2) as usize)
}

/// The keys (the lesson's own first), the marks, and the glossary one key away.
pub fn render_help(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let (rect, _) = help_rect(app, area);
    let rows = help_rows(app, rect.width.saturating_sub(2).max(1) as usize, th);
    let max = help_max_scroll(app, area);
    let scroll = (app.view.scrolls().help as usize).min(max);
    scrolled(
        rect,
        buf,
        th,
        (" Help ", " ↑↓ scroll · g glossary · ? closes "),
        rows,
        (scroll, max),
    );
}

/// A bordered pop-up of `rows` from `scroll`, with a mark while more lies below or above.
fn scrolled(
    rect: Rect,
    buf: &mut Buffer,
    th: &Theme,
    (title, keys): (&str, &str),
    rows: Vec<Line<'static>>,
    (scroll, max): (usize, usize),
) {
    Clear.render(rect, buf);
    let inner_w = rect.width.saturating_sub(2) as usize;
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(Line::styled(title.to_string(), th.title));
    let more = match (scroll > 0, scroll < max) {
        (_, true) => " ▼ more ",
        (true, false) => " ▲ more ",
        _ => "",
    };
    if fit::width(keys) + fit::width(more) <= inner_w {
        block = block.title_bottom(Line::styled(keys.to_string(), th.dim).left_aligned());
    }
    if !more.is_empty() {
        block = block.title_bottom(Line::styled(more, th.accent).right_aligned());
    }
    Paragraph::new(rows.into_iter().skip(scroll).collect::<Vec<_>>())
        .block(block)
        .render(rect, buf);
}

/// The glossary's rows, each term then what it means, wrapped to `width`; the words the
/// page on screen is first to use stand out.
fn glossary_rows(app: &App, width: usize, th: &Theme) -> (Vec<Line<'static>>, Vec<usize>) {
    let new = app.page_terms();
    let term_w = TERMS.iter().map(|t| fit::width(t.term)).max().unwrap_or(0);
    let mut rows = Vec::new();
    let mut starts = Vec::new();
    for t in TERMS {
        let here = new.iter().any(|n| n.term == t.term);
        let style = if here { th.accent } else { th.strong };
        let line = Line::from(vec![
            Span::styled(format!("{:<term_w$}  ", t.term), style),
            Span::raw(t.means),
        ]);
        starts.push(rows.len());
        rows.extend(fit::wrap(&line, width, term_w + 2));
    }
    (rows, starts)
}

fn glossary_inner(area: Rect) -> (usize, usize) {
    let r = full(area);
    (
        r.width.saturating_sub(2) as usize,
        r.height.saturating_sub(2) as usize,
    )
}

/// The furthest the glossary scrolls in `area`.
pub fn glossary_max_scroll(app: &App, area: Rect) -> usize {
    let (w, h) = glossary_inner(area);
    glossary_rows(app, w, &Theme::new(false))
        .0
        .len()
        .saturating_sub(h)
}

/// The row `term` starts at in `area`'s glossary, as far as it scrolls.
pub fn glossary_row(app: &App, area: Rect, term: &str) -> u16 {
    let (w, _) = glossary_inner(area);
    let (_, starts) = glossary_rows(app, w, &Theme::new(false));
    let at = TERMS
        .iter()
        .position(|t| t.term == term)
        .map_or(0, |i| starts[i]);
    at.min(glossary_max_scroll(app, area)) as u16
}

pub fn render_glossary(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let (w, _) = glossary_inner(area);
    let (rows, _) = glossary_rows(app, w, th);
    let max = glossary_max_scroll(app, area);
    let scroll = (app.view.scrolls().glossary as usize).min(max);
    let keys = " ↑↓ scroll · q closes · gpulab glossary prints it ";
    scrolled(
        full(area),
        buf,
        th,
        (" Glossary ", keys),
        rows,
        (scroll, max),
    );
}

/// A full pop-up: all of the lesson's side but its keys line, so nothing of the screen
/// beneath shows at its edges.
pub fn full(area: Rect) -> Rect {
    Rect {
        height: area.height.saturating_sub(1),
        ..area
    }
}
