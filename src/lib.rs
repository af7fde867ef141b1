//! gpulab: a terminal lab for CUDA memory spaces. docs/architecture.md gives the layout and
//! the one rule of each folder: imports point down.

pub mod analysis;
pub mod cli;
pub mod course;
pub mod cuda;
pub mod interp;
pub mod model;
pub mod session;
pub mod trace;
pub mod ui;
pub mod worker;
