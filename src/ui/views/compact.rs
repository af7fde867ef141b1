//! The variants as a list, a row each, where the screen is too low for their cards to show
//! more than a note (80 x 24 with many variants): the figures a card opens with side by
//! side (the time, the rate, the ratio to the fastest, the compiler's registers and spills
//! where the row is wide enough, the verdict), the focused variant marked and kept in
//! view, and `i` for all of its figures. Before the figures are shown, each row has its
//! note.

use crate::model::results::{LessonResult, VariantResult};
use crate::ui::app::App;
use crate::ui::views::columns::same_sweep;
use crate::ui::views::columns::{
    fastest_ratio, peak_of, rate_cells, row_status, time_style, time_text, variant_note,
};
use crate::ui::views::fit::{self, Part};
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

/// Rows a card needs inside its frame to show a figure under its note.
const CARD_ROWS: u16 = 3;

/// Whether cards of `n` variants laid out as `rects` would show no figure: the list
/// takes their place then. Not on an exercise, whose `yours` card holds the check.
pub fn wanted(app: &App, rects: &[Rect], n: u16) -> bool {
    app.exercises.open().is_none() && squeezed(rects, n)
}

/// Whether cards of `n` variants laid out as `rects` would show no figure.
pub fn squeezed(rects: &[Rect], n: u16) -> bool {
    n > 1 && rects.iter().any(|r| r.height.saturating_sub(2) < CARD_ROWS)
}

pub fn render(app: &App, r: &LessonResult, area: Rect, buf: &mut Buffer, th: &Theme) {
    let inner_h = area.height.saturating_sub(2) as usize;
    let n = r.variants.len();
    let focus = app.view.variant().min(n.saturating_sub(1));
    // The window of rows: the focused one in view, as low as it needs to be.
    let first = (focus + 1).saturating_sub(inner_h.max(1));
    let last = (first + inner_h).min(n);
    // The rows' percentages, said once: what they are a share of.
    let pct =
        |v: &VariantResult| app.revealed_for(&v.name) && timed(app, r, v).1.pct_of_peak.is_some();
    let share = (r.variants.iter().any(pct))
        .then(|| {
            app.lesson()
                .map(|l| format!(" · % {}", peak_of(&l.metrics)))
        })
        .flatten()
        .unwrap_or_default();
    // Beside a run on the CPU interpreter the times are the recording's: said once, here,
    // as each card says it on its time.
    let times = match app.revealed() && app.recorded_beside_any().is_some() {
        true => " · times: recorded",
        false => "",
    };
    let title = format!(" variants{share}{times} · ←→ pick · i: all figures ");
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(th.border)
        .title(Line::styled(title, th.title));
    if first > 0 {
        block = block.title(Line::styled(format!(" ▲ {first} above "), th.accent).right_aligned());
    }
    if last < n {
        let more = format!(" ▼ {} more ", n - last);
        block = block.title_bottom(Line::styled(more, th.accent).right_aligned());
    }
    let inner = block.inner(area);
    block.render(area, buf);
    // Only the rows whose figures are shown size the columns: a hidden time as wide as
    // "16.1 ms" would show through in the shown rows' alignment.
    let widest = |f: &dyn Fn(&VariantResult) -> String| {
        (r.variants.iter())
            .filter(|v| app.revealed_for(&v.name))
            .map(|v| fit::width(&f(v)))
            .max()
            .unwrap_or(0)
    };
    let names = r.variants.iter().map(|v| fit::width(&v.name)).max();
    let regs = widest(&|v| (v.ptxas.as_ref()).map_or(String::new(), |p| p.registers.to_string()));
    let mut widths = Widths {
        name: names.unwrap_or(0).min(22),
        rate: widest(&|v| rate_cells(app, timed(app, r, v).1).0),
        pct: widest(&|v| rate_cells(app, timed(app, r, v).1).1),
        ratio: widest(&|v| fastest_ratio(timed(app, r, v)).unwrap_or_default()),
        regs,
        compile: widest(&|v| compile_text(app, v, regs)),
    };
    if compile_is_the_point(app) {
        // The compiler's figures take the rate's and the ratio's place, as wide as leaves
        // the verdict its first words; a longer one loses its last words.
        (widths.rate, widths.pct, widths.ratio) = (0, 0, 0);
        let room = (inner.width as usize).saturating_sub(widths.name + 4 + 10 + 11);
        widths.compile = widths.compile.min(room);
    }
    let lines: Vec<Line> = (r.variants[first..last].iter().enumerate())
        .map(|(i, v)| {
            // The note a sweep's variants share goes on the first of them in view only.
            let before = (i > 0).then(|| r.variants[first + i - 1].name.as_str());
            let whole = !same_sweep(app, before, &v.name);
            let focused = first + i == focus;
            row(app, r, (v, focused, whole), &widths, inner.width, th)
        })
        .collect();
    Paragraph::new(lines).render(inner, buf);
}

