//! Helpers shared by several test modules.

pub mod common;
pub mod ex_lab;
/// Also built into `examples/first_frame.rs`, by path: it uses nothing else from here.
pub mod frame_clock;
#[cfg(unix)]
pub mod pty;
pub mod vt;
pub mod wrong_answers;
