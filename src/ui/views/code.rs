//! The code view (`c`): the focused variant's source, the SASS the GPU runs, or both side
//! by side (`s`). Memory lines carry their traced figure (wavefronts or sectors per
//! request, as recorded or measured here) in the colour of their space, and the costliest
//! lines are named first, as Nsight Compute's source page does.

use crate::analysis::sass::{Instruction, Listing, MemKind};
use crate::analysis::sass_figures::{LineFigure, line_figure};
use crate::model::Variant;
use crate::model::access::InstructionSummary;
use crate::ui::app::App;
use crate::ui::state::code_view::{Panes, SassState};
use crate::ui::views::fit::{self, Part};
use crate::ui::views::overlays::full;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

/// Memory instruction kinds a source line may have figures for, in the order shown. A
/// generic access is traced under the space it resolved to, so it is among these.
const KINDS: [MemKind; 12] = [
    MemKind::SharedLoad,
    MemKind::SharedMatrix,
    MemKind::SharedStore,
    MemKind::GlobalLoad,
    MemKind::GlobalStore,
    MemKind::LocalLoad,
    MemKind::LocalStore,
    MemKind::Constant,
    MemKind::Texture,
    MemKind::Atomic,
    MemKind::GlobalToShared,
    MemKind::BulkCopy,
];

/// The colour of a space, the same in both panes.
fn space_style(kind: MemKind, th: &Theme) -> Style {
    match kind {
        MemKind::SharedLoad | MemKind::SharedStore | MemKind::SharedMatrix => th.title,
        MemKind::GlobalLoad
        | MemKind::GlobalStore
        | MemKind::GlobalToShared
        | MemKind::BulkCopy => th.accent,
        MemKind::LocalLoad | MemKind::LocalStore => th.bad,
        MemKind::Constant => th.good,
        _ => th.strong,
    }
}

/// The traced figures the code view puts beside the lines: none before r or v, as on the
/// cards (the costliest line would answer the page's prediction).
fn traced<'a>(app: &'a App, v: &Variant) -> &'a [InstructionSummary] {
    if !app.revealed_for(&v.name) {
        return &[];
    }
    (app.result())
        .and_then(|r| r.variants.iter().find(|x| x.name == v.name))
        .and_then(|x| x.memory.as_ref())
        .map_or(&[], |m| m.instructions.as_slice())
}

/// The figures of a source line, one per kind of access traced there.
fn line_figures(t: &[InstructionSummary], line: u32) -> Vec<(MemKind, LineFigure)> {
    (KINDS.iter())
        .filter_map(|&k| line_figure(t, line, k).map(|f| (k, f)))
        .collect()
}

/// Every traced (line, kind, figure), costliest first.
fn ranked(t: &[InstructionSummary], v: &Variant) -> Vec<(u32, MemKind, LineFigure)> {
    let n = v.source.lines().count() as u32;
    let mut all: Vec<(u32, MemKind, LineFigure)> = (1..=n)
        .flat_map(|l| line_figures(t, l).into_iter().map(move |(k, f)| (l, k, f)))
        .collect();
    all.sort_by(|a, b| b.2.cost.total_cmp(&a.2.cost).then(a.0.cmp(&b.0)));
    all
}

/// The source line whose traced accesses cost the most.
pub fn costliest_line(app: &App, v: &Variant) -> Option<u32> {
    ranked(traced(app, v), v).first().map(|(l, _, _)| *l)
}

/// Where the code view opens, marked ▶: in a kernel that times itself, the costliest traced
/// line it times (the chase, not the stores that set it up or flush the L2 around it);
/// else the costliest traced line.
pub fn opening_line(app: &App, v: &Variant) -> Option<u32> {
    let all = ranked(traced(app, v), v);
    let timed = crate::analysis::timed_region::timed_ranges(&v.source);
    let in_timed = all
        .iter()
        .find(|(l, _, _)| timed.iter().any(|r| r.contains(l)));
    in_timed.or(all.first()).map(|(l, _, _)| *l)
}

/// The costliest traced lines, worst first: where to look.
fn worst_lines(
    t: &[InstructionSummary],
    v: &Variant,
    hidden: bool,
    th: &Theme,
) -> Vec<Line<'static>> {
    let all = ranked(t, v);
    let mut out = vec![Line::styled(
        match (hidden, all.is_empty()) {
            (true, _) => "figures hidden until you predict (v shows them, r runs)",
            (false, true) => "no traced figures for this variant (run it, or see the recording)",
            (false, false) => "costliest lines:",
        },
        th.dim,
    )];
    for (line, kind, f) in all.into_iter().take(3) {
        out.push(Line::from(vec![
            Span::styled(format!("  line {line:>3}  {:<14} ", kind.word()), th.dim),
            Span::styled(f.full(), space_style(kind, th)),
        ]));
        if let Some(note) = f.note {
            out.push(Line::styled(format!("             {note}"), th.warn));
        }
    }
    out
}

