//! The lab on the real terminal: raw mode and the alternate screen for as long as it runs,
//! restored on every way out (quit, error, panic, SIGTERM/SIGINT/SIGHUP); keys and signals
//! read on threads of their own. All that is crossterm's lives here; the loop itself is
//! `main_loop::run`.

use crate::ui::app::App;
use crate::ui::event::UiEvent;
use crate::ui::main_loop;
use crate::ui::main_loop::EditError;
use crate::ui::state::loading::{Course, LoadFailure};
use crate::ui::threads::{progress_writer, worker as worker_thread};
use crossterm::event::{Event, KeyEventKind, MouseEventKind, poll, read};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::time::Duration;

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
    app.runs.set_device(device);
    restore_on_panic();
    let (tx, rx) = channel::<UiEvent>();
    // Before the terminal changes: a signal from then on finds the handler in place.
    spawn_signal_reader(tx.clone())?;
    let _guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(NoBidi(io::stdout())))?;
    terminal.clear()?;
    crate::ui::threads::loader::spawn(tx.clone(), loader);
    let jobs = worker_thread::spawn(tx.clone(), device);
    let (saves, writer) = progress_writer::spawn(tx.clone());
    let pause = Arc::new(KeyPause::default());
    spawn_key_reader(tx, pause.clone());
    let mut edit = |file: &Path| edit_in_terminal(file, &pause);
    let out = main_loop::run_with(&mut terminal, &mut app, &rx, &jobs, &saves, &mut edit);
    // Nothing is lost on quit: the last snapshot is written before we leave.
    drop(saves);
    let _ = writer.join();
    out.map(|()| app)
}

/// The terminal's writer, less the bidirectional controls. A lesson pack's text reaches the
/// screen through ratatui, which drops C0 and C1 controls but passes on the bidirectional
/// ones (they are format characters, of no width): a terminal that honours them would show
/// the pack's words in another order than they are. Each write is a whole string of the
/// backend's (a cell's symbol, an escape sequence of its own), so no character is split.
struct NoBidi<W: Write>(W);

impl<W: Write> Write for NoBidi<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) if text.chars().any(crate::course::text::is_bidi_control) => {
                let kept: String = (text.chars())
                    .filter(|c| !crate::course::text::is_bidi_control(*c))
                    .collect();
                self.0.write_all(kept.as_bytes())?;
            }
            _ => self.0.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
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

/// The key reader leaves the terminal's input alone while an editor has it: two readers
/// of one terminal would each get half the keys.
#[derive(Default)]
struct KeyPause {
    asked: AtomicBool,
    /// The reader has seen `asked` and reads nothing.
    idle: AtomicBool,
}

fn spawn_key_reader(ui: Sender<UiEvent>, pause: Arc<KeyPause>) {
    std::thread::spawn(move || {
        loop {
            if pause.asked.load(Ordering::SeqCst) {
                pause.idle.store(true, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
            // Polled, not read blocking, so that a pause is seen within a poll.
            match poll(Duration::from_millis(50)) {
                Ok(true) if !pause.asked.load(Ordering::SeqCst) => {}
                Ok(_) => continue,
                Err(_) => return,
            }
            let Ok(ev) = read() else { return };
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

/// Lend the terminal to the learner's editor (`$VISUAL`, else `$EDITOR`, else `vi`) for
/// `file`, and take it back: raw mode and the alternate screen off while it runs, the keys
/// it left unread dropped after.
fn edit_in_terminal(file: &Path, pause: &KeyPause) -> Result<(), EditError> {
    pause.idle.store(false, Ordering::SeqCst);
    pause.asked.store(true, Ordering::SeqCst);
    let waited = std::time::Instant::now();
    while !pause.idle.load(Ordering::SeqCst) && waited.elapsed() < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_millis(5));
    }
    restore_terminal();
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "vi".into());
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi");
    let status = std::process::Command::new(program)
        .args(words)
        .arg(file)
        .status();
    let back = TerminalGuard::enter().map(std::mem::forget);
    while poll(Duration::ZERO).unwrap_or(false) {
        let _ = read();
    }
    pause.asked.store(false, Ordering::SeqCst);
    back.map_err(EditError::TakeBack)?;
    match status {
        Ok(s) if s.success() => Ok(()),
        Ok(status) => Err(EditError::Ended { editor, status }),
        Err(why) => Err(EditError::NotStarted { editor, why }),
    }
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

#[cfg(test)]
mod tests {
    use super::NoBidi;
    use std::io::Write;

    #[test]
    fn the_lab_writes_no_bidirectional_control_and_everything_else() {
        let mut w = NoBidi(Vec::new());
        write!(
            w,
            "\u{1b}[1;1Hok \u{202e}deliaf\u{202c} \u{2067}x\u{2069} ✓"
        )
        .unwrap();
        let out = String::from_utf8(w.0).unwrap();
        assert_eq!(out, "\u{1b}[1;1Hok deliaf x ✓");
    }
}
