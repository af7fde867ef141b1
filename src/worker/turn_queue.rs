//! The queue for one GPU's turns and the list of gpulab processes using it, as files in the
//! shared turn folder (see `gpu_turn` for why nothing there is trusted).
//!
//! A ticket is a file named `<nanoseconds>-<pid>-<n>` (its place: names sort in the order
//! they were taken) holding `pid=… start=… job=…`. `start` is when the process started
//! (`/proc/<pid>/stat`), so a dead process's pid given to a later one does not keep its
//! ticket alive. A user entry, `<pid>-<start>` in the `.users` folder, says a gpulab worker
//! computes on this GPU: its samples in NVML are turns, never noise in another's timing.

use super::gpu_turn::{create_own, refused, shared_dir};
use crate::model::protocol::JobKind;
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A ticket untouched this long belongs to a process that stopped taking part (stopped
/// with ^Z, or starved): those behind it go first. Its owner touches it every second.
pub const STALE: Duration = Duration::from_secs(5);

/// A live ticket in the queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticket {
    pub name: String,
    pub pid: u32,
    pub job: JobKind,
    /// Touched within `STALE`.
    pub fresh: bool,
}

/// This process's ticket: the open file keeps being touched while it waits and holds.
pub struct MyTicket {
    pub name: String,
    pub path: PathBuf,
    pub file: File,
}

/// What a ticket's file says, read once: it never changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TicketText {
    start: Option<u64>,
    job: JobKind,
}

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

/// A ticket for `job` at the back of `queue`: written under a hidden name and renamed into
/// place, so nobody reads it half written.
pub fn write_ticket(queue: &Path, job: JobKind) -> std::io::Result<MyTicket> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    let name = format!(
        "{:020}-{pid}-{}",
        now_nanos(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let hidden = queue.join(format!(".{name}"));
    let path = queue.join(&name);
    let mut file = create_own(&hidden, 0o644)?;
    let start = start_time(pid).map_or(String::new(), |s| format!(" start={s}"));
    let written = writeln!(file, "pid={pid}{start} job={}", job.word())
        .and_then(|()| fs::rename(&hidden, &path));
    if let Err(e) = written {
        let _ = fs::remove_file(&hidden);
        return Err(e);
    }
    Ok(MyTicket { name, path, file })
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
    };
    for word in text.split_whitespace() {
        match word.split_once('=') {
            Some(("start", s)) => out.start = s.parse().ok(),
            Some(("job", j)) => out.job = JobKind::from_word(j),
            _ => {}
        }
    }
    Some(out)
}

