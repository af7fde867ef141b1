//! The worker's side: read requests from stdin, answer on stdout, one JSON object a line.
//! A poisoned CUDA context ends the process after a `Fault` reply; the client starts a fresh
//! worker for the next request.

use super::runner::{self, Session};
use crate::cuda::gpu::Gpu;
use crate::cuda::nvrtc::{self, Output};
use crate::model::protocol::{Reply, Request};
use std::io::{BufRead, Write};

/// The protocol's own copy of stdout. Everything else that writes to file descriptor 1
/// (a kernel's printf, a library's chatter) is sent to stderr instead, so it can never
/// corrupt a reply.
fn protocol_out() -> &'static std::sync::Mutex<std::fs::File> {
    static OUT: std::sync::OnceLock<std::sync::Mutex<std::fs::File>> = std::sync::OnceLock::new();
    OUT.get_or_init(|| {
        use std::os::fd::FromRawFd;
        // SAFETY: dup gives us a new descriptor we own; dup2 then points fd 1 at stderr.
        let file = unsafe {
            let fd = libc::dup(1);
            libc::dup2(2, 1);
            std::fs::File::from_raw_fd(fd)
        };
        std::sync::Mutex::new(file)
    })
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

/// Stand-ins for a misbehaving GPU, so the client's fault, hang and crash handling can be
/// tested on machines without one. Chosen only by this variable; never by a lesson.
fn fake_mode() -> Option<String> {
    std::env::var("GPULAB_WORKER_FAKE")
        .ok()
        .filter(|s| !s.is_empty())
}

pub fn serve() -> i32 {
    let _ = protocol_out();
    let mut session: Option<Result<Session, String>> = None;
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let req: Request = match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(e) => {
                send(&Reply::Error {
                    message: format!("bad request: {e}"),
                });
                continue;
            }
        };
        if let (Some(mode), Request::Run { lesson, .. }) = (fake_mode(), &req) {
            fake_run(&mode, lesson.variants.first().map(|v| v.name.as_str()));
            continue;
        }
        match req {
            Request::Hello { device } => {
                let s = session.get_or_insert_with(|| {
                    Gpu::open(device).map(|gpu| Session { gpu, peak: None })
                });
                send(&Reply::Hello {
                    device: s.as_ref().ok().map(|s| s.gpu.info.clone()),
                    no_gpu: s.as_ref().err().cloned(),
                    nvrtc: nvrtc::version(),
                });
                send(&Reply::Done);
            }
            Request::Compile { lesson, arch } => {
                for v in &lesson.variants {
                    let res = nvrtc::compile(&runner::compile_job(v, &arch, Output::Cubin));
                    send(&Reply::Compiled {
                        variant: v.name.clone(),
                        ptxas: res.as_ref().ok().and_then(|c| c.report.clone()),
                        error: res.err().map(|e| e.to_string()),
                    });
                }
                send(&Reply::Done);
            }
            Request::Run { lesson, options } => {
                let s = session
                    .get_or_insert_with(|| Gpu::open(0).map(|gpu| Session { gpu, peak: None }));
                match s {
                    Err(why) => send(&Reply::Error {
                        message: format!("no GPU to run on: {why}"),
                    }),
                    Ok(s) => {
                        let mut out = |r: Reply| send(&r);
                        if let Err(f) = runner::run_lesson(s, &lesson, &options, &mut out) {
                            send(&Reply::Fault {
                                variant: f.variant,
                                message: f.message,
                            });
                            // The context is unusable now; a fresh process is the only cure.
                            std::process::exit(3);
                        }
                    }
                }
                send(&Reply::Done);
            }
        }
    }
    0
}

fn fake_run(mode: &str, variant: Option<&str>) {
    let variant = variant.unwrap_or("?").to_string();
    send(&Reply::Stage {
        variant: variant.clone(),
        stage: "checking the output".into(),
    });
    match mode {
        "hang" => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        "crash" => {
            eprintln!("fake worker: crashing on purpose");
            std::process::abort();
        }
        "fault" => {
            send(&Reply::Fault {
                variant: Some(variant),
                message: "running the kernel: an illegal memory access was encountered \
                          (CUDA_ERROR_ILLEGAL_ADDRESS)"
                    .into(),
            });
            std::process::exit(3);
        }
        _ => send(&Reply::Done),
    }
}
