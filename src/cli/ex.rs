//! `gpulab ex`: self-paced exercises from the command line. The learner's file lives in the
//! workspace and is never overwritten; progress lives in the data directory.

use super::ex_args::{ExArgs, ExCmd};
use super::ex_report;
use super::load_course;
use super::say::{say, say_err, say_part};
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::exercise::Exercise;
use crate::session::client::WorkerClient;
use crate::session::exercise::check::{self as ex_check};
use crate::session::exercise::deciding as ex_check_deciding;
use crate::session::exercise::lesson::Yours;
use crate::session::exercise::progress::ExerciseBook;
use crate::session::exercise::report::{CheckReport, Target};
use crate::session::source::Ask;
use crate::session::workspace::{self, Started, Workspace};
use anyhow::{Context, Result, bail};
use std::path::PathBuf;

/// What every `ex` command works on.
pub(super) struct Ctx<'a> {
    pub(super) root: &'a CourseRoot,
    pub(super) lessons: Vec<Lesson>,
    pub(super) ws: Workspace,
    pub(super) book: ExerciseBook,
    pub(super) book_path: PathBuf,
}

impl Ctx<'_> {
    fn find(&self, id: &str) -> Result<(&Lesson, &Exercise)> {
        for l in &self.lessons {
            if let Some(e) = l.exercises.iter().find(|e| e.id == id) {
                return Ok((l, e));
            }
        }
        let ids: Vec<&str> = self
            .lessons
            .iter()
            .flat_map(|l| l.exercises.iter().map(|e| e.id.as_str()))
            .collect();
        bail!("no exercise '{id}'; the exercises are: {}", ids.join(", "))
    }

    /// Merged with what another gpulab process wrote meanwhile; the error names the file.
    fn save(&self) -> Result<()> {
        Ok(self.book.save_to(&self.book_path)?)
    }
}

pub fn cmd_ex(root: &CourseRoot, device: u32, a: &ExArgs) -> Result<i32> {
    // The instructor's view reads other people's folders, not this learner's.
    if let ExCmd::Summary { dirs, json } = &a.cmd {
        return super::ex_summary::summary(&load_course(root)?, dirs, *json);
    }
    let book_path = ExerciseBook::path()
        .context("no data directory on this system: set GPULAB_DATA_DIR to a folder")?;
    // A file that cannot be read stops the command before it does anything to save.
    let (book, note) = ExerciseBook::load_checked(&book_path)?;
    if let Some(n) = note {
        say_err!("{n}");
    }
    let mut cx = Ctx {
        root,
        lessons: load_course(root)?,
        ws: Workspace::locate(a.workspace.as_deref())?,
        book,
        book_path,
    };
    match &a.cmd {
        ExCmd::List { json } => ex_report::list(&cx.lessons, &cx.ws, &cx.book, *json),
        ExCmd::Start { id } => start(&cx, id),
        ExCmd::Check {
            id,
            json,
            cpu,
            fail_fast,
            reuse_figures,
            deciding,
        } => {
            let mut client = WorkerClient::new();
            let how = How {
                quick: false,
                cpu: *cpu,
                fail_fast: *fail_fast || deciding.is_some(),
                reuse: reuse_figures.as_deref(),
                deciding: deciding.as_deref(),
            };
            check(&mut cx, &mut client, (device, how), id, *json)
        }
        ExCmd::CheckMany { cpu, reuse_figures } => {
            let ws = cx.ws.clone();
            super::ex_many::check_many(&mut cx, device, *cpu, reuse_figures.as_deref(), &ws)
        }
        ExCmd::Watch { id, cpu } => {
            let (_, ex) = cx.find(id)?;
            cx.ws.read(ex)?;
            // One worker for the whole watch: its GPU context and copy peak stay warm
            // between saves.
            let mut client = WorkerClient::new();
            super::ex_watch::watch(&cx.ws.file(ex), || {
                let mut again = reload(root, a)?;
                // Saves while editing: the short timing budget.
                let how = How {
                    quick: true,
                    cpu: *cpu,
                    fail_fast: false,
                    reuse: None,
                    deciding: None,
                };
                check(&mut again, &mut client, (device, how), id, false)
            })
        }
        ExCmd::Hint { id, json } => hint(&mut cx, id, *json),
        ExCmd::Solution {
            id,
            show_anyway,
            json,
        } => solution(&mut cx, id, *show_anyway, *json),
        ExCmd::Reset { id } => reset(&cx, id),
        ExCmd::Summary { .. } => unreachable!("answered before the learner's progress is read"),
    }
}

