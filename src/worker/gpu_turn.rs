//! Taking turns on a shared GPU: a workshop's learners run gpulab on one server, and one
//! learner's timing runs would disturb another's. Each timing run holds a lock file named
//! for the GPU's PCI address, in a folder every user can write; while it waits, a ticket in
//! a queue folder beside it lets the others count how many are ahead.
//!
//! The folders are shared with every user of the machine, so nothing in them is trusted:
//! they carry the sticky bit (01777, as /tmp does: a user may remove only their own files),
//! a folder or a lock that is a link is refused, files are opened without following links
//! and created exclusively, and no mode is ever changed through a path. Another user who
//! plants a link where the lock goes gets an error from us, never a write through it.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Held while a timing run uses the GPU; dropping it lets the next one in.
pub struct GpuTurn {
    lock: File,
    ticket: Option<PathBuf>,
}

/// Why no turn could be arranged: the run goes on untimed-for-turns, as on a GPU of its own.
#[derive(Debug, thiserror::Error)]
#[error("cannot share the GPU's turns through {path}: {source}")]
pub struct TurnError {
    path: String,
    source: std::io::Error,
}

/// An error about a file the folder's rules refuse, in words.
fn refused(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::PermissionDenied, why)
}

impl GpuTurn {
    /// Wait for the GPU at `bus_id`, calling `waiting` with how many are ahead whenever that
    /// changes (0 never: a free GPU is taken at once).
    pub fn take(
        dir: &Path,
        bus_id: &str,
        mut waiting: impl FnMut(usize),
    ) -> Result<GpuTurn, TurnError> {
        let name = bus_id.replace(':', "-");
        let err = |path: &Path| {
            let path = path.display().to_string();
            move |source| TurnError { path, source }
        };
        shared_dir(dir).map_err(err(dir))?;
        let lock_path = dir.join(format!("{name}.lock"));
        let lock = open_lock(&lock_path).map_err(err(&lock_path))?;
        if lock.try_lock().is_ok() {
            name_holder(&lock);
            return Ok(GpuTurn { lock, ticket: None });
        }
        let queue = dir.join(format!("{name}.queue"));
        shared_dir(&queue).map_err(err(&queue))?;
        let me = format!("{:020}-{}", now_nanos(), std::process::id());
        let ticket = queue.join(&me);
        create_own(&ticket, 0o644)
            .and_then(|mut f| writeln!(f, "{}", std::process::id()))
            .map_err(err(&ticket))?;
        let mut shown = usize::MAX;
        loop {
            if lock.try_lock().is_ok() {
                name_holder(&lock);
                return Ok(GpuTurn {
                    lock,
                    ticket: Some(ticket),
                });
            }
            let ahead = ahead_of(&queue, &me);
            if ahead != shown {
                waiting(ahead.max(1));
                shown = ahead;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for GpuTurn {
    fn drop(&mut self) {
        let _ = self.lock.unlock();
        if let Some(t) = &self.ticket {
            let _ = fs::remove_file(t);
        }
    }
}

/// Tickets older than `me` whose process still lives (the one holding the lock has already
/// left the queue, so it counts as one more ahead). A dead process's ticket is removed.
fn ahead_of(queue: &Path, me: &str) -> usize {
    let Ok(entries) = fs::read_dir(queue) else {
        return 1;
    };
    let mut ahead = 1;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.as_str() >= me {
            continue;
        }
        let pid = name.rsplit('-').next().and_then(|p| p.parse::<i32>().ok());
        match pid {
            Some(pid) if alive(pid) => ahead += 1,
            _ => {
                let _ = fs::remove_file(e.path());
            }
        }
    }
    ahead
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

fn now_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// The shared folder `dir`, made if missing: every user may add files to it, and only
/// remove their own (01777). A link, or a folder another user left writable by all without
/// the sticky bit (where anyone could swap our lock), is refused. Its mode is set through
/// the opened folder, never through the path.
fn shared_dir(dir: &Path) -> std::io::Result<()> {
    match fs::create_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent() {
                fs::create_dir_all(parent)?;
            }
            match fs::create_dir(dir) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            }
        }
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
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
        if mode != 0o1777 {
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

/// A file of our own, created here and now: never an existing file, never through a link.
fn create_own(path: &Path, mode: u32) -> std::io::Result<File> {
    let f = OpenOptions::new()
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
mod tests {
    use super::*;

    #[test]
    fn a_free_gpu_is_taken_at_once_and_a_second_taker_waits_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = GpuTurn::take(dir.path(), "0000:17:00.0", |_| panic!("no wait")).unwrap();
        let d = dir.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        let second = std::thread::spawn(move || {
            let mut seen = Vec::new();
            let t = GpuTurn::take(&d, "0000:17:00.0", |n| {
                seen.push(n);
                let _ = tx.send(n);
            })
            .unwrap();
            drop(t);
            seen
        });
        // The second one says it waits, with one ahead: the holder.
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), 1);
        drop(first);
        let seen = second.join().unwrap();
        assert_eq!(seen, vec![1]);
        // Its ticket is gone once it has had its turn.
        let q = dir.path().join("0000-17-00.0.queue");
        assert_eq!(fs::read_dir(q).unwrap().count(), 0);
    }

    #[test]
    fn the_folder_is_sticky_and_the_lock_names_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let turns = dir.path().join("turns");
        let t = GpuTurn::take(&turns, "0000:17:00.0", |_| panic!("no wait")).unwrap();
        let mode = fs::metadata(&turns).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o1777, "{mode:o}");
        let lock = turns.join("0000-17-00.0.lock");
        assert_eq!(
            fs::read_to_string(&lock).unwrap().trim(),
            std::process::id().to_string()
        );
        drop(t);
    }

