//! The lab's side of the worker: start it, send a request, stream its replies, and turn a
//! hang, a fault or a crash into words. The next request after any of them starts a fresh
//! worker, so a broken kernel never ends the session.

pub mod explain;
mod memcheck;
mod racecheck;
mod resume;
mod tools;

pub use memcheck::{
    MEMCHECK_BLOCKS, MemcheckError, MemcheckReport, SourceLine, memcheck, parse_log,
};
pub use racecheck::{RacecheckReport, parse_racecheck, racecheck};
pub use tools::NoListing;

use crate::model::protocol::COMPILING;
use crate::model::protocol::{DEVICE_ENV, Reply, Request};

/// Where the client names itself to the worker it starts (see `worker::server`).
const PARENT_ENV: &str = "GPULAB_WORKER_PARENT";
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest `GPULAB_TIMEOUT_S` is taken to mean: a day. `inf` or `1e30` asks for no
/// limit, which a day gives as well as any (and `Duration` cannot hold the larger ones).
pub const MAX_STALL_S: f64 = 86_400.0;

/// No word from the worker for this long means it is stuck (a kernel that never ends):
/// `GPULAB_TIMEOUT_S` seconds, at most a day; 20 when unset, not a number, or not above 0.
pub fn default_stall_timeout() -> Duration {
    stall_timeout(std::env::var("GPULAB_TIMEOUT_S").ok().as_deref())
}

/// Silence while a variant compiles is judged against at least this: a compile says
/// nothing until it is done, and NVRTC with ptxas can take tens of seconds on a machine
/// whose cores are all busy (a workshop's table of checks, each compiling an instrumented
/// build too). On an H200 with 16 checks at once a check's compile said nothing for over
/// 20 s and was taken for a hung kernel, which cannot be what stalls a compile.
pub const COMPILE_STALL: Duration = Duration::from_secs(120);

fn stall_timeout(given: Option<&str>) -> Duration {
    let secs = given
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .map_or(20.0, |s| s.min(MAX_STALL_S));
    Duration::from_secs_f64(secs)
}

/// Why a request to the worker did not finish, in words a learner can act on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkerFailure {
    #[error(
        "{} stopped answering while {stage} (nothing for {secs:.0} s). {} The worker was \
         stopped; the next run starts a fresh one.",
        who_stalled(.variant),
        why_stalled(.stage)
    )]
    Timeout {
        secs: f64,
        variant: String,
        stage: String,
    },
    #[error(
        "{} faulted: {message}. {}The fault poisons the GPU context, so the worker \
         was restarted; the next run starts clean.",
        who_faulted(.variant),
        advice_for(.variant, .code)
    )]
    Fault {
        variant: Option<String>,
        message: String,
        /// The driver's name for the error, as the worker sent it.
        code: Option<String>,
    },
    #[error("the worker process ended unexpectedly ({detail}). The next run starts a fresh one.")]
    Crashed { detail: String },
    #[error("could not start the worker: {0}")]
    Start(String),
    /// The request could not be made: nothing was asked of the worker, which is fine.
    #[error("not run: {0}")]
    NotRun(String),
}

/// What silence at `stage` most likely means: a compile that did not end is the
/// compiler's (or the machine's) doing, not a kernel that never finishes.
fn why_stalled(stage: &str) -> &'static str {
    match stage {
        COMPILING => {
            "The compiler did not finish: the machine may be out of memory or every core \
             busy, or the kernel makes the compiler unroll or inline without end."
        }
        _ => {
            "The kernel probably never finishes: an endless loop, or a __syncthreads() \
             that not every thread reaches."
        }
    }
}

fn who_stalled(variant: &str) -> String {
    if variant.is_empty() {
        "the worker".to_string()
    } else {
        format!("`{variant}`")
    }
}

/// What a kernel fault usually means, ending in a space; nothing when no kernel ran (the
/// lesson's setup).
fn advice_for(variant: &Option<String>, code: &Option<String>) -> String {
    match variant.as_deref() {
        Some("") => String::new(),
        _ => format!("{} ", explain::advice(code.as_deref())),
    }
}

