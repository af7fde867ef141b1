//! The queue for one GPU's turns and the list of gpulab processes using it, as files in the
//! shared turn folder (see `gpu_turn` for why nothing there is trusted).
//!
//! Each user writes only into a folder of their own, named for their uid, inside the shared
//! queue and user folders (`<bus>.queue/<uid>/`, `<bus>.users/<uid>/`): made by that user,
//! mode 0755, so nobody else can put a file there or remove one. Readers walk every user's
//! folder, and trust one only when the uid it is named for owns it and each file in it; a
//! folder or file planted under someone else's name is passed over, never followed and
//! never removed.
//!
//! A ticket is a file named `<nanoseconds>-<pid>-<n>` (its place: names sort in the order
//! they were taken, across every user's folder) holding `pid=… start=… job=… hold=…`. `start` is
//! when the process started (`/proc/<pid>/stat`), so a dead process's pid given to a later
//! one does not keep its ticket alive. A user entry, `<pid>-<start>` in a user's folder under
//! `<bus>.users`, says a gpulab worker computes on this GPU: its samples in NVML are turns,
//! never noise in another's timing.

use super::gpu_turn::{Hold, refused, shared_dir};
use crate::model::protocol::JobKind;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A ticket untouched this long belongs to a process that stopped taking part (stopped
/// with ^Z, or starved): those behind it go first. Its owner touches it every second.
pub const STALE: Duration = Duration::from_secs(5);

/// The mode of a user's own folder: readable by all (every waiter reads every queue),
/// written by its owner alone.
const OWN_MODE: u32 = 0o755;

/// A live ticket in the queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticket {
    pub name: String,
    pub pid: u32,
    pub job: JobKind,
    pub hold: Hold,
    /// Touched within `STALE`.
    pub fresh: bool,
}

/// This process's ticket: the open file keeps being touched while it waits and holds, and
/// it is removed through the handle of our own folder, never through a path someone could
/// have swapped meanwhile.
pub struct MyTicket {
    pub name: String,
    /// Where it lies, for words and tests: nothing is opened or removed by this path.
    pub path: PathBuf,
    pub file: File,
    dir: File,
}

impl MyTicket {
    /// Take the ticket out of the queue.
    pub fn remove(&self) {
        unlink_at(&self.dir, &self.name);
    }
}

/// What a ticket's file says, read once: it never changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TicketText {
    start: Option<u64>,
    job: JobKind,
    hold: Hold,
}

/// The tickets' texts read so far, by the uid of the folder each lies in and its name: a
/// name in one user's folder says nothing of the same name in another's.
pub type Known = HashMap<(u32, String), TicketText>;

/// When process `pid` started, in clock ticks since boot (the 22nd field of
/// `/proc/<pid>/stat`, counted after the name in parentheses, which may hold anything).
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether process `pid`, started at `start` when that is known, still lives.
pub fn alive(pid: u32, start: Option<u64>) -> bool {
    match (start, start_time(pid)) {
        (Some(s), Some(now)) => s == now,
        // No /proc to read (or hidden from us): whether the pid exists at all.
        _ => {
            let Ok(pid) = i32::try_from(pid) else {
                return false;
            };
            // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
            let r = unsafe { libc::kill(pid, 0) };
            r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
        }
    }
}