    #[test]
    fn a_link_planted_where_the_lock_goes_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        fs::write(&victim, "# mine\n").unwrap();
        fs::set_permissions(&victim, fs::Permissions::from_mode(0o600)).unwrap();
        let turns = dir.path().join("turns");
        fs::create_dir(&turns).unwrap();
        std::os::unix::fs::symlink(&victim, turns.join("0000-17-00.0.lock")).unwrap();
        let err = GpuTurn::take(&turns, "0000:17:00.0", |_| panic!("no wait"))
            .err()
            .expect("refused");
        let words = err.to_string();
        assert!(
            words.contains("0000-17-00.0.lock") && words.contains("link"),
            "{words}"
        );
        assert_eq!(fs::read_to_string(&victim).unwrap(), "# mine\n");
        assert_eq!(fs::metadata(&victim).unwrap().mode() & 0o7777, 0o600);
    }

    #[test]
    fn a_turn_folder_that_is_a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        fs::create_dir(&home).unwrap();
        fs::set_permissions(&home, fs::Permissions::from_mode(0o700)).unwrap();
        let turns = dir.path().join("turns");
        std::os::unix::fs::symlink(&home, &turns).unwrap();
        let err = GpuTurn::take(&turns, "0000:17:00.0", |_| panic!("no wait"))
            .err()
            .expect("refused");
        assert!(err.to_string().contains("link"), "{err}");
        assert_eq!(fs::metadata(&home).unwrap().mode() & 0o7777, 0o700);
        assert_eq!(fs::read_dir(&home).unwrap().count(), 0);
    }

    #[test]
    fn tickets_of_dead_processes_do_not_count_and_are_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let q = dir.path().join("q");
        fs::create_dir_all(&q).unwrap();
        // pid 0x7fff_fff0 does not exist; our own pid does.
        File::create(q.join(format!("{:020}-{}", 1, 0x7fff_fff0))).unwrap();
        File::create(q.join(format!("{:020}-{}", 2, std::process::id()))).unwrap();
        let me = format!("{:020}-{}", 3, 1);
        assert_eq!(ahead_of(&q, &me), 2);
        assert_eq!(fs::read_dir(&q).unwrap().count(), 1);
    }
}
