//! `gpulab render`: the lesson screen as plain text, from the recording.

use super::{find_lesson, load_course};
use crate::course::bundle::CourseRoot;
use crate::session::{recording, source};
use anyhow::Result;

/// The screen of lesson `id` at `page` (from 1), `width` × `height`; the figures shown only
/// when `reveal`, since a learner sees none before a run.
pub fn cmd_render(
    root: &CourseRoot,
    id: &str,
    (width, height): (u16, u16),
    page: usize,
    reveal: bool,
) -> Result<()> {
    let lessons = load_course(root)?;
    // The one lookup `run` uses too, so a number works wherever an id does.
    let wanted = find_lesson(&lessons, id)?.id.clone();
    let idx = lessons.iter().position(|l| l.id == wanted).unwrap_or(0);
    let rec = recording::newest(&root.recordings());
    let r = source::recorded(rec.as_ref(), &lessons[idx]);
    print!(
        "{}",
        crate::ui::render_text(
            &lessons,
            idx,
            Some(r),
            (page.saturating_sub(1), width, height),
            reveal
        )
    );
    Ok(())
}
