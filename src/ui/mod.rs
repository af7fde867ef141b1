//! The terminal UI. The UI thread never touches CUDA and never blocks: the first frame is
//! drawn before the worker has even been asked about the GPU. `main_loop::run` is the loop,
//! generic over the backend and fed by one channel of events; `terminal` puts it on the
//! real terminal.

pub mod app;
pub mod event;
mod keys;
pub mod loading;
pub mod main_loop;
pub mod memcheck;
mod progress_writer;
mod scroll;
pub mod terminal;
pub mod views;
mod worker_events;
mod worker_thread;

#[cfg(test)]
mod tests;

pub use app::{App, Overlay, Running};
pub use event::{Job, UiEvent, WorkerEvent};
pub use main_loop::run;

use crate::model::Lesson;
use crate::model::results::LessonResult;
use crate::session::progress::Progress;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

/// The lesson screen as plain text, as `gpulab render` prints it: the figures hidden, as a
/// learner who has not run yet sees it, unless `reveal` (as after `v`).
pub fn render_text(
    lessons: &[Lesson],
    idx: usize,
    result: Option<LessonResult>,
    (page, width, height): (usize, u16, u16),
    reveal: bool,
) -> String {
    let mut progress = Progress::default();
    if reveal {
        progress.mark_revealed(&lessons[idx].id);
    }
    let mut app = App::new(lessons.to_vec(), None, progress);
    app.selected = idx;
    app.page = page.min(app.page_count().saturating_sub(1));
    app.color = false;
    // Nothing is looked for here: the screen shows what the result says, and no more.
    app.caps = Some(Default::default());
    if let Some(r) = result {
        app.results.insert(lessons[idx].id.clone(), r);
    }
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    (&app).render(area, &mut buf);
    buffer_to_text(&buf)
}

/// A buffer's text, one line a row, trailing blanks trimmed.
pub fn buffer_to_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        for x in 0..area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
