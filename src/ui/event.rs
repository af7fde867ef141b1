//! The messages of the lab: what reaches the UI thread on its one channel, and what it asks
//! of the worker thread. Background threads only send these; the UI thread owns the state.

use crate::model::Lesson;
use crate::model::protocol::{Reply, RunOptions};
use crate::session::client::WorkerFailure;
use crate::session::fold::Capabilities;
use crossterm::event::KeyEvent;

/// Everything that reaches the UI thread, on its one channel.
#[derive(Debug)]
pub enum UiEvent {
    Key(KeyEvent),
    /// The mouse wheel, down (true) or up.
    Wheel(bool),
    Resize,
    Worker(WorkerEvent),
    /// Writing the progress file failed, in words.
    SaveFailed(String),
    /// SIGTERM, SIGINT or SIGHUP arrived (its number): leave as on `q`, so progress is
    /// written and the terminal restored on the one way out.
    Terminate(i32),
    /// The course, loaded and checked on a thread of its own, or why it could not be.
    Loaded(Result<super::loading::Course, super::loading::LoadFailure>),
}

/// What the worker thread reports.
#[derive(Debug)]
pub enum WorkerEvent {
    Ready(Result<Capabilities, WorkerFailure>),
    Reply {
        lesson: String,
        reply: Reply,
    },
    Finished {
        lesson: String,
        outcome: Result<(), WorkerFailure>,
    },
}

/// What the UI asks of the worker thread.
#[derive(Debug, Clone)]
pub enum Job {
    Run {
        lesson: Box<Lesson>,
        options: RunOptions,
    },
    Compile {
        lesson: Box<Lesson>,
        arch: String,
    },
}
