//! Noticing saves of the learner's file, whichever editor saved it: `gpulab ex watch` and
//! the lab both use this. Editors save in place or write a new file and rename it over the
//! old one, so the folder is watched, not the file; a burst of events within the debounce
//! is one save. Folders that give no events (network shares, WSL-mounted drives) are
//! covered by reading the file again every second, so a save is never missed; a text equal
//! to the last one seen (an editor touching the file without changing it) is no save.

use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Events closer together than this are one save.
pub const DEBOUNCE: Duration = Duration::from_millis(200);
/// How often the file is read again when no event comes.
pub const POLL: Duration = Duration::from_secs(1);

pub struct FileWatch {
    file: PathBuf,
    rx: Receiver<notify::Result<notify::Event>>,
    // Dropping the watcher ends its events: kept for as long as the watch.
    _watcher: Option<notify::RecommendedWatcher>,
    /// False when the folder gives no events and only polling finds saves.
    pub native: bool,
    last: Option<Vec<u8>>,
}

impl FileWatch {
    /// Watch `file`, whose text as last seen is `baseline` (None: any text is a change).
    pub fn new(file: &Path, baseline: Option<Vec<u8>>) -> FileWatch {
        let (tx, rx) = channel();
        let mut watcher = notify::recommended_watcher(move |e| {
            let _ = tx.send(e);
        })
        .ok();
        let dir = file.parent().unwrap_or(Path::new("."));
        let native = watcher
            .as_mut()
            .is_some_and(|w| w.watch(dir, RecursiveMode::NonRecursive).is_ok());
        FileWatch {
            file: file.to_path_buf(),
            rx,
            _watcher: watcher,
            native,
            last: baseline,
        }
    }

    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The file's text if it differs from the last seen (which it then becomes).
    pub fn changed(&mut self) -> Option<Vec<u8>> {
        let text = std::fs::read(&self.file).ok()?;
        if self.last.as_ref() == Some(&text) {
            return None;
        }
        self.last = Some(text.clone());
        Some(text)
    }

    /// Wait for the next event (at most `POLL`), then until none has come for the
    /// debounce: one save is often several events.
    pub fn wait(&self) {
        match self.rx.recv_timeout(POLL) {
            Ok(_) => while self.rx.recv_timeout(DEBOUNCE).is_ok() {},
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(POLL),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_text_is_a_change_and_the_same_text_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.cu");
        std::fs::write(&f, "one").unwrap();
        let mut w = FileWatch::new(&f, Some(b"one".to_vec()));
        assert_eq!(w.changed(), None);
        std::fs::write(&f, "two").unwrap();
        assert_eq!(w.changed().as_deref(), Some(&b"two"[..]));
        assert_eq!(w.changed(), None, "seen once");
        std::fs::write(&f, "three").unwrap();
        w.wait();
        assert_eq!(w.changed().as_deref(), Some(&b"three"[..]));
    }
}