/// The live tickets in `queue`, in queue order: each a plain file owned by the user of the
/// live process it names. A dead process's ticket is removed where it is our own user's,
/// and passed over either way; a ticket of another user's than its process's is passed over
/// and left. `known` keeps each ticket's text from one look to the next.
pub fn read_queue(queue: &Path, known: &mut HashMap<String, TicketText>) -> Vec<Ticket> {
    // Through the folder's own handle, opened without following a link: a queue swapped
    // for a link to someone's folder is not read, and nothing there is removed.
    let Ok(dir) = open_folder(queue) else {
        return Vec::new();
    };
    let now = SystemTime::now();
    let mut out = Vec::new();
    for name in entries(&dir) {
        let Some(pid) = pid_of(&name) else { continue };
        let Some(stat) = stat_at(&dir, &name).filter(|s| s.is_file) else {
            continue;
        };
        let text = match known.get(&name) {
            Some(t) => *t,
            None => match read_text(&dir, &name) {
                Some(t) => *known.entry(name.clone()).or_insert(t),
                None => continue,
            },
        };
        if !alive(pid, text.start) {
            // Only our own: a dead process's ticket is its user's to clear (or ours).
            if stat.uid == own_uid() {
                unlink_at(&dir, &name);
            }
            known.remove(&name);
            continue;
        }
        // A ticket speaks for its process only when its owner is that process's user:
        // anyone may name pid 1.
        if uid_of(pid) != Some(stat.uid) {
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
            fresh,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// How far ahead of our clock a ticket's time may be and still count as fresh.
const CLOCK_SLACK: Duration = Duration::from_secs(2);

/// A shared folder, opened without following a link.
fn open_folder(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
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
    use std::os::fd::{AsRawFd, FromRawFd};
    let c = std::ffi::CString::new(name)?;
    // SAFETY: a live folder handle and a NUL-terminated name; the descriptor returned is
    // ours to own.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags | libc::O_CLOEXEC) };
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
    use std::os::unix::fs::MetadataExt;
    fs::metadata(format!("/proc/{pid}")).ok().map(|m| m.uid())
}

fn users_dir(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.users"))
}

/// Say that this process computes on the GPU `name` (its bus id, made a file name) as a
/// gpulab worker. Once per process is enough: the entry stays until the process is gone.
pub fn register_user(dir: &Path, name: &str) -> std::io::Result<()> {
    // The turn folder itself first: nothing is made under it before it is known to be a
    // real folder and no link.
    shared_dir(dir)?;
    let users = users_dir(dir, name);
    shared_dir(&users)?;
    let pid = std::process::id();
    let start = start_time(pid).ok_or_else(|| {
        refused(format!(
            "/proc/{pid}/stat cannot be read: without it a user entry could outlive us"
        ))
    })?;
    match create_own(&users.join(format!("{pid}-{start}")), 0o644) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// The gpulab workers that compute on the GPU `name`, by pid: the live user entries (a
/// dead one is removed where we may).
pub fn users(dir: &Path, name: &str) -> Vec<u32> {
    let Ok(folder) = open_folder(&users_dir(dir, name)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries(&folder) {
        let Some((pid, start)) = entry.split_once('-') else {
            continue;
        };
        let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
            continue;
        };
        let Some(stat) = stat_at(&folder, &entry) else {
            continue;
        };
        if alive(pid, Some(start)) {
            // Counted only as its own user's entry.
            if uid_of(pid) == Some(stat.uid) {
                out.push(pid);
            }
        } else if stat.uid == own_uid() {
            unlink_at(&folder, &entry);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pid no process has (above the kernel's pid_max).
    const DEAD: u32 = 0x7fff_fff0;

    fn plant(queue: &Path, name: &str, text: &str) {
        fs::write(queue.join(name), text).unwrap();
    }

    #[test]
    fn our_start_time_is_read_and_a_pid_used_again_is_not_its_old_process() {
        let me = std::process::id();
        let start = start_time(me).expect("/proc/self/stat");
        assert!(alive(me, Some(start)));
        assert!(!alive(me, Some(start + 1)), "a later process under our pid");
        assert!(!alive(DEAD, None));
        assert!(!alive(DEAD, Some(start)));
    }

    #[test]
    fn the_queue_is_in_ticket_order_with_dead_tickets_removed() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path();
        let me = std::process::id();
        let start = start_time(me).unwrap();
        plant(
            q,
            &format!("{:020}-{me}-0", 3),
            &format!("pid={me} start={start} job=run"),
        );
        plant(q, &format!("{:020}-{DEAD}-0", 1), "pid=0 job=recording");
        plant(
            q,
            &format!("{:020}-{me}-9", 2),
            &format!("pid={me} job=exercise_check"),
        );
        // Our pid, but a start time that is not ours: a dead process whose pid we got.
        let old = format!("{:020}-{me}-4", 0);
        plant(q, &old, &format!("pid={me} start={} job=run", start + 7));
        plant(q, "not-a-ticket", "");
        plant(q, &format!(".{:020}-{me}-5", 0), "half written");
        let t = read_queue(q, &mut HashMap::new());
        let seen: Vec<(String, JobKind)> = t.iter().map(|t| (t.name.clone(), t.job)).collect();
        assert_eq!(
            seen,
            vec![
                (format!("{:020}-{me}-9", 2), JobKind::ExerciseCheck),
                (format!("{:020}-{me}-0", 3), JobKind::Run),
            ]
        );
        assert!(t.iter().all(|t| t.fresh && t.pid == me));
        assert!(
            !q.join(format!("{:020}-{DEAD}-0", 1)).exists(),
            "dead ticket cleared"
        );
        assert!(!q.join(&old).exists(), "a reused pid's old ticket cleared");
        assert!(
            q.join("not-a-ticket").exists(),
            "what is not a ticket is left alone"
        );
    }

    #[test]
    fn a_ticket_untouched_for_a_while_is_stale_and_unknown_words_say_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let name = format!("{:020}-{me}-0", 1);
        plant(dir.path(), &name, &format!("pid={me} job=\x1b]0;pwned\x07"));
        let f = File::options()
            .write(true)
            .open(dir.path().join(&name))
            .unwrap();
        f.set_modified(SystemTime::now() - STALE - Duration::from_secs(1))
            .unwrap();
        let t = read_queue(dir.path(), &mut HashMap::new());
        assert_eq!(t.len(), 1);
        assert!(!t[0].fresh);
        assert_eq!(t[0].job, JobKind::Other);
    }

    #[test]
    fn our_ticket_is_written_whole_and_sorts_after_earlier_ones() {
        let dir = tempfile::tempdir().unwrap();
        let a = write_ticket(dir.path(), JobKind::Recording).unwrap();
        let b = write_ticket(dir.path(), JobKind::Memcheck).unwrap();
        assert!(a.name < b.name);
        let t = read_queue(dir.path(), &mut HashMap::new());
        let jobs: Vec<JobKind> = t.iter().map(|t| t.job).collect();
        assert_eq!(jobs, [JobKind::Recording, JobKind::Memcheck]);
        let text = fs::read_to_string(&a.path).unwrap();
        let me = std::process::id();
        assert!(text.starts_with(&format!("pid={me} start=")), "{text}");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no hidden leftovers"
        );
    }

    #[test]
    fn a_ticket_dated_ahead_of_now_holds_no_one_up() {
        let dir = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let name = format!("{:020}-{me}-0", 1);
        plant(dir.path(), &name, &format!("pid={me} job=run"));
        let f = File::options()
            .write(true)
            .open(dir.path().join(&name))
            .unwrap();
        // 2100-01-01.
        f.set_modified(UNIX_EPOCH + Duration::from_secs(4_102_444_800))
            .unwrap();
        let t = read_queue(dir.path(), &mut HashMap::new());
        assert_eq!(t.len(), 1);
        assert!(!t[0].fresh, "a ticket touched in 2100 is not fresh");
    }

    #[test]
    fn a_queue_swapped_for_a_link_is_not_read_and_nothing_there_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::create_dir(&victim).unwrap();
        let looks_dead = format!("{:020}-{DEAD}-0", 1);
        plant(&victim, &looks_dead, "pid=0 job=run");
        let queue = dir.path().join("gpu.queue");
        std::os::unix::fs::symlink(&victim, &queue).unwrap();
        assert!(read_queue(&queue, &mut HashMap::new()).is_empty());
        assert!(
            victim.join(&looks_dead).exists(),
            "nothing removed through the link"
        );
        let users = dir.path().join("gpu.users");
        std::os::unix::fs::symlink(&victim, &users).unwrap();
        plant(&victim, &format!("{DEAD}-5"), "");
        assert!(self::users(dir.path(), "gpu").is_empty());
        assert!(victim.join(format!("{DEAD}-5")).exists());
    }

    #[test]
    fn a_ticket_not_owned_by_its_processs_user_is_passed_over_and_left() {
        // Only root can give a file to another user here.
        if own_uid() != 0 {
            eprintln!("skipped: not root, so no file of another user's can be planted");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let me = std::process::id();
        let other = 4242;
        let claims_me = format!("{:020}-{me}-0", 1);
        let claims_dead = format!("{:020}-{DEAD}-0", 2);
        plant(dir.path(), &claims_me, &format!("pid={me} job=recording"));
        plant(dir.path(), &claims_dead, "pid=0 job=run");
        for n in [&claims_me, &claims_dead] {
            std::os::unix::fs::chown(dir.path().join(n), Some(other), None).unwrap();
        }
        assert!(read_queue(dir.path(), &mut HashMap::new()).is_empty());
        assert!(dir.path().join(&claims_dead).exists(), "not ours to remove");
        assert!(dir.path().join(&claims_me).exists());
    }

    #[test]
    fn a_user_folder_under_a_turn_folder_that_is_a_link_is_not_made() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("private");
        fs::create_dir(&private).unwrap();
        let turns = dir.path().join("turns");
        std::os::unix::fs::symlink(&private, &turns).unwrap();
        assert!(register_user(&turns, "gpu").is_err());
        assert_eq!(fs::read_dir(&private).unwrap().count(), 0);
    }

    #[test]
    fn users_are_the_live_entries() {
        let dir = tempfile::tempdir().unwrap();
        register_user(dir.path(), "gpu").unwrap();
        register_user(dir.path(), "gpu").unwrap();
        let users = dir.path().join("gpu.users");
        fs::write(users.join(format!("{DEAD}-5")), "").unwrap();
        fs::write(users.join("junk"), "").unwrap();
        assert_eq!(self::users(dir.path(), "gpu"), vec![std::process::id()]);
        assert!(!users.join(format!("{DEAD}-5")).exists());
    }
}
