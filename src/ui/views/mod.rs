//! One file per view. Views borrow the app state for a frame and draw; they change nothing.

pub mod cards;
pub mod chart;
pub mod checkpoint;
pub mod code;
pub mod columns;
pub mod compact;
pub mod detail;
pub mod diff;
pub mod exercise;
pub mod fit;
pub mod footprint;
pub mod heatmap;
pub mod knob_chart;
pub mod knobs;
pub mod list;
pub mod loading;
pub mod memcheck;
pub mod overlays;
pub mod prose;
pub mod screen;
pub mod theme;