/// Columns of the gutter: the line number and a mark.
const GUTTER: usize = 5;

/// A code line's rows in a pane `width` wide, scrolled `x` columns sideways: the gutter
/// stays, the code is cut at the pane's edge with `›` where it goes on, and its figures
/// follow on the same row where the whole line and they fit, else on rows of their own
/// under it, never cut.
fn code_rows(
    gutter: Span<'static>,
    text: &str,
    style: Style,
    figures: Vec<(String, Style)>,
    (width, x): (usize, usize),
) -> Vec<Line<'static>> {
    let room = width.saturating_sub(GUTTER);
    let figs_w: usize = figures.iter().map(|(f, _)| fit::width(f) + 2).sum();
    let inline = fit::width(text) + figs_w <= room;
    let (shown, right) = window(text, x, if inline { room - figs_w } else { room });
    let mut first = vec![gutter, Span::styled(shown, style)];
    if right {
        first.push(Span::styled("›", style));
    }
    if inline {
        first.extend(
            figures
                .iter()
                .map(|(f, st)| Span::styled(format!("  {f}"), *st)),
        );
        return vec![Line::from(first)];
    }
    let mut rows = vec![Line::from(first)];
    for (f, st) in figures {
        let under = Line::from(vec![Span::raw(" ".repeat(GUTTER + 2)), Span::styled(f, st)]);
        rows.extend(fit::wrap(&under, width, GUTTER + 4));
    }
    rows
}

/// `text` from column `x`, in `room` columns: the part shown, and whether more lies to
/// the right (then the last column is left for the mark).
fn window(text: &str, x: usize, room: usize) -> (String, bool) {
    let mut out = String::new();
    let mut col = 0;
    let total = fit::width(text);
    let more = total > x + room;
    let keep = if more { room.saturating_sub(1) } else { room };
    for ch in text.chars() {
        let w = fit::width(ch.encode_utf8(&mut [0; 4]));
        if col >= x && col + w <= x + keep {
            out.push(ch);
        }
        col += w;
    }
    (out, more)
}

/// The gutter of source line `n`: its number, then `▶` on the costliest line, `‹` where
/// the line is scrolled past on the left.
fn gutter(n: u32, costliest: bool, hidden_left: bool, th: &Theme) -> Span<'static> {
    let mark = match (costliest, hidden_left) {
        (true, _) => "▶",
        (false, true) => "‹",
        _ => " ",
    };
    let style = if costliest { th.accent } else { th.dim };
    Span::styled(format!("{n:>4}{mark}"), style)
}

/// The source pane's rows, and the row each source line starts at.
fn source_rows(
    app: &App,
    v: &Variant,
    (width, x): (usize, usize),
    th: &Theme,
) -> (Vec<Line<'static>>, Vec<usize>) {
    let t = traced(app, v);
    let diags = diagnostics(app, v);
    let worst = opening_line(app, v);
    let mut rows = Vec::new();
    let mut starts = Vec::new();
    for (i, text) in v.source.lines().enumerate() {
        let n = i as u32 + 1;
        let text = text.replace('\t', "    ");
        let figs: Vec<(String, Style)> = (line_figures(t, n).into_iter())
            .map(|(k, f)| (format!("◀ {}", f.full()), space_style(k, th)))
            .collect();
        let left = x > 0 && fit::width(text.trim_end()) > 0;
        let g = gutter(n, worst == Some(n), left, th);
        starts.push(rows.len());
        rows.extend(code_rows(g, &text, Style::default(), figs, (width, x)));
        for (_, msg) in diags.iter().filter(|(l, _)| *l == n) {
            let under = Line::styled(format!("     ^ {msg}"), th.bad);
            rows.extend(fit::wrap(&under, width, 7));
        }
    }
    (rows, starts)
}

