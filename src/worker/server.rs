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

/// The device a run opens when no `Hello` named one: the client passes the number it was
/// given to every worker it starts, so a restarted worker keeps the learner's `--device`.
fn default_device() -> u32 {
    std::env::var(DEVICE_ENV)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

/// The GPU, opened on first need and kept for the worker's life.
struct Worker {
    session: Option<Result<Session, CudaError>>,
}

impl Worker {
    fn session(&mut self, device: u32) -> &mut Result<Session, CudaError> {
        self.session.get_or_insert_with(|| {
            Gpu::open(device).map(|gpu| Session {
                gpu,
                peak: None,
                kept: None,
            })
        })
    }

    fn handle(&mut self, req: Request) {
        match req {
            Request::Hello { device } => {
                let s = self.session(device);
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
                listing: sass::listing(&lesson, &variant, &arch),
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
        match self.session(default_device()) {
            Err(why) => send(&Reply::Error {
                message: format!("no GPU to run on: {why}"),
            }),
            Ok(s) => {
                let mut out = |r: Reply| send(&r);
                if let Err(f) = runner::run_lesson(s, lesson, options, &mut out) {
                    send(&Reply::Fault {
                        variant: f.variant,
                        message: f.error.to_string(),
                    });
                    // The context is unusable now; a fresh process is the only cure.
                    std::process::exit(3);
                }
            }
        }
    }
}

fn compile(lesson: &Lesson, arch: &str) {
    let arch = &lesson.requires.arch_for(arch);
    for v in &lesson.variants {
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

pub fn serve() -> i32 {
    let _ = protocol_out();
    let mut worker = Worker { session: None };
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
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
