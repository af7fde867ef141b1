//! The lab's threads beside the UI's: the course loaded (`loader`), the worker's client
//! (`worker`), the learner's file watched (`watcher`) and progress written to disk
//! (`progress_writer`). Each talks to the UI thread through its channel only.

pub mod loader;
pub(in crate::ui) mod progress_writer;
mod watcher;
pub mod worker;
