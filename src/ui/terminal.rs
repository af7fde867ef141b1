//! The lab on the real terminal: raw mode and the alternate screen for as long as it runs,
//! restored on every way out (quit, error, panic, SIGTERM/SIGINT/SIGHUP); keys and signals
//! read on threads of their own. All that is crossterm's lives here; the loop itself is
//! `main_loop::run`.

use super::app::App;
use super::event::UiEvent;
use super::loading::{self, Course, LoadFailure};
use super::{main_loop, progress_writer, worker_thread};
use crossterm::event::{Event, KeyEventKind, MouseEventKind, read};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io;
use std::sync::mpsc::{Sender, channel};

/// Run the lab on this terminal, with a worker for GPU `device`, until the learner quits or
/// a signal ends it; `loader` loads the course on a thread of its own while the first frame
/// says it is coming. Gives the lab as it ended: the signal that ended it, if one did (the
/// caller exits with 128 + its number, as a shell expects), and whether the course failed.
pub fn open<F>(mut app: App, device: u32, loader: F) -> io::Result<App>
where
    F: FnOnce() -> Result<Course, LoadFailure> + Send + 'static,
{
    // The lesson the lab opens at counts as seen (once it is in, when it is loading).
    app.note_seen();
    restore_on_panic();
    let (tx, rx) = channel::<UiEvent>();
    // Before the terminal changes: a signal from then on finds the handler in place.
    spawn_signal_reader(tx.clone())?;
    let _guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    loading::spawn(tx.clone(), loader);
    let jobs = worker_thread::spawn(tx.clone(), device);
    let (saves, writer) = progress_writer::spawn(tx.clone());
    spawn_key_reader(tx);
    let out = main_loop::run(&mut terminal, &mut app, &rx, &jobs, &saves);
    // Nothing is lost on quit: the last snapshot is written before we leave.
    drop(saves);
    let _ = writer.join();
    out.map(|()| app)
}

/// signal-hook rather than a handler of our own: its handler only writes to a pipe (all a
/// signal handler may safely do), and this thread turns that into one more event, so a
/// signal leaves by the same path as `q`: progress written, terminal restored by the guard.
fn spawn_signal_reader(ui: Sender<UiEvent>) -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if ui.send(UiEvent::Terminate(signal)).is_err() {
                return;
            }
        }
    });
    Ok(())
}

fn spawn_key_reader(ui: Sender<UiEvent>) {
    std::thread::spawn(move || {
        while let Ok(ev) = read() {
            let msg = match ev {
                Event::Key(k) if k.kind != KeyEventKind::Release => UiEvent::Key(k),
                Event::Mouse(m) => match m.kind {
                    MouseEventKind::ScrollDown => UiEvent::Wheel(true),
                    MouseEventKind::ScrollUp => UiEvent::Wheel(false),
                    _ => continue,
                },
                Event::Resize(..) => UiEvent::Resize,
                _ => continue,
            };
            if ui.send(msg).is_err() {
                return;
            }
        }
    });
}

fn restore_on_panic() {
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        previous_hook(info);
    }));
}

/// Restores the terminal when dropped: on return, on error and on panic alike.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> io::Result<TerminalGuard> {
        crossterm::terminal::enable_raw_mode()?;
        // The mouse only for its wheel, which scrolls the prose and the code.
        crossterm::execute!(
            io::stdout(),
            crossterm::terminal::EnterAlternateScreen,
            crossterm::event::EnableMouseCapture
        )?;
        Ok(TerminalGuard)
    }
}

fn restore_terminal() {
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = crossterm::execute!(
        io::stdout(),
        crossterm::event::DisableMouseCapture,
        crossterm::terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}
