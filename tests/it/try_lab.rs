//! The lab on a tried kernel (`gpulab try`): its first run starts once the worker has said
//! what this machine has (live on a GPU, else on the CPU interpreter, outputs checked at
//! the header's CPU sizes), every save of one of its files makes the lesson again and runs
//! it (after the run going, if one is), a header broken mid-edit is said at its
//! `file:line:col` and the lesson as it was stays, and nothing of the try is written to
//! the learner's progress. The last test runs the try through a real worker on the CPU
//! interpreter (NVRTC only; skipped, saying why, without it).

use crate::support::common;

use gpulab::course::tried::lesson::{self as try_lesson, TrySpec};
use gpulab::model::protocol::Request;
use gpulab::model::results::{DeviceInfo, Source};
use gpulab::session::client::WorkerClient;
use gpulab::session::fold::Capabilities;
use gpulab::ui::state::try_lab::TryLab;
use gpulab::ui::{App, Job, UiEvent, WorkerEvent};
use std::path::{Path, PathBuf};

/// A copy of example `name` in a folder of its own, so a test may edit it.
fn copy_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join(name);
    std::fs::copy(common::manifest_dir().join("examples/try").join(name), &to).unwrap();
    (dir, to)
}

fn lab(file: &Path, defines: &[&str]) -> App {
    let spec = TrySpec {
        files: vec![file.to_path_buf()],
        defines: defines.iter().map(|d| d.to_string()).collect(),
        ..Default::default()
    };
    let tried = try_lesson::build(&spec).unwrap_or_else(|e| panic!("{e:#?}"));
    App::for_try(TryLab::new(spec, tried, false))
}

fn no_gpu() -> Capabilities {
    Capabilities {
        no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
        nvrtc: Some("13.0".into()),
        ..Default::default()
    }
}

fn ready(app: &mut App, caps: Capabilities) {
    app.on_event(UiEvent::Worker(WorkerEvent::Ready(Ok(caps))));
}

fn finished(app: &mut App) {
    app.on_event(UiEvent::Worker(WorkerEvent::Finished {
        lesson: try_lesson::LESSON_ID.into(),
        outcome: Ok(()),
    }));
}

/// The runs the lab asked for, each with the options the worker thread sends it with (as
/// its plan builds the request), and a remake of the try (which the worker thread serves,
/// reading the files) answered as the worker thread answers it.
fn runs_asked(app: &mut App) -> Vec<gpulab::model::protocol::RunOptions> {
    let mut runs = Vec::new();
    while !app.outbox.is_empty() {
        for j in std::mem::take(&mut app.outbox) {
            match j {
                Job::Run {
                    plan,
                    lesson,
                    options,
                    cpu_size,
                } => match gpulab::ui::run_request(&plan, &lesson, &options, &cpu_size) {
                    Ok(Some(Request::Run { options, .. })) => runs.push(options),
                    other => panic!("a try's run is a run: {other:?}"),
                },
                Job::RemakeTry(spec) => {
                    app.on_event(UiEvent::Worker(gpulab::ui::remake_try(&spec)));
                }
                _ => {}
            }
        }
    }
    runs
}

