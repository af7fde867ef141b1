//! The status at the foot of the screen: the last message, the run in flight, or how the
//! claims fare, in one row or two. The prose pane counts its rows to size itself.

use crate::model::results::Source;
use crate::ui::app::App;
use crate::ui::state::memcheck::MemcheckState;
use crate::ui::views::fit;
use ratatui::text::Line;

/// The status in one row, or two where it needs them, cut only between words.
pub fn status_rows(app: &App, width: u16) -> Vec<String> {
    // Words put in backticks (a variant, a command) are code in prose, where the page
    // draws them as code; the status row is plain, and shows them as they read.
    let text = status_text(app).replace('`', "");
    let w = (width as usize).saturating_sub(1).max(1);
    let rows: Vec<String> = fit::wrap(&Line::raw(text.clone()), w, 0)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    match rows.len() {
        0..=2 => rows,
        _ => {
            let rest = rows[1..].join(" ");
            vec![rows[0].clone(), fit::shorten(&rest, w)]
        }
    }
}

/// A memcheck rerun going, or the offer of one, first; then the rest.
fn status_text(app: &App) -> String {
    let rest = plain_status(app);
    let first = match app.runs.memcheck().as_ref().map(|m| (&m.variant, &m.state)) {
        Some((v, MemcheckState::Running(s))) => {
            format!("memcheck of `{v}`: {s} s under compute-sanitizer (m shows it)")
        }
        _ => match app.memcheck_offer() {
            Some(v) => format!("m: find the line where `{v}` faulted"),
            None => return rest,
        },
    };
    if rest.is_empty() {
        first
    } else {
        format!("{first} · {rest}")
    }
}

/// The last message, else the run in flight, else how the claims fare.
fn plain_status(app: &App) -> String {
    if let Some(b) = app.broken() {
        return format!(
            "lesson {:02} does not load (why is above) · ↑↓ another lesson",
            b.order
        );
    }
    if let Some(x) = app.exercises.open() {
        return match (&x.checking(), &app.message, app.ex_report()) {
            (Some(stage), _, _) => format!("checking {} · {stage}", x.ex().id),
            (None, Some(m), _) => m.clone(),
            (None, None, Some(r)) => crate::ui::state::exercise::verdict(r),
            (None, None, None) => String::new(),
        };
    }
    match (&app.message, &app.runs.running()) {
        (Some(m), _) => m.clone(),
        (None, Some(r)) => format!("running {} · {} {}", r.lesson, r.variant, r.stage),
        (None, None) if app.runs.looping() => "looping".into(),
        (None, None) => match app.result().map(|r| (r.source, r.expect.as_slice())) {
            // No figures, so no claim can hold or fail: say why instead of "0 of N".
            Some((Source::None, _)) => {
                format!("no recording of this lesson: {}", app.where_r_runs())
            }
            // How the claims fare would answer the page's prediction.
            Some(_) if !app.revealed() => {
                "predict first: r runs the lesson, v shows the recorded figures".into()
            }
            Some((_, claims)) => crate::analysis::claims::summary(claims).unwrap_or_default(),
            _ => String::new(),
        },
    }
}
