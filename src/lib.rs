//! gpulab: a terminal lab for CUDA memory spaces.

pub mod analysis;
pub mod cli;
pub mod cuda;
pub mod doctor;
pub mod hostdata;
pub mod lesson;
pub mod progress;
pub mod recording;
pub mod report;
pub mod results;
pub mod trace;
pub mod ui;
pub mod worker;
