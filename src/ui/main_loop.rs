//! The lab's main loop, over any ratatui backend and any source of events: the real terminal
//! feeds it keys and worker replies from threads, a test feeds it a script and a
//! `TestBackend`, and both run this same loop.

use crate::session::progress::Progress;
use crate::ui::app::App;
use crate::ui::event::{Job, UiEvent};
use ratatui::Terminal;
use ratatui::backend::Backend;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, Instant};

/// Why the learner's editor did not open, or did not end well: words for the message line.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// No terminal to lend (the lab runs on a test's backend).
    #[error("no terminal to lend an editor here: open your file yourself")]
    NoTerminal,
    #[error("could not take the terminal back: {0}")]
    TakeBack(std::io::Error),
    #[error("could not start `{editor}` ({why}): set $VISUAL or $EDITOR")]
    NotStarted { editor: String, why: std::io::Error },
    #[error("`{editor}` ended with {status}; your file is as it left it")]
    Ended { editor: String, status: ExitStatus },
    /// An editor in the process itself (a test's) could not write the file.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Draw, then apply each event and draw again, until the learner quits or every sender of
/// `events` is gone (a test's script has run out). Jobs go to `requests`, and each changed
/// progress to `saves`, so that neither the worker nor the disk ever holds this thread up.
pub fn run<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    events: &Receiver<UiEvent>,
    requests: &Sender<Job>,
    saves: &Sender<Progress>,
) -> Result<(), B::Error> {
    let mut no_editor = |_: &Path| Err(EditError::NoTerminal);
    run_with(terminal, app, events, requests, saves, &mut no_editor)
}

/// `run`, with `edit` to open the learner's file when they press `e`: the terminal's
/// editor is given the screen and the keys for as long as it runs; a test writes the file.
pub fn run_with<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    events: &Receiver<UiEvent>,
    requests: &Sender<Job>,
    saves: &Sender<Progress>,
    edit: &mut dyn FnMut(&Path) -> Result<(), EditError>,
) -> Result<(), B::Error> {
    draw(terminal, app)?;
    hand_off(app, requests, saves);
    while let Ok(first) = events.recv() {
        // What is already waiting is applied before the next frame, for up to a frame's
        // time: a frame per event fell behind a stream of replies (a large course's compile
        // reports), and a `q` waited minutes behind frames no one would see.
        let until = Instant::now() + BATCH;
        let mut next = Some(first);
        while let Some(ev) = next {
            app.on_event(ev);
            hand_off(app, requests, saves);
            if app.quit {
                return Ok(());
            }
            if let Some(file) = app.exercises.take_edit() {
                if let Err(e) = edit(&file) {
                    app.message = Some(e.to_string());
                }
                // The editor drew over the screen: everything is drawn afresh.
                terminal.clear()?;
            }
            next = (Instant::now() < until)
                .then(|| events.try_recv().ok())
                .flatten();
        }
        draw(terminal, app)?;
    }
    Ok(())
}

/// The longest the loop applies waiting events before it draws.
const BATCH: Duration = Duration::from_millis(50);

/// Draw a frame and keep its size, so the next key scrolls what is on screen.
fn draw<B: Backend>(terminal: &mut Terminal<B>, app: &mut App) -> Result<(), B::Error> {
    let frame = terminal.draw(|f| f.render_widget(&*app, f.area()))?;
    app.view.drawn(frame.area);
    Ok(())
}

/// Pass on what the last event asked for. A gone receiver is no reason to stop the lab: the
/// worker thread restarts its worker, and progress is a convenience.
fn hand_off(app: &mut App, requests: &Sender<Job>, saves: &Sender<Progress>) {
    if app.reading.take_save_request() {
        let _ = saves.send(app.reading.progress().clone());
    }
    for job in app.outbox.drain(..) {
        let _ = requests.send(job);
    }
}

impl App {
    pub fn on_event(&mut self, ev: UiEvent) {
        match ev {
            UiEvent::Key(k) => self.on_key(k),
            UiEvent::Wheel(down) => self.wheel(down),
            // The next frame is drawn at the new size.
            UiEvent::Resize => {}
            UiEvent::Worker(w) => self.on_worker(w),
            UiEvent::SaveFailed(e) => self.message = Some(format!("could not save progress: {e}")),
            UiEvent::Loaded(loaded) => self.on_loaded(loaded),
            UiEvent::Saved(file) => {
                self.on_saved(&file);
                self.try_saved(&file);
            }
            UiEvent::Terminate(signal) => {
                self.terminated_by = Some(signal);
                self.quit = true;
            }
        }
    }
}
