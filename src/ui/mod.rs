//! The terminal UI. The UI thread never touches CUDA and never blocks: the first frame is
//! drawn before the worker has even been asked about the GPU. `main_loop::run` is the loop,
//! generic over the backend and fed by one channel of events; `terminal` puts it on the
//! real terminal.

pub mod app;
pub mod event;
pub mod main_loop;
pub mod state;
pub mod terminal;
mod threads;
pub mod views;

#[cfg(test)]
mod tests;

pub use app::App;
pub use event::{Job, UiEvent, WorkerEvent};
pub use main_loop::{EditError, run, run_with};
pub use state::runs::Running;
pub use state::view::Overlay;
pub use threads::loader::spawn as spawn_loader;
pub use threads::worker::spawn_with as spawn_worker;
pub use threads::worker::{remake_try, run_request};

use crate::model::Lesson;
use crate::model::results::LessonResult;
use crate::session::progress::Progress;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

/// Which screen `render_view` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The lesson: prose and the variant columns.
    Lesson,
    /// The sweep charts in place of the columns (`g`).
    Chart,
    /// The texture footprint pop-up (`f`).
    Footprint,
    /// The heatmap pop-up (`h`).
    Heatmap,
}

impl Screen {
    pub const ALL: [(&'static str, Screen); 4] = [
        ("lesson", Screen::Lesson),
        ("chart", Screen::Chart),
        ("footprint", Screen::Footprint),
        ("heatmap", Screen::Heatmap),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("lesson", |(n, _)| n)
    }
}

/// The lesson screen as plain text, as `gpulab render` prints it: the figures hidden, as a
/// learner who has not run yet sees it, unless `reveal` (as after `v`).
pub fn render_text(
    lessons: &[Lesson],
    idx: usize,
    result: Option<LessonResult>,
    (page, width, height): (usize, u16, u16),
    reveal: bool,
) -> String {
    let shot = Shot {
        page,
        width,
        height,
        reveal,
        view: Screen::Lesson,
        variant: 0,
    };
    render_view(lessons, idx, result, shot)
}

/// What `render_view` draws, and at which size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shot {
    /// The prose page, from 0.
    pub page: usize,
    pub width: u16,
    pub height: u16,
    pub reveal: bool,
    pub view: Screen,
    /// The focused variant, by index.
    pub variant: usize,
}

/// One screen of lesson `idx` as plain text: the lesson, or one of its views over it.
pub fn render_view(
    lessons: &[Lesson],
    idx: usize,
    result: Option<LessonResult>,
    shot: Shot,
) -> String {
    let mut progress = Progress::default();
    if shot.reveal {
        progress.mark_revealed(&lessons[idx].id);
    }
    let mut app = App::new(lessons.to_vec(), None, progress);
    app.reading.select(idx);
    app.reading
        .turn_to(shot.page.min(app.page_count().saturating_sub(1)));
    app.view.set_color(false);
    // Nothing is looked for here: the screen shows what the result says, and no more.
    app.runs.set_caps(Some(Default::default()));
    if let Some(r) = result {
        app.runs.show(&lessons[idx].id.clone(), r);
    }
    app.view.focus(
        shot.variant
            .min(lessons[idx].variants.len().saturating_sub(1)),
    );
    match shot.view {
        Screen::Lesson => {}
        Screen::Chart => app.view.set_chart(true),
        Screen::Footprint => app.view.open(Overlay::Footprint),
        Screen::Heatmap => app.view.open(Overlay::Heatmap),
    }
    let area = Rect::new(0, 0, shot.width, shot.height);
    let mut buf = Buffer::empty(area);
    (&app).render(area, &mut buf);
    buffer_to_text(&buf)
}

/// The variant a footprint is drawn for: the first whose trace kept texture fetches, else
/// the first that is passed a texture, else the first.
pub fn footprint_variant(lesson: &Lesson, result: Option<&LessonResult>) -> usize {
    let traced = result.and_then(|r| {
        r.variants
            .iter()
            .position(|v| !crate::analysis::footprint::warps(v).is_empty())
    });
    traced
        .or_else(|| {
            lesson.variants.iter().position(|v| {
                v.args
                    .iter()
                    .any(|a| matches!(a, crate::model::lesson::Arg::Texture(_)))
            })
        })
        .unwrap_or(0)
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
