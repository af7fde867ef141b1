//! The thread that owns the worker client: takes jobs from the UI, sends back every reply.
//! It only sends; the UI thread owns the state.

use crate::model::Lesson;
use crate::model::protocol::{Request, RunOptions};
use crate::session::client::{self, MemcheckError, MemcheckReport, WorkerClient, WorkerFailure};
use crate::session::exercise::check as ex_check;
use crate::session::exercise::lesson::Yours;
use crate::session::exercise::report::{CheckReport, Target};
use crate::session::fold;
use crate::session::source::{self, Ask, Plan};
use crate::ui::event::{CheckJob, CpuSize, Job, UiEvent, WorkerEvent};
use std::path::Path;
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

pub fn spawn(ui: Sender<UiEvent>, device: u32) -> Sender<Job> {
    spawn_with(ui, device, WorkerClient::new())
}

/// The worker thread over `client` (a test names the binary), behind the dispatcher that
/// serves watching and saving at once.
pub fn spawn_with(ui: Sender<UiEvent>, device: u32, mut client: WorkerClient) -> Sender<Job> {
    let (tx, rx) = channel::<Job>();
    let front = crate::ui::threads::watcher::dispatch(ui.clone(), tx);
    std::thread::spawn(move || {
        let ready = fold::hello(&mut client, device);
        // Only a GPU can fault, so only then is the sanitizer worth looking for.
        let gpu = ready.as_ref().is_ok_and(|c| c.no_gpu.is_none());
        if ui.send(UiEvent::Worker(WorkerEvent::Ready(ready))).is_err() {
            return;
        }
        if gpu {
            let found = client.toolkit().ok().and_then(|t| t.compute_sanitizer);
            let _ = ui.send(UiEvent::Worker(WorkerEvent::Sanitizer(found)));
        }
        while let Ok(job) = rx.recv() {
            if !serve(&mut client, &ui, job, device) {
                return;
            }
        }
    });
    front
}

/// Do one job, sending its news; false when the UI is gone.
fn serve(client: &mut WorkerClient, ui: &Sender<UiEvent>, job: Job, device: u32) -> bool {
    let (id, req) = match job {
        Job::Run {
            plan,
            lesson,
            options,
            cpu_size,
        } => match run_request(&plan, &lesson, &options, &cpu_size) {
            Ok(Some(req)) => (lesson.id.clone(), req),
            // The recording alone: nothing to ask the worker, and nothing to wait for.
            Ok(None) => return finished(ui, lesson.id.clone(), Ok(())),
            Err(failure) => return finished(ui, lesson.id.clone(), Err(failure)),
        },
        Job::Memcheck {
            lesson,
            variant,
            sanitizer,
        } => {
            let outcome = memcheck_with_ticks(ui, &lesson, &variant, &sanitizer, device);
            let lesson = lesson.id.clone();
            let done = WorkerEvent::Memchecked {
                lesson,
                variant,
                outcome,
            };
            return ui.send(UiEvent::Worker(done)).is_ok();
        }
        Job::Check(job) => return check(client, ui, &job, device),
        Job::Sass {
            lesson,
            variant,
            arch,
        } => {
            let listing = client.sass(&lesson, &variant, &arch);
            let done = WorkerEvent::Sass {
                lesson: lesson.id.clone(),
                variant,
                listing,
            };
            return ui.send(UiEvent::Worker(done)).is_ok();
        }
        Job::RemakeTry(spec) => return ui.send(UiEvent::Worker(remake_try(&spec))).is_ok(),
        Job::Size {
            lessons,
            root,
            device,
        } => {
            let sized = crate::ui::state::loading::on_device(&root, lessons, &device);
            return ui.send(UiEvent::Worker(WorkerEvent::Sized(sized))).is_ok();
        }
        // Served by the dispatcher; nothing for the worker.
        Job::Watch(_) | Job::WatchFiles(_) | Job::SaveBook { .. } => return true,
    };
    let outcome = client.request(&req, client::default_stall_timeout(), |r| {
        let _ = ui.send(UiEvent::Worker(WorkerEvent::Reply {
            lesson: id.clone(),
            reply: r.clone(),
        }));
    });
    finished(ui, id, outcome)
}

