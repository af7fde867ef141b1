//! The thread that writes progress, so the UI thread never waits on the disk. It only
//! sends: a failure goes back to the UI thread in words.

use crate::session::progress::Progress;
use crate::ui::event::UiEvent;
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;

/// Only the newest snapshot matters, so a backlog is skipped to its last entry. The thread
/// ends, having written the last one, once the returned sender is dropped.
pub fn spawn(ui: Sender<UiEvent>) -> (Sender<Progress>, JoinHandle<()>) {
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
