//! `gpulab ex summary DIR...`: the instructor's table, participant x exercise, or its JSON.

use super::say::{say, say_part};
use crate::model::Lesson;
use crate::session::exercise::summary::{self as ex_summary, Participant, Standing};
use anyhow::Result;
use std::fmt::Write;
use std::path::PathBuf;

pub fn summary(lessons: &[Lesson], dirs: &[PathBuf], json: bool) -> Result<i32> {
    let ids: Vec<String> = (lessons.iter().flat_map(|l| &l.exercises))
        .map(|e| e.id.clone())
        .collect();
    let people = ex_summary::read(dirs, &ids)?;
    if json {
        let j = serde_json::json!({ "exercises": ids, "participants": people });
        say!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        say_part!("{}", table(&ids, &people));
    }
    Ok(0)
}

/// One cell: how far a participant got with an exercise.
pub fn cell(s: Option<&Standing>) -> String {
    let Some(s) = s else { return "·".into() };
    let mut c = match (s.passed, s.passed_cpu, s.attempts) {
        (true, ..) => "✓ GPU".to_string(),
        (false, true, _) => "✓ CPU".to_string(),
        (false, false, 0) => "started".to_string(),
        (false, false, _) => "✗".to_string(),
    };
    if s.attempts > 0 {
        let _ = write!(c, " {}×", s.attempts);
    }
    if s.hints_shown > 0 {
        let _ = write!(c, " h{}", s.hints_shown);
    }
    if s.shown_before_passing {
        c.push_str(" sol");
    }
    if let Some(r) = s.vs_solution {
        let _ = write!(c, " {r:.2}x");
    }
    c
}

/// The table: an exercise a row (those nobody has touched are counted below it), a
/// participant a column.
pub fn table(ids: &[String], people: &[Participant]) -> String {
    let touched: Vec<&String> = (ids.iter())
        .filter(|id| people.iter().any(|p| p.exercises.contains_key(*id)))
        .collect();
    let cells: Vec<Vec<String>> = (touched.iter())
        .map(|id| people.iter().map(|p| cell(p.exercises.get(*id))).collect())
        .collect();
    // A folder's name is the participant's: one with a newline must not forge rows.
    let names: Vec<String> = (people.iter())
        .map(|p| super::say::visible_line(&p.name))
        .collect();
    let first = touched.iter().map(|id| id.len()).max().unwrap_or(0).max(8);
    let widths: Vec<usize> = (names.iter().enumerate())
        .map(|(j, name)| {
            let longest = cells
                .iter()
                .map(|r| r[j].chars().count())
                .max()
                .unwrap_or(0);
            longest.max(name.chars().count())
        })
        .collect();
    let mut out = String::new();
    let pad = |s: &str, w: usize| format!("{s}{}", " ".repeat(w.saturating_sub(s.chars().count())));
    let _ = write!(out, "{}", pad("exercise", first));
    for (name, w) in names.iter().zip(&widths) {
        let _ = write!(out, "  {}", pad(name, *w));
    }
    out = out.trim_end().to_string();
    out.push('\n');
    for (id, row) in touched.iter().zip(&cells) {
        let mut line = pad(id, first);
        for (c, w) in row.iter().zip(&widths) {
            let _ = write!(line, "  {}", pad(c, *w));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if touched.len() < ids.len() {
        out.push_str("(exercises nobody has started are left out)\n");
    }
    for (p, name) in people.iter().zip(&names) {
        if let Some(n) = &p.note {
            let _ = writeln!(out, "{name}: {n}");
        }
        if p.progress.is_none() {
            let _ = writeln!(out, "{name}: no exercises.json (files only: never checked)");
        }
    }
    out.push_str(
        "✓ GPU: every check passed on a GPU; ✓ CPU: every check the CPU interpreter can judge \
         passed there; ✗: checked, not passed; N×: checks run; hN: hints shown; sol: the \
         solution was shown before passing; 1.05x: best time / the solution's, in one run\n",
    );
    out
}
