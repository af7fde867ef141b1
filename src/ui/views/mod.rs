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
pub mod page;
pub mod prose;
pub mod screen;
pub mod status;
pub mod theme;

/// Where `r`'s figures come from, as `describe::source_label` says it, but for the cuBLAS
/// peak: that is measured too (the capstone asks what share of it each kernel reaches), so
/// before r or v it is left out with the other figures, by the rule every view keeps.
pub fn source_words(app: &crate::ui::App, r: &crate::model::results::LessonResult) -> String {
    use crate::model::results::{LessonResult, Peak};
    if app.revealed() {
        return crate::analysis::describe::source_label(r);
    }
    // Only what the label reads of a result: its source and device, no figure.
    let bare = LessonResult {
        lesson: String::new(),
        source: r.source,
        device: r.device.clone(),
        peak: Peak::default(),
        variants: Vec::new(),
        expect: Vec::new(),
        compile: None,
        knobs: Vec::new(),
    };
    crate::analysis::describe::source_label(&bare)
}
