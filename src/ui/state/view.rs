//! How the screen shows the lesson: the overlay, the focused variant and instruction, the
//! chart, colour, the code view's panes and the size of the last frame.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Code,
    Heatmap,
    /// Where a traced warp's texture fetches land in the image.
    Footprint,
    /// The memcheck rerun: going, or the lines it found.
    Memcheck,
    /// The focused variant against its neighbour: why the two differ.
    Diff,
    /// Every figure of the focused variant, scrolled: what its card has no room for.
    Detail,
    /// The words the lessons use, each in a sentence or two.
    Glossary,
}

/// How far the scrolled pop-ups are scrolled, and the code sideways.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Scrolls {
    pub help: u16,
    pub detail: u16,
    pub glossary: u16,
    /// Columns of code scrolled past on the left; line numbers and figures stay.
    pub code_x: u16,
    /// The code view stays at its costliest line until the learner scrolls: worked out
    /// for the frame it is drawn in, as the prose's question is.
    pub code_at_worst: bool,
}

/// How the screen shows the lesson: the overlay, the focused variant and instruction, the
/// chart, colour, and the size of the last frame.
pub struct ViewState {
    pub overlay: Overlay,
    pub variant: usize,
    /// Which traced instruction the heatmap shows, worst first.
    pub instr: usize,
    /// Heatmap of all instructions × banks instead of one request.
    pub aggregate: bool,
    /// A lesson with a sweep shows its chart in place of the variant columns.
    pub chart: bool,
    /// Which sweep's chart is shown when they do not all fit.
    pub sweep: usize,
    pub color: bool,
    pub code_scroll: u16,
    /// The code view's panes and the SASS listings asked for.
    pub code: crate::ui::state::code_view::CodeState,
    /// The help's, the detail's and the glossary's scroll, and the code's sideways.
    pub scrolls: Scrolls,
    /// The lesson list shown or hidden by `L`; None: shown where the screen is wide.
    pub list: Option<bool>,
    /// The size of the last frame drawn, so the scrolling keys see the screen the learner
    /// sees; empty before the first frame.
    pub viewport: ratatui::layout::Rect,
}
