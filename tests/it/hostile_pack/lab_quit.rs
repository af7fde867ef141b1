//! `q` in the lab, in a real pseudo-terminal: the lab leaves at once, however large the
//! course and however many replies its worker has queued, and its worker leaves with it.

use super::{children, running, snapshot_pack};
use crate::support::common::bin;
use crate::support::pty;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pty::{Pty, contains, open_pty, reader};

/// The lab on `lessons` in a fresh pseudo-terminal, as a learner starts it.
struct Lab {
    pty: Pty,
    out: Arc<Mutex<Vec<u8>>>,
    child: Child,
    _data: tempfile::TempDir,
}

impl Lab {
    fn open(lessons: &Path) -> Lab {
        let pty = open_pty();
        let out = reader(&pty.master);
        let data = tempfile::tempdir().unwrap();
        let slave = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
        let mut cmd = Command::new(bin());
        cmd.arg("--lessons")
            .arg(lessons)
            .env("GPULAB_DATA_DIR", data.path())
            .env("TERM", "xterm-256color")
            .env_remove("GPULAB_DEVICE")
            .stdin(slave(&pty.slave))
            .stdout(slave(&pty.slave))
            .stderr(slave(&pty.slave));
        // SAFETY: only async-signal-safe calls between fork and exec: a new session, and the
        // pty as its controlling terminal, so the lab finds it at /dev/tty.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().unwrap();
        Lab {
            pty,
            out,
            child,
            _data: data,
        }
    }

    fn type_keys(&self, keys: &[u8]) {
        // SAFETY: writing a buffer we own to the pty master, open for the whole call.
        let n = unsafe {
            libc::write(
                self.pty.master.as_raw_fd(),
                keys.as_ptr().cast(),
                keys.len(),
            )
        };
        assert_eq!(n, keys.len() as isize);
    }

    /// Wait for `needle` on screen within `limit`, answering the terminal's cursor-position
    /// question as a terminal does meanwhile.
    fn wait_for(&mut self, needle: &[u8], limit: Duration) -> bool {
        let start = Instant::now();
        let mut answered = 0;
        while start.elapsed() < limit {
            let text = self.out.lock().unwrap().clone();
            let asked = text.windows(4).filter(|w| w == b"\x1b[6n").count();
            while answered < asked {
                self.type_keys(b"\x1b[1;1R");
                answered += 1;
            }
            if contains(&text, needle) {
                return true;
            }
            if self.child.try_wait().unwrap().is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// `q`, and how long the lab took to exit (None: not within `limit`, and it was killed).
    fn quit_within(&mut self, limit: Duration) -> Option<Duration> {
        self.type_keys(b"q");
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "the lab left with {status:?}");
                return Some(start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }

    /// The workers the lab has started, waiting up to `limit` for the first.
    fn workers(&self, limit: Duration) -> Vec<u32> {
        let start = Instant::now();
        loop {
            let w = children(self.child.id());
            if !w.is_empty() || start.elapsed() > limit {
                return w;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Gone within five seconds; killed (and a failure) if not.
fn gone_soon(pid: u32) -> bool {
    let t = Instant::now();
    while running(pid) && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = running(pid);
    if left {
        // SAFETY: the worker this test's lab started; leave nothing behind.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    !left
}

#[test]
fn q_in_the_lab_leaves_no_worker_behind() {
    let pack = snapshot_pack();
    let mut lab = Lab::open(&pack.path().join("lessons"));
    assert!(
        lab.wait_for(b"strided", Duration::from_secs(60)),
        "the lab never showed its course"
    );
    let workers = lab.workers(Duration::from_secs(30));
    assert_eq!(workers.len(), 1, "one worker: {workers:?}");
    assert!(
        lab.quit_within(Duration::from_secs(10)).is_some(),
        "q did not leave"
    );
    assert!(gone_soon(workers[0]), "the worker outlived the lab by 5 s");
}

#[test]
fn quitting_a_ten_thousand_lesson_course_is_prompt() {
    // Ten thousand copies of one lesson: the worker answers each one's compile reports
    // from its cache at once (where NVRTC is), faster than the lab draws a frame of the
    // whole list, and the `q` came after all of them.
    let pack = snapshot_pack();
    let lessons = pack.path().join("lessons");
    let text = std::fs::read_to_string(lessons.join("01-copy-basics.yaml")).unwrap();
    for f in std::fs::read_dir(&lessons).unwrap().flatten() {
        std::fs::remove_file(f.path()).unwrap();
    }
    for i in 0..10_000 {
        let t = text.replace("id: copy-basics", &format!("id: l{i}"));
        std::fs::write(lessons.join(format!("{i:05}-l{i}.yaml")), t).unwrap();
    }
    let mut lab = Lab::open(&lessons);
    assert!(
        lab.wait_for(b"strided", Duration::from_secs(300)),
        "the lab never showed its course"
    );
    let workers = lab.workers(Duration::from_secs(30));
    // The compile reports stream in meanwhile.
    std::thread::sleep(Duration::from_secs(5));
    let took = lab.quit_within(Duration::from_secs(30));
    assert!(took.is_some(), "q did not leave within 30 s");
    for w in workers {
        assert!(gone_soon(w), "the worker outlived the lab by 5 s");
    }
}
