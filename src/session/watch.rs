//! Noticing saves of the learner's file, whichever editor saved it: `gpulab ex watch` and
//! the lab both use this. Editors save in place or write a new file and rename it over the
//! old one, so the folder is watched, not the file; a burst of events within the debounce
//! is one save. An event that says the file is whole again (closed after writing, or
//! renamed into place) only waits a short settle: the learner's figures come sooner. Folders that give no events (network shares, WSL-mounted drives) are
//! covered by reading the file again every second, so a save is never missed; a text equal
//! to the last one seen (an editor touching the file without changing it) is no save.

use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Events closer together than this are one save.
pub const DEBOUNCE: Duration = Duration::from_millis(200);
/// After an event that finishes a save, this long without another is the end of it.
pub const SETTLE: Duration = Duration::from_millis(25);
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
    /// debounce (the settle, after an event that finishes a save of the file): one save
    /// is often several events.
    pub fn wait(&self) {
        let mut event = match self.rx.recv_timeout(POLL) {
            Ok(e) => e,
            Err(RecvTimeoutError::Timeout) => return,
            Err(RecvTimeoutError::Disconnected) => return std::thread::sleep(POLL),
        };
        loop {
            let quiet = if self.finishes(&event) {
                SETTLE
            } else {
                DEBOUNCE
            };
            match self.rx.recv_timeout(quiet) {
                Ok(e) => event = e,
                Err(_) => return,
            }
        }
    }

    /// The event leaves the learner's file whole: written and closed, or renamed over.
    fn finishes(&self, event: &notify::Result<notify::Event>) -> bool {
        use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind, RenameMode};
        let Ok(e) = event else { return false };
        let done = matches!(
            e.kind,
            EventKind::Access(AccessKind::Close(AccessMode::Write))
                | EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both))
        );
        let name = self.file.file_name();
        done && e.paths.iter().any(|p| p.file_name() == name)
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

    /// A write that closes the file settles in well under the debounce; a rename over the
    /// file (as editors that write a new file do) too. Where the folder gives no events the
    /// wait is the poll, and there is nothing to measure.
    #[test]
    fn a_finished_save_settles_sooner_than_the_debounce() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.cu");
        std::fs::write(&f, "one").unwrap();
        let mut w = FileWatch::new(&f, Some(b"one".to_vec()));
        if !w.native {
            eprintln!("skipped: this folder gives no file events");
            return;
        }
        let t = std::time::Instant::now();
        std::fs::write(&f, "two").unwrap();
        w.wait();
        let closed = t.elapsed();
        assert_eq!(w.changed().as_deref(), Some(&b"two"[..]));
        let tmp = dir.path().join("a.cu.tmp");
        std::fs::write(&tmp, "three").unwrap();
        let t = std::time::Instant::now();
        std::fs::rename(&tmp, &f).unwrap();
        w.wait();
        let renamed = t.elapsed();
        assert_eq!(w.changed().as_deref(), Some(&b"three"[..]));
        for (how, took) in [("closed", closed), ("renamed", renamed)] {
            assert!(
                took < DEBOUNCE,
                "{how}: waited {took:?}, the debounce is {DEBOUNCE:?}"
            );
        }
    }
}
