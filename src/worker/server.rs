//! The worker's side: read requests from stdin, answer on stdout, one JSON object a line.
//! A poisoned CUDA context ends the process after a `Fault` reply; the client starts a fresh
//! worker for the next request.

use super::compile::compile_checked;
use super::runner::{self, Session};
use super::sass;
use super::tools;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::nvrtc;
use crate::model::Lesson;
use crate::model::protocol::{DEVICE_ENV, Reply, Request, RunOptions};
use crate::model::target::{Gpus, device_number, target};
use std::io::{BufRead, Write};
use std::sync::{Mutex, OnceLock};

fn protocol_out() -> &'static Mutex<std::fs::File> {
    static OUT: OnceLock<Mutex<std::fs::File>> = OnceLock::new();
    OUT.get_or_init(|| Mutex::new(crate::cuda::stdout::take()))
}

fn send(reply: &Reply) {
    let mut out = protocol_out().lock().unwrap_or_else(|p| p.into_inner());
    let mut line = serde_json::to_vec(reply).unwrap_or_default();
    line.push(b'\n');
    // If the client is gone there is nobody to tell: exit quietly.
    if out.write_all(&line).is_err() || out.flush().is_err() {
        std::process::exit(0);
    }
}

/// A stand-in for a GPU and its failures (see `fake`), for tests on machines without one.
fn fake_mode() -> Option<String> {
    std::env::var("GPULAB_WORKER_FAKE")
        .ok()
        .filter(|s| !s.is_empty())
}

/// The GPU to open: the one a `Hello` names, else the number the client passes to every
/// worker it starts (so a restarted worker keeps the learner's `--device`), read as the
/// command line reads it; 0 where neither names one.
fn device(hello: Option<u32>) -> u32 {
    let told = (std::env::var(DEVICE_ENV).ok()).and_then(|s| device_number(&s).ok());
    let gpus = Gpus {
        named: hello.or(told),
        ..Default::default()
    };
    target(None, &gpus).device
}

/// The GPU, opened on first need and kept for the worker's life.
struct Worker {
    session: Option<Result<Session, CudaError>>,
}

impl Worker {
    /// The session on the GPU `hello` names (None: the one the client told us of), opened
    /// by whichever request needs it first.
    fn session(&mut self, hello: Option<u32>) -> &mut Result<Session, CudaError> {
        self.session
            .get_or_insert_with(|| Gpu::open(device(hello)).map(Session::new))
    }

    fn handle(&mut self, req: Request) {
        match req {
            Request::Hello { device } => {
                let s = self.session(Some(device));
                send(&Reply::Hello {
                    device: s.as_ref().ok().map(|s| s.gpu.info().clone()),
                    no_gpu: s.as_ref().err().map(|e| e.to_string()),
                    nvrtc: nvrtc::version().map_err(|e| e.to_string()),
                });
            }
            Request::Tools => send(&Reply::Tools {
                tools: tools::toolkit(),
            }),
            Request::Compile { lesson, arch } => compile(&lesson, &arch),
            Request::Run { lesson, options } => self.run(&lesson, &options),
            Request::Sass {
                lesson,
                variant,
                arch,
            } => send(&Reply::Sass {
                // The protocol carries the reason as text.
                listing: sass::listing(&lesson, &variant, &arch).map_err(|e| e.to_string()),
                variant,
            }),
        }
        send(&Reply::Done);
    }

    fn run(&mut self, lesson: &Lesson, options: &RunOptions) {
        if let Some(cpu) = &options.cpu {
            super::interpreted::run_lesson(lesson, cpu, options, &mut |r| send(&r));
            return;
        }
        match self.session(None) {
            Err(why) => send(&Reply::Error {
                message: format!("no GPU to run on: {why}"),
            }),
            Ok(s) => {
                let mut out = |r: Reply| send(&r);
                if let Err(f) = runner::run_lesson(s, lesson, options, &mut out) {
                    send(&Reply::Fault {
                        variant: f.variant,
                        message: f.error.to_string(),
                        code: f.error.code().map(str::to_string),
                    });
                    // The context is unusable now; a fresh process is the only cure.
                    std::process::exit(3);
                }
            }
        }
    }
}

fn compile(lesson: &Lesson, arch: &str) {
    let chosen = Gpus {
        arch: Some(arch),
        ..Default::default()
    };
    let arch = &target(Some(lesson), &chosen).arch;
    // A copy has nothing to compile.
    for v in lesson.variants.iter().filter(|v| v.transfer.is_none()) {
        let res = compile_checked(lesson, v, arch);
        send(&Reply::Compiled {
            variant: v.name.clone(),
            ptxas: res.as_ref().ok().and_then(|c| c.report.clone()),
            error: res.err().map(|e| e.to_string()),
        });
    }
}

fn parse(line: &str) -> Option<Request> {
    match serde_json::from_str(line) {
        Ok(r) => Some(r),
        Err(e) => {
            send(&Reply::Error {
                message: format!("bad request: {e}"),
            });
            None
        }
    }
}

/// The environment variable the client (`session::client`) names itself in (its pid), so
/// that a worker whose parent died before it could ask to follow it leaves at once.
const PARENT_ENV: &str = "GPULAB_WORKER_PARENT";

/// A worker ends with its parent: a GPU held, and a turn lock, by nobody would stay held.
/// The kernel sends SIGKILL when the parent dies (the parent's thread that started us,
/// which for the client is the thread that owns it, for its whole life); a parent that died
/// before this call is found by its pid.
fn follow_parent() {
    // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and changes nothing else.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
    }
    let parent = std::env::var(PARENT_ENV)
        .ok()
        .and_then(|p| p.parse::<i32>().ok());
    if let Some(pid) = parent
        && !alive(pid)
    {
        std::process::exit(0);
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Requests read on a thread of their own, so that the end of stdin is seen even while a
/// job runs: the job in hand is finished and answered (a client that closed stdin to stop
/// us is waiting for that), and nothing more is read. Should the parent be gone meanwhile,
/// nobody waits for the answer: leave at once.
fn requests() -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    // SAFETY: getppid has no preconditions and cannot fail.
    let parent = unsafe { libc::getppid() };
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                return;
            }
        }
        drop(tx);
        loop {
            // SAFETY: as above.
            if unsafe { libc::getppid() } != parent {
                std::process::exit(0);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
    rx
}

pub fn serve() -> i32 {
    follow_parent();
    let _ = protocol_out();
    let mut worker = Worker { session: None };
    for line in requests() {
        if line.trim().is_empty() {
            continue;
        }
        let Some(req) = parse(&line) else { continue };
        if let Some(mode) = fake_mode()
            && super::fake::handle(&mode, &req, &mut |r| send(r))
        {
            continue;
        }
        worker.handle(req);
    }
    0
}