/// The SASS pane's rows, and the row each instruction starts at.
fn sass_rows(
    app: &App,
    v: &Variant,
    (width, x): (usize, usize),
    th: &Theme,
) -> (Vec<Line<'static>>, Vec<usize>) {
    let listing: &Listing = match app.sass_of(app.view.variant()) {
        Some(SassState::Ready(l)) => l,
        Some(SassState::Failed(why)) => {
            let l = Line::styled(why.clone(), th.bad);
            return (fit::wrap(&l, width, 2), Vec::new());
        }
        Some(SassState::Asked) => {
            return (vec![Line::styled("disassembling…", th.dim)], Vec::new());
        }
        None => {
            let wait = Line::styled(
                "the SASS is asked for once the lab knows whether NVRTC is here…",
                th.dim,
            );
            return (fit::wrap(&wait, width, 2), Vec::new());
        }
    };
    let t = traced(app, v);
    let mut rows = Vec::new();
    let mut starts = Vec::new();
    for i in &listing.instructions {
        starts.push(rows.len());
        rows.extend(sass_line(i, t, (width, x), th));
    }
    (rows, starts)
}

fn sass_line(
    i: &Instruction,
    t: &[InstructionSummary],
    (width, x): (usize, usize),
    th: &Theme,
) -> Vec<Line<'static>> {
    let at = i.line.map_or("     ".to_string(), |l| format!("L{l:<4}"));
    let guard = i
        .guard
        .as_deref()
        .map_or(String::new(), |g| format!("{g} "));
    let text = format!("{at} {guard}{} {}", i.opcode, i.operands);
    let g = Span::styled(format!("{:04x} ", i.offset), th.dim);
    let Some(op) = i.mem() else {
        return code_rows(g, &text, th.dim, Vec::new(), (width, x));
    };
    let style = space_style(op.kind, th);
    let figs = (i.line.and_then(|l| line_figure(t, l, op.kind)))
        .map(|f| (format!("◀ {}", f.full()), style))
        .into_iter()
        .collect();
    code_rows(g, &text, style, figs, (width, x))
}

/// The code view's parts in `area`: its frame, the head (file, kernel, launch and the
/// costliest lines) and the panes, with their widths.
struct Parts {
    rect: Rect,
    head: Vec<Line<'static>>,
    body: Rect,
    panes: Vec<Rect>,
}

fn parts(app: &App, v: &Variant, area: Rect, th: &Theme) -> Parts {
    let rect = full(area);
    let inner = Block::default().borders(Borders::ALL).inner(rect);
    let w = inner.width as usize;
    let mut head = fit::wrap_all(&[code_header(v, th)], w, 2);
    head.truncate(2);
    let lines = worst_lines(traced(app, v), v, !app.revealed_for(&v.name), th);
    head.extend(fit::wrap_all(&lines, w, 13));
    // The head never takes more than half the pop-up: the code is what it is for.
    head.truncate((inner.height / 2) as usize);
    let [_, body] =
        Layout::vertical([Constraint::Length(head.len() as u16), Constraint::Min(1)]).areas(inner);
    let panes = match app.view.code().panes() {
        Panes::Both => Layout::horizontal([Constraint::Percentage(50); 2])
            .spacing(2)
            .split(body)
            .to_vec(),
        _ => vec![body],
    };
    Parts {
        rect,
        head,
        body,
        panes,
    }
}

/// Each shown pane's rows and starts, at its width.
fn panes_rows(
    app: &App,
    v: &Variant,
    p: &Parts,
    th: &Theme,
) -> Vec<(Vec<Line<'static>>, Vec<usize>)> {
    let x = app.view.scrolls().code_x as usize;
    let w = |i: usize| p.panes[i].width as usize;
    match app.view.code().panes() {
        Panes::Source => vec![source_rows(app, v, (w(0), x), th)],
        Panes::Sass => vec![sass_rows(app, v, (w(0), x), th)],
        Panes::Both => vec![
            source_rows(app, v, (w(0), x), th),
            sass_rows(app, v, (w(1), x), th),
        ],
    }
}

/// The furthest the code can scroll in `area` with its last line still at the bottom.
pub fn code_max_scroll(app: &App, area: Rect) -> usize {
    let Some(v) = app
        .lesson()
        .and_then(|l| l.variants.get(app.view.variant()))
    else {
        return 0;
    };
    let th = Theme::new(false);
    let p = parts(app, v, area, &th);
    let rows = panes_rows(app, v, &p, &th)
        .iter()
        .map(|(r, _)| r.len())
        .max()
        .unwrap_or(0);
    rows.saturating_sub(p.body.height as usize)
}

