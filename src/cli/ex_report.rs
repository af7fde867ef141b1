//! The words `gpulab ex list` and `gpulab ex check` print.

use super::say::{say, say_part};
use crate::analysis::claim_words::{detail_words, words};
use crate::model::Lesson;
use crate::model::exercise::Exercise;
use crate::session::exercise::progress::{ExerciseBook, ExerciseProgress};
use crate::session::exercise::report::{CheckReport, Mark};
use crate::session::workspace::Workspace;
use crate::ui::views::page::wrap;
use anyhow::Result;
use std::fmt::Write;

pub fn list(lessons: &[Lesson], ws: &Workspace, book: &ExerciseBook, json: bool) -> Result<i32> {
    if json {
        let mut items = Vec::new();
        for l in lessons {
            for e in &l.exercises {
                let p = book.get(&e.id);
                let file = ws.file(e);
                items.push(serde_json::json!({
                    "id": e.id, "lesson": l.id, "title": e.title,
                    "difficulty": e.difficulty, "minutes": e.minutes,
                    "started": file.exists(), "file": file,
                    "attempts": p.attempts, "passed": p.passed, "passed_cpu": p.passed_cpu,
                    "best_ms": p.best_ms, "solution_ms": p.solution_ms,
                    "hints_shown": p.hints_shown.min(e.hints.len() as u32), "hints": e.hints.len(),
                    "solution_shown": p.solution_shown,
                }));
            }
        }
        say!("{}", serde_json::to_string_pretty(&items)?);
        return Ok(0);
    }
    for l in lessons.iter().filter(|l| !l.exercises.is_empty()) {
        say!("{:02}  {}", l.order, l.id);
        for e in &l.exercises {
            let mut p = book.get(&e.id);
            // A progress file says how many hints were shown; no more than there are.
            p.hints_shown = p.hints_shown.min(e.hints.len() as u32);
            let state = state(&p, ws.file(e).exists());
            let head = format!(
                "    {:<16} {} {:>3} min  ",
                e.id,
                e.difficulty_dots(),
                e.minutes
            );
            say_part!("{}", rows(&head, &state));
            say_part!("{}", rows(&" ".repeat(TITLE_AT), &e.title));
        }
    }
    say!("workspace: {}", ws.dir.display());
    Ok(0)
}

/// Where an exercise's title starts, under its difficulty: every row fits 80 columns.
const TITLE_AT: usize = 21;
const WIDTH: usize = 80;

/// `text` after `head`, wrapped at word boundaries to end within `WIDTH` columns, each
/// further row starting where `text` started.
fn rows(head: &str, text: &str) -> String {
    let at = head.chars().count();
    let mut out = String::new();
    for (i, row) in wrap(text, WIDTH.saturating_sub(at)).iter().enumerate() {
        let lead = if i == 0 {
            head.to_string()
        } else {
            " ".repeat(at)
        };
        let _ = writeln!(out, "{}", format!("{lead}{row}").trim_end());
    }
    out
}

fn state(p: &ExerciseProgress, started: bool) -> String {
    let mut s = if p.passed {
        match p.best_ms {
            Some(ms) => format!("passed, best {ms:.3} ms"),
            None => "passed".to_string(),
        }
    } else if started {
        "started".to_string()
    } else {
        "not started".to_string()
    };
    if p.attempts > 0 {
        let _ = write!(
            s,
            ", {} attempt{}",
            p.attempts,
            if p.attempts == 1 { "" } else { "s" }
        );
    }
    if p.hints_shown > 0 {
        let n = p.hints_shown;
        let _ = write!(s, ", {n} hint{}", if n == 1 { "" } else { "s" });
    }
    if p.shown_before_passing {
        s.push_str(", solution seen");
    }
    s
}

fn mark(m: Mark) -> &'static str {
    match m {
        Mark::Pass => "✓",
        Mark::Fail => "✗",
        Mark::NeedsGpu => "·",
        Mark::NotMeasured => "?",
    }
}

