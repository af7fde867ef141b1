//! The lesson list in course order, headed by memory space, with progress marks.

use super::theme::Theme;
use crate::model::MemSpace;
use crate::ui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

pub fn render_list(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    // Course order, with a heading wherever the memory space changes: ↑/↓ then move down
    // the list exactly as it reads.
    let mut lines = Vec::new();
    let mut space: Option<MemSpace> = None;
    for (i, l) in app.lessons.iter().enumerate() {
        if space != Some(l.space) {
            space = Some(l.space);
            lines.push(Line::styled(l.space.label(), th.dim));
        }
        let p = app.progress.get(&l.id);
        let mark = if app.progress.is_done(&l.id) {
            "✓"
        } else if p.seen {
            "•"
        } else {
            " "
        };
        let cursor = if i == app.selected { "▸" } else { " " };
        // A live run is its own mark: reading and answering finish a lesson without a GPU.
        let ran = if p.runs > 0 { " ◆" } else { "" };
        let text = format!("{cursor}{mark} {:02} {}{ran}", l.order, l.id);
        let style = if i == app.selected {
            th.selected
        } else {
            Default::default()
        };
        lines.push(Line::styled(text, style));
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
