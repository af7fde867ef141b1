//! The knob table's chart: the lesson's headline figure of each setting as a bar over the
//! knob's values, under the table where the screen has room.

use crate::model::Knob;
use crate::ui::views::knobs::Column;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Borders, Widget};

/// The least height the chart is drawn in.
pub const HEIGHT: u16 = 10;

/// `area` cut into the table (`top` rows) and the chart under it.
pub fn split(area: Rect, top: u16) -> (Rect, Rect) {
    let a = Rect {
        height: top.min(area.height),
        ..area
    };
    let b = Rect {
        y: area.y + a.height,
        height: area.height - a.height,
        ..area
    };
    (a, b)
}

/// The headline figure of each setting with one, as bars over the knob's values.
pub fn render(
    points: &[(i64, f64)],
    head: Column,
    knob: &Knob,
    area: Rect,
    buf: &mut Buffer,
    th: &Theme,
) {
    let texts: Vec<String> = points
        .iter()
        .map(|(_, y)| format!("{y:.*}", head.2))
        .collect();
    let widest = texts.iter().map(|t| t.len()).max().unwrap_or(1) as u16;
    let n = points.len() as u16;
    let fit = area.width.saturating_sub(2).saturating_sub(n) / n.max(1);
    let bar_w = widest.max(3).max(fit.min(8));
    // Bars are integers: a figure below 10 is drawn in thousandths, its text as written.
    let scale = if head.2 > 0 { 1000.0 } else { 1.0 };
    let bars: Vec<Bar> = points
        .iter()
        .zip(texts)
        .map(|((x, y), text)| {
            Bar::default()
                .value((y * scale).round() as u64)
                .text_value(text)
                .label(Line::from(x.to_string()))
                .style(th.spark)
        })
        .collect();
    let title = format!(" {} by {}", head.0, knob.label);
    let title = format!(
        "{} ",
        crate::ui::views::fit::shorten(&title, area.width.saturating_sub(3) as usize)
    );
    BarChart::default()
        .block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(th.border)
                .title(Line::styled(title, th.title)),
        )
        .data(BarGroup::default().bars(&bars))
        .bar_width(bar_w)
        .bar_gap(1)
        .render(area, buf);
}