fn now_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// A ticket for `job`, held as `hold`, at the back of `queue`, in our own folder there:
/// written under a hidden name and renamed into place, so nobody reads it half written.
pub fn write_ticket(queue: &Path, job: JobKind, hold: Hold) -> std::io::Result<MyTicket> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let dir = own_folder(queue)?;
    let pid = std::process::id();
    let name = format!(
        "{:020}-{pid}-{}",
        now_nanos(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let hidden = format!(".{name}");
    let mut file = create_at(&dir, &hidden, 0o644)?;
    let start = start_time(pid).map_or(String::new(), |s| format!(" start={s}"));
    let written = writeln!(
        file,
        "pid={pid}{start} job={} hold={}",
        job.word(),
        hold.word()
    )
    .and_then(|()| rename_at(&dir, &hidden, &name));
    if let Err(e) = written {
        unlink_at(&dir, &hidden);
        return Err(e);
    }
    Ok(MyTicket {
        path: queue.join(own_uid().to_string()).join(&name),
        name,
        file,
        dir,
    })
}

/// `pid` from a ticket's name, `<nanoseconds>-<pid>-<n>`; None for any other name.
fn pid_of(name: &str) -> Option<u32> {
    let mut parts = name.split('-');
    let (stamp, pid, n) = (parts.next()?, parts.next()?, parts.next()?);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(stamp) && digits(n) && parts.next().is_none())
        .then(|| pid.parse().ok())
        .flatten()
}

/// A ticket's text: a plain file's first bytes, opened without following a link or
/// waiting on a FIFO. Unknown words leave the kind `Other`.
fn read_text(dir: &File, name: &str) -> Option<TicketText> {
    let f = open_at(
        dir,
        name,
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK,
    )
    .ok()?;
    if !f.metadata().ok()?.file_type().is_file() {
        return None;
    }
    let mut text = String::new();
    f.take(256).read_to_string(&mut text).ok()?;
    let mut out = TicketText {
        start: None,
        job: JobKind::Other,
        hold: Hold::Alone,
    };
    for word in text.split_whitespace() {
        match word.split_once('=') {
            Some(("start", s)) => out.start = s.parse().ok(),
            Some(("job", j)) => out.job = JobKind::from_word(j),
            Some(("hold", h)) => out.hold = Hold::from_word(h),
            _ => {}
        }
    }
    Some(out)
}

