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
mod glossary;
mod list;
mod memcheck;
mod record;
mod render;
mod render_all;
pub mod report;
mod run;
mod sass;
pub mod say;
mod snapfile;

pub use args::{Cli, Cmd, RenderArgs, RunArgs};
pub use check::cmd_check;
pub use doctor::cmd_doctor;
pub use ex::cmd_ex;
pub use ex_args::{ExArgs, ExCmd};
pub use glossary::cmd_glossary;
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
use anyhow::{Result, bail};
use say::say_err;

pub fn load_course(root: &CourseRoot) -> Result<Vec<Lesson>> {
    let (lessons, errors) = crate::course::load_course(root);
    if !errors.is_empty() {
        for e in &errors {
            say_err!("{e}");
        }
        bail!(
            "{} problem(s) in the lessons (run `gpulab check` for all of them)",
            errors.len()
        );
    }
    Ok(lessons)
}

/// The lesson named by its id, else by its number; a number two lessons share is refused,
/// naming both, rather than one picked silently.
pub fn find_lesson<'a>(lessons: &'a [Lesson], id: &str) -> Result<&'a Lesson> {
    if let Some(l) = lessons.iter().find(|l| l.id == id) {
        return Ok(l);
    }
    let numbered: Vec<&Lesson> = match id.parse::<u32>() {
        Ok(n) => lessons.iter().filter(|l| l.order == n).collect(),
        Err(_) => Vec::new(),
    };
    match numbered.as_slice() {
        [one] => Ok(one),
        [] => {
            let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
            bail!("no lesson '{id}'; the lessons are: {}", ids.join(", "))
        }
        many => {
            let ids: Vec<String> = many
                .iter()
                .map(|l| format!("{} ({})", l.id, l.file))
                .collect();
            bail!(
                "lessons {} are all numbered {id}: name the one you mean by its id",
                ids.join(" and ")
            )
        }
    }
}

/// The lab draws on stdout and reads keys from the terminal: without one (a pipe, a cron
/// job, ssh without -t) it says so, rather than the OS's "No such device or address".
fn needs_a_terminal() -> Result<()> {
    use std::io::IsTerminal;
    let keys = std::io::stdin().is_terminal() || std::fs::File::open("/dev/tty").is_ok();
    if !std::io::stdout().is_terminal() || !keys {
        bail!(
            "the lab needs a terminal (its output and keys), and this is not one; \
             from a script use `gpulab list`, `gpulab run LESSON` or `gpulab ex ...`"
        );
    }
    Ok(())
}

/// `gpulab` with no command: the lab in the terminal, its first frame drawn before the
/// course is read. Its exit status: 0, 1 when the course could not be opened (its problems
/// printed again once the terminal is back), or 128 + the number of the signal that ended it.
pub fn open_lab(root: &CourseRoot, device: u32) -> Result<i32> {
    needs_a_terminal()?;
    let (progress, note) = Progress::load_noting();
    let mut app = App::loading(root.lesson_count(), progress);
    // Said once: the backup it names is kept, so the next start has nothing to say.
    app.message = note;
    app.reading.course_root = root.clone();
    app.exercises.workspace = crate::session::workspace::Workspace::locate(None).ok();
    if let Some(path) = crate::session::ex_progress::ExerciseBook::path() {
        let (book, note) = crate::session::ex_progress::ExerciseBook::load_from(&path);
        app.exercises.book = book;
        app.exercises.book_path = Some(path);
        app.message = app.message.take().or(note);
    }
    let root = root.clone();
    let app = crate::ui::terminal::open(app, device, move || loading::load(&root))?;
    if let Some(s) = app.terminated_by {
        return Ok(128 + s);
    }
    if let Some(Loading::Failed(f)) = &app.loading {
        for p in &f.problems {
            say_err!("{p}");
        }
        say_err!("{f}");
        return Ok(1);
    }
    Ok(0)
}
