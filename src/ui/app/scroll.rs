//! Scrolling: the prose pane by keys and the wheel, pages turned where the text ends, and
//! the code pop-up kept within its text. Each works on what the last frame showed.

use crate::ui::app::App;
use crate::ui::state::view::Overlay;
use crate::ui::views::{code, detail, overlays, prose};

/// Rows the wheel moves per notch.
const WHEEL: isize = 3;

impl App {
    /// Show page `p` from its top; on the checkpoint that is the question being asked.
    pub(in crate::ui) fn go_to_page(&mut self, p: usize) {
        if p < self.page_count() && p != self.reading.page() {
            self.reading.turn_to(p);
            self.note_seen();
        }
    }

    /// Scroll the prose by `rows` (negative: up); the learner now steers, not the
    /// checkpoint.
    pub(in crate::ui) fn scroll_prose(&mut self, rows: isize) {
        let Some(v) = prose::view(self, self.view.viewport()) else {
            return;
        };
        (self.reading).scroll_prose_to(v.offset.saturating_add_signed(rows).min(v.max_offset()));
    }

    /// A screenful further, or the next page once the end of this one is on screen.
    pub(in crate::ui) fn page_down(&mut self) {
        match prose::view(self, self.view.viewport()) {
            Some(v) if v.more_below() => {
                self.scroll_prose(v.height.saturating_sub(1).max(1) as isize)
            }
            _ => self.go_to_page(self.reading.page() + 1),
        }
    }

    /// A screenful back, or the previous page (from its top) once this one's top is shown.
    pub(in crate::ui) fn page_up(&mut self) {
        match prose::view(self, self.view.viewport()) {
            Some(v) if v.offset > 0 => {
                self.scroll_prose(-(v.height.saturating_sub(1).max(1) as isize))
            }
            _ => self.go_to_page(self.reading.page().saturating_sub(1)),
        }
    }

    /// The wheel scrolls what is in front: the code pop-up, else the prose.
    pub(in crate::ui) fn wheel(&mut self, down: bool) {
        let rows = if down { WHEEL } else { -WHEEL };
        match self.view.overlay() {
            Overlay::None => self.scroll_prose(rows),
            Overlay::Code | Overlay::Help | Overlay::Detail | Overlay::Glossary => {
                self.scroll_overlay(rows)
            }
            Overlay::Heatmap | Overlay::Footprint | Overlay::Memcheck | Overlay::Diff => {}
        }
    }

    /// Scroll the pop-up in front: the help, the glossary, the detail or the code, each
    /// never past its last row.
    pub(in crate::ui) fn scroll_overlay(&mut self, rows: isize) {
        let main = prose::areas(self, self.view.viewport()).popup;
        let step = |now: u16, max: usize| {
            (now as usize).min(max).saturating_add_signed(rows).min(max) as u16
        };
        match self.view.overlay() {
            Overlay::Help => {
                let max = overlays::help_max_scroll(self, main);
                self.view
                    .scroll_popup_to(step(self.view.scrolls().help, max));
            }
            Overlay::Glossary => {
                let max = overlays::glossary_max_scroll(self, main);
                self.view
                    .scroll_popup_to(step(self.view.scrolls().glossary, max));
            }
            Overlay::Detail => {
                let max = detail::max_scroll(self, main);
                self.view
                    .scroll_popup_to(step(self.view.scrolls().detail, max));
            }
            _ => self.scroll_code(rows),
        }
    }

    /// The glossary, scrolled to `term` where one is named.
    pub(in crate::ui) fn open_glossary(&mut self, term: Option<&str>) {
        let main = prose::areas(self, self.view.viewport()).popup;
        self.view.open(Overlay::Glossary);
        let row = term.map_or(0, |t| overlays::glossary_row(self, main, t));
        self.view.scroll_popup_to(row);
    }

    /// The code sideways by `cols` (negative: back), never past its widest line.
    pub(in crate::ui) fn scroll_code_sideways(&mut self, cols: isize) {
        let main = prose::areas(self, self.view.viewport()).popup;
        let max = code::code_max_x(self, main);
        let now = (self.view.scrolls().code_x as usize).min(max);
        self.view
            .scroll_code_to_x(now.saturating_add_signed(cols).min(max) as u16);
    }

    /// Scroll the code, never past its last line.
    pub(in crate::ui) fn scroll_code(&mut self, rows: isize) {
        let main = prose::areas(self, self.view.viewport()).popup;
        if self.view.take_code_at_worst() {
            let row = code::opening_scroll(self, main);
            self.view.set_code_scroll(row);
        }
        let max = code::code_max_scroll(self, main);
        let now = (self.view.code_scroll() as usize).min(max);
        self.view
            .set_code_scroll(now.saturating_add_signed(rows).min(max) as u16);
    }

    /// Whether the checkpoint question being asked is on screen, so a number key answers
    /// the question the learner reads. Before the first frame nothing is hidden.
    pub(in crate::ui) fn question_on_screen(&self) -> bool {
        let Some(l) = self.lesson() else { return false };
        let Some(v) = prose::view(self, self.view.viewport()) else {
            return true;
        };
        prose::current_question(self, l, &v.content).is_none_or(|q| v.shows(&q))
    }
}