/// The live tickets in `queue`, every user's folder walked, in queue order (by name, as
/// they were taken, whoever took them). A ticket counts only as a plain file in the folder
/// of the user it is owned by, naming a live process of that user. A dead process's ticket
/// is removed where it lies in our own folder, and passed over either way; anything else
/// is passed over and left. `known` keeps each ticket's text from one look to the next.
pub fn read_queue(queue: &Path, known: &mut Known) -> Vec<Ticket> {
    // Through the folder's own handle, opened without following a link: a queue swapped
    // for a link to someone's folder is not read, and nothing there is removed.
    let Ok(top) = open_folder(queue) else {
        return Vec::new();
    };
    let now = SystemTime::now();
    let mut out = Vec::new();
    for (uid, dir) in user_folders(&top) {
        for name in entries(&dir) {
            let Some(pid) = pid_of(&name) else { continue };
            // Only the folder's user speaks in it: a file of anyone else's there came in
            // some other way than gpulab's.
            let Some(stat) = stat_at(&dir, &name).filter(|s| s.is_file && s.uid == uid) else {
                continue;
            };
            let key = (uid, name);
            let text = match known.get(&key) {
                Some(t) => *t,
                None => {
                    let Some(t) = read_text(&dir, &key.1) else {
                        continue;
                    };
                    known.insert(key.clone(), t);
                    t
                }
            };
            if !alive(pid, text.start) {
                // Only in our own folder: a dead process's ticket is its user's to clear.
                if uid == own_uid() {
                    unlink_at(&dir, &key.1);
                }
                known.remove(&key);
                continue;
            }
            let name = key.1;
            // A ticket speaks for its process only when its user is the folder's: anyone
            // may name pid 1.
            if uid_of(pid) != Some(uid) {
                continue;
            }
            // A time ahead of now is not fresh: a ticket touched "in 2100" would hold every
            // turn for ever.
            let fresh = match now.duration_since(stat.modified) {
                Ok(age) => age < STALE,
                Err(ahead) => ahead.duration() < CLOCK_SLACK,
            };
            out.push(Ticket {
                name,
                pid,
                job: text.job,
                hold: text.hold,
                fresh,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// How far ahead of our clock a ticket's time may be and still count as fresh.
const CLOCK_SLACK: Duration = Duration::from_secs(2);

/// A shared folder, opened without following a link.
fn open_folder(path: &Path) -> std::io::Result<File> {
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// The folders of the shared folder `top` that belong to the user they are named for
/// (`<uid>`, written as that number is): opened without following a link or waiting on a
/// FIFO, each with its uid. A folder of another owner's, or a name that is no uid, is
/// passed over.
fn user_folders(top: &File) -> Vec<(u32, File)> {
    let mut out = Vec::new();
    for name in entries(top) {
        let Ok(uid) = name.parse::<u32>() else {
            continue;
        };
        if uid.to_string() != name {
            continue;
        }
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_NONBLOCK;
        let Ok(dir) = open_at(top, &name, flags) else {
            continue;
        };
        if dir.metadata().is_ok_and(|m| m.uid() == uid) {
            out.push((uid, dir));
        }
    }
    out
}

/// Our own folder in the shared folder `shared` (a queue, or a GPU's user list): made if
/// missing, opened without following a link, and only when we own it; its mode set to 0755
/// through the handle (never 1777: nobody else writes there). Someone else's folder, or a
/// link or file, under our uid is refused in words and left as it is: another user could
/// have put it there, and what it leads to is not ours to write into.
pub(super) fn own_folder(shared: &Path) -> std::io::Result<File> {
    let top = open_folder(shared).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) | Some(libc::ENOTDIR) => refused(format!(
            "{} is a link or not a folder: the turns are kept only in a real folder",
            shared.display()
        )),
        _ => e,
    })?;
    let me = own_uid();
    let name = me.to_string();
    let path = shared.join(&name);
    mkdir_at(&top, &name, OWN_MODE)?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_NONBLOCK;
    let dir = open_at(&top, &name, flags).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) | Some(libc::ENOTDIR) => refused(format!(
            "{} is a link or not a folder: each user's turns are kept in a real folder of \
             their own (someone put it there; remove it)",
            path.display()
        )),
        _ => e,
    })?;
    let meta = dir.metadata()?;
    if meta.uid() != me {
        return Err(refused(format!(
            "{} is not ours but uid {}'s: our turns are kept only in a folder of our own \
             (someone put it there; its owner or an administrator can remove it)",
            path.display(),
            meta.uid()
        )));
    }
    if meta.mode() & 0o7777 != OWN_MODE {
        dir.set_permissions(fs::Permissions::from_mode(OWN_MODE))?;
    }
    Ok(dir)
}

/// Make the folder `name` in `dir`; one already there is fine (whose it is is checked
/// once it is opened).
fn mkdir_at(dir: &File, name: &str, mode: u32) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let c = std::ffi::CString::new(name)?;
    // SAFETY: a live folder handle and a NUL-terminated name.
    let r = unsafe { libc::mkdirat(dir.as_raw_fd(), c.as_ptr(), mode as libc::mode_t) };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            return Err(e);
        }
    }
    Ok(())
}

/// A file of our own, created in the folder `dir` here and now: never an existing file,
/// never through a link; its mode set through the file (the umask may have taken bits).
fn create_at(dir: &File, name: &str, mode: u32) -> std::io::Result<File> {
    let flags = libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let f = open_at_mode(dir, name, flags, mode)?;
    f.set_permissions(fs::Permissions::from_mode(mode))?;
    Ok(f)
}

