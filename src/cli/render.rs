//! `gpulab render`: the lesson screen as plain text, from the recording.

use super::run::result_for;
use super::{find_lesson, load_course};
use crate::course::bundle::CourseRoot;
use crate::model::protocol::RunOptions;
use anyhow::{Context, Result};

pub fn cmd_render(root: &CourseRoot, id: &str, width: u16, height: u16, page: usize) -> Result<()> {
    let lessons = load_course(root)?;
    let idx = lessons
        .iter()
        .position(|l| l.id == id)
        .with_context(|| find_lesson(&lessons, id).err().unwrap())?;
    let r = result_for(root, &lessons[idx], 0, &RunOptions::default(), true, |_| {})?;
    print!(
        "{}",
        crate::ui::render_text(
            &lessons,
            idx,
            Some(r),
            page.saturating_sub(1),
            width,
            height
        )
    );
    Ok(())
}
