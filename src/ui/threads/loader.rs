//! The course loaded off the UI thread: the first frame is drawn while it loads.

use crate::ui::event::UiEvent;
use crate::ui::state::loading::{Course, LoadFailure};
use std::sync::mpsc::Sender;

/// Run `loader` on a thread of its own and send what it gives, once.
pub fn spawn<F>(ui: Sender<UiEvent>, loader: F)
where
    F: FnOnce() -> Result<Course, LoadFailure> + Send + 'static,
{
    std::thread::spawn(move || {
        let _ = ui.send(UiEvent::Loaded(loader()));
    });
}