#[test]
fn the_try_is_watched_and_runs_on_the_interpreter_once_the_worker_says_there_is_no_gpu() {
    let (_dir, file) = copy_of("copy.cu");
    let mut app = lab(&file, &[]);
    let watched: Vec<PathBuf> = (app.outbox.iter())
        .filter_map(|j| match j {
            Job::WatchFiles(f) => Some(f.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>()),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(watched, vec![file.clone()]);
    app.outbox.clear();
    assert!(
        runs_asked(&mut app).is_empty(),
        "nothing runs before the worker has said"
    );
    ready(&mut app, no_gpu());
    let runs = runs_asked(&mut app);
    assert_eq!(runs.len(), 1, "{:?}", app.message);
    let cpu = runs[0].cpu.as_ref().expect("on the CPU interpreter");
    let sizes = cpu
        .check
        .as_ref()
        .expect("checked against the built-in copy");
    assert_eq!(
        sizes.problem,
        vec![("n".to_string(), 1 << 14)],
        "the header's cpu.n"
    );
    assert!(!runs[0].time);
    let running = app.runs.running().as_ref().unwrap();
    assert!(running.on_cpu);
    assert_eq!(
        app.runs.interpreted()[try_lesson::LESSON_ID].source,
        Source::Interpreted
    );
}

#[test]
fn with_a_gpu_the_try_runs_live() {
    let (_dir, file) = copy_of("copy.cu");
    let mut app = lab(&file, &[]);
    app.outbox.clear();
    let caps = Capabilities {
        device: Some(DeviceInfo {
            name: "Test GPU".into(),
            cc: "9.0".into(),
            ..Default::default()
        }),
        no_gpu: None,
        nvrtc: Some("13.0".into()),
    };
    ready(&mut app, caps);
    let runs = runs_asked(&mut app);
    assert_eq!(runs.len(), 1);
    assert!(runs[0].cpu.is_none() && runs[0].time && runs[0].check);
    assert_eq!(
        app.runs.results()[try_lesson::LESSON_ID].source,
        Source::Live
    );
}

#[test]
fn a_save_runs_the_try_again_after_the_run_going_and_a_broken_header_is_said() {
    let (_dir, file) = copy_of("shared_read.cu");
    let mut app = lab(&file, &["PAD=0", "PAD=1"]);
    app.outbox.clear();
    ready(&mut app, no_gpu());
    assert_eq!(runs_asked(&mut app).len(), 1);
    // A save during the run waits for it.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("block=32,32", "block=32,32 trace=2")).unwrap();
    app.on_event(UiEvent::Saved(file.clone()));
    assert!(runs_asked(&mut app).is_empty(), "one run at a time");
    finished(&mut app);
    // The lesson is made again off the UI thread (the remake runs_asked answers), then run.
    assert_eq!(runs_asked(&mut app).len(), 1, "the save's run");
    assert!(app.runs.running().is_some(), "{:?}", app.message);
    assert_eq!(
        app.lesson().unwrap().trace_blocks,
        2,
        "the lesson made again"
    );
    finished(&mut app);
    // A header broken mid-edit: said at its place, and the lesson as it was stays.
    std::fs::write(&file, text.replace("block=32,32", "block=32,32 grid=")).unwrap();
    app.on_event(UiEvent::Saved(file.clone()));
    assert!(runs_asked(&mut app).is_empty());
    let said = app.message.clone().unwrap_or_default();
    let line = 1 + text
        .lines()
        .position(|l| l.contains("block=32,32"))
        .unwrap();
    assert!(
        said.contains(&format!("shared_read.cu:{line}:")) && said.contains("`grid=` has no value"),
        "{said}"
    );
    assert_eq!(app.lesson().unwrap().variants.len(), 2);
    // A save of another file is none of the try's.
    app.on_event(UiEvent::Saved(file.with_file_name("other.cu")));
    assert!(runs_asked(&mut app).is_empty());
}

#[test]
fn nothing_of_a_try_is_written_to_the_progress() {
    let (_dir, file) = copy_of("stencil.cu");
    let mut app = lab(&file, &[]);
    app.note_seen();
    ready(&mut app, no_gpu());
    finished(&mut app);
    assert!(!app.reading.take_save_request());
    assert!(app.revealed(), "the figures show from the first run on");
}

#[test]
fn through_a_worker_without_a_gpu_the_try_is_interpreted_and_its_race_found() {
    if !common::nvrtc_or_skip("through_a_worker_without_a_gpu_the_try_is_interpreted") {
        return;
    }
    let (_dir, file) = copy_of("stencil.cu");
    let mut app = lab(&file, &["SYNC=0", "SYNC=1"]);
    let client = WorkerClient::with_command(common::bin(), vec!["worker".into()])
        .env("CUDA_VISIBLE_DEVICES", "-1")
        .env("GPULAB_TIMEOUT_S", "300");
    let (tx, rx) = std::sync::mpsc::channel();
    let jobs = gpulab::ui::spawn_worker(tx, 0, client);
    common::pump(&mut app, &rx, &jobs, 300, |a| a.runs.caps().is_some());
    if app.runs.caps().as_ref().unwrap().device.is_some() {
        eprintln!("skipped: the worker sees a GPU here, and the try runs on it");
        return;
    }
    common::pump(&mut app, &rx, &jobs, 300, |a| {
        a.runs.running().is_none() && !a.runs.compiles_pending() && a.outbox.is_empty()
    });
    let r = &app.runs.interpreted()[try_lesson::LESSON_ID];
    assert_eq!(r.source, Source::Interpreted);
    let racy = r.variants.iter().find(|v| v.name == "SYNC-0").unwrap();
    let synced = r.variants.iter().find(|v| v.name == "SYNC-1").unwrap();
    assert!(
        gpulab::analysis::describe::first_race(racy).is_some(),
        "{:?}",
        racy.memory
    );
    assert!(gpulab::analysis::describe::first_race(synced).is_none());
    // The reference is the first setting, the racy one: the synced one is checked
    // against it, and told apart by its race, not its output.
    assert!(synced.correct.is_some(), "{synced:?}");
}

#[test]
fn through_a_worker_without_a_gpu_a_try_that_does_not_compile_says_so_not_that_it_needs_a_gpu() {
    if !common::nvrtc_or_skip("a_try_that_does_not_compile_says_so") {
        return;
    }
    let (_dir, file) = copy_of("stencil.cu");
    let text = std::fs::read_to_string(&file).unwrap();
    // A statement without its `;`, in the kernel's body.
    let broken = text.replacen("#endif", "#endif\nint broken = 1", 1);
    std::fs::write(&file, broken).unwrap();
    let mut app = lab(&file, &[]);
    let client = WorkerClient::with_command(common::bin(), vec!["worker".into()])
        .env("CUDA_VISIBLE_DEVICES", "-1")
        .env("GPULAB_TIMEOUT_S", "300");
    let (tx, rx) = std::sync::mpsc::channel();
    let jobs = gpulab::ui::spawn_worker(tx, 0, client);
    common::pump(&mut app, &rx, &jobs, 300, |a| a.runs.caps().is_some());
    if app.runs.caps().as_ref().unwrap().device.is_some() {
        eprintln!("skipped: the worker sees a GPU here, and the try runs on it");
        return;
    }
    common::pump(&mut app, &rx, &jobs, 300, |a| {
        a.runs.running().is_none() && !a.runs.compiles_pending() && a.outbox.is_empty()
    });
    let r = &app.runs.interpreted()[try_lesson::LESSON_ID];
    let v = &r.variants[0];
    let said = gpulab::analysis::describe::status(v);
    assert!(!said.contains("needs a GPU"), "{said}");
    assert!(said.contains("stencil.cu:"), "the compiler's place: {said}");
}

/// A try has no recording: `s` and the status line say so, and what `r` does here.
#[test]
fn a_try_with_no_recording_says_so_on_s_and_on_the_status_line() {
    use crate::support::ex_lab::key;
    let (_dir, file) = copy_of("stencil.cu");
    let mut app = lab(&file, &[]);
    let status = |app: &App| gpulab::ui::views::status::status_rows(app, 200).join(" ");
    // Neither a GPU nor NVRTC: r can do nothing here, and the line says what would let it.
    app.on_event(UiEvent::Worker(WorkerEvent::Ready(Ok(Capabilities {
        no_gpu: Some("no NVIDIA driver".into()),
        ..Default::default()
    }))));
    app.outbox.clear();
    // The ready message says it once; the status line says it after.
    assert!(app.message.clone().unwrap_or_default().contains("no NVRTC"));
    app.message = None;
    let said = status(&app);
    assert!(
        said.contains("no recording") && said.contains("r needs a GPU, or NVRTC"),
        "{said}"
    );
    assert!(!said.contains("measures it on a GPU"), "{said}");
    app.on_event(key('s'));
    let said = app.message.clone().unwrap_or_default();
    assert!(said.contains("no recording of this lesson"), "{said}");
    assert!(!said.contains("the recording:"), "{said}");
    // After a run on the interpreter, `s` has no recording to bring to the front.
    let mut app = lab(&file, &[]);
    ready(&mut app, no_gpu());
    finished(&mut app);
    app.message = None;
    app.on_event(key('s'));
    let said = app.message.clone().unwrap_or_default();
    assert!(
        said.contains("the interpreter's figures are the only ones"),
        "{said}"
    );
}

/// A header broken mid-edit after a run: one line on the status line, saying that the
/// figures on screen are the last run's.
#[test]
fn a_header_broken_after_a_run_says_the_figures_shown_are_the_last_runs() {
    let (_dir, file) = copy_of("shared_read.cu");
    let mut app = lab(&file, &[]);
    ready(&mut app, no_gpu());
    assert_eq!(runs_asked(&mut app).len(), 1);
    finished(&mut app);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("block=32,32", "block=32,32 grid=")).unwrap();
    app.on_event(UiEvent::Saved(file.clone()));
    assert!(runs_asked(&mut app).is_empty());
    let said = app.message.clone().unwrap_or_default();
    assert!(!said.contains('\n'), "{said:?}");
    assert!(
        said.contains("the figures shown are the last run's"),
        "{said}"
    );
}
