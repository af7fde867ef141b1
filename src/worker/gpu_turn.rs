//! Taking turns on a shared GPU: a workshop's learners run gpulab on one server, and one
//! learner's work on the GPU would disturb another's timing. Every stretch of GPU work (one
//! variant's check, timed runs and trace; a lesson's inputs; the copy peak) is a turn: a
//! lock file named for the GPU's PCI address, in a folder every user can write, taken in
//! the order of the tickets in a queue folder beside it (`turn_queue`), so a short check
//! gets in between the variants of a long recording, and each ticket says whose it is and
//! what it is for, for whoever waits behind it.
//!
//! Only a stretch that is timed needs the GPU alone (`Hold::Alone`: an exclusive `flock`);
//! checking outputs, uploading inputs and tracing are not timed, and any number of them run
//! at once (`Hold::Shared`: a shared `flock`). Tickets keep their order across both: a
//! shared turn waits only for the alone turns ahead of it, an alone turn for every turn
//! ahead, so a timed run neither waits for ever behind a stream of checks nor shares the GPU.
//!
//! The folders are shared with every user of the machine, so nothing in them is trusted:
//! they carry the sticky bit (01777, as /tmp does: a user may remove only their own files),
//! a folder or a lock that is a link is refused, files are opened without following links
//! and created exclusively, and no mode is ever changed through a path. Another user who
//! plants a link where the lock goes gets an error from us, never a write through it. Each
//! user's tickets and user entries go into a folder of that user's own inside the queue and
//! user folders (0755: nobody else can write there), so no user's file is ever in a folder
//! another user may rename things in, and a file there is trusted only as its owner's.

use super::turn_queue::{self, Ticket};
use crate::model::protocol::{JobKind, QueuedJob};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// How often a waiter looks at the queue: a turn handed on is taken within this.
const POLL: Duration = Duration::from_millis(10);
/// How often a waiter says where it is when nothing moves, and a ticket is touched to
/// show its process still takes part (a stopped process's ticket goes stale).
pub const HEARTBEAT: Duration = Duration::from_secs(1);

/// How a turn holds the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// Nothing else runs on the GPU meanwhile: for timed runs, and figures a kernel's own
    /// clock reads.
    Alone,
    /// Beside other shared turns: for work whose figures do not depend on what else runs.
    Shared,
}

impl Hold {
    /// In a ticket's text (`hold=…`); a ticket without one is an alone turn's.
    pub fn word(self) -> &'static str {
        match self {
            Hold::Alone => "alone",
            Hold::Shared => "shared",
        }
    }

    pub fn from_word(w: &str) -> Hold {
        match w {
            "shared" => Hold::Shared,
            _ => Hold::Alone,
        }
    }
}

/// Held while a job uses the GPU; dropping it lets the next one in.
pub struct GpuTurn {
    lock: File,
    ticket: turn_queue::MyTicket,
    _beat: Heartbeat,
    waited: Option<Duration>,
    /// When it was taken, for whom and for what: written to `TURN_LOG` when let go.
    since: (SystemTime, Instant),
    job: JobKind,
    hold: Hold,
    label: String,
}

/// A file every turn is appended to as it ends (start, held, pid, job, what it was for):
/// how much of a workshop's or a test table's time the GPU was held, and by what.
pub const TURN_LOG: &str = "GPULAB_TURN_LOG";

/// Why no turn could be arranged: the run goes on untimed-for-turns, as on a GPU of its own.
#[derive(Debug, thiserror::Error)]
#[error("cannot share the GPU's turns through {path}: {source}")]
pub struct TurnError {
    path: String,
    source: std::io::Error,
}

fn turn_error(path: &Path) -> impl FnOnce(std::io::Error) -> TurnError + use<> {
    let path = path.display().to_string();
    move |source| TurnError { path, source }
}

/// An error about a file the folder's rules refuse, in words.
pub(super) fn refused(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::PermissionDenied, why)
}

impl GpuTurn {
    /// Wait for the GPU at `bus_id` in ticket order, for `job`. While others are ahead,
    /// `waiting` hears who they are (oldest first: the first has the GPU) whenever that
    /// changes, and at least every `HEARTBEAT`; a free GPU is taken without a word.
    ///
    /// A ticket of a dead process is passed over at once (the lock itself dies with its
    /// holder: it is a `flock`), and so is the ticket of a waiter that stopped touching it
    /// (a stopped process), which would otherwise hold up everyone behind it.
    pub fn take(
        dir: &Path,
        bus_id: &str,
        job: JobKind,
        waiting: impl FnMut(&[QueuedJob]),
    ) -> Result<GpuTurn, TurnError> {
        Self::take_held(dir, bus_id, (job, Hold::Alone), waiting)
    }

