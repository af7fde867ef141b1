//! From a save of the learner's exercise file to the learner's figures on screen, through
//! the lab as it runs: the real loop (`ui::run_with`) on a test backend, the real worker
//! thread and worker (one, kept warm across the saves: GPU context, copy peak, built
//! kernels), the real file watcher. Each save writes the exercise's solution with a new
//! last line, so every save is a new text that is compiled again, as a learner's is; the
//! time runs from the write to the frame that shows the check. Prints every save, then
//! p50 and p95.
//!
//! Needs a GPU and the gpulab binary beside this example (or `GPULAB_BIN`):
//!   cargo build --release && cargo run --release --example save_to_result -- [EXERCISE] [SAVES]
//! `GPULAB_DEVICE` picks the GPU. Exit status: 0 measured, 1 a check failed or never
//! came, 2 it cannot run here (no GPU, no binary, no such exercise).

use gpulab::course::bundle::CourseRoot;
use gpulab::session::client::WorkerClient;
use gpulab::session::progress::Progress;
use gpulab::session::workspace::Workspace;
use gpulab::ui::{self, App, Job, UiEvent, WorkerEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::{Path, PathBuf};
use std::process::exit;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(120);

struct Lab {
    terminal: Terminal<TestBackend>,
    app: App,
    hub: Option<Receiver<UiEvent>>,
    jobs: Sender<Job>,
    saves: Sender<Progress>,
}

impl Lab {
    /// Feed `script` and what the worker and the watcher send until `until` holds for one
    /// of them (then it is drawn); false when nothing of the kind came in time. Also when
    /// the learner's figures were handed to the loop, if they were, and each stage the
    /// check said with when it said it.
    fn play(&mut self, script: Vec<UiEvent>, until: fn(&UiEvent) -> bool) -> Played {
        let (tx, rx) = channel();
        for ev in script {
            let _ = tx.send(ev);
        }
        let hub = self.hub.take().expect("the hub is back after each step");
        let relay = std::thread::spawn(move || {
            let end = Instant::now() + WAIT;
            let (mut seen, mut stages) = (None, Vec::new());
            while let Ok(ev) = hub.recv_timeout(end.saturating_duration_since(Instant::now())) {
                let done = until(&ev);
                if seen.is_none() && (figures(&ev) || done) {
                    seen = Some(Instant::now());
                }
                if let UiEvent::Worker(WorkerEvent::ExStage { text, .. }) = &ev {
                    stages.push((Instant::now(), text.clone()));
                }
                if tx.send(ev).is_err() || done {
                    return (hub, done, seen, stages);
                }
            }
            (hub, false, seen, stages)
        });
        let mut no_editor = |_: &Path| Err(ui::EditError::NoTerminal);
        let (app, term) = (&mut self.app, &mut self.terminal);
        ui::run_with(term, app, &rx, &self.jobs, &self.saves, &mut no_editor)
            .expect("the loop runs");
        let (hub, done, seen, stages) = relay.join().expect("the relay ends");
        self.hub = Some(hub);
        (done, seen, stages)
    }
}

/// Whether the awaited event came, when the figures came, and the stages said on the way.
type Played = (bool, Option<Instant>, Vec<(Instant, String)>);

fn checked(ev: &UiEvent) -> bool {
    matches!(ev, UiEvent::Worker(WorkerEvent::Checked { .. }))
}

fn figures(ev: &UiEvent) -> bool {
    matches!(ev, UiEvent::Worker(WorkerEvent::ExFigures { .. }))
}

fn ready(ev: &UiEvent) -> bool {
    matches!(ev, UiEvent::Worker(WorkerEvent::Ready(_)))
}

fn cannot(why: &str) -> ! {
    eprintln!("save_to_result cannot run: {why}");
    exit(2)
}

/// The gpulab binary: `GPULAB_BIN`, else the one the example was built beside.
fn binary() -> PathBuf {
    if let Some(b) = std::env::var_os("GPULAB_BIN") {
        return PathBuf::from(b);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    dir.join("gpulab")
}

/// The nearest-rank percentile `p` (0-100) of sorted `v`.
fn percentile(v: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args.next().unwrap_or_else(|| "coalesce-copy".into());
    let saves: usize = args.next().map_or(20, |n| {
        n.parse()
            .unwrap_or_else(|_| cannot(&format!("SAVES is a count, not `{n}`")))
    });
    let device: u32 = std::env::var("GPULAB_DEVICE")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    let tmp = tempfile::tempdir().unwrap_or_else(|e| cannot(&format!("no temp folder: {e}")));
    let (mut lab, file, solution) = open(&id, device, tmp.path());
    if !lab.play(vec![], ready).0 {
        cannot("the worker never said what this machine has");
    }
    let gpu = match lab.app.runs.caps().as_ref().map(|c| (&c.device, &c.no_gpu)) {
        Some((Some(d), _)) => d.name.clone(),
        Some((None, why)) => cannot(&format!("no GPU: {}", why.clone().unwrap_or_default())),
        None => cannot("no answer from the worker"),
    };
    println!("exercise {id} on {gpu} (device {device}), {saves} saves, quick timing budget");
    // One full check first, as a learner's first `r`: the context, the copy peak and the
    // lesson's kernels are then warm, as they are from the second save of a session on.
    let r = UiEvent::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('r'),
        crossterm::event::KeyModifiers::NONE,
    ));
    if !lab.play(vec![r], checked).0 {
        eprintln!("the first check never came back");
        exit(1);
    }
    report_check(&lab.app, "warm-up");
    let (figures, whole) = measure(&mut lab, &file, &solution, saves);
    summary("save -> figures", &figures);
    summary("save -> whole check", &whole);
}

