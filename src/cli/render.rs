//! `gpulab render`: the lesson screen as plain text, from the recording; with `--all`, every
//! lesson's screens against the snapshot files of the pack (see `render_all`).

use super::say::say_part;
use super::{RenderArgs, find_lesson, open_course};
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::session::{recording, source};
use crate::ui::{Screen, Shot};
use anyhow::{Context, Result, bail};

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
    render_one(root, a)?;
    Ok(0)
}

/// The screen `a` names: lesson, page (from 1), size, view and focused variant; the figures
/// shown only when `reveal`, since a learner sees none before a run.
fn render_one(root: &CourseRoot, a: &RenderArgs) -> Result<()> {
    // clap requires the lesson unless --all.
    let id = a.lesson.as_deref().unwrap_or_default();
    let course = open_course(root)?;
    // The one lookup `run` uses too, so a number works wherever an id does.
    let wanted = find_lesson(&course, id)?.id.clone();
    let lessons = course.lessons;
    let idx = lessons.iter().position(|l| l.id == wanted).unwrap_or(0);
    let lesson = &lessons[idx];
    let rec = recording::newest(&root.recordings());
    let r = source::recorded(rec.as_ref(), lesson);
    // clap takes only the names of `Screen::ALL`.
    let view = Screen::ALL
        .iter()
        .find(|(n, _)| *n == a.view)
        .map_or(Screen::Lesson, |(_, v)| *v);
    let has = views_of(lesson);
    if !has.contains(&view) {
        let names: Vec<&str> = has.iter().map(|v| v.name()).collect();
        bail!(
            "lesson `{}` has no {} view ({}); its views: {}",
            lesson.id,
            view.name(),
            match view {
                Screen::Chart => "it sweeps nothing",
                _ => "it samples no texture",
            },
            names.join(", ")
        );
    }
    let variant = match &a.variant {
        Some(name) => lesson
            .variants
            .iter()
            .position(|v| &v.name == name)
            .with_context(|| format!("lesson `{}` has no variant `{name}`", lesson.id))?,
        None if view == Screen::Footprint => crate::ui::footprint_variant(lesson, Some(&r)),
        None => 0,
    };
    let shot = Shot {
        page: a.page.saturating_sub(1),
        width: a.width,
        height: a.height,
        reveal: a.reveal,
        view,
        variant,
    };
    say_part!("{}", crate::ui::render_view(&lessons, idx, Some(r), shot));
    Ok(())
}

/// The views `lesson` has, as the lab offers them: the lesson and its heatmap always, the
/// sweep charts (`g`) where it sweeps, the texture footprint (`f`) where it has textures.
pub(super) fn views_of(lesson: &Lesson) -> Vec<Screen> {
    let has = |v: Screen| match v {
        Screen::Lesson | Screen::Heatmap => true,
        Screen::Chart => !lesson.sweeps.is_empty(),
        Screen::Footprint => !lesson.textures.is_empty(),
    };
    Screen::ALL
        .iter()
        .map(|(_, v)| *v)
        .filter(|&v| has(v))
        .collect()
}
