//! The screen before the course is in: how many lessons are coming, or, when the course
//! could not be opened, every problem at its `file:line:col` and the way out.

use crate::ui::state::loading::Loading;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

pub fn render(loading: &Loading, area: Rect, buf: &mut Buffer, th: &Theme) {
    let lines = match loading {
        Loading::Pending(n) => vec![
            Line::styled(format!("loading {n} {}…", lessons(*n)), th.strong),
            Line::raw(""),
            Line::styled("q quits", th.dim),
        ],
        Loading::Failed(f) => failed_lines(&f.problems, th),
    };
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(th.border)
                .title(Line::styled(" gpulab ", th.title)),
        )
        .render(area, buf);
}

fn lessons(n: usize) -> &'static str {
    if n == 1 { "lesson" } else { "lessons" }
}

fn failed_lines<'a>(problems: &[String], th: &Theme) -> Vec<Line<'a>> {
    let mut lines = vec![
        Line::styled(
            format!(
                "The course could not be opened: {} problem(s).",
                problems.len()
            ),
            th.bad,
        ),
        Line::raw(""),
    ];
    lines.extend(problems.iter().map(|p| Line::raw(p.clone())));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "q quits (the problems are printed again); `gpulab check` lists them all",
        th.dim,
    ));
    lines
}
