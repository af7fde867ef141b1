//! `gpulab ex watch`: check again on every save, whichever editor saved. Editors save in
//! place or write a new file and rename it over the old one, so the folder is watched, not
//! the file; a burst of events within the debounce is one save. Folders that give no
//! events (network shares, WSL-mounted drives) are covered by polling the file's text
//! every second, so a save is never missed; a text equal to the last one checked (an
//! editor touching the file without changing it) runs nothing.

use anyhow::Result;
use notify::{RecursiveMode, Watcher};
use std::path::Path;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

const DEBOUNCE: Duration = Duration::from_millis(200);
const POLL: Duration = Duration::from_secs(1);

/// Run `check` now and after every change of `file`, until interrupted.
pub fn watch(file: &Path, mut check: impl FnMut() -> Result<i32>) -> Result<i32> {
    let (tx, rx) = channel();
    let mut watcher = notify::recommended_watcher(move |e| {
        let _ = tx.send(e);
    })
    .ok();
    let dir = file.parent().unwrap_or(Path::new("."));
    let watching = watcher
        .as_mut()
        .is_some_and(|w| w.watch(dir, RecursiveMode::NonRecursive).is_ok());
    if !watching {
        eprintln!(
            "· no file events here: polling {} every second",
            file.display()
        );
    }
    let mut last = None;
    loop {
        let text = std::fs::read(file).ok();
        if text.is_some() && text != last {
            last = text;
            if let Err(e) = check() {
                eprintln!("gpulab: {e:#}");
            }
            eprintln!("· watching {} (Ctrl-C ends)", file.display());
        }
        match rx.recv_timeout(POLL) {
            Ok(_) => settle(&rx),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(POLL),
        }
    }
}

/// Wait until no event has come for the debounce: one save is often several events.
fn settle<T>(rx: &std::sync::mpsc::Receiver<T>) {
    while rx.recv_timeout(DEBOUNCE).is_ok() {}
}
