//! The parent's side of the worker: the client that spawns and talks to it, the one fold of
//! its replies into a `LessonResult`, recordings and the learner's progress.

pub mod client;
pub mod fold;
pub mod progress;
pub mod recording;
