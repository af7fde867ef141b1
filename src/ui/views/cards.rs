//! Where the variants' cards go: side by side as wide as is readable, a row each, as the
//! list where cards would show no figure, and on an exercise the list above `yours`'s card
//! at the whole width.
//! What a card says is `columns`.

use crate::model::results::{LessonResult, VariantResult};
use crate::ui::app::App;
use crate::ui::views::columns::column_lines;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

/// Narrower than this, a column's figures no longer fit on their lines.
const MIN_COLUMN: u16 = 30;

/// As many columns side by side as fit at a readable width; more variants than that wrap
/// onto further rows, and a narrow terminal stacks them one a row. Also says whether any
/// two sit side by side.
fn column_rects(area: Rect, n: u16) -> (Vec<Rect>, bool) {
    let per_row = (area.width / MIN_COLUMN).clamp(1, n);
    let rows = n.div_ceil(per_row);
    let h = area.height / rows;
    let rects = (0..n)
        .map(|i| {
            let (row, col) = (i / per_row, i % per_row);
            let in_row = per_row.min(n - row * per_row);
            let w = area.width / in_row;
            Rect {
                x: area.x + col * w,
                y: area.y + row * h,
                width: if col + 1 == in_row {
                    area.width - col * w
                } else {
                    w
                },
                height: if row + 1 == rows {
                    area.height - row * h
                } else {
                    h
                },
            }
        })
        .collect();
    (rects, per_row > 1)
}

pub fn render_columns(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let Some(r) = app.result() else {
        return;
    };
    let n = r.variants.len().max(1) as u16;
    let (rects, side_by_side) = column_rects(area, n);
    if crate::ui::views::compact::wanted(app, &rects, n) {
        return crate::ui::views::compact::render(app, r, area, buf, th);
    }
    // An exercise: the variants as the list, a row each, and `yours`'s card, which holds
    // the check, under it with the rest of the room and the whole width. Side by side its
    // card would be one column of several, its check lines wrapped a few words a row;
    // stacked, a row each, it would show no figure.
    let yours = (r.variants.iter()).position(|v| v.name == crate::model::exercise::YOURS);
    let cramped = side_by_side || crate::ui::views::compact::squeezed(&rects, n);
    if let Some(y) = yours.filter(|_| cramped) {
        // The list takes a third of the room, or more where the card needs less: every
        // variant's row in view where both fit.
        let inner = area.width.saturating_sub(2);
        let lines = column_lines(app, r, (&r.variants[y], whole_note(app, r, y)), inner, th);
        let card_h = crate::ui::views::fit::rows(&lines, inner as usize, 0) as u16 + 2;
        let spare = area.height.saturating_sub(card_h).max(area.height / 3);
        let list_h = (n + 2).min(spare).max(3);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(area);
        crate::ui::views::compact::render(app, r, top, buf, th);
        let focused = app.view.variant() == y;
        return render_card(app, r, (&r.variants[y], focused), (bottom, false), buf, th);
    }
    for (i, (v, rect)) in r.variants.iter().zip(rects).enumerate() {
        let focused = i == app.view.variant();
        render_card(app, r, (v, focused), (rect, side_by_side), buf, th);
    }
}

/// Whether the card of the variant at `i` says the note in whole: a sweep's variants but
/// the first leave what they share to it, as the list's rows do.
fn whole_note(app: &App, r: &LessonResult, i: usize) -> bool {
    let before = i.checked_sub(1).map(|b| r.variants[b].name.as_str());
    !crate::ui::views::columns::same_sweep(app, before, &r.variants[i].name)
}

/// One variant's card in `rect`, its heatmap under its figures where there is room and
/// the cards sit side by side.
fn render_card(
    app: &App,
    r: &LessonResult,
    (v, focused): (&VariantResult, bool),
    (rect, side_by_side): (Rect, bool),
    buf: &mut Buffer,
    th: &Theme,
) {
    if rect.height == 0 {
        return;
    }
    let mut block = column_block(v, focused, th);
    let inner = block.inner(rect);
    let at = r
        .variants
        .iter()
        .position(|x| x.name == v.name)
        .unwrap_or(0);
    let lines = column_lines(app, r, (v, whole_note(app, r, at)), inner.width, th);
    let (width, height) = (inner.width as usize, inner.height as usize);
    let rows = crate::ui::views::fit::wrap_within(&lines, width, height);
    let used = rows.len() as u16;
    // A card cut short says where the rest is: the detail pane of the focused one.
    if crate::ui::views::fit::rows(&lines, width, 0) > height {
        let more = if focused {
            " ▼ i: all "
        } else {
            " ▼ more "
        };
        block = block.title_bottom(Line::styled(more, th.accent).right_aligned());
    }
    block.render(rect, buf);
    // Wrapped here rather than by the paragraph, so that a line the card cannot hold whole
    // ends its last row in "…" instead of breaking off there.
    Paragraph::new(rows).render(inner, buf);
    // The heatmap goes under the figures when the column has room for it.
    let below = Rect {
        y: inner.y + used + 1,
        height: inner.height.saturating_sub(used + 1),
        ..inner
    };
    if side_by_side && below.height >= 6 && app.revealed_for(&v.name) {
        crate::ui::views::heatmap::render_in_column(app, v, focused, below, buf, th);
    }
}

/// The column's frame, titled with the variant's name (its note, too long for a title,
/// opens the column instead).
fn column_block<'a>(v: &VariantResult, focused: bool, th: &Theme) -> Block<'a> {
    let title_style = if focused { th.focus } else { th.title };
    Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { th.focus } else { th.border })
        .title(Span::styled(
            format!(" {} ", v.name),
            title_style.add_modifier(Modifier::BOLD),
        ))
}