/// The course and the progress read again: a watch runs for a long time.
fn reload<'a>(root: &'a CourseRoot, a: &ExArgs) -> Result<Ctx<'a>> {
    let book_path = ExerciseBook::path().context("no data directory")?;
    let (book, _) = ExerciseBook::load_checked(&book_path)?;
    Ok(Ctx {
        root,
        lessons: load_course(root)?,
        ws: Workspace::locate(a.workspace.as_deref())?,
        book,
        book_path,
    })
}

fn start(cx: &Ctx, id: &str) -> Result<i32> {
    let (lesson, ex) = cx.find(id)?;
    match cx.ws.start(ex)? {
        Started::Fresh(path) => {
            say!("{}: {} (lesson {})", ex.id, ex.title, lesson.id);
            say!();
            say_part!("{}", prose(&ex.task));
            say!();
            say!("your file: {}", path.display());
            say!("check it with `gpulab ex check {}`", ex.id);
        }
        Started::Existing {
            path,
            upstream_changed,
        } => {
            say!(
                "your file is already there, left as it is: {}",
                path.display()
            );
            if upstream_changed {
                say!("{}", upstream_note(&ex.id));
            }
        }
    }
    Ok(0)
}

/// Prose from the course, its paragraphs joined and wrapped at the terminal's width (80
/// columns when the output is not a terminal, at most 100: lines stay readable).
fn prose(text: &str) -> String {
    let width = super::text_width();
    let mut out = String::new();
    for line in crate::course::prose::reflow(text).lines() {
        for row in crate::ui::views::page::wrap(line, width) {
            out.push_str(row.trim_end());
            out.push('\n');
        }
    }
    out
}

fn upstream_note(id: &str) -> String {
    format!(
        "note: the starter changed since you started; your file is left as it is. \
         `gpulab ex reset {id}` takes the new starter and keeps yours as a backup."
    )
}

/// How a check runs: `quick` with the short timing budget of a save, on the CPU
/// interpreter, stopping at the first failure, with the solution's figures kept in a
/// folder (`reuse`).
pub(super) struct How<'a> {
    pub(super) quick: bool,
    pub(super) cpu: bool,
    pub(super) fail_fast: bool,
    pub(super) reuse: Option<&'a std::path::Path>,
    pub(super) deciding: Option<&'a str>,
}

/// Check exercise `id` on `device`, as `how` says, and show the report.
fn check(
    cx: &mut Ctx,
    client: &mut WorkerClient,
    (device, how): (u32, How),
    id: &str,
    json: bool,
) -> Result<i32> {
    let (report, path) = check_saying(cx, client, (device, how), id, |m| say_err!("· {m}"))?;
    let (_, ex) = cx.find(id)?;
    if json {
        say!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        say_part!("{}", ex_report::check_text(ex, &path, &report));
    }
    record(cx, id, &report)?;
    Ok(exit_status(&report))
}