    /// `take`, for a turn held as `hold` says: a shared one waits only for the alone
    /// turns ahead of it (and hears only of them).
    pub fn take_held(
        dir: &Path,
        bus_id: &str,
        (job, hold): (JobKind, Hold),
        mut waiting: impl FnMut(&[QueuedJob]),
    ) -> Result<GpuTurn, TurnError> {
        let name = bus_id.replace(':', "-");
        shared_dir(dir).map_err(turn_error(dir))?;
        let lock_path = dir.join(format!("{name}.lock"));
        let lock = open_lock(&lock_path).map_err(turn_error(&lock_path))?;
        let queue = dir.join(format!("{name}.queue"));
        shared_dir(&queue).map_err(turn_error(&queue))?;
        let mine = turn_queue::write_ticket(&queue, job, hold).map_err(turn_error(&queue))?;
        let beat = Heartbeat::start(&mine.file);
        let t0 = Instant::now();
        let mut known = HashMap::new();
        let mut shown: Option<(Vec<QueuedJob>, Instant)> = None;
        loop {
            let tickets = turn_queue::read_queue(&queue, &mut known);
            // Two shared turns never keep each other waiting.
            let ahead: Vec<&Ticket> = (tickets.iter())
                .filter(|t| t.name < mine.name && (hold == Hold::Alone || t.hold == Hold::Alone))
                .collect();
            if !ahead.iter().any(|t| t.fresh) && locked(&lock, hold) {
                if hold == Hold::Alone {
                    name_holder(&lock);
                }
                return Ok(GpuTurn {
                    lock,
                    ticket: mine,
                    _beat: beat,
                    waited: shown.is_some().then(|| t0.elapsed()),
                    since: (SystemTime::now(), Instant::now()),
                    job,
                    hold,
                    label: String::new(),
                });
            }
            let mut list: Vec<QueuedJob> = (ahead.iter())
                .map(|t| QueuedJob {
                    pid: t.pid,
                    job: t.job,
                })
                .collect();
            if list.is_empty() {
                // The lock is held by a process that left no ticket (an older gpulab).
                list.push(QueuedJob {
                    pid: holder(&lock).unwrap_or(0),
                    job: JobKind::Other,
                });
            }
            let due = match &shown {
                Some((last, at)) => *last != list || at.elapsed() >= HEARTBEAT,
                None => true,
            };
            if due {
                waiting(&list);
                shown = Some((list, Instant::now()));
            }
            std::thread::sleep(POLL);
        }
    }

    /// How long the turn was waited for; None when the GPU was free.
    pub fn waited(&self) -> Option<Duration> {
        self.waited
    }

    /// What the turn is for, in `TURN_LOG` (a variant's name; empty for a lesson's setup).
    pub fn label(&mut self, what: &str) {
        self.label = what.to_string();
    }

    fn log(&self) {
        let Some(path) = std::env::var_os(TURN_LOG) else {
            return;
        };
        let start = (self.since.0.duration_since(std::time::UNIX_EPOCH)).unwrap_or_default();
        // A shared turn's job is marked, as its time overlaps others'.
        let shared = match self.hold {
            Hold::Alone => "",
            Hold::Shared => ":shared",
        };
        let line = format!(
            "{:.3} {:.1} {} {:?}{shared} {}\n",
            start.as_secs_f64(),
            self.since.1.elapsed().as_secs_f64() * 1e3,
            std::process::id(),
            self.job,
            self.label
        );
        // One write of one short line to a file opened for appending lands whole.
        if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(path) {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

impl Drop for GpuTurn {
    fn drop(&mut self) {
        // The ticket first: whoever is next sees itself first, and takes the lock the
        // moment it is let go. Removed through our own folder's handle, not its path.
        self.ticket.remove();
        let _ = self.lock.unlock();
        self.log();
    }
}

/// Touches a ticket every `HEARTBEAT` while its turn is waited for or held, through the
/// open file (never the path); stops when dropped.
struct Heartbeat {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    fn start(ticket: &File) -> Heartbeat {
        let Ok(file) = ticket.try_clone() else {
            return Heartbeat {
                stop: None,
                thread: None,
            };
        };
        let (tx, rx) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(HEARTBEAT) {
                let _ = file.set_modified(SystemTime::now());
            }
        });
        Heartbeat {
            stop: Some(tx),
            thread: Some(thread),
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The lock taken as `hold` asks, if nobody holds it in a way that excludes that.
fn locked(lock: &File, hold: Hold) -> bool {
    match hold {
        Hold::Alone => lock.try_lock().is_ok(),
        Hold::Shared => lock.try_lock_shared().is_ok(),
    }
}

/// The pid the holder wrote into the lock file, if it did.
fn holder(lock: &File) -> Option<u32> {
    let mut buf = [0u8; 32];
    let n = lock.read_at(&mut buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()?.trim().parse().ok()
}

/// The shared folder `dir`, made if missing: every user may add files to it, and only
/// remove their own (01777). A link, or a folder another user left writable by all without
/// the sticky bit (where anyone could swap our lock), is refused. Its mode is set through
/// the opened folder, never through the path.
pub(super) fn shared_dir(dir: &Path) -> std::io::Result<()> {
    safe_ancestors(dir)?;
    let made = match fs::create_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent() {
                fs::create_dir_all(parent)?;
            }
            match fs::create_dir(dir) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                r => r.is_ok(),
            }
        }
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        r => r.is_ok(),
    };
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) | Some(libc::ENOTDIR) => refused(format!(
                "{} is a link or not a folder: the turns are kept only in a real folder",
                dir.display()
            )),
            _ => e,
        })?;
    let meta = opened.metadata()?;
    let mode = meta.mode() & 0o7777;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() == me {
        // Only a folder made just now is opened to all: one of ours that was there already
        // keeps the mode its owner gave it (a private folder named by GPULAB_LOCK_DIR stays
        // private, and serves its owner's processes alone).
        if made && mode != 0o1777 {
            opened.set_permissions(fs::Permissions::from_mode(0o1777))?;
        }
    } else if mode & 0o002 != 0 && mode & 0o1000 == 0 {
        return Err(refused(format!(
            "{} is writable by every user without the sticky bit, and is not ours (uid {}):              its owner should `chmod 1777` it",
            dir.display(),
            meta.uid()
        )));
    }
    Ok(())
}

