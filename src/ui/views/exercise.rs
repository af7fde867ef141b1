//! The exercise's parts of the screen: its task, the hints shown so far and, once passed,
//! the solution as a diff against the learner's kernel (in the prose pane); and atop the
//! learner's column, the compile error at its line or the checks one by one.

use crate::analysis::claim_words::{detail_words, words};
use crate::analysis::line_diff::{DiffLine, diff, differs};
use crate::course::prose::reflow;
use crate::session::exercise::report::{self, CheckReport, Mark};
use crate::ui::app::App;
use crate::ui::state::exercise::ExerciseView;
use crate::ui::views::page::{Content, wrap};
use crate::ui::views::theme::Theme;
use ratatui::text::{Line, Span};
use std::ops::Range;

/// The prose pane on an exercise, wrapped to `width`.
pub fn content(app: &App, x: &ExerciseView, width: usize) -> Content {
    // Paragraphs joined, to be wrapped at the pane's width.
    let mut text: Vec<String> = reflow(&x.ex().task).lines().map(String::from).collect();
    text.push(String::new());
    let p = app.exercises.book().get(&x.ex().id);
    let shown = (p.hints_shown as usize).min(x.ex().hints.len());
    for (i, h) in x.ex().hints.iter().take(shown).enumerate() {
        let hint = format!("Hint {} of {}: {}", i + 1, x.ex().hints.len(), reflow(h));
        text.extend(hint.lines().map(String::from));
    }
    let passed = p.passed || app.ex_report().is_some_and(CheckReport::passed);
    // Right on the CPU, the times left to a GPU: the solution opens here at the learner's
    // word (#35 item 14), once the hints are out.
    let offered = p.passed_cpu && !passed && !p.solution_shown;
    text.push(match x.ex().hints.len() - shown {
        0 if offered => "t opens the solution: every check the CPU interpreter judges holds, \
                         and only a GPU can pass the rest"
            .into(),
        0 if shown == 0 => "(no hints for this one)".into(),
        0 => "(that was the last hint)".into(),
        left => format!("t shows a hint ({left} left)"),
    });
    let checked = app.ex_report().is_some();
    text.push(match x.file().as_ref().filter(|f| checked || f.exists()) {
        Some(f) => format!(
            "your file: {} (e edits it; every save checks it)",
            f.display()
        ),
        None => "not started: e copies the starter into your workspace and opens it".into(),
    });
    // Open once passed, or once shown before passing (`t` here, or `--show-anyway`).
    let open = passed || p.solution_shown;
    if open {
        text.push(String::new());
        text.extend(solution_lines(x, passed));
    }
    let mut rows = Vec::new();
    for line in &text {
        rows.extend(wrap(line, width));
    }
    Content {
        title: format!(
            "Exercise: {} · {} ~{} min",
            x.ex().title,
            x.ex().difficulty_dots(),
            x.ex().minutes
        ),
        focus: new_rows(&rows, shown, x.ex().hints.len(), open),
        rows,
        questions: Vec::new(),
    }
}

/// The rows of what came last: the solution once passed, else the newest hint (from its
/// first row to the line after the hints).
fn new_rows(rows: &[String], shown: usize, hints: usize, solution: bool) -> Option<Range<usize>> {
    if solution {
        let head = |r: &String| r.starts_with("✓ passed") || r.starts_with(BEFORE_PASSING);
        let at = rows.iter().position(head)?;
        return Some(at..rows.len());
    }
    let head = format!("Hint {shown} of {hints}");
    let at = rows.iter().position(|r| r.starts_with(&head))?;
    let end = (rows[at + 1..].iter())
        .position(|r| r.starts_with("Hint ") || r.starts_with("t shows") || r.starts_with("(that"))
        .map_or(rows.len(), |e| at + 2 + e);
    Some(at..end)
}

/// The heading of a solution opened before the exercise passed.
const BEFORE_PASSING: &str = "Not passed yet";

/// The solution as a diff against the learner's text, once the exercise `passed` or shown
/// before it did.
fn solution_lines(x: &ExerciseView, passed: bool) -> Vec<String> {
    let d = diff(x.src(), &x.ex().solution);
    let head = match passed {
        true => "✓ passed",
        false => BEFORE_PASSING,
    };
    if !differs(&d) {
        return vec![format!("{head}, and yours is the solution line for line.")];
    }
    let mut out = vec![format!(
        "{head}. The solution, against yours (- yours, + the solution):"
    )];
    // The changes with two lines around each; what lies between is one "…".
    let near = |i: usize| {
        d[i.saturating_sub(2)..(i + 3).min(d.len())]
            .iter()
            .any(|l| !matches!(l, DiffLine::Same(_)))
    };
    let mut skipped = false;
    for (i, l) in d.iter().enumerate() {
        if !near(i) {
            skipped = true;
            continue;
        }
        if std::mem::take(&mut skipped) {
            out.push("  …".into());
        }
        out.push(match l {
            DiffLine::Same(s) => format!("  {s}"),
            DiffLine::Removed(s) => format!("- {s}"),
            DiffLine::Added(s) => format!("+ {s}"),
        });
    }
    if skipped {
        out.push("  …".into());
    }
    out
}

/// What opens the learner's column: the check in flight, the compile error at its line,
/// or each check with its mark and what it measured.
pub fn yours_lines<'a>(app: &App, th: &Theme) -> Vec<Line<'a>> {
    let Some(x) = app.exercises.open() else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if let Some(stage) = &x.checking() {
        lines.push(Line::styled(format!("… checking: {stage}"), th.accent));
    }
    let Some(r) = app.ex_report() else {
        if x.checking().is_none() {
            lines.push(Line::styled(
                "not checked yet: save your file, or r",
                th.dim,
            ));
        }
        return lines;
    };
    if let Some(e) = &r.compile_error {
        lines.push(Line::styled("✗ does not compile", th.bad));
        lines.extend(compile_error_lines(e, th));
        return lines;
    }
    // What failed first, then what was not judged, then what holds: the card at 80x24
    // holds five or six checks, and a learner looks for what to fix, not for what passed.
    let rank = |m: Mark| match m {
        Mark::Fail => 0,
        Mark::NotMeasured => 1,
        Mark::NeedsGpu => 2,
        Mark::Pass => 3,
    };
    let mut ordered: Vec<_> = r.lines.iter().collect();
    ordered.sort_by_key(|l| rank(l.mark));
    for l in ordered {
        let (mark, st) = match l.mark {
            Mark::Pass => ("✓", th.good),
            Mark::Fail => ("✗", th.bad),
            Mark::NeedsGpu => ("·", th.dim),
            Mark::NotMeasured => ("?", th.warn),
        };
        let check = words(&l.check);
        let check = check.strip_prefix("yours ").unwrap_or(&check).to_string();
        // The pip line is said once, on the status line: on every check it took two rows
        // of each at 80 columns, and left three checks of eight in view.
        let detail = match l.mark == Mark::NeedsGpu && report::needs_nvrtc(&l.detail) {
            true => "needs NVRTC or a GPU".to_string(),
            false => detail_words(&l.detail),
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{mark} "), st),
            Span::raw(check),
            Span::styled(format!(" · {detail}"), th.dim),
        ]));
    }
    lines
}

/// The compiler's words as the worker gives them: each error at `file:line`, followed by
/// the learner's line it names.
fn compile_error_lines<'a>(e: &str, th: &Theme) -> Vec<Line<'a>> {
    e.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| Line::styled(l.trim_end().to_string(), th.bad))
        .collect()
}
