//! How the screen shows the lesson: the overlay, the focused variant and instruction, the
//! chart, colour, the code view's panes and the size of the last frame. Its fields are its
//! own: a key changes them through the methods below, which keep what goes together
//! (a new focus starts the heatmap at its worst instruction; an overlay opens at its top).

use crate::ui::state::code_view::CodeState;
use ratatui::layout::Rect;

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
    overlay: Overlay,
    variant: usize,
    /// Which traced instruction the heatmap shows, worst first.
    instr: usize,
    /// Heatmap of all instructions × banks instead of one request.
    aggregate: bool,
    /// A lesson with a sweep shows its chart in place of the variant columns.
    chart: bool,
    /// Which sweep's chart is shown when they do not all fit.
    sweep: usize,
    color: bool,
    code_scroll: u16,
    /// The code view's panes and the SASS listings asked for.
    code: CodeState,
    /// The help's, the detail's and the glossary's scroll, and the code's sideways.
    scrolls: Scrolls,
    /// The lesson list shown or hidden by `L`; None: shown where the screen is wide.
    list: Option<bool>,
    /// The size of the last frame drawn, so the scrolling keys see the screen the learner
    /// sees; empty before the first frame.
    viewport: Rect,
}

impl Default for ViewState {
    /// Nothing open, the first variant in focus, in colour unless `NO_COLOR` is set.
    fn default() -> ViewState {
        ViewState {
            overlay: Overlay::None,
            variant: 0,
            instr: 0,
            aggregate: false,
            chart: false,
            sweep: 0,
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            code_scroll: 0,
            code: CodeState::default(),
            scrolls: Scrolls::default(),
            list: None,
            viewport: Rect::default(),
        }
    }
}

impl ViewState {
    pub fn overlay(&self) -> Overlay {
        self.overlay
    }

    /// Open `overlay` over the lesson, from its top (the code from its left edge).
    pub fn open(&mut self, overlay: Overlay) {
        match overlay {
            Overlay::Help => self.scrolls.help = 0,
            Overlay::Detail => self.scrolls.detail = 0,
            Overlay::Glossary => self.scrolls.glossary = 0,
            Overlay::Code => self.scrolls.code_x = 0,
            _ => {}
        }
        self.overlay = overlay;
    }

    /// Back to the lesson, nothing over it.
    pub fn close(&mut self) {
        self.overlay = Overlay::None;
    }

    /// The focused variant (the lesson's variants, counted from 0).
    pub fn variant(&self) -> usize {
        self.variant
    }

    /// Focus variant `v`: its heatmap starts at its worst instruction.
    pub fn focus(&mut self, v: usize) {
        if v != self.variant {
            self.instr = 0;
        }
        self.variant = v;
    }

    /// A lesson (or exercise) came on screen with variant `v` in focus: its heatmap and
    /// code from their tops.
    pub fn start_at(&mut self, v: usize) {
        (self.variant, self.instr, self.code_scroll) = (v, 0, 0);
    }

    /// Which traced instruction the heatmap shows, worst first.
    pub fn instr(&self) -> usize {
        self.instr
    }

    /// The heatmap's next instruction, of `count`; `back`: the one before.
    pub fn step_instr(&mut self, back: bool, count: usize) {
        self.instr = step(self.instr, back, count);
    }

    /// Whether the heatmap shows all instructions × banks in place of one request.
    pub fn aggregate(&self) -> bool {
        self.aggregate
    }

    pub fn set_aggregate(&mut self, on: bool) {
        self.aggregate = on;
    }

    /// Whether a lesson with a sweep shows its chart in place of the variant columns.
    pub fn chart(&self) -> bool {
        self.chart
    }

    pub fn set_chart(&mut self, on: bool) {
        self.chart = on;
    }

    /// Which sweep's chart is shown when they do not all fit.
    pub fn sweep(&self) -> usize {
        self.sweep
    }

    /// The next sweep's chart, of `count`; `back`: the one before.
    pub fn step_sweep(&mut self, back: bool, count: usize) {
        self.sweep = step(self.sweep, back, count);
    }

    pub fn color(&self) -> bool {
        self.color
    }

    /// In colour or plain (`NO_COLOR`, a snapshot).
    pub fn set_color(&mut self, on: bool) {
        self.color = on;
    }

    /// The first code row on screen, as asked; the pane clamps it to the code.
    pub fn code_scroll(&self) -> u16 {
        self.code_scroll
    }

    pub fn set_code_scroll(&mut self, row: u16) {
        self.code_scroll = row;
    }

    /// The code view's panes and the SASS listings asked for.
    pub fn code(&self) -> &CodeState {
        &self.code
    }

    pub fn code_mut(&mut self) -> &mut CodeState {
        &mut self.code
    }

    /// How far the pop-ups are scrolled, and the code sideways.
    pub fn scrolls(&self) -> Scrolls {
        self.scrolls
    }

    /// Scroll the pop-up in front (the help, the detail or the glossary) to `row`.
    pub fn scroll_popup_to(&mut self, row: u16) {
        match self.overlay {
            Overlay::Help => self.scrolls.help = row,
            Overlay::Detail => self.scrolls.detail = row,
            Overlay::Glossary => self.scrolls.glossary = row,
            _ => {}
        }
    }

    /// The code from column `x` of its lines.
    pub fn scroll_code_to_x(&mut self, x: u16) {
        self.scrolls.code_x = x;
    }

    /// Show the code from its costliest memory line until the learner scrolls.
    pub fn code_at_worst(&mut self) {
        self.scrolls.code_at_worst = true;
    }

    /// Whether the code still stands at its costliest line; it no longer does once this
    /// is asked (the learner scrolls from there).
    pub fn take_code_at_worst(&mut self) -> bool {
        std::mem::take(&mut self.scrolls.code_at_worst)
    }

    /// The lesson list shown or hidden by `L`; None: shown where the screen is wide.
    pub fn list(&self) -> Option<bool> {
        self.list
    }

    pub fn set_list(&mut self, shown: Option<bool>) {
        self.list = shown;
    }

    /// The size of the last frame drawn; empty before the first frame.
    pub fn viewport(&self) -> Rect {
        self.viewport
    }

    /// A frame of this size was drawn: the scrolling keys see the screen the learner sees.
    pub fn drawn(&mut self, area: Rect) {
        self.viewport = area;
    }
}

/// One of `count` things after `at` (`back`: before it), never past either end.
fn step(at: usize, back: bool, count: usize) -> usize {
    match back {
        true => at.saturating_sub(1),
        false if at + 1 < count => at + 1,
        false => at,
    }
}