/// Every folder above `dir` that exists, checked before anything is made under it: a link
/// on the way must be root's or ours (another user's could be pointed anywhere, a private
/// folder of ours included), and no folder on the way may be writable by every user without
/// the sticky bit (anyone could swap the next part of the path).
fn safe_ancestors(dir: &Path) -> std::io::Result<()> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mut at = PathBuf::new();
    let parts: Vec<_> = dir
        .parent()
        .map_or_else(Vec::new, |p| p.components().collect());
    for part in parts {
        at.push(part);
        let Ok(meta) = fs::symlink_metadata(&at) else {
            // Not made yet: `create_dir_all` makes it, ours.
            break;
        };
        let owner_ok = meta.uid() == 0 || meta.uid() == me;
        if meta.file_type().is_symlink() && !owner_ok {
            return Err(refused(format!(
                "{} is a link of another user's (uid {}): the turns are never kept through one",
                at.display(),
                meta.uid()
            )));
        }
        let mode = fs::metadata(&at)?.mode();
        if mode & 0o002 != 0 && mode & 0o1000 == 0 {
            return Err(refused(format!(
                "{} is writable by every user without the sticky bit: anyone could swap what                  lies under it, so the turns are not kept there",
                at.display()
            )));
        }
    }
    Ok(())
}

/// A file of our own, created here and now: never an existing file, never through a link.
pub(super) fn create_own(path: &Path, mode: u32) -> std::io::Result<File> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    // The umask may have taken bits away; the mode is set through the file, not the path.
    f.set_permissions(fs::Permissions::from_mode(mode))?;
    Ok(f)
}

/// The lock file: created by the first user to come (readable and writable by all, so each
/// holder can write its pid there), else opened as it is, without following a link and
/// without waiting on a FIFO; only a plain file is taken. A lock needs only an open file,
/// so one we may not write is opened to read.
fn open_lock(path: &Path) -> std::io::Result<File> {
    match create_own(path, 0o666) {
        Ok(f) => return Ok(f),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(is_a_link(path)),
        Err(e) => return Err(e),
    }
    let flags = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(flags)
        .open(path)
        .or_else(|e| match e.raw_os_error() {
            Some(libc::EACCES) => OpenOptions::new().read(true).custom_flags(flags).open(path),
            _ => Err(e),
        })
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => is_a_link(path),
            _ => e,
        })?;
    if !f.metadata()?.file_type().is_file() {
        return Err(refused(format!(
            "{} is not a plain file: the lock must be one",
            path.display()
        )));
    }
    Ok(f)
}

fn is_a_link(path: &Path) -> std::io::Error {
    refused(format!(
        "{} is a link: a lock is never opened through one (someone put it there; remove it)",
        path.display()
    ))
}

/// The holder writes its pid into the lock file, for whoever wonders who has the GPU. Only
/// into a file with one name (a hard link planted to another file has two) that we may
/// write; otherwise nothing is said.
fn name_holder(lock: &File) {
    if lock.metadata().is_ok_and(|m| m.nlink() == 1) {
        let mut f = lock;
        let _ = lock.set_len(0);
        let _ = std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(0));
        let _ = writeln!(f, "{}", std::process::id());
    }
}

/// Where the turns are kept: `GPULAB_LOCK_DIR`, else a folder in the system's temp dir.
pub fn default_dir() -> PathBuf {
    std::env::var_os("GPULAB_LOCK_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("gpulab-gpu-turns"))
}

#[cfg(test)]
#[path = "gpu_turn_tests.rs"]
pub(super) mod tests;
