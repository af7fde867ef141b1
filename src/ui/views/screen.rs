//! The whole screen for one frame: lesson list, header, prose, variant columns, status and
//! keys. Borrows the state; owns nothing.

use super::theme::Theme;
use super::{columns, heatmap, list, overlays};
use crate::analysis::describe::source_label;
use crate::model::results::Source;
use crate::model::{Lesson, Page};
use crate::ui::app::{App, Overlay};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

const KEYS_LINE: &str =
    " ↑↓ lesson  n/p page  ←→ variant  r run  l loop  c code  h heatmap  ? help  q quit";

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let th = Theme::new(self.color);
        let show_list = area.width >= 90;
        let [list_area, main] = Layout::horizontal([
            Constraint::Length(if show_list { 26 } else { 0 }),
            Constraint::Min(20),
        ])
        .areas(area);
        if show_list {
            list::render_list(self, list_area, buf, &th);
        }
        let Some(lesson) = self.lesson() else {
            Paragraph::new("No lessons found. Check the --lessons folder (gpulab check).")
                .render(main, buf);
            return;
        };
        render_lesson(self, lesson, main, buf, &th);
        match self.overlay {
            Overlay::None => {}
            Overlay::Help => overlays::render_help(main, buf, &th),
            Overlay::Code => overlays::render_code(self, main, buf, &th),
            Overlay::Heatmap => heatmap::render_overlay(self, main, buf, &th),
        }
    }
}

/// Header, prose, the variants' columns, status and keys, top to bottom.
fn render_lesson(app: &App, lesson: &Lesson, main: Rect, buf: &mut Buffer, th: &Theme) {
    let checkpoint;
    let page = if app.on_checkpoint_page() {
        checkpoint = super::checkpoint::page(app, lesson);
        Some(&checkpoint)
    } else {
        lesson.pages.get(app.page)
    };
    let prose_lines = page.map_or(1, |p| p.text.lines().count() as u16 + 2);
    let prose_h = prose_lines
        .min(main.height.saturating_sub(4) * 2 / 5)
        .max(4);
    let [header, prose, cols, status, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(prose_h),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(main);
    header_line(app, lesson, th).render(header, buf);
    if let Some(p) = page {
        render_prose(app, lesson, p, prose, buf, th);
    }
    columns::render_columns(app, cols, buf, th);
    Paragraph::new(Line::styled(format!(" {}", status_text(app)), th.accent)).render(status, buf);
    Line::styled(KEYS_LINE, th.dim).render(keys, buf);
}

/// The lesson's number and title, and where its figures come from.
fn header_line<'a>(app: &App, lesson: &Lesson, th: &Theme) -> Line<'a> {
    let label = app.result().map(|r| {
        let mut s = source_label(r);
        if r.source != Source::Live && r.compile == Some(Source::Live) {
            s.push_str(" · compile reports live");
        }
        if app.caps.is_none() {
            s.push_str(" · looking for a GPU…");
        }
        s
    });
    Line::from(vec![
        Span::styled(
            format!(" {:02} · {} ", lesson.order, lesson.title),
            th.strong,
        ),
        Span::styled(format!("── {} ", label.unwrap_or_default()), th.accent),
    ])
}

fn render_prose(app: &App, lesson: &Lesson, p: &Page, area: Rect, buf: &mut Buffer, th: &Theme) {
    let title = format!(
        " {} · page {}/{} ",
        p.title,
        app.page + 1,
        lesson.pages.len()
    );
    Paragraph::new(p.text.trim_end().to_string())
        .wrap(Wrap { trim: false })
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(th.border)
                .title(Line::styled(title, th.title)),
        )
        .render(area, buf);
}

/// The last message, else the run in flight, else how the claims fare.
fn status_text(app: &App) -> String {
    match (&app.message, &app.running) {
        (Some(m), _) => m.clone(),
        (None, Some(r)) => format!("running {} · {} {}", r.lesson, r.variant, r.stage),
        (None, None) if app.looping => "looping".into(),
        (None, None) => match app.result().map(|r| (r.source, r.expect.as_slice())) {
            // No figures, so no claim can hold or fail: say why instead of "0 of N".
            Some((Source::None, _)) => "no recording of this lesson: r measures it on a GPU".into(),
            Some((_, claims)) if !claims.is_empty() => {
                let held = claims.iter().filter(|c| c.holds == Some(true)).count();
                format!("{held} of {} claims hold on these figures", claims.len())
            }
            _ => String::new(),
        },
    }
}
