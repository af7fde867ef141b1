//! The parent's side of the worker: the client that spawns and talks to it, the one fold of
//! its replies into a `LessonResult`, where a lesson's figures come from (live or recorded),
//! recordings, the learner's progress, and the exercise checks (`exercise`).

pub mod client;
pub mod exercise;
pub mod fold;
pub mod knobs;
pub mod overview;
pub mod progress;
pub mod queue_news;
pub mod recording;
pub mod source;
pub mod store;
pub mod try_run;
pub mod watch;
pub mod workspace;