/// Where the time of `v` comes from: the recording's beside a run on the CPU
/// interpreter, which has none; else its own.
fn timed<'a>(
    app: &'a App,
    r: &'a LessonResult,
    v: &'a VariantResult,
) -> (&'a LessonResult, &'a VariantResult) {
    app.recorded_beside(&v.name).unwrap_or((r, v))
}

/// The widths of the list's columns, the widest of their rows. Figures are right-aligned
/// in their columns, so that the digits of one order line up row under row.
struct Widths {
    name: usize,
    /// The rate ("2243 GB/s") and its share of the ceiling ("75%").
    rate: usize,
    pct: usize,
    ratio: usize,
    /// The registers' count, which leads the compiler's figures.
    regs: usize,
    compile: usize,
}

impl Widths {
    /// The rate's cell: both figures, each right-aligned in its own width.
    fn rate_cell(&self, (rate, pct): (String, String)) -> String {
        match self.pct {
            0 => format!("{rate:>r$}", r = self.rate),
            p => format!("{rate:>r$} {pct:>p$}", r = self.rate),
        }
    }
}

/// What the compiler made of a variant, in short: its registers (their count
/// right-aligned in `regs` columns), and its stack frame and spills where it has them; in
/// a lesson about registers, the occupancy they allow.
fn compile_text(app: &App, v: &VariantResult, regs: usize) -> String {
    let Some(p) = &v.ptxas else {
        return String::new();
    };
    let mut out = format!("{:>regs$} regs", p.registers);
    let spills = p.spill_stores + p.spill_loads > 0;
    // The registers' lesson: the occupancy they allow, and whether a cap made them spill
    // (how much, the detail pane says); a stack frame is by the way there.
    if app
        .lesson()
        .is_some_and(|l| l.topic == crate::model::Topic::Register)
    {
        if let Some(o) = &v.occupancy {
            out.push_str(&format!(" · {:.0}% occupancy", o.ratio * 100.0));
        }
        if spills {
            out.push_str(" · spills");
        }
        return out;
    }
    if p.stack_frame > 0 {
        out.push_str(&format!(" · {} B stack", p.stack_frame));
    }
    if spills {
        out.push_str(&format!(" · spills {}/{} B", p.spill_stores, p.spill_loads));
    }
    out
}

/// Whether the lesson is about what the compiler makes (registers, local memory): its
/// list keeps those figures before the rate and the ratio, which it drops first.
fn compile_is_the_point(app: &App) -> bool {
    use crate::model::Topic;
    app.lesson()
        .is_some_and(|l| matches!(l.topic, Topic::Register | Topic::Local))
}

/// One variant's row: its name, then its time, rate and verdict once the figures are
/// shown, its note before (`whole`: with what it shares with the rows above); shortened by
/// whole words where the width is short.
fn row<'a>(
    app: &App,
    r: &LessonResult,
    (v, focused, whole): (&VariantResult, bool, bool),
    w: &Widths,
    width: u16,
    th: &Theme,
) -> Line<'a> {
    let mark = if focused { "▸ " } else { "  " };
    let name_style = if focused { th.focus } else { th.strong };
    let name = format!("{mark}{:<n$}  ", fit::shorten(&v.name, w.name), n = w.name);
    let mut parts = vec![Part::new(name, name_style, 0)];
    if !app.revealed_for(&v.name) {
        let note = variant_note(app, &v.name, whole).unwrap_or_default();
        parts.push(Part::new(note, th.dim, 1).shrinking());
        return fit::fit_parts(parts, width as usize);
    }
    let timed = timed(app, r, v);
    let time = time_text(timed.1);
    parts.push(Part::new(
        format!("{time:>8}  "),
        time_style(timed.1, th),
        1,
    ));
    if w.rate > 0 {
        let rate = w.rate_cell(rate_cells(app, timed.1));
        parts.push(Part::new(format!("{rate}  "), th.dim, 2));
    }
    if w.ratio > 0 {
        let ratio = fastest_ratio(timed).unwrap_or_default();
        parts.push(Part::new(
            format!("{ratio:>n$}  ", n = w.ratio),
            th.accent,
            4,
        ));
    }
    if w.compile > 0 {
        let compiled = fit::shorten(&compile_text(app, v, w.regs), w.compile);
        let rank = if compile_is_the_point(app) { 1 } else { 5 };
        parts.push(Part::new(
            format!("{compiled:<n$}  ", n = w.compile),
            th.dim,
            rank,
        ));
    }
    let status = row_status(app, v, th);
    let style = status.style;
    let text: String = status.spans.iter().map(|s| s.content.as_ref()).collect();
    // Where the verdict is long (a noisy time, an error), the ratio to the fastest goes
    // first, then the verdict loses words: its first words (✓, ✗, race, noisy) say the
    // most, and the rest are in the detail pane.
    parts.push(Part::new(text, style, 3).shrinking());
    fit::fit_parts(parts, width as usize)
}
