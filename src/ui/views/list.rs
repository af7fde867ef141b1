//! The lesson list in course order, headed by memory space, with progress marks and,
//! on its frame, how many lessons are finished and exercises passed.

use crate::model::Topic;
use crate::ui::app::App;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

/// The heading of a lesson file that does not load and does not say its space.
pub const NOT_LOADED: &str = "NOT LOADED";

pub fn render_list(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    // Course order, with a heading wherever the topic changes: ↑/↓ then move down the list
    // exactly as it reads.
    let mut lines = Vec::new();
    let mut heading: Option<Option<Topic>> = None;
    let mut at = 0;
    for (i, l) in app.reading.lessons().iter().enumerate() {
        let broken = app.reading.broken().iter().find(|b| b.file == l.file);
        // A lesson that does not load goes under the space its file gives, else under a
        // heading of its own: none of the lesson before it.
        let topic = match broken {
            Some(b) => b.space,
            None => Some(l.topic),
        };
        if heading != Some(topic) {
            heading = Some(topic);
            let label = topic.map_or(NOT_LOADED, Topic::label);
            lines.push(Line::styled(label, th.dim));
        }
        let p = app.reading.progress().get(&l.id);
        let broken = broken.is_some();
        let mark = if broken {
            "✗"
        } else if app.reading.progress().is_done(&l.id) {
            "✓"
        } else if p.seen {
            "•"
        } else {
            " "
        };
        let here = i == app.reading.selected() && app.exercises.open().is_none();
        let cursor = if here { "▸" } else { " " };
        // A live run is its own mark: reading and answering finish a lesson without a GPU.
        let ran = if p.runs > 0 { " ◆" } else { "" };
        let text = format!("{cursor}{mark} {:02} {}{ran}", l.order, l.id);
        let style = if here {
            th.selected
        } else {
            Default::default()
        };
        lines.push(Line::styled(text, style));
        for (e, ex) in l.exercises.iter().enumerate() {
            let here = app.current_row() == (i, Some(e));
            if here {
                at = lines.len();
            }
            lines.push(exercise_row(app, &ex.id, here, th));
        }
        if here {
            at = lines.len() - 1 - l.exercises.len();
        }
    }
    // The row under the cursor stays in view: a long course scrolls.
    let inner = area.height.saturating_sub(2) as usize;
    let scroll = (at + 1).saturating_sub(inner) as u16;
    // How far the learner has come, on the frame: lessons above, exercises below.
    let o = app.overview();
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(th.border)
        .title(Line::styled(
            format!(" Lessons {}/{} finished ", o.finished, o.lessons),
            th.title,
        ));
    if o.exercises > 0 {
        block = block.title_bottom(Line::styled(
            format!(" exercises {}/{} passed ", o.passed, o.exercises),
            th.dim,
        ));
    }
    Paragraph::new(lines)
        .scroll((scroll, 0))
        .block(block)
        .render(area, buf);
}

/// An exercise's row, under its lesson: passed, started or not yet.
fn exercise_row<'a>(app: &App, id: &str, here: bool, th: &Theme) -> Line<'a> {
    let p = app.exercises.book().get(id);
    let started = app
        .exercises
        .open()
        .as_ref()
        .filter(|x| x.ex().id == id)
        .map_or_else(
            || p.attempts > 0,
            |x| x.file().as_ref().is_some_and(|f| f.exists()),
        );
    let mark = if p.passed {
        "✓"
    } else if started {
        "•"
    } else {
        "◦"
    };
    let cursor = if here { "▸" } else { " " };
    let style = if here {
        th.selected
    } else {
        Default::default()
    };
    Line::styled(format!("{cursor}    {mark} {id}"), style)
}
