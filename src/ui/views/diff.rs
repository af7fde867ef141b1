//! The diff view (`d`): the focused variant against its neighbour, in one screen: the
//! compile report, the SASS instruction mix, the memory instructions that changed, and the
//! times and traced figures shown (recorded or measured here), as `gpulab diff` prints.

use crate::analysis::sass_diff;
use crate::model::results::{Source, VariantResult};
use crate::ui::app::App;
use crate::ui::state::code_view::SassState;
use crate::ui::views::overlays::full;
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

pub fn render(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let (Some(l), Some(other)) = (app.lesson(), app.diff_partner()) else {
        return;
    };
    let (a, b) = (&l.variants[app.view.variant()], &l.variants[other]);
    let rect = full(area);
    Clear.render(rect, buf);
    let result = app.result();
    let find =
        |name: &str| -> Option<&VariantResult> { result?.variants.iter().find(|v| v.name == name) };
    // Nothing measured before r or v, as on the cards: the code and its SASS only.
    let hidden = !app.revealed_for(&a.name) || !app.revealed_for(&b.name);
    let shown = match hidden {
        true => [None, None],
        false => [find(&a.name), find(&b.name)],
    };
    let mut rows = sass_diff::report_rows(shown);
    let listings = match (app.sass_of(app.view.variant()), app.sass_of(other)) {
        (Some(SassState::Ready(x)), Some(SassState::Ready(y))) => Some([x, y]),
        _ => None,
    };
    if let Some(ls) = listings {
        sass_diff::mix_rows(&mut rows, ls);
    }
    sass_diff::traced_rows(&mut rows, shown, source_word(result.map(|r| r.source)));
    let w = a.name.len().max(12);
    let mut lines = vec![Line::styled(
        format!("{:<30} {:>w$}  {}", "", a.name, b.name),
        th.strong,
    )];
    for (what, x, y) in &rows {
        let style = if x == y { th.dim } else { Default::default() };
        lines.push(Line::styled(format!("{what:<30} {x:>w$}  {y}"), style));
    }
    if hidden {
        lines.push(Line::styled(
            "figures hidden until you predict (v shows them, r runs)",
            th.dim,
        ));
    }
    lines.push(Line::raw(""));
    lines.extend(memory_lines(app, other, listings, th));
    Paragraph::new(lines)
        .block(Block::default().borders(Borders::ALL).title(Line::styled(
            format!(
                " {} against {} (d closes, ← → another variant) ",
                a.name, b.name
            ),
            th.title,
        )))
        .render(rect, buf);
}

/// Where the times and traced figures shown come from, in a word.
fn source_word(s: Option<Source>) -> &'static str {
    match s {
        Some(Source::Live) => "live",
        Some(Source::Recorded) => "recorded",
        Some(Source::Interpreted) => "CPU interpreter",
        Some(Source::None) | None => "none",
    }
}

/// The memory instructions whose count changed, or why they cannot be listed yet.
fn memory_lines(
    app: &App,
    other: usize,
    listings: Option<[&crate::analysis::sass::Listing; 2]>,
    th: &Theme,
) -> Vec<Line<'static>> {
    let Some([x, y]) = listings else {
        let why = [app.sass_of(app.view.variant()), app.sass_of(other)]
            .into_iter()
            .find_map(|s| match s {
                Some(SassState::Failed(why)) => Some(why.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "disassembling both…".into());
        return vec![Line::styled(format!("SASS: {why}"), th.dim)];
    };
    let changed = sass_diff::changed_memory(x, y);
    let mut out = vec![Line::styled(
        "memory instructions that changed (source line, kind, width: count in each):",
        th.dim,
    )];
    if changed.is_empty() {
        out.push(Line::raw("  none"));
    }
    for (line, kind, bits, a, b) in changed {
        out.push(Line::raw(format!(
            "  line {line:>4}  {:<22} {bits:>3}-bit  {a} -> {b}",
            kind.word()
        )));
    }
    out
}