/// Rename `from` to `to`, both in the folder `dir`.
fn rename_at(dir: &File, from: &str, to: &str) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let (a, b) = (std::ffi::CString::new(from)?, std::ffi::CString::new(to)?);
    let fd = dir.as_raw_fd();
    // SAFETY: a live folder handle and two NUL-terminated names.
    if unsafe { libc::renameat(fd, a.as_ptr(), fd, b.as_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The names in the opened folder `dir`.
fn entries(dir: &File) -> Vec<String> {
    use std::os::fd::AsRawFd;
    // Listed through the handle (Linux names it under /proc/self/fd), not the path.
    let Ok(rd) = fs::read_dir(format!("/proc/self/fd/{}", dir.as_raw_fd())) else {
        return Vec::new();
    };
    (rd.flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// What a file in the folder is, not following a link.
struct Stat {
    uid: u32,
    is_file: bool,
    modified: SystemTime,
}

fn stat_at(dir: &File, name: &str) -> Option<Stat> {
    use std::os::fd::AsRawFd;
    let c = std::ffi::CString::new(name).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: a live folder handle, a NUL-terminated name and a live out-pointer.
    let r = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            c.as_ptr(),
            st.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if r != 0 {
        return None;
    }
    // SAFETY: fstatat succeeded and filled it.
    let st = unsafe { st.assume_init() };
    let secs = Duration::new(
        st.st_mtime.max(0) as u64,
        st.st_mtime_nsec.clamp(0, 999_999_999) as u32,
    );
    Some(Stat {
        uid: st.st_uid,
        is_file: st.st_mode & libc::S_IFMT == libc::S_IFREG,
        modified: UNIX_EPOCH + secs,
    })
}

/// Open `name` in the folder `dir` with `flags`.
fn open_at(dir: &File, name: &str, flags: i32) -> std::io::Result<File> {
    open_at_mode(dir, name, flags, 0)
}

/// Open `name` in the folder `dir` with `flags`, and `mode` where it is created.
fn open_at_mode(dir: &File, name: &str, flags: i32, mode: u32) -> std::io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let c = std::ffi::CString::new(name)?;
    // SAFETY: a live folder handle and a NUL-terminated name; the descriptor returned is
    // ours to own.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            flags | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor no one else owns.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Remove `name` from the folder `dir`, whatever the path now leads to.
fn unlink_at(dir: &File, name: &str) {
    use std::os::fd::AsRawFd;
    if let Ok(c) = std::ffi::CString::new(name) {
        // SAFETY: a live folder handle and a NUL-terminated name.
        unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) };
    }
}

fn own_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The user a process runs as, from its /proc entry.
fn uid_of(pid: u32) -> Option<u32> {
    fs::metadata(format!("/proc/{pid}")).ok().map(|m| m.uid())
}

fn users_dir(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.users"))
}

/// Say that this process computes on the GPU `name` (its bus id, made a file name) as a
/// gpulab worker, in our own folder of its user list. Once per process is enough: the
/// entry stays until the process is gone.
pub fn register_user(dir: &Path, name: &str) -> std::io::Result<()> {
    // The turn folder itself first: nothing is made under it before it is known to be a
    // real folder and no link.
    shared_dir(dir)?;
    let users = users_dir(dir, name);
    shared_dir(&users)?;
    let own = own_folder(&users)?;
    let pid = std::process::id();
    let start = start_time(pid).ok_or_else(|| {
        refused(format!(
            "/proc/{pid}/stat cannot be read: without it a user entry could outlive us"
        ))
    })?;
    match create_at(&own, &format!("{pid}-{start}"), 0o644) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// The gpulab workers that compute on the GPU `name`, by pid: the live entries in every
/// user's folder of its user list, each of that user's own process (a dead one is removed
/// where it lies in our own folder).
pub fn users(dir: &Path, name: &str) -> Vec<u32> {
    let Ok(top) = open_folder(&users_dir(dir, name)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (uid, folder) in user_folders(&top) {
        for entry in entries(&folder) {
            let Some((pid, start)) = entry.split_once('-') else {
                continue;
            };
            let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
                continue;
            };
            let Some(stat) = stat_at(&folder, &entry).filter(|s| s.uid == uid) else {
                continue;
            };
            if alive(pid, Some(start)) {
                // Counted only as its own user's entry.
                if uid_of(pid) == Some(stat.uid) {
                    out.push(pid);
                }
            } else if uid == own_uid() {
                unlink_at(&folder, &entry);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
#[path = "turn_queue_tests.rs"]
mod tests;