/// The lab on exercise `id`, the learner's file (the solution) in a workspace under `tmp`,
/// the worker thread started; also the file and the solution's text.
fn open(id: &str, device: u32, tmp: &Path) -> (Lab, PathBuf, String) {
    let bin = binary();
    if !bin.is_file() {
        cannot(&format!(
            "no gpulab binary at {} (cargo build --release first, or set GPULAB_BIN)",
            bin.display()
        ));
    }
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    if !errors.is_empty() {
        cannot(&format!("the bundled course does not load: {}", errors[0]));
    }
    let Some((l, e)) = lessons.iter().enumerate().find_map(|(i, l)| {
        let e = l.exercises.iter().position(|x| x.id == id)?;
        Some((i, e))
    }) else {
        cannot(&format!("no exercise `{id}`"));
    };
    let ex = lessons[l].exercises[e].clone();
    let ws = Workspace {
        dir: tmp.join("ws"),
    };
    ws.start(&ex)
        .unwrap_or_else(|e| cannot(&format!("the workspace: {e}")));
    let file = ws.file(&ex);
    std::fs::write(&file, &ex.solution).unwrap_or_else(|e| cannot(&e.to_string()));
    let mut app = App::new(lessons, None, Progress::default());
    app.view.set_color(false);
    app.exercises = gpulab::ui::state::exercise::Exercises::new(Some(ws), Default::default(), None);
    let (hub_tx, hub) = channel();
    let client = WorkerClient::with_command(bin, vec!["worker".into()]);
    let jobs = ui::spawn_worker(hub_tx, device, client);
    let (progress, _) = channel();
    app.select_row(l, Some(e));
    let lab = Lab {
        terminal: Terminal::new(TestBackend::new(160, 48)).expect("a test backend"),
        app,
        hub: Some(hub),
        jobs,
        saves: progress,
    };
    (lab, file, ex.solution)
}

/// Each save: write, then run the lab until its check is drawn. The times to the figures
/// and to the whole check (the output at every size), in ms.
fn measure(lab: &mut Lab, file: &Path, solution: &str, saves: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut figures, mut whole) = (Vec::new(), Vec::new());
    for i in 0..saves {
        let text = format!("{solution}\n// save {i}\n");
        let t0 = Instant::now();
        if let Err(e) = std::fs::write(file, text) {
            eprintln!("could not save: {e}");
            exit(1);
        }
        let (done, seen, stages) = lab.play(vec![], checked);
        let all = t0.elapsed().as_secs_f64() * 1e3;
        let (true, Some(seen)) = (done, seen) else {
            eprintln!("save {}: no check within {WAIT:?}", i + 1);
            exit(1);
        };
        let first = seen.duration_since(t0).as_secs_f64() * 1e3;
        println!(
            "save {:>2}: figures {first:8.1} ms   whole check {all:8.1} ms",
            i + 1
        );
        for (at, text) in stages {
            let ms = at.duration_since(t0).as_secs_f64() * 1e3;
            println!("    {ms:8.1} ms  {text}");
        }
        report_check(&lab.app, &format!("save {}", i + 1));
        figures.push(first);
        whole.push(all);
    }
    (figures, whole)
}

/// A check that does not pass is said, with its lines: the timing is then of something
/// else than the learner's figures.
fn report_check(app: &App, what: &str) {
    let Some(r) = app.ex_report() else {
        eprintln!("{what}: no report");
        exit(1);
    };
    if r.passed() {
        return;
    }
    eprintln!("{what}: the check does not pass:");
    if let Some(e) = &r.compile_error {
        eprintln!("  {e}");
    }
    for l in &r.lines {
        eprintln!("  {:?} {} {}", l.mark, l.check, l.detail);
    }
}

fn summary(what: &str, times: &[f64]) {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let (p50, p95) = (percentile(&sorted, 50.0), percentile(&sorted, 95.0));
    println!(
        "{what} over {} saves: p50 {p50:.1} ms, p95 {p95:.1} ms (min {:.1}, max {:.1}); {}",
        sorted.len(),
        sorted[0],
        sorted[sorted.len() - 1],
        if p95 < 1000.0 {
            "under 1 s"
        } else {
            "NOT under 1 s"
        }
    );
}
