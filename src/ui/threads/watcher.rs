//! The jobs that are served beside the worker, never queued behind a run: watching the
//! learner's file for saves (`session::watch`, as `gpulab ex watch`), and writing the
//! exercise progress. A save is one `UiEvent::Saved`; the lab decides what to run.

use crate::session::watch::FileWatch;
use crate::ui::event::{Job, UiEvent};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

/// The files to watch (none: stop), each with its text as the lab last saw it.
type WatchOrder = Vec<(PathBuf, Option<Vec<u8>>)>;

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
                    let _ = watch_tx.send(order.into_iter().collect());
                }
                Job::WatchFiles(files) => {
                    let _ = watch_tx.send(files);
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

/// Watch the files of the last order, until the lab is gone. They are of one folder (an
/// exercise's file, or a try's kernels), and a watch is of the folder: waiting on the
/// first one's events wakes for a save of any of them.
fn watch_loop(ui: &Sender<UiEvent>, orders: &Receiver<WatchOrder>) {
    let mut watches: Vec<FileWatch> = Vec::new();
    loop {
        let order = match watches.is_empty() {
            // Nothing to watch: wait for an order.
            true => orders.recv().map_err(|_| TryRecvError::Disconnected),
            false => orders.try_recv(),
        };
        match order {
            Ok(files) => {
                watches = (files.into_iter())
                    .map(|(file, baseline)| FileWatch::new(&file, baseline))
                    .collect();
            }
            Err(TryRecvError::Disconnected) => return,
            Err(TryRecvError::Empty) => {}
        }
        for w in &mut watches {
            if w.changed().is_some() && ui.send(UiEvent::Saved(w.file().to_path_buf())).is_err() {
                return;
            }
        }
        if let Some(w) = watches.first() {
            w.wait();
        }
    }
}