/// Check exercise `id` on `device`, as `how` says, telling `say` each stage: the report,
/// and the learner's file it judged.
pub(super) fn check_saying(
    cx: &mut Ctx,
    client: &mut WorkerClient,
    (device, how): (u32, How),
    id: &str,
    say: impl FnMut(&str),
) -> Result<(CheckReport, String)> {
    let How {
        quick,
        cpu,
        fail_fast,
        reuse,
        deciding,
    } = how;
    let (lesson, ex) = cx.find(id)?;
    if let Some(d) = deciding
        && ex_check_deciding::needs(ex, d).is_none()
    {
        let texts: Vec<&str> = ex.checks.iter().map(|c| c.text.as_str()).collect();
        bail!(
            "--deciding: {id} has no check `{d}`; its checks are `correct`, `race`, `compile` and: {}",
            texts.join("; ")
        )
    }
    let src = cx.ws.read(ex)?;
    if cx.ws.upstream_changed(ex) {
        say_err!("{}", upstream_note(&ex.id));
    }
    let path = cx.ws.file(ex).display().to_string();
    let yours = Yours {
        src: &src,
        path: &path,
    };
    let target = Target {
        root: cx.root,
        lesson,
        ex,
        quick,
        fail_fast,
        reuse,
        deciding,
    };
    // A check is a run: on this GPU, or with none on the CPU interpreter (as the lab
    // checks on every save), the timing checks then waiting for a GPU.
    let ask = if cpu {
        super::needs_nvrtc_for_cpu(client)?;
        Ask::Cpu
    } else {
        Ask::Run
    };
    let report = ex_check::check(client, (device, ask), &target, &yours, say)?;
    Ok((report, path))
}

/// The check recorded in the learner's progress, after it was shown.
pub(super) fn record(cx: &mut Ctx, id: &str, report: &CheckReport) -> Result<()> {
    cx.book.record_check(id, report);
    cx.save()
}

/// What `ex check` exits with, the same with `--cpu` and without: 0 every check passed,
/// 1 a check failed or the file does not compile, 3 no check failed but some could not be
/// judged here (they need a GPU). 2 stays what it is for every command: it could not run.
pub fn exit_status(report: &CheckReport) -> i32 {
    if report.failed() {
        1
    } else if report.passed() {
        0
    } else {
        3
    }
}

fn hint(cx: &mut Ctx, id: &str, json: bool) -> Result<i32> {
    let (_, ex) = cx.find(id)?;
    let (ex_id, hints) = (ex.id.clone(), ex.hints.clone());
    let p = cx.book.entry(&ex_id);
    let shown = (p.hints_shown as usize).min(hints.len());
    let (n, more) = if shown < hints.len() {
        p.hints_shown = shown as u32 + 1;
        (shown + 1, shown + 1 < hints.len())
    } else {
        (hints.len(), false)
    };
    cx.save()?;
    let text = &hints[n - 1];
    if json {
        let j =
            serde_json::json!({ "exercise": ex_id, "hint": n, "of": hints.len(), "text": text });
        say!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        say_part!("{}", prose(&format!("hint {n} of {}: {text}", hints.len())));
        if !more {
            say!("(that is the last hint)");
        }
    }
    Ok(0)
}

fn solution(cx: &mut Ctx, id: &str, anyway: bool, json: bool) -> Result<i32> {
    let (_, ex) = cx.find(id)?;
    let (ex_id, text, path) = (ex.id.clone(), ex.solution.clone(), ex.solution_path.clone());
    let passed = cx.book.get(&ex_id).passed;
    if !passed && !anyway {
        say_err!(
            "the solution opens once `gpulab ex check {ex_id}` passes every check on a GPU; \
             `gpulab ex solution {ex_id} --show-anyway` shows it now (and is recorded)"
        );
        return Ok(1);
    }
    cx.book.record_solution(&ex_id);
    cx.save()?;
    if json {
        let j =
            serde_json::json!({ "exercise": ex_id, "path": path, "passed": passed, "text": text });
        say!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        say_part!("{text}");
    }
    Ok(0)
}

fn reset(cx: &Ctx, id: &str) -> Result<i32> {
    let (_, ex) = cx.find(id)?;
    let backup = cx.ws.reset(ex, &workspace::stamp_now())?;
    if let Some(b) = backup {
        say!("your file is kept as {}", b.display());
    }
    say!("fresh starter: {}", cx.ws.file(ex).display());
    Ok(0)
}