fn who_faulted(variant: &Option<String>) -> String {
    match variant.as_deref() {
        None => "the kernel".to_string(),
        // The lesson's own setup (inputs, the copy peak, an L2 set-aside), before any variant.
        Some("") => "preparing the lesson".to_string(),
        Some(v) => format!("`{v}`"),
    }
}

/// Each line the worker writes, parsed, on a channel; `Eof` when it closes its stdout.
fn read_replies(stdout: ChildStdout) -> Receiver<Line> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let msg = match serde_json::from_str::<Reply>(&line) {
                Ok(r) => Line::Reply(Box::new(r)),
                Err(_) => Line::Garbage,
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
        let _ = tx.send(Line::Eof);
    });
    rx
}

/// The last 8 KiB the worker wrote to stderr: where a panic message is, to explain a crash.
fn keep_stderr_tail(mut err: ChildStderr) -> Arc<Mutex<Vec<u8>>> {
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
            if s.len() > 8192 {
                let cut = s.len() - 8192;
                s.drain(..cut);
            }
        }
    });
    stderr
}

enum Line {
    /// Boxed: a reply is some hundreds of bytes, the other lines none.
    Reply(Box<Reply>),
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
    device: Option<u32>,
    running: Option<Running>,
    /// The running worker's process id (0: none), shared so that a test or a watchdog can
    /// signal it while a request is in flight.
    pid: Arc<AtomicU32>,
    /// Whether compute-sanitizer is here, once asked (after the first fault).
    sanitizer: Option<bool>,
    /// How long a worker being stopped may take to leave by itself.
    grace: Duration,
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
            device: None,
            running: None,
            pid: Arc::new(AtomicU32::new(0)),
            sanitizer: None,
            grace: Duration::ZERO,
        }
    }

    /// The running worker's process id as it changes (0 while none runs).
    pub fn pid_watch(&self) -> Arc<AtomicU32> {
        self.pid.clone()
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The GPU every worker started from now on opens, unless a `Hello` names another.
    /// A `Hello` sent through this client sets it too, so a restarted worker (after a
    /// fault, a hang or a crash) keeps the device the learner chose.
    pub fn on_device(mut self, device: u32) -> Self {
        self.device = Some(device);
        self
    }

    /// Never offer a memcheck rerun in a failure's words, and so never start a worker to ask
    /// whether compute-sanitizer is here: a worker already under the sanitizer must not be
    /// followed by another that writes over its log.
    pub fn without_memcheck_offer(mut self) -> Self {
        self.sanitizer = Some(false);
        self
    }

    /// Let a worker being stopped have `grace` to exit by itself before it is killed.
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// The device the next worker started will be told to open, if any was named.
    pub fn device(&self) -> Option<u32> {
        self.device
    }

    fn start(&mut self) -> Result<&mut Running, WorkerFailure> {
        if self.running.is_none() {
            let mut cmd = Command::new(&self.program);
            cmd.args(&self.args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            if let Some(d) = self.device {
                cmd.env(DEVICE_ENV, d.to_string());
            }
            // The worker leaves at once should we be gone before it could follow us.
            cmd.env(PARENT_ENV, std::process::id().to_string());
            for (k, v) in &self.env {
                cmd.env(k, v);
            }
            let mut child = cmd
                .spawn()
                .map_err(|e| WorkerFailure::Start(format!("{}: {e}", self.program.display())))?;
            let stdin = child.stdin.take().expect("piped stdin");
            let rx = read_replies(child.stdout.take().expect("piped stdout"));
            let stderr = keep_stderr_tail(child.stderr.take().expect("piped stderr"));
            self.pid.store(child.id(), Ordering::SeqCst);
            self.running = Some(Running {
                child,
                stdin,
                rx,
                stderr,
            });
        }
        Ok(self.running.as_mut().expect("just started"))
    }

    /// Stop the worker now (it is stuck or poisoned): how it ended, and the last lines it
    /// wrote to stderr.
    pub fn kill(&mut self) -> String {
        let (status, tail) = self.stop();
        if tail.is_empty() {
            status
        } else {
            format!("{status}: {tail}")
        }
    }

    /// End the worker, returning its exit status and its stderr's last lines apart. Its
    /// stdin is closed first and it gets `grace` to leave on its own: a worker under
    /// compute-sanitizer must exit for the sanitizer to write its log.
    fn stop(&mut self) -> (String, String) {
        let Some(mut r) = self.running.take() else {
            return (String::new(), String::new());
        };
        self.pid.store(0, Ordering::SeqCst);
        drop(r.stdin);
        let deadline = std::time::Instant::now() + self.grace;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = r.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
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
        (status, tail)
    }

    /// Send one request and pass every reply to `on_reply` until the worker says `Done`.
    /// A run goes on past a variant the worker is lost on (see `resume`), so one broken
    /// kernel costs only its own figures.
    pub fn request(
        &mut self,
        req: &Request,
        stall: Duration,
        mut on_reply: impl FnMut(&Reply),
    ) -> Result<(), WorkerFailure> {
        match req {
            Request::Run { lesson, options } => {
                self.run_resuming(lesson, options, stall, &mut on_reply)
            }
            _ => self.request_once(req, stall, &mut on_reply),
        }
    }

    fn request_once(
        &mut self,
        req: &Request,
        stall: Duration,
        on_reply: &mut dyn FnMut(&Reply),
    ) -> Result<(), WorkerFailure> {
        let line = serde_json::to_string(req).map_err(|e| WorkerFailure::Start(e.to_string()))?;
        if let Request::Hello { device } = req {
            self.device = Some(*device);
        }
        let running = self.start()?;
        if writeln!(running.stdin, "{line}")
            .and_then(|_| running.stdin.flush())
            .is_err()
        {
            let detail = self.kill();
            return Err(WorkerFailure::Crashed { detail });
        }
        self.replies_until_done(stall, on_reply)
    }

    /// Pass replies on until `Done`; a fault, silence or the worker's end stops it first.
    fn replies_until_done(
        &mut self,
        stall: Duration,
        on_reply: &mut dyn FnMut(&Reply),
    ) -> Result<(), WorkerFailure> {
        // Where the worker last said it was, to name it if it goes silent.
        let (mut variant, mut stage) = (String::new(), "starting".to_string());
        loop {
            let rx = &self.running.as_ref().expect("running").rx;
            let limit = match stage.as_str() {
                COMPILING => stall.max(COMPILE_STALL),
                _ => stall,
            };
            let reply = match rx.recv_timeout(limit) {
                Ok(Line::Reply(reply)) => *reply,
                Ok(Line::Garbage) => continue,
                Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    let detail = self.kill();
                    return Err(WorkerFailure::Crashed { detail });
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(WorkerFailure::Timeout {
                        secs: limit.as_secs_f64(),
                        variant,
                        stage,
                    });
                }
            };
            on_reply(&reply);
            match reply {
                Reply::Done => return Ok(()),
                Reply::Stage {
                    variant: v,
                    stage: s,
                } => (variant, stage) = (v, s),
                Reply::Queue { variant: v, .. } => {
                    (variant, stage) = (v, "waiting for its turn on the GPU".into())
                }
                Reply::Fault {
                    variant,
                    message,
                    code,
                } => {
                    let (_, stderr) = self.stop();
                    // A failed device assert says where on the worker's stderr.
                    let message = match explain::assert_line(&stderr) {
                        Some(at) => format!("{message}: {at}"),
                        None => message,
                    };
                    return Err(WorkerFailure::Fault {
                        variant,
                        message,
                        code,
                    });
                }
                _ => {}
            }
        }
    }
}

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
        self.pid.store(0, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_or_endless_timeout_is_a_day_and_nonsense_the_default() {
        let day = Duration::from_secs(86_400);
        assert_eq!(stall_timeout(Some("inf")), day);
        assert_eq!(stall_timeout(Some("1e30")), day);
        assert_eq!(stall_timeout(Some("2.5")), Duration::from_millis(2500));
        for bad in [None, Some("NaN"), Some("-1"), Some("0"), Some("soon")] {
            assert_eq!(stall_timeout(bad), Duration::from_secs(20), "{bad:?}");
        }
    }
}