/// The check, line by line, and the verdict.
pub fn check_text(ex: &Exercise, file: &str, r: &CheckReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", ex.id, ex.title);
    let _ = writeln!(out, "file: {file}");
    if let Some(e) = &r.compile_error {
        let _ = writeln!(out, "✗ does not compile:");
        for l in e.lines() {
            let _ = writeln!(out, "  {l}");
        }
        return out;
    }
    if let Some(p) = &r.ptxas {
        let _ = writeln!(
            out,
            "compiled: {} registers, {} B stack frame, {} B spill stores, {} B spill loads, {} B shared",
            p.registers, p.stack_frame, p.spill_stores, p.spill_loads, p.smem
        );
    }
    if let Some(ms) = r.time_ms {
        let _ = writeln!(out, "time: {ms:.4} ms (median)");
    }
    let checks: Vec<(String, String)> = (r.lines.iter())
        .map(|l| (words(&l.check), detail_words(&l.detail)))
        .collect();
    let width = (checks.iter().map(|(c, _)| c.chars().count()).max()).unwrap_or(0);
    for (l, (check, detail)) in r.lines.iter().zip(&checks) {
        let _ = writeln!(out, "  {} {check:<width$}  {detail}", mark(l.mark));
    }
    let verdict = if r.passed() {
        "passed: every check holds; `gpulab ex solution ID` shows the solution"
            .replace("ID", &ex.id)
    } else if r.failed() {
        format!("not yet: {}", r.tally())
    } else {
        format!(
            "no check fails: {}, so the exercise is not passed here",
            r.tally()
        )
    };
    let _ = writeln!(out, "{verdict}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;
    use crate::session::exercise::report::CheckLine;
    use crate::session::fold::blank_result;

    fn report(marks: &[Mark], compile_error: Option<&str>) -> CheckReport {
        let l = LessonBuilder::new("x").variant("yours").build();
        CheckReport {
            exercise: "ex".into(),
            live: true,
            compile_error: compile_error.map(str::to_string),
            ptxas: None,
            time_ms: Some(0.5),
            solution_ms: None,
            lines: marks
                .iter()
                .enumerate()
                .map(|(i, &mark)| CheckLine {
                    check: format!("check {i}"),
                    mark,
                    detail: format!("detail {i}"),
                    at: None,
                })
                .collect(),
            result: blank_result(&l, crate::model::results::Source::Live, None),
        }
    }

    fn exercise() -> Exercise {
        let (lessons, _) = crate::course::load_course(&crate::course::bundle::CourseRoot::Bundled);
        lessons
            .into_iter()
            .flat_map(|l| l.exercises)
            .next()
            .unwrap()
    }

    #[test]
    fn each_check_gets_its_mark_and_the_verdict_follows_the_worst() {
        let ex = exercise();
        let pass = check_text(&ex, "f.cu", &report(&[Mark::Pass, Mark::Pass], None));
        assert!(pass.contains("✓ check 0  detail 0"), "{pass}");
        assert!(pass.contains("passed: every check holds"), "{pass}");
        let fail = check_text(&ex, "f.cu", &report(&[Mark::Pass, Mark::Fail], None));
        assert!(fail.contains("✗ check 1  detail 1"), "{fail}");
        assert!(fail.contains("not yet: 1 holds, 1 fails"), "{fail}");
        let gpu = check_text(&ex, "f.cu", &report(&[Mark::Pass, Mark::NeedsGpu], None));
        assert!(gpu.contains("· check 1"), "{gpu}");
        assert!(
            gpu.contains("no check fails: 1 holds, 1 needs a GPU, so"),
            "{gpu}"
        );
        // A check whose figure was not measured is neither a pass nor a failure: said so.
        let lost = [Mark::Pass, Mark::NotMeasured, Mark::NeedsGpu];
        let lost = check_text(&ex, "f.cu", &report(&lost, None));
        assert!(
            lost.contains("not yet: 1 holds, 1 not measured here, 1 needs a GPU"),
            "{lost}"
        );
    }

    #[test]
    fn a_compile_error_is_shown_in_place_of_the_checks() {
        let ex = exercise();
        let r = report(
            &[Mark::NotMeasured],
            Some("f.cu:3: error: expected a \";\""),
        );
        let text = check_text(&ex, "f.cu", &r);
        assert!(
            text.contains("✗ does not compile:\n  f.cu:3: error"),
            "{text}"
        );
        assert!(!text.contains("check 0"), "{text}");
    }
}
