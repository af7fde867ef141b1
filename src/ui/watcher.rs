//! The jobs that are served beside the worker, never queued behind a run: watching the
//! learner's file for saves (`session::watch`, as `gpulab ex watch`), and writing the
//! exercise progress. A save is one `UiEvent::Saved`; the lab decides what to run.

use super::event::{Job, UiEvent};
use crate::session::watch::FileWatch;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

type WatchOrder = Option<(PathBuf, Option<Vec<u8>>)>;

/// Take the lab's jobs: watching and saving here, the rest passed on to `worker`.
pub fn dispatch(ui: Sender<UiEvent>, worker: Sender<Job>) -> Sender<Job> {
    let (tx, rx) = channel::<Job>();
    let (watch_tx, watch_rx) = channel::<WatchOrder>();
    let watch_ui = ui.clone();
    std::thread::spawn(move || watch_loop(&watch_ui, &watch_rx));
    std::thread::spawn(move || {
        for job in rx {
            match job {
                Job::Watch(order) => {
                    let _ = watch_tx.send(order);
                }
                Job::SaveBook { book, path } => {
                    // The error names the file.
                    if let Err(e) = book.save_to(&path) {
                        let _ = ui.send(UiEvent::SaveFailed(e.to_string()));
                    }
                }
                other => {
                    if worker.send(other).is_err() {
                        return;
                    }
                }
            }
        }
    });
    tx
}

/// Watch one file at a time, as ordered, until the lab is gone.
fn watch_loop(ui: &Sender<UiEvent>, orders: &Receiver<WatchOrder>) {
    let mut watch: Option<FileWatch> = None;
    loop {
        let order = match &watch {
            // Nothing to watch: wait for an order.
            None => orders.recv().map_err(|_| TryRecvError::Disconnected),
            Some(_) => orders.try_recv(),
        };
        match order {
            Ok(Some((file, baseline))) => watch = Some(FileWatch::new(&file, baseline)),
            Ok(None) => watch = None,
            Err(TryRecvError::Disconnected) => return,
            Err(TryRecvError::Empty) => {}
        }
        if let Some(w) = watch.as_mut() {
            if w.changed().is_some() && ui.send(UiEvent::Saved(w.file().to_path_buf())).is_err() {
                return;
            }
            w.wait();
        }
    }
}
