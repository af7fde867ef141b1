//! `gpulab render`: the lesson screen as plain text, from the recording; with `--all`, every
//! lesson's screens against the snapshot files of the pack (see `render_all`).

use super::{RenderArgs, find_lesson, load_course};
use crate::course::bundle::CourseRoot;
use crate::session::{recording, source};
use anyhow::Result;

/// One lesson's screen printed (exit 0), or with `--all` the snapshot check or update.
pub fn cmd_render(root: &CourseRoot, a: &RenderArgs) -> Result<i32> {
    if a.all {
        let mode = if a.update {
            super::render_all::Mode::Update
        } else {
            super::render_all::Mode::Check
        };
        return super::render_all::cmd_render_all(root, a.snapshots.as_deref(), mode);
    }
    // clap requires the lesson unless --all.
    let id = a.lesson.as_deref().unwrap_or_default();
    render_one(root, id, (a.width, a.height), a.page, a.reveal)?;
    Ok(0)
}

/// The screen of lesson `id` at `page` (from 1), `width` × `height`; the figures shown only
/// when `reveal`, since a learner sees none before a run.
fn render_one(
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
