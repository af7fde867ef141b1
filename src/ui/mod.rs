//! The terminal UI. The UI thread never touches CUDA and never blocks: the first frame is
//! drawn before the worker has even been asked about the GPU.

pub mod state;
pub mod views;
mod worker_thread;

use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::results::LessonResult;
use crate::session::progress::Progress;
use crate::session::recording;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;
use state::{App, UiEvent};
use std::sync::mpsc::channel;

/// The lesson screen as plain text, as `gpulab render` prints it.
pub fn render_text(
    lessons: &[Lesson],
    idx: usize,
    result: Option<LessonResult>,
    page: usize,
    width: u16,
    height: u16,
) -> String {
    let mut app = App::new(lessons.to_vec(), None, Progress::default());
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

/// Writes progress off the UI thread; only the newest snapshot matters, so a backlog is
/// skipped to its last entry.
fn spawn_progress_writer(
    ui: std::sync::mpsc::Sender<UiEvent>,
) -> (
    std::sync::mpsc::Sender<Progress>,
    std::thread::JoinHandle<()>,
) {
    let (tx, rx) = channel::<Progress>();
    let handle = std::thread::spawn(move || {
        while let Ok(mut p) = rx.recv() {
            while let Ok(newer) = rx.try_recv() {
                p = newer;
            }
            if let Err(e) = p.save() {
                let _ = ui.send(UiEvent::SaveFailed(e.to_string()));
            }
        }
    });
    (tx, handle)
}

/// Restores the terminal when dropped: on return, on error and on panic alike.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> std::io::Result<TerminalGuard> {
        crossterm::terminal::enable_raw_mode()?;
        crossterm::execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
        Ok(TerminalGuard)
    }
}

fn restore_terminal() {
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// The lab on the real terminal, over `lessons` already loaded and validated.
pub fn run_app(lessons: Vec<Lesson>, root: &CourseRoot, device: u32) -> anyhow::Result<()> {
    let rec = recording::newest(&root.recordings());
    let mut app = App::new(lessons, rec, Progress::load());
    app.note_seen();

    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous_hook(info);
    }));
    let _guard = TerminalGuard::enter()?;
    let backend = ratatui::backend::CrosstermBackend::new(std::io::stdout());
    let mut terminal = ratatui::Terminal::new(backend)?;
    terminal.clear()?;
    // First frame before any GPU work.
    terminal.draw(|f| f.render_widget(&app, f.area()))?;

    let (tx, rx) = channel::<UiEvent>();
    let jobs = worker_thread::spawn(tx.clone(), device);
    let (saves, writer) = spawn_progress_writer(tx.clone());
    let keys_tx = tx.clone();
    std::thread::spawn(move || {
        use crossterm::event::{Event, KeyEventKind, read};
        while let Ok(ev) = read() {
            let msg = match ev {
                Event::Key(k) if k.kind != KeyEventKind::Release => UiEvent::Key(k),
                Event::Resize(..) => UiEvent::Resize,
                _ => continue,
            };
            if keys_tx.send(msg).is_err() {
                return;
            }
        }
    });
    if std::mem::take(&mut app.save_requested) {
        let _ = saves.send(app.progress.clone());
    }
    while let Ok(ev) = rx.recv() {
        match ev {
            UiEvent::Key(k) => app.on_key(k),
            UiEvent::Resize => {}
            UiEvent::Worker(w) => app.on_worker(w),
            UiEvent::SaveFailed(e) => app.message = Some(format!("could not save progress: {e}")),
        }
        if std::mem::take(&mut app.save_requested) {
            let _ = saves.send(app.progress.clone());
        }
        for job in app.outbox.drain(..) {
            let _ = jobs.send(job);
        }
        if app.quit {
            break;
        }
        terminal.draw(|f| f.render_widget(&app, f.area()))?;
    }
    // Nothing is lost on quit: the last snapshot is written before we leave.
    drop(saves);
    let _ = writer.join();
    Ok(())
}
