//! The whole screen for one frame: lesson list, header, prose, variant columns, status and
//! keys. Borrows the state; owns nothing.

use super::theme::Theme;
use super::{
    chart, code, columns, diff, footprint, heatmap, knobs, list, loading, memcheck, overlays, prose,
};
use crate::analysis::describe::source_label;
use crate::model::Lesson;
use crate::model::results::Source;
use crate::ui::app::App;
use crate::ui::memcheck::MemcheckState;
use crate::ui::view::Overlay;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

// Help and quit first: on a narrow terminal the end of this line is what is cut.
const KEYS_LINE: &str = " ? help  q quit  ↑↓ lesson  n/p page  PgDn scroll  ←→ variant  r run  v figures  c code  h heatmap";

const EXERCISE_KEYS: &str = " ? help  q quit  ↑↓ lesson  e edit your file  r check now  t hint  ←→ variant  c code  h heatmap";

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let th = Theme::new(self.view.color);
        if let Some(l) = &self.loading {
            loading::render(l, area, buf, &th);
            return;
        }
        let a = prose::areas(self, area);
        if a.list.width > 0 {
            list::render_list(self, a.list, buf, &th);
        }
        let Some(lesson) = self.lesson() else {
            Paragraph::new("No lessons found. Check the --lessons folder (gpulab check).")
                .render(a.main, buf);
            return;
        };
        header_line(self, lesson, &th).render(a.header, buf);
        prose::render(self, a.prose, buf, &th);
        let sweeps = !lesson.sweeps.is_empty();
        let knobbed = self.exercises.open.is_none() && !lesson.knobs.is_empty();
        if sweeps && self.view.chart {
            chart::render(self, a.cols, buf, &th);
        } else if self.knob_table_shown() {
            knobs::render(self, a.cols, buf, &th);
        } else {
            columns::render_columns(self, a.cols, buf, &th);
        }
        Paragraph::new(Line::styled(format!(" {}", status_text(self)), th.accent))
            .render(a.status, buf);
        let mut keys = if self.exercises.open.is_some() {
            EXERCISE_KEYS.to_string()
        } else if sweeps {
            KEYS_LINE.replacen("  q quit", "  q quit  g chart", 1)
        } else if knobbed {
            KEYS_LINE.replacen("  q quit", "  q quit  +- knob", 1)
        } else {
            KEYS_LINE.to_string()
        };
        // Two sources of figures: the key that switches them comes right after `r`.
        if self.exercises.open.is_none() && self.runs.interpreted.contains_key(&lesson.id) {
            keys = keys.replacen("  r run", "  r run  s recorded/CPU", 1);
        }
        Line::styled(keys, th.dim).render(a.keys, buf);
        match self.view.overlay {
            Overlay::None => {}
            Overlay::Help => {
                let textures = !lesson.textures.is_empty();
                let on = (sweeps, textures, self.exercises.open.is_some(), knobbed);
                overlays::render_help(a.main, buf, &th, on)
            }
            Overlay::Code => code::render_code(self, a.main, buf, &th),
            Overlay::Diff => diff::render(self, a.main, buf, &th),
            Overlay::Heatmap => heatmap::render_overlay(self, a.main, buf, &th),
            Overlay::Footprint => footprint::render_overlay(self, a.main, buf, &th),
            Overlay::Memcheck => memcheck::render(self, a.main, buf, &th),
        }
    }
}

/// The lesson's number and title, and where its figures come from.
fn header_line<'a>(app: &App, lesson: &Lesson, th: &Theme) -> Line<'a> {
    let label = app.result().map(|r| {
        let beside = app
            .exercises
            .open
            .is_none()
            .then(|| app.recorded_beside_any());
        let mut s = match beside.flatten() {
            // Two sources on screen: each named, the interpreter's first as it is in front.
            Some(rec) => format!("CPU interpreter · times {}", source_label(rec)),
            None => source_label(r),
        };
        if r.source != Source::Live && r.compile == Some(Source::Live) {
            s.push_str(" · compile reports live");
        }
        if app.runs.caps.is_none() {
            s.push_str(" · looking for a GPU…");
        }
        // The last check measured yours (and what it compares with) here and now.
        if let Some(dev) = app.ex_report().and_then(|x| x.result.device.as_ref()) {
            s.push_str(&format!(" · yours live on {}", dev.name));
        } else if app
            .ex_report()
            .is_some_and(|x| x.result.source == Source::Interpreted)
        {
            s.push_str(" · yours on the CPU interpreter");
        }
        s
    });
    let title = match &app.exercises.open {
        Some(x) => format!(
            " {:02} · {} · exercise {} ",
            lesson.order, lesson.title, x.ex.id
        ),
        None => format!(" {:02} · {} ", lesson.order, lesson.title),
    };
    Line::from(vec![
        Span::styled(title, th.strong),
        Span::styled(format!("── {} ", label.unwrap_or_default()), th.accent),
    ])
}

/// A memcheck rerun going, or the offer of one, first; then the rest.
fn status_text(app: &App) -> String {
    let rest = plain_status(app);
    let first = match app.runs.memcheck.as_ref().map(|m| (&m.variant, &m.state)) {
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
    if let Some(x) = &app.exercises.open {
        return match (&x.checking, &app.message, app.ex_report()) {
            (Some(stage), _, _) => format!("checking {} · {stage}", x.ex.id),
            (None, Some(m), _) => m.clone(),
            (None, None, Some(r)) => crate::ui::exercise::verdict(r),
            (None, None, None) => String::new(),
        };
    }
    match (&app.message, &app.runs.running) {
        (Some(m), _) => m.clone(),
        (None, Some(r)) => format!("running {} · {} {}", r.lesson, r.variant, r.stage),
        (None, None) if app.runs.looping => "looping".into(),
        (None, None) => match app.result().map(|r| (r.source, r.expect.as_slice())) {
            // No figures, so no claim can hold or fail: say why instead of "0 of N".
            Some((Source::None, _)) => "no recording of this lesson: r measures it on a GPU".into(),
            // How the claims fare would answer the page's prediction.
            Some(_) if !app.revealed() => {
                "predict first: r runs the lesson, v shows the recorded figures".into()
            }
            Some((_, claims)) => crate::analysis::claims::summary(claims).unwrap_or_default(),
            _ => String::new(),
        },
    }
}