/// Say that `lesson`'s request is over; false when the UI is gone.
fn finished(ui: &Sender<UiEvent>, lesson: String, outcome: Result<(), WorkerFailure>) -> bool {
    let done = WorkerEvent::Finished { lesson, outcome };
    ui.send(UiEvent::Worker(done)).is_ok()
}

/// The request that carries `plan` out for `lesson` (`Plan::request`), as the worker thread
/// sends it: on the interpreter the outputs are checked at the CPU size `cpu_size` gives,
/// read here (from disk) where it must be, not on the UI thread. None: nothing to ask.
pub fn run_request(
    plan: &Plan,
    lesson: &Lesson,
    options: &RunOptions,
    cpu_size: &CpuSize,
) -> Result<Option<Request>, WorkerFailure> {
    let read;
    let sized = match (plan, cpu_size) {
        (Plan::Interpreted, CpuSize::Read(root)) => {
            read = source::cpu_sized(root, lesson).map_err(|e| {
                WorkerFailure::NotRun(format!("the lesson's CPU size does not load: {e}"))
            })?;
            read.as_ref()
        }
        (_, CpuSize::Given(sized)) => sized.as_deref(),
        (_, CpuSize::Read(_)) => None,
    };
    Ok(plan.request(lesson, options, sized))
}

/// The sanitizer takes minutes: a tick each second says it is still going.
fn memcheck_with_ticks(
    ui: &Sender<UiEvent>,
    lesson: &Lesson,
    variant: &str,
    sanitizer: &Path,
    device: u32,
) -> Result<MemcheckReport, MemcheckError> {
    std::thread::scope(|s| {
        let (done_tx, done_rx) = channel();
        s.spawn(move || {
            let _ = done_tx.send(client::memcheck(lesson, variant, sanitizer, device));
        });
        let started = Instant::now();
        loop {
            match done_rx.recv_timeout(Duration::from_secs(1)) {
                Ok(outcome) => return outcome,
                Err(RecvTimeoutError::Timeout) => {
                    let tick = WorkerEvent::MemcheckTick(started.elapsed().as_secs());
                    let _ = ui.send(UiEvent::Worker(tick));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(MemcheckError::Worker(WorkerFailure::Crashed {
                        detail: "the memcheck rerun stopped without a word".into(),
                    }));
                }
            }
        }
    })
}

/// An exercise check through the same worker, its stages sent as they come.
fn check(client: &mut WorkerClient, ui: &Sender<UiEvent>, job: &CheckJob, device: u32) -> bool {
    let target = Target {
        root: &job.root,
        lesson: &job.lesson,
        ex: &job.ex,
        quick: job.quick,
        fail_fast: false,
        reuse: None,
        deciding: None,
    };
    let yours = Yours {
        src: &job.src,
        path: &job.path,
    };
    let id = job.ex.id.clone();
    let say = |text: &str| {
        let stage = WorkerEvent::ExStage {
            exercise: id.clone(),
            text: text.to_string(),
        };
        let _ = ui.send(UiEvent::Worker(stage));
    };
    let figures = |r: &CheckReport| {
        let early = WorkerEvent::ExFigures {
            exercise: id.clone(),
            report: Box::new(r.clone()),
        };
        let _ = ui.send(UiEvent::Worker(early));
    };
    let outcome = ex_check::check_with(
        client,
        // As `r` on a lesson: live on a GPU, else on the CPU interpreter where NVRTC is.
        (device, Ask::Run),
        &target,
        &yours,
        say,
        figures,
    );
    let done = WorkerEvent::Checked {
        exercise: id,
        outcome: outcome.map(Box::new),
    };
    ui.send(UiEvent::Worker(done)).is_ok()
}

/// A try's lesson made again from its files and flags (`Job::RemakeTry`), as the worker
/// thread answers it: the files are read here, never on the UI thread.
pub fn remake_try(spec: &crate::course::tried::lesson::TrySpec) -> WorkerEvent {
    let remade = crate::course::tried::lesson::build(spec)
        .map(Box::new)
        .map_err(|errs| {
            let first = errs.first().map(ToString::to_string).unwrap_or_default();
            (first, errs.len())
        });
    WorkerEvent::Remade(remade)
}