/// The furthest the code can scroll sideways: its widest line at the pane's right edge.
pub fn code_max_x(app: &App, area: Rect) -> usize {
    let Some(v) = app
        .lesson()
        .and_then(|l| l.variants.get(app.view.variant()))
    else {
        return 0;
    };
    let th = Theme::new(false);
    let p = parts(app, v, area, &th);
    let room = p
        .panes
        .iter()
        .map(|r| r.width as usize)
        .min()
        .unwrap_or(0)
        .saturating_sub(GUTTER + 1);
    let src = v
        .source
        .lines()
        .map(|l| fit::width(&l.replace('\t', "    ")))
        .max()
        .unwrap_or(0);
    let sass = match app.sass_of(app.view.variant()) {
        Some(SassState::Ready(l)) if app.view.code().panes() != Panes::Source => {
            (l.instructions.iter())
                .map(|i| {
                    8 + fit::width(&i.opcode)
                        + fit::width(&i.operands)
                        + i.guard.as_deref().map_or(0, |g| g.len() + 1)
                })
                .max()
                .unwrap_or(0)
        }
        _ => 0,
    };
    let widest = match app.view.code().panes() {
        Panes::Source => src,
        Panes::Sass => sass,
        Panes::Both => src.max(sass),
    };
    widest.saturating_sub(room)
}

/// Where the code view opens in `area`: a few lines above the costliest memory line (in
/// the SASS, its first memory instruction), or at the top where nothing was traced.
pub fn opening_scroll(app: &App, area: Rect) -> u16 {
    let Some(v) = app
        .lesson()
        .and_then(|l| l.variants.get(app.view.variant()))
    else {
        return 0;
    };
    let Some(line) = opening_line(app, v) else {
        return 0;
    };
    let th = Theme::new(false);
    let p = parts(app, v, area, &th);
    let all = panes_rows(app, v, &p, &th);
    let row = match app.view.code().panes() {
        Panes::Sass => {
            let listing = match app.sass_of(app.view.variant()) {
                Some(SassState::Ready(l)) => l,
                _ => return 0,
            };
            let t = traced(app, v);
            let at = listing.instructions.iter().position(|i| {
                i.line == Some(line)
                    && i.mem()
                        .is_some_and(|m| line_figure(t, line, m.kind).is_some())
            });
            at.and_then(|i| all[0].1.get(i).copied()).unwrap_or(0)
        }
        _ => all[0].1.get(line as usize - 1).copied().unwrap_or(0),
    };
    // Some lines of context above it, so the learner sees what leads there.
    let context = (p.body.height as usize / 4).min(4);
    row.saturating_sub(context).min(code_max_scroll(app, area)) as u16
}

pub fn render_code(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let Some(v) = app
        .lesson()
        .and_then(|l| l.variants.get(app.view.variant()))
    else {
        return;
    };
    let p = parts(app, v, area, th);
    Clear.render(p.rect, buf);
    let panes = match app.view.code().panes() {
        Panes::Source => "source",
        Panes::Sass => "SASS",
        Panes::Both => "source and SASS",
    };
    let x = app.view.scrolls().code_x;
    let mut title = vec![
        Part::new(format!(" {} · {panes}", v.name), th.title, 0),
        Part::new(format!(" · {x} columns in"), th.title, 1),
        Part::new(" · s: source/SASS/both", th.title, 2),
        Part::new(" · ↑↓ scroll", th.title, 3),
        Part::new(" · < > sideways", th.title, 3),
        Part::new(" · c closes", th.title, 1),
        Part::new(" ", th.title, 0),
    ];
    if x == 0 {
        title.remove(1);
    }
    let title = fit::fit_parts(title, p.rect.width.saturating_sub(2) as usize);
    let block = Block::default().borders(Borders::ALL).title(title);
    block.render(p.rect, buf);
    let inner = Block::default().borders(Borders::ALL).inner(p.rect);
    let head = Rect {
        height: p.head.len() as u16,
        ..inner
    };
    Paragraph::new(p.head.clone()).render(head, buf);
    let scroll = match app.view.scrolls().code_at_worst {
        true => opening_scroll(app, area) as usize,
        false => (app.view.code_scroll() as usize).min(code_max_scroll(app, area)),
    };
    for ((rows, _), r) in panes_rows(app, v, &p, th).into_iter().zip(&p.panes) {
        let shown: Vec<Line> = rows.into_iter().skip(scroll).collect();
        Paragraph::new(shown).render(*r, buf);
    }
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
    let defines = match defines.is_empty() {
        true => "none".to_string(),
        false => defines.join(" "),
    };
    Line::styled(
        format!(
            "{} · kernel {} · defines {defines} · grid {:?} block {:?}",
            v.source_path, v.kernel, v.grid, v.block
        ),
        th.dim,
    )
}
