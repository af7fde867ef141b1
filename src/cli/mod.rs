//! The command line: one file per subcommand, plus the text report. Names and JSON fields are
//! a contract (README, tests/cli.rs): tests and scripts rely on them.

mod args;
mod check;
pub mod doctor;
mod ex;
mod ex_args;
mod ex_many;
mod ex_report;
mod ex_summary;
mod ex_watch;
mod glossary;
mod list;
mod memcheck;
pub mod ncu_csv;
mod record;
mod render;
mod render_all;
pub mod report;
mod run;
mod run_knobs;
mod sass;
pub mod say;
mod snapfile;
mod try_cmd;
mod try_lab;

pub use args::{Cli, Cmd, Format, RenderArgs, RunArgs, TryArgs};
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
pub use try_cmd::cmd_try;

use crate::course::bundle::CourseRoot;
use crate::course::{Broken, Course};
use crate::model::Lesson;
use crate::model::protocol::PIP_HINT;
use crate::session::client::WorkerClient;
use crate::session::progress::Progress;
use crate::ui::App;
use crate::ui::state::exercise::Exercises;
use crate::ui::state::loading::{self, Loading};
use anyhow::{Result, bail};
use say::say_err;

/// The course as far as it loads. A lesson file that does not load costs only itself;
/// problems that are no one lesson's (a folder that cannot be read or holds no lessons), or a
/// course where nothing loads, stop the command with every problem printed.
/// The width text is wrapped at: the terminal's (at most 100 columns: lines stay
/// readable), or 80 where the output is not a terminal.
fn text_width() -> usize {
    use std::io::IsTerminal;
    match crossterm::terminal::size() {
        Ok((cols, _)) if std::io::stdout().is_terminal() => usize::from(cols).clamp(20, 100),
        _ => 80,
    }
}

pub fn open_course(root: &CourseRoot) -> Result<Course> {
    let course = crate::course::open_course(root);
    if course.problems.is_empty() && !course.lessons.is_empty() {
        return Ok(course);
    }
    refuse(&course.errors())
}

fn refuse<T>(errors: &[crate::course::CourseError]) -> Result<T> {
    for e in errors {
        say_err!("{e}");
    }
    bail!(
        "{} problem(s) in the lessons (run `gpulab check` for all of them)",
        errors.len()
    )
}

/// The lessons that load, each one that does not said on stderr, once, with its first
/// problem: the command goes on with the rest.
pub fn load_course(root: &CourseRoot) -> Result<Vec<Lesson>> {
    let course = open_course(root)?;
    note_broken(&course.broken);
    Ok(course.lessons)
}

/// Every lesson, or none: for what speaks for the whole course (a recording, the pack's
/// snapshots), where leaving a lesson out would pass for having none.
pub fn load_whole_course(root: &CourseRoot) -> Result<Vec<Lesson>> {
    let course = open_course(root)?;
    if course.broken.is_empty() {
        Ok(course.lessons)
    } else {
        refuse(&course.errors())
    }
}

fn note_broken(broken: &[Broken]) {
    for b in broken {
        say_err!(
            "note: lesson {:02} ({}) does not load and is left out: {}",
            b.order,
            b.name,
            b.summary()
        );
    }
}

/// The lesson named by its id, else by its number; a number two lessons share is refused,
/// naming both, rather than one picked silently. A lesson that does not load is named with
/// why, rather than called unknown.
pub fn find_lesson<'a>(course: &'a Course, id: &str) -> Result<&'a Lesson> {
    let lessons = &course.lessons;
    if let Some(l) = lessons.iter().find(|l| l.id == id) {
        return Ok(l);
    }
    let number = id.parse::<u32>().ok();
    let numbered: Vec<&Lesson> = match number {
        Some(n) => lessons.iter().filter(|l| l.order == n).collect(),
        None => Vec::new(),
    };
    let broken: Vec<&Broken> = (course.broken.iter())
        .filter(|b| b.name == id || Some(b.order) == number)
        .collect();
    match (numbered.as_slice(), broken.as_slice()) {
        ([one], []) => Ok(one),
        ([], []) => {
            let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
            bail!("no lesson '{id}'; the lessons are: {}", ids.join(", "))
        }
        ([], [b]) => {
            for p in &b.problems {
                say_err!("{p}");
            }
            bail!(
                "lesson {:02} ({}) does not load: {} problem(s) in {} (above)",
                b.order,
                b.name,
                b.problems.len(),
                b.file
            )
        }
        (many, broken) => {
            let ids: Vec<String> = (many.iter())
                .map(|l| format!("{} ({})", l.id, l.file))
                .chain(
                    broken
                        .iter()
                        .map(|b| format!("{} ({}, which does not load)", b.name, b.file)),
                )
                .collect();
            bail!(
                "lessons {} are all numbered {id}: name the one you mean by its id",
                ids.join(" and ")
            )
        }
    }
}

/// `--cpu` runs the kernels on the CPU interpreter, which compiles them with NVRTC: without
/// NVRTC the command stops at once, saying how to get it, rather than failing every compile.
fn needs_nvrtc_for_cpu(client: &mut WorkerClient) -> Result<()> {
    if let Err(why) = client.toolkit()?.nvrtc {
        let get = if why.contains(PIP_HINT) {
            String::new()
        } else {
            format!("; get it with: {PIP_HINT}")
        };
        bail!(
            "--cpu runs the kernels on the CPU interpreter, which compiles them with NVRTC: {why}{get}"
        );
    }
    Ok(())
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
    app.reading.set_course_root(root.clone());
    let workspace = crate::session::workspace::Workspace::locate(None).ok();
    app.exercises = match crate::session::exercise::progress::ExerciseBook::path() {
        Some(path) => {
            let (book, note) = crate::session::exercise::progress::ExerciseBook::load_from(&path);
            app.message = app.message.take().or(note);
            Exercises::new(workspace, book, Some(path))
        }
        None => Exercises::new(workspace, Default::default(), None),
    };
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
