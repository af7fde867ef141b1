//! The code view (`c`): the focused variant's source, the SASS the GPU runs, or both side
//! by side (`s`). Memory lines carry their traced figure (wavefronts or sectors per
//! request, as recorded or measured here) in the colour of their space, and the costliest
//! lines are named first, as Nsight Compute's source page does.

use super::overlays::full;
use super::theme::Theme;
use crate::analysis::sass::{Instruction, Listing, MemKind};
use crate::analysis::sass_figures::{LineFigure, line_figure};
use crate::model::Variant;
use crate::model::access::InstructionSummary;
use crate::ui::app::App;
use crate::ui::code_view::{Panes, SassState};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

/// Memory instruction kinds a source line may have figures for, in the order shown. A
/// generic access is traced under the space it resolved to, so it is among these.
const KINDS: [MemKind; 8] = [
    MemKind::SharedLoad,
    MemKind::SharedStore,
    MemKind::GlobalLoad,
    MemKind::GlobalStore,
    MemKind::LocalLoad,
    MemKind::LocalStore,
    MemKind::Constant,
    MemKind::Texture,
];

/// The colour of a space, the same in both panes.
fn space_style(kind: MemKind, th: &Theme) -> Style {
    match kind {
        MemKind::SharedLoad | MemKind::SharedStore | MemKind::SharedMatrix => th.title,
        MemKind::GlobalLoad | MemKind::GlobalStore | MemKind::GlobalToShared => th.accent,
        MemKind::LocalLoad | MemKind::LocalStore => th.bad,
        MemKind::Constant => th.good,
        _ => th.strong,
    }
}

fn traced<'a>(app: &'a App, v: &Variant) -> &'a [InstructionSummary] {
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

/// The costliest traced lines, worst first: where to look.
fn worst_lines(t: &[InstructionSummary], v: &Variant, th: &Theme) -> Vec<Line<'static>> {
    let n = v.source.lines().count() as u32;
    let mut all: Vec<(u32, MemKind, LineFigure)> = (1..=n)
        .flat_map(|l| line_figures(t, l).into_iter().map(move |(k, f)| (l, k, f)))
        .collect();
    all.sort_by(|a, b| b.2.cost.total_cmp(&a.2.cost).then(a.0.cmp(&b.0)));
    let mut out = vec![Line::styled(
        match all.is_empty() {
            true => "no traced figures for this variant (run it, or see the recording)",
            false => "costliest lines:",
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

fn source_lines(app: &App, v: &Variant, th: &Theme) -> Vec<Line<'static>> {
    let t = traced(app, v);
    let diags = diagnostics(app, v);
    let mut lines = Vec::new();
    for (i, text) in v.source.lines().enumerate() {
        let n = i as u32 + 1;
        let mut spans = vec![
            Span::styled(format!("{n:>4} "), th.dim),
            Span::raw(text.to_string()),
        ];
        for (k, f) in line_figures(t, n) {
            spans.push(Span::styled(
                format!("  ◀ {}", f.full()),
                space_style(k, th),
            ));
        }
        lines.push(Line::from(spans));
        for (_, msg) in diags.iter().filter(|(l, _)| *l == n) {
            lines.push(Line::styled(format!("     ^ {msg}"), th.bad));
        }
    }
    lines
}

fn sass_lines(app: &App, v: &Variant, th: &Theme) -> Vec<Line<'static>> {
    let listing: &Listing = match app.sass_of(app.view.variant) {
        Some(SassState::Ready(l)) => l,
        Some(SassState::Failed(why)) => return vec![Line::styled(why.clone(), th.bad)],
        Some(SassState::Asked) => return vec![Line::styled("disassembling…", th.dim)],
        None => {
            let wait = "the SASS is asked for once the lab knows whether NVRTC is here…";
            return vec![Line::styled(wait, th.dim)];
        }
    };
    let t = traced(app, v);
    listing
        .instructions
        .iter()
        .map(|i| sass_line(i, t, th))
        .collect()
}

fn sass_line(i: &Instruction, t: &[InstructionSummary], th: &Theme) -> Line<'static> {
    let at = i.line.map_or("     ".to_string(), |l| format!("L{l:<4}"));
    let guard = i
        .guard
        .as_deref()
        .map_or(String::new(), |g| format!("{g} "));
    let text = format!("{:04x} {at} {guard}{} {}", i.offset, i.opcode, i.operands);
    let Some(op) = i.mem() else {
        return Line::styled(text, th.dim);
    };
    let style = space_style(op.kind, th);
    let mut spans = vec![Span::styled(text, style)];
    if let Some(f) = i.line.and_then(|l| line_figure(t, l, op.kind)) {
        spans.push(Span::styled(format!("  ◀ {}", f.full()), style));
    }
    Line::from(spans)
}

/// The rows each pane has, for scrolling.
fn pane_rows(app: &App, v: &Variant) -> usize {
    let source = v.source.lines().count() + diagnostics(app, v).len();
    let sass = match app.sass_of(app.view.variant) {
        Some(SassState::Ready(l)) => l.instructions.len(),
        _ => 1,
    };
    match app.view.code.panes {
        Panes::Source => source,
        Panes::Sass => sass,
        Panes::Both => source.max(sass),
    }
}

/// The rows above the panes: the header and the costliest lines.
const HEAD_ROWS: u16 = 6;

/// The furthest the code can scroll in `area` with its last line still at the bottom.
pub fn code_max_scroll(app: &App, area: Rect) -> usize {
    let Some(v) = app.lesson().and_then(|l| l.variants.get(app.view.variant)) else {
        return 0;
    };
    let view = full(area).height.saturating_sub(2 + HEAD_ROWS) as usize;
    pane_rows(app, v).saturating_sub(view)
}

pub fn render_code(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let Some(v) = app.lesson().and_then(|l| l.variants.get(app.view.variant)) else {
        return;
    };
    let rect = full(area);
    Clear.render(rect, buf);
    let panes = match app.view.code.panes {
        Panes::Source => "source",
        Panes::Sass => "SASS",
        Panes::Both => "source and SASS",
    };
    let block = Block::default().borders(Borders::ALL).title(Line::styled(
        format!(
            " {} · {panes} (s: source/SASS/both, ↑↓ scroll, c closes) ",
            v.name
        ),
        th.title,
    ));
    let inner = block.inner(rect);
    block.render(rect, buf);
    let [head, body] =
        Layout::vertical([Constraint::Length(HEAD_ROWS), Constraint::Min(1)]).areas(inner);
    let mut top = vec![code_header(v, th)];
    top.extend(worst_lines(traced(app, v), v, th));
    Paragraph::new(top).render(head, buf);
    let scroll = (app.view.code_scroll as usize).min(code_max_scroll(app, area)) as u16;
    let pane = |lines: Vec<Line<'static>>, r: Rect, buf: &mut Buffer| {
        Paragraph::new(lines).scroll((scroll, 0)).render(r, buf);
    };
    match app.view.code.panes {
        Panes::Source => pane(source_lines(app, v, th), body, buf),
        Panes::Sass => pane(sass_lines(app, v, th), body, buf),
        Panes::Both => {
            let [l, r] = Layout::horizontal([Constraint::Percentage(50); 2])
                .spacing(2)
                .areas(body);
            pane(source_lines(app, v, th), l, buf);
            pane(sass_lines(app, v, th), r, buf);
        }
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
