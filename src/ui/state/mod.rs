//! The lab's parts, each the state of one thing the learner sees or does: where they are in
//! the course (`reading`), what the runs measured (`runs`, with the knob bench and the
//! memcheck rerun), the exercise open (`exercise`), how the screen shows it (`view`, with
//! the code view), the course loading (`loading`) and a try (`try_lab`). None of them
//! knows the `App` that holds them; what a key or a worker's reply does to them is the
//! app's (`ui::app`).

pub mod code_view;
pub mod exercise;
pub mod knobs;
pub mod loading;
pub mod memcheck;
pub mod reading;
pub mod runs;
pub mod try_lab;
pub mod view;
