//! The parent's side of the worker: the client that spawns and talks to it, the one fold of
//! its replies into a `LessonResult`, where a lesson's figures come from (live or recorded),
//! recordings and the learner's progress.

pub mod client;
pub mod ex_check;
pub mod ex_cpu;
pub mod ex_lesson;
mod ex_output;
pub mod ex_progress;
mod ex_quick;
mod ex_sizes;
pub mod ex_summary;
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
