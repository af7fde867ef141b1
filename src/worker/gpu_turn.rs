//! Taking turns on a shared GPU: a workshop's learners run gpulab on one server, and one
//! learner's timing runs would disturb another's. Each timing run holds a lock file named
//! for the GPU's PCI address, in a folder every user can write; while it waits, a ticket in
//! a queue folder beside it lets the others count how many are ahead.

use std::fs::{self, File, OpenOptions};
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
        fs::create_dir_all(dir).map_err(err(dir))?;
        open_to_all(dir);
        let lock_path = dir.join(format!("{name}.lock"));
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(err(&lock_path))?;
        open_to_all(&lock_path);
        if lock.try_lock().is_ok() {
            return Ok(GpuTurn { lock, ticket: None });
        }
        let queue = dir.join(format!("{name}.queue"));
        fs::create_dir_all(&queue).map_err(err(&queue))?;
        open_to_all(&queue);
        let me = format!("{:020}-{}", now_nanos(), std::process::id());
        let ticket = queue.join(&me);
        File::create(&ticket).map_err(err(&ticket))?;
        let mut shown = usize::MAX;
        loop {
            if lock.try_lock().is_ok() {
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

/// Every user of the machine must be able to take a turn, and to clear a dead process's
/// ticket: the folders and the lock file are made writable by all.
fn open_to_all(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mode = if path.is_dir() { 0o777 } else { 0o666 };
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(mode));
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
