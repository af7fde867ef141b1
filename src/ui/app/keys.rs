//! What each key does: to the pop-up when one is open, else to the lesson screen.

use crate::ui::app::App;
use crate::ui::state::view::Overlay;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a number key says when the question it would answer was not on screen.
const QUESTION_BROUGHT_INTO_VIEW: &str =
    "the question being asked was not on screen; now it is: its number answers it";

impl App {
    pub fn on_key(&mut self, key: KeyEvent) {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
        } else if self.loading.is_some() {
            // Nothing to act on yet, or ever (a course that failed): only leaving works.
            self.quit = matches!(key.code, KeyCode::Char('q') | KeyCode::Esc);
        } else if self.view.overlay() != Overlay::None {
            self.on_overlay_key(key.code);
        } else if self.broken().is_some() {
            self.on_broken_key(key.code);
        } else {
            self.on_screen_key(key.code);
        }
    }

    fn esc_at_top(&mut self) {
        self.message = Some("nothing to go back to: q quits".into());
    }

    fn on_overlay_key(&mut self, code: KeyCode) {
        match code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('?') => self.view.close(),
            KeyCode::Char('c') if self.view.overlay() == Overlay::Code => self.view.close(),
            KeyCode::Char('s') if self.view.overlay() == Overlay::Code => self.cycle_panes(),
            KeyCode::Char('d') if self.view.overlay() == Overlay::Diff => self.view.close(),
            KeyCode::Char('h') if self.view.overlay() == Overlay::Heatmap => self.view.close(),
            KeyCode::Char('f') if self.view.overlay() == Overlay::Footprint => self.view.close(),
            KeyCode::Char('m') if self.view.overlay() == Overlay::Memcheck => self.view.close(),
            KeyCode::Char('i') | KeyCode::Enter if self.view.overlay() == Overlay::Detail => {
                self.view.close()
            }
            KeyCode::Char('w') if self.view.overlay() == Overlay::Glossary => self.view.close(),
            // The glossary, from the help: `?` then `g`.
            KeyCode::Char('g') if self.view.overlay() == Overlay::Help => self.open_glossary(None),
            KeyCode::Char('<' | ',') if self.view.overlay() == Overlay::Code => {
                self.scroll_code_sideways(-8)
            }
            KeyCode::Char('>' | '.') if self.view.overlay() == Overlay::Code => {
                self.scroll_code_sideways(8)
            }
            KeyCode::Home if self.view.overlay() == Overlay::Code => self.view.scroll_code_to_x(0),
            KeyCode::Down | KeyCode::Char('j') => self.scroll_overlay(1),
            KeyCode::Up | KeyCode::Char('k') => self.scroll_overlay(-1),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll_overlay(10),
            KeyCode::PageUp => self.scroll_overlay(-10),
            KeyCode::Left => {
                self.view.focus(self.view.variant().saturating_sub(1));
                self.ask_for_overlay();
            }
            KeyCode::Right => {
                self.next_variant();
                self.ask_for_overlay();
            }
            other => self.on_heatmap_key(other),
        }
    }

    /// On a lesson that does not load there is its page of problems to read and the rest of
    /// the course to move to; nothing to run, show or edit.
    fn on_broken_key(&mut self, code: KeyCode) {
        match code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Esc => self.esc_at_top(),
            KeyCode::Char('?') => self.view.open(Overlay::Help),
            KeyCode::Up | KeyCode::Char('k') => self.move_row(false),
            KeyCode::Down | KeyCode::Char('j') => self.move_row(true),
            KeyCode::PageDown | KeyCode::Char(' ') => self.page_down(),
            KeyCode::PageUp => self.page_up(),
            KeyCode::Char('J') => self.scroll_prose(1),
            KeyCode::Char('K') => self.scroll_prose(-1),
            // The status line says what there is to do here.
            _ => {}
        }
    }

    fn on_screen_key(&mut self, code: KeyCode) {
        match code {
            KeyCode::Char('q') => self.quit = true,
            // Esc is "back", as in gitui and lazygit: from an exercise to its lesson; with
            // nowhere to go back to it says how to quit, never quits at once.
            KeyCode::Esc if self.exercises.open().is_some() => {
                self.select_row(self.reading.selected(), None)
            }
            KeyCode::Esc => self.esc_at_top(),
            KeyCode::Char('?') => self.view.open(Overlay::Help),
            KeyCode::Char('i') | KeyCode::Enter => self.view.open(Overlay::Detail),
            KeyCode::Char('w') => {
                let first = self.page_terms().first().map(|t| t.term);
                self.open_glossary(first)
            }
            KeyCode::Char('L') => self.toggle_list(),
            KeyCode::Char('c') => self.open_code(),
            KeyCode::Char('d') => self.open_diff(),
            KeyCode::Char('h') => self.view.open(Overlay::Heatmap),
            KeyCode::Char('f') if self.lesson().is_some_and(|l| !l.textures.is_empty()) => {
                self.view.open(Overlay::Footprint)
            }
            KeyCode::Char('g') if self.lesson().is_some_and(|l| !l.sweeps.is_empty()) => {
                self.view.set_chart(!self.view.chart())
            }
            KeyCode::Up | KeyCode::Char('k') => self.move_row(false),
            KeyCode::Down | KeyCode::Char('j') => self.move_row(true),
            KeyCode::Char('e') if self.exercises.open().is_some() => self.edit_exercise(),
            KeyCode::Char('e') if self.tried.is_some() => self.edit_try(),
            KeyCode::Char('t') if self.exercises.open().is_some() => self.next_hint(),
            KeyCode::Left => self.view.focus(self.view.variant().saturating_sub(1)),
            KeyCode::Right | KeyCode::Tab => self.next_variant(),
            KeyCode::Char(d @ '1'..='6') if self.on_checkpoint_page() && !self.page_closed() => {
                self.answer_on_screen(d as usize - '1' as usize)
            }
            KeyCode::Char('n') => self.go_to_page(self.reading.page() + 1),
            KeyCode::Char('p') => self.go_to_page(self.reading.page().saturating_sub(1)),
            KeyCode::PageDown | KeyCode::Char(' ') => self.page_down(),
            KeyCode::PageUp => self.page_up(),
            KeyCode::Char('J') => self.scroll_prose(1),
            KeyCode::Char('K') => self.scroll_prose(-1),
            KeyCode::Char('v') => self.show_recorded(),
            KeyCode::Char('s') => self.switch_source(),
            KeyCode::Char('r') => self.start_run(),
            KeyCode::Char('l') => self.toggle_loop(),
            KeyCode::Char('C') => self.toggle_cold_l2(),
            // A rerun that is going or done is shown again, not started twice.
            KeyCode::Char('m') if self.memcheck_shown_for_focus() => {
                self.view.open(Overlay::Memcheck)
            }
            KeyCode::Char('m') => self.start_memcheck(),
            KeyCode::Char('+' | '=') => self.turn_knob(true),
            KeyCode::Char('-') => self.turn_knob(false),
            KeyCode::Char('*') => self.next_knob(),
            KeyCode::Char('o') if self.focused_knob().is_some() => self.toggle_knob_table(),
            other => self.on_heatmap_key(other),
        }
    }

    /// The heatmap's keys work on the screen and in its pop-up alike; in the footprint's
    /// pop-up `[`/`]` step through the traced warps, and on the chart through the sweeps.
    fn on_heatmap_key(&mut self, code: KeyCode) {
        if self.view.chart() && self.view.overlay() == Overlay::None {
            let n = self.lesson().map_or(0, |l| l.sweeps.len());
            match code {
                KeyCode::Char(']') => self.view.step_sweep(false, n),
                KeyCode::Char('[') => self.view.step_sweep(true, n),
                _ => {}
            }
            return;
        }
        match code {
            KeyCode::Char(']') => self.view.step_instr(false, self.instruction_count()),
            KeyCode::Char('[') => self.view.step_instr(true, 0),
            KeyCode::Char('a') => self.view.set_aggregate(!self.view.aggregate()),
            _ => {}
        }
    }

    /// What `[`/`]` step through for the focused variant: its traced warps in the footprint's
    /// pop-up, else its traced instructions.
    fn instruction_count(&self) -> usize {
        let v = self
            .result()
            .and_then(|r| r.variants.get(self.view.variant()));
        match self.view.overlay() {
            Overlay::Footprint => v.map_or(0, |v| crate::analysis::footprint::warps(v).len()),
            _ => v.map_or(0, |v| crate::analysis::heatmap::worst_first(v).len()),
        }
    }

    /// A number key answers the question being asked, and only when it is on screen.
    fn answer_on_screen(&mut self, choice: usize) {
        if self.question_on_screen() {
            let asked = self.lesson().and_then(|l| {
                (0..l.checkpoint.len()).find(|&q| self.reading.answer(&l.id, q).is_none())
            });
            self.answer(choice);
            // Its explanation comes into view, not the next question.
            let answered = self
                .lesson()
                .is_some_and(|l| asked.is_some_and(|q| self.reading.answer(&l.id, q).is_some()));
            if answered {
                self.reading.follow(asked);
                // The note that brought the question into view has done its work.
                if self.message.as_deref() == Some(QUESTION_BROUGHT_INTO_VIEW) {
                    self.message = None;
                }
            } else {
                self.reading.follow(self.reading.feedback());
            }
        } else {
            // Never an answer to a question not read: the key brings it into view instead.
            self.reading.follow(None);
            self.message = Some(QUESTION_BROUGHT_INTO_VIEW.into());
        }
    }

    fn toggle_loop(&mut self) {
        if self.exercises.open().is_some() {
            self.message = Some("every save of your file checks it again; r checks now".into());
            return;
        }
        if !self.runs.looping() && self.once_instead_of_loop() {
            return;
        }
        self.runs.set_looping(!self.runs.looping());
        if self.runs.looping() {
            self.message = Some("looping: runs again after each run (l stops)".into());
            if self.runs.running().is_none() {
                self.start_run();
            }
        } else {
            self.message = Some("loop stopped".into());
        }
    }

    /// Show the lesson list, or hide it, whatever the width.
    fn toggle_list(&mut self) {
        let shown = crate::ui::views::prose::areas(self, self.view.viewport())
            .list
            .width
            > 0;
        self.view.set_list(Some(!shown));
    }

    fn next_variant(&mut self) {
        let n = self.lesson().map_or(0, |l| l.variants.len());
        if self.view.variant() + 1 < n {
            self.view.focus(self.view.variant() + 1);
        }
    }
}
