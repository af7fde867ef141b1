// TEMP stub until the trace analysis lands
use super::state::App;
use super::theme::Theme;
use crate::results::VariantResult;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
pub fn render_in_column(
    _app: &App,
    _v: &VariantResult,
    _f: bool,
    _area: Rect,
    _buf: &mut Buffer,
    _th: &Theme,
) {
}
pub fn render_overlay(_app: &App, _area: Rect, _buf: &mut Buffer, _th: &Theme) {}
