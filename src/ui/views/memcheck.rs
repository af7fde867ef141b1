//! The memcheck pop-up: the rerun going, with its seconds, then the source lines that
//! compute-sanitizer names for the variant's first bad access (or why it found none).

use crate::session::client::{MEMCHECK_BLOCKS, MemcheckReport};
use crate::ui::app::App;
use crate::ui::state::memcheck::MemcheckState;
use crate::ui::views::overlays::full;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

/// The log's last lines shown when the sanitizer said something not recognised.
const LOG_TAIL: usize = 20;

pub fn render(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let Some(m) = &app.runs.memcheck() else {
        return;
    };
    let lines = match &m.state {
        MemcheckState::Running(s) => vec![
            Line::styled(
                format!(
                    "rerunning `{}` under compute-sanitizer's memcheck on {MEMCHECK_BLOCKS} \
                     blocks: {s} s so far",
                    m.variant
                ),
                th.strong,
            ),
            Line::styled(
                "it is many times slower than a run: up to 10 minutes",
                th.dim,
            ),
        ],
        MemcheckState::Found(report) => report_lines(&m.variant, report, th),
        MemcheckState::Failed(e) => vec![Line::styled(e.to_string(), th.bad)],
    };
    let rect = full(area);
    Clear.render(rect, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::default().borders(Borders::ALL).title(Line::styled(
            format!(" {} · memcheck (m or Esc closes) ", m.variant),
            th.title,
        )))
        .render(rect, buf);
}

fn report_lines<'a>(variant: &str, r: &MemcheckReport, th: &Theme) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    if let Some(o) = &r.outcome {
        lines.push(Line::styled(format!("{variant}: {o}"), th.bad));
        lines.push(Line::raw(""));
    }
    lines.extend(r.errors.iter().map(|e| Line::raw(format!("memcheck: {e}"))));
    for l in &r.lines {
        lines.push(Line::styled(format!("at {}:{}", l.file, l.line), th.strong));
        if let Some(t) = &l.text {
            lines.push(Line::raw(format!("{:>5} | {t}", l.line)));
        }
    }
    if r.errors.is_empty() && r.lines.is_empty() {
        lines.push(Line::raw(format!(
            "memcheck found no bad access in {variant} on {MEMCHECK_BLOCKS} blocks"
        )));
        if r.outcome.is_some() {
            lines.push(Line::styled("compute-sanitizer's log ends:", th.dim));
            let tail: Vec<&str> = r.log.lines().rev().take(LOG_TAIL).collect();
            lines.extend(tail.iter().rev().map(|l| Line::raw(format!("  {l}"))));
        }
    }
    lines
}
