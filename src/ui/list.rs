//! The lesson list, grouped by memory space, with progress marks.

use super::state::App;
use super::theme::Theme;
use crate::lesson::MemSpace;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

pub fn render_list(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let mut lines = Vec::new();
    for space in MemSpace::ALL {
        let members: Vec<(usize, &crate::lesson::Lesson)> = app
            .lessons
            .iter()
            .enumerate()
            .filter(|(_, l)| l.space == space)
            .collect();
        if members.is_empty() {
            continue;
        }
        lines.push(Line::styled(space.label(), th.dim));
        for (i, l) in members {
            let p = app.progress.get(&l.id);
            let mark = if app.progress.is_done(&l.id) {
                "✓"
            } else if p.seen {
                "•"
            } else {
                " "
            };
            let cursor = if i == app.selected { "▸" } else { " " };
            let text = format!("{cursor}{mark} {:02} {}", l.order, l.id);
            let style = if i == app.selected {
                th.selected
            } else {
                Default::default()
            };
            lines.push(Line::styled(text, style));
        }
    }
    Paragraph::new(lines)
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(th.border)
                .title(Line::styled(" Lessons ", th.title)),
        )
        .render(area, buf);
}
