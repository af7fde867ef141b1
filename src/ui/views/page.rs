//! A page's text as it is drawn: rows wrapped at the pane's width, word by word, a list
//! item's text hanging under its text (`wrap`), and where the page's questions lie
//! (`Content`). The prose pane, an exercise's page and the commands that print prose all
//! wrap with it.

use ratatui::text::Line;
use std::ops::Range;

/// The page's text as it is drawn: wrapped rows, and where each checkpoint question lies.
pub struct Content {
    pub title: String,
    pub rows: Vec<String>,
    /// The rows of each checkpoint question (empty on a prose page).
    pub questions: Vec<Range<usize>>,
    /// What was just added to the page (an exercise's newest hint, its solution): brought
    /// into view when it comes.
    pub focus: Option<Range<usize>>,
}

pub(super) fn width_of(s: &str) -> usize {
    Line::raw(s).width()
}

/// Greedy word wrap keeping the line's indent; a word longer than the width is cut.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    wrap_hanging(line, width, 0)
}

/// As `wrap`, with the rows after the first `hang` columns further in than the line's
/// indent (a list item's text under its text, not under its number).
pub(super) fn wrap_hanging(line: &str, width: usize, hang: usize) -> Vec<String> {
    let width = width.max(1);
    if width_of(line) <= width {
        return vec![line.to_string()];
    }
    let indent = &line[..line.len() - line.trim_start().len()];
    let indent = if width_of(indent) * 2 < width {
        indent
    } else {
        ""
    };
    let hung = format!("{indent}{}", " ".repeat(hang));
    let next = if width_of(&hung) * 2 < width {
        hung
    } else {
        indent.to_string()
    };
    let mut rows = Vec::new();
    let mut cur = indent.to_string();
    for word in line.split_whitespace() {
        let fits = width_of(&cur) + usize::from(!cur.trim().is_empty()) + width_of(word);
        if fits > width && !cur.trim().is_empty() {
            rows.push(std::mem::replace(&mut cur, next.clone()));
        }
        if !cur.trim().is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        if width_of(&cur) > width {
            // Cut in one pass: a word of a megabyte is as many rows, not as many passes.
            let mut cut = crate::ui::views::fit::pieces(&cur, width, width);
            cur = cut.pop().unwrap_or_default();
            rows.extend(cut);
        }
    }
    if !cur.trim().is_empty() || rows.is_empty() {
        rows.push(cur);
    }
    rows
}
