//! The command line: one file per subcommand, plus the text report. Names and JSON fields are
//! a contract (README, tests/cli.rs): tests and scripts rely on them.

mod args;
mod check;
pub mod doctor;
mod ex;
mod ex_args;
mod ex_report;
mod ex_summary;
mod ex_watch;
mod list;
mod memcheck;
mod record;
mod render;
mod render_all;
pub mod report;
mod run;
mod sass;
mod snapfile;

pub use args::{Cli, Cmd, RenderArgs, RunArgs};
pub use check::cmd_check;
pub use doctor::cmd_doctor;
pub use ex::cmd_ex;
pub use ex_args::{ExArgs, ExCmd};
pub use list::cmd_list;
pub use record::cmd_record;
pub use render::cmd_render;
pub use run::cmd_run;
pub use sass::{cmd_diff, cmd_sass};

use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::session::progress::Progress;
use crate::ui::App;
use crate::ui::loading::{self, Loading};
use anyhow::{Context, Result, bail};

pub fn load_course(root: &CourseRoot) -> Result<Vec<Lesson>> {
    let (lessons, errors) = crate::course::load_course(root);
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("{e}");
        }
        bail!(
            "{} problem(s) in the lessons (run `gpulab check` for all of them)",
            errors.len()
        );
    }
    Ok(lessons)
}

pub fn find_lesson<'a>(lessons: &'a [Lesson], id: &str) -> Result<&'a Lesson> {
    lessons
        .iter()
        .find(|l| l.id == id || id.parse::<u32>().is_ok_and(|n| n == l.order))
        .with_context(|| {
            let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
            format!("no lesson '{id}'; the lessons are: {}", ids.join(", "))
        })
}

/// `gpulab` with no command: the lab in the terminal, its first frame drawn before the
/// course is read. Its exit status: 0, 1 when the course could not be opened (its problems
/// printed again once the terminal is back), or 128 + the number of the signal that ended it.
pub fn open_lab(root: &CourseRoot, device: u32) -> Result<i32> {
    let (progress, note) = Progress::load_noting();
    let mut app = App::loading(root.lesson_count(), progress);
    // Said once: the backup it names is kept, so the next start has nothing to say.
    app.message = note;
    app.course_root = root.clone();
    app.workspace = crate::session::workspace::Workspace::locate(None).ok();
    if let Some(path) = crate::session::ex_progress::ExerciseBook::path() {
        let (book, note) = crate::session::ex_progress::ExerciseBook::load_from(&path);
        app.book = book;
        app.book_path = Some(path);
        app.message = app.message.take().or(note);
    }
    let root = root.clone();
    let app = crate::ui::terminal::open(app, device, move || loading::load(&root))?;
    if let Some(s) = app.terminated_by {
        return Ok(128 + s);
    }
    if let Some(Loading::Failed(f)) = &app.loading {
        for p in &f.problems {
            eprintln!("{p}");
        }
        eprintln!("{f}");
        return Ok(1);
    }
    Ok(0)
}
