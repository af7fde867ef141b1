//! `gpulab list`: the lessons in course order, a lesson file that does not load among them
//! at its place, with where it fails. Exit 0, or 1 when a lesson does not load.

use super::open_course;
use super::say::say;
use crate::course::bundle::CourseRoot;
use crate::course::{Broken, Course};
use crate::model::Lesson;
use anyhow::Result;

/// One row of the list: a lesson, or a lesson file that does not load.
enum Row<'a> {
    Lesson(&'a Lesson),
    Broken(&'a Broken),
}

impl Row<'_> {
    fn order(&self) -> u32 {
        match self {
            Row::Lesson(l) => l.order,
            Row::Broken(b) => b.order,
        }
    }
}

/// The lessons and the broken files together, by their place in the course (a broken file
/// after a lesson of the same number).
fn rows(course: &Course) -> Vec<Row<'_>> {
    let mut rows: Vec<Row> = course.lessons.iter().map(Row::Lesson).collect();
    rows.extend(course.broken.iter().map(Row::Broken));
    // Stable: the lessons keep the loader's order among themselves.
    rows.sort_by_key(Row::order);
    rows
}

pub fn cmd_list(root: &CourseRoot, json: bool) -> Result<i32> {
    let course = open_course(root)?;
    let rows = rows(&course);
    if json {
        let progress = crate::session::progress::Progress::load();
        let items: Vec<_> = rows
            .iter()
            .map(|r| match r {
                Row::Lesson(l) => serde_json::json!({
                    "id": l.id, "order": l.order, "title": l.title, "space": l.topic,
                    "variants": l.variants.iter().map(|v| &v.name).collect::<Vec<_>>(),
                    "exercises": l.exercises.iter().map(|e| &e.id).collect::<Vec<_>>(),
                    "finished": progress.is_done(&l.id),
                    "broken": false,
                }),
                Row::Broken(b) => serde_json::json!({
                    "id": b.name, "order": b.order, "file": b.file, "broken": true,
                    "problems": b.problems.iter().map(ToString::to_string).collect::<Vec<_>>(),
                }),
            })
            .collect();
        say!("{}", serde_json::to_string_pretty(&items)?);
    } else {
        // Columns as wide as their widest entry: a long id pushes its column out for
        // every row, never its own row's title alone. The topic is named as a lesson file
        // names it (`dsmem`, where the lab's heading reads DISTRIBUTED SHARED), and a
        // title too long for the line goes on under itself: nothing is cut.
        let id_of = |r: &Row| match r {
            Row::Lesson(l) => l.id.clone(),
            Row::Broken(b) => b.name.clone(),
        };
        let topic_of = |r: &Row| match r {
            Row::Lesson(l) => l.topic.id().to_string(),
            Row::Broken(_) => "broken".to_string(),
        };
        let widest = |f: &dyn Fn(&Row) -> String| {
            rows.iter().map(|r| f(r).chars().count()).max().unwrap_or(0)
        };
        let (wi, wt) = (widest(&id_of), widest(&topic_of));
        let width = super::text_width();
        for r in &rows {
            let (id, topic) = (id_of(r), topic_of(r));
            let (order, rest) = match r {
                Row::Lesson(l) => (l.order, l.title.clone()),
                Row::Broken(b) => (b.order, format!("does not load: {}", b.summary())),
            };
            let line = format!("{order:02}  {id:<wi$} {topic:<wt$} {rest}");
            // A problem's line stays whole: its file:line:col is what one looks for in it.
            if matches!(r, Row::Broken(_)) {
                say!("{line}");
                continue;
            }
            let hang = 2 + 2 + wi + 1 + wt + 1;
            let rows = crate::ui::views::page::wrap(&rest, width.saturating_sub(hang).max(20));
            for (i, row) in rows.iter().enumerate() {
                match i {
                    0 => say!("{}", line[..line.len() - rest.len()].to_string() + row),
                    _ => say!("{:hang$}{row}", ""),
                }
            }
        }
        say!("{}", progress_line(&course.lessons, course.broken.len()));
    }
    Ok(i32::from(!course.broken.is_empty()))
}

/// How far the learner has come, from the progress files the lab writes; the files that
/// do not load counted as the lab counts them.
fn progress_line(lessons: &[crate::model::Lesson], not_loaded: usize) -> String {
    use crate::session::exercise::progress::ExerciseBook;
    let book =
        ExerciseBook::path().map_or_else(ExerciseBook::default, |p| ExerciseBook::load_from(&p).0);
    let progress = crate::session::progress::Progress::load();
    let o = crate::session::overview::Overview::of(lessons.iter(), not_loaded, &progress, &book);
    format!("\n{}", o.line())
}
