//! The lab's side of the worker: start it, send a request, stream its replies, and turn a
//! hang, a fault or a crash into words. The next request after any of them starts a fresh
//! worker, so a broken kernel never ends the session.

use crate::model::protocol::{Reply, Request};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// No word from the worker for this long means it is stuck (a kernel that never ends).
pub fn default_stall_timeout() -> Duration {
    let secs = std::env::var("GPULAB_TIMEOUT_S")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .unwrap_or(20.0);
    Duration::from_secs_f64(secs)
}

#[derive(Debug, Clone, PartialEq)]
pub enum WorkerFailure {
    Timeout {
        secs: f64,
        variant: String,
        stage: String,
    },
    Fault {
        variant: Option<String>,
        message: String,
    },
    Crashed {
        detail: String,
    },
    Start(String),
}

impl std::fmt::Display for WorkerFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkerFailure::Timeout {
                secs,
                variant,
                stage,
            } => write!(
                f,
                "{} stopped answering while {stage} (nothing for {secs:.0} s). The kernel \
                 probably never finishes: an endless loop, or a __syncthreads() that not every \
                 thread reaches. The worker was stopped; the next run starts a fresh one.",
                if variant.is_empty() {
                    "the worker".to_string()
                } else {
                    format!("`{variant}`")
                }
            ),
            WorkerFailure::Fault { variant, message } => write!(
                f,
                "{} faulted: {message}. A kernel that touches memory outside its buffers \
                 poisons the GPU context, so the worker was restarted; the next run starts clean.",
                variant
                    .as_deref()
                    .map_or("the kernel".to_string(), |v| format!("`{v}`"))
            ),
            WorkerFailure::Crashed { detail } => write!(
                f,
                "the worker process ended unexpectedly ({detail}). The next run starts a fresh one."
            ),
            WorkerFailure::Start(e) => write!(f, "could not start the worker: {e}"),
        }
    }
}

enum Line {
    Reply(Reply),
    Garbage,
    Eof,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Line>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

pub struct WorkerClient {
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    running: Option<Running>,
}

impl WorkerClient {
    /// A worker that is this very program, run as `gpulab worker`.
    pub fn new() -> WorkerClient {
        let program = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("gpulab"));
        WorkerClient::with_command(program, vec!["worker".into()])
    }

    pub fn with_command(program: PathBuf, args: Vec<String>) -> WorkerClient {
        WorkerClient {
            program,
            args,
            env: Vec::new(),
            running: None,
        }
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    fn start(&mut self) -> Result<&mut Running, WorkerFailure> {
        if self.running.is_none() {
            let mut cmd = Command::new(&self.program);
            cmd.args(&self.args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for (k, v) in &self.env {
                cmd.env(k, v);
            }
            let mut child = cmd
                .spawn()
                .map_err(|e| WorkerFailure::Start(format!("{}: {e}", self.program.display())))?;
            let stdin = child.stdin.take().expect("piped stdin");
            let stdout = child.stdout.take().expect("piped stdout");
            let mut err = child.stderr.take().expect("piped stderr");
            let (tx, rx) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    let msg = match serde_json::from_str::<Reply>(&line) {
                        Ok(r) => Line::Reply(r),
                        Err(_) => Line::Garbage,
                    };
                    if tx.send(msg).is_err() {
                        return;
                    }
                }
                let _ = tx.send(Line::Eof);
            });
            let stderr = Arc::new(Mutex::new(Vec::new()));
            let sink = stderr.clone();
            // For debugging a worker: pass what it writes to stderr through as it comes.
            let echo = std::env::var_os("GPULAB_WORKER_STDERR").is_some();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if echo {
                        let _ = std::io::stderr().write_all(&buf[..n]);
                    }
                    let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
                    s.extend_from_slice(&buf[..n]);
                    // Keep the tail: that is where a panic message is.
                    if s.len() > 8192 {
                        let cut = s.len() - 8192;
                        s.drain(..cut);
                    }
                }
            });
            self.running = Some(Running {
                child,
                stdin,
                rx,
                stderr,
            });
        }
        Ok(self.running.as_mut().expect("just started"))
    }

    /// Stop the worker now (it is stuck or poisoned).
    pub fn kill(&mut self) -> String {
        let Some(mut r) = self.running.take() else {
            return String::new();
        };
        let _ = r.child.kill();
        let status = r.child.wait().map(|s| s.to_string()).unwrap_or_default();
        // Give the stderr reader a moment to drain what the process wrote last.
        std::thread::sleep(Duration::from_millis(20));
        let tail = String::from_utf8_lossy(&r.stderr.lock().unwrap_or_else(|p| p.into_inner()))
            .trim()
            .lines()
            .rev()
            .take(6)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join(" / ");
        if tail.is_empty() {
            status
        } else {
            format!("{status}: {tail}")
        }
    }

    /// Send one request and pass every reply to `on_reply` until the worker says `Done`.
    pub fn request(
        &mut self,
        req: &Request,
        stall: Duration,
        mut on_reply: impl FnMut(&Reply),
    ) -> Result<(), WorkerFailure> {
        let line = serde_json::to_string(req).map_err(|e| WorkerFailure::Start(e.to_string()))?;
        let running = self.start()?;
        if writeln!(running.stdin, "{line}")
            .and_then(|_| running.stdin.flush())
            .is_err()
        {
            let detail = self.kill();
            return Err(WorkerFailure::Crashed { detail });
        }
        let (mut variant, mut stage) = (String::new(), "starting".to_string());
        loop {
            let rx = &self.running.as_ref().expect("running").rx;
            match rx.recv_timeout(stall) {
                Ok(Line::Reply(reply)) => {
                    on_reply(&reply);
                    match reply {
                        Reply::Done => return Ok(()),
                        Reply::Stage {
                            variant: v,
                            stage: s,
                        } => {
                            variant = v;
                            stage = s;
                        }
                        Reply::Fault { variant, message } => {
                            self.kill();
                            return Err(WorkerFailure::Fault { variant, message });
                        }
                        _ => {}
                    }
                }
                Ok(Line::Garbage) => {}
                Ok(Line::Eof) => {
                    let detail = self.kill();
                    return Err(WorkerFailure::Crashed { detail });
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(WorkerFailure::Timeout {
                        secs: stall.as_secs_f64(),
                        variant,
                        stage,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let detail = self.kill();
                    return Err(WorkerFailure::Crashed { detail });
                }
            }
        }
    }
}

impl std::error::Error for WorkerFailure {}

impl Default for WorkerClient {
    fn default() -> Self {
        WorkerClient::new()
    }
}

impl Drop for WorkerClient {
    fn drop(&mut self) {
        if let Some(mut r) = self.running.take() {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
    }
}
