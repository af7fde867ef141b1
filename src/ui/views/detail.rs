//! The detail pane (`i` or Enter): every figure the focused variant's card has, at the
//! screen's full width and scrolled, so nothing a card cannot fit is out of reach.

use crate::ui::app::App;
use crate::ui::views::columns::column_lines;
use crate::ui::views::fit;
use crate::ui::views::overlays::full;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

/// The pane's rows, wrapped to the inner width of `area`'s pop-up.
fn rows(app: &App, area: Rect, th: &Theme) -> Vec<Line<'static>> {
    let Some(r) = app.result() else {
        return Vec::new();
    };
    let Some(v) = r.variants.get(app.view.variant()) else {
        return vec![Line::styled("no figures for this variant", th.dim)];
    };
    let w = full(area).width.saturating_sub(2);
    // In an exercise a variant the check measured (yours, and those compared with it) has
    // the check's source, not the recording's the others keep.
    let from = match app.ex_report() {
        Some(c) if c.result.variants.iter().any(|x| x.name == v.name) => {
            crate::ui::views::source_words(app, &c.result)
        }
        _ => crate::ui::views::source_words(app, r),
    };
    let mut lines = vec![Line::styled(format!("figures: {from}"), th.dim)];
    lines.push(Line::raw(""));
    lines.extend(column_lines(app, r, (v, true), w, th));
    fit::wrap_all(&lines, w as usize, 2)
}

fn height(area: Rect) -> usize {
    full(area).height.saturating_sub(2) as usize
}

/// The furthest the pane scrolls in `area` with its last row at the bottom.
pub fn max_scroll(app: &App, area: Rect) -> usize {
    let th = Theme::new(false);
    rows(app, area, &th).len().saturating_sub(height(area))
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let Some(v) = app
        .result()
        .and_then(|r| r.variants.get(app.view.variant()))
    else {
        return;
    };
    let rect = full(area);
    Clear.render(rect, buf);
    let all = rows(app, area, th);
    let max = all.len().saturating_sub(height(area));
    let scroll = (app.view.scrolls().detail as usize).min(max);
    let title = format!(" {} · all figures ", v.name);
    let keys = " ↑↓ scroll · ←→ variant · i closes ";
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(th.focus)
        .title(Line::styled(title, th.title))
        .title_bottom(Line::styled(keys, th.dim).left_aligned());
    if scroll < max {
        block = block.title_bottom(Line::styled(" ▼ more ", th.accent).right_aligned());
    }
    let shown: Vec<Line> = all.into_iter().skip(scroll).collect();
    Paragraph::new(shown).block(block).render(rect, buf);
}
