//! A pseudo-terminal for tests of the real binary: open one, read all the child writes on
//! a thread, wait for a string to appear. Unix only.

#![allow(dead_code)]

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Pty {
    pub master: OwnedFd,
    pub slave: OwnedFd,
}

pub fn open_pty() -> Pty {
    open_pty_sized(100, 30)
}

/// A pseudo-terminal of `cols` × `rows`. Both ends are opened close-on-exec, not made and
/// then marked (as `openpty` would need): the tests run side by side in one process, and a
/// child that another test starts in between would inherit them and hold this terminal
/// open for as long as it runs. A child given the slave as its stdio gets its own copies.
pub fn open_pty_sized(cols: u16, rows: u16) -> Pty {
    let err = std::io::Error::last_os_error;
    // SAFETY: posix_openpt takes flags only and returns a new fd or -1.
    let master = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC) };
    assert!(master >= 0, "posix_openpt: {}", err());
    // SAFETY: the fd was just returned by posix_openpt and is owned by nobody else.
    let master = unsafe { OwnedFd::from_raw_fd(master) };
    let fd = master.as_raw_fd();
    // SAFETY: fd is an open pseudo-terminal master for both calls.
    assert_eq!(unsafe { libc::grantpt(fd) }, 0, "grantpt: {}", err());
    // SAFETY: as above.
    assert_eq!(unsafe { libc::unlockpt(fd) }, 0, "unlockpt: {}", err());
    let mut name = [0 as libc::c_char; 128];
    // SAFETY: the buffer's length goes with it; on success it holds a NUL-terminated name.
    let rc = unsafe { libc::ptsname_r(fd, name.as_mut_ptr(), name.len()) };
    assert_eq!(
        rc,
        0,
        "ptsname_r: {}",
        std::io::Error::from_raw_os_error(rc)
    );
    // SAFETY: ptsname_r succeeded, so `name` is NUL-terminated within its length.
    let path = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) };
    // std opens every file close-on-exec; O_NOCTTY keeps this process from taking the
    // terminal as its own.
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(path.to_str().unwrap())
        .unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let size = libc::winsize {
        ws_row: rows,
        ws_col: cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: fd is open, and TIOCSWINSZ reads a winsize that outlives the call.
    let rc = unsafe { libc::ioctl(fd, libc::TIOCSWINSZ, &size) };
    assert_eq!(rc, 0, "TIOCSWINSZ: {}", err());
    Pty {
        master,
        slave: slave.into(),
    }
}

pub fn termios(fd: &OwnedFd) -> libc::termios {
    // SAFETY: termios is plain data that tcgetattr fills in whole on success.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: fd is an open terminal for the whole call.
    let rc = unsafe { libc::tcgetattr(fd.as_raw_fd(), &mut t) };
    assert_eq!(rc, 0, "tcgetattr: {}", std::io::Error::last_os_error());
    t
}

/// Everything the child writes, read on a thread so it never blocks on a full pty.
pub fn reader(master: &OwnedFd) -> Arc<Mutex<Vec<u8>>> {
    let out = Arc::new(Mutex::new(Vec::new()));
    let mut file = std::fs::File::from(master.try_clone().unwrap());
    let sink = out.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        // EIO ends the loop once the child has closed its side.
        while let Ok(n) = file.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    out
}

pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

pub fn wait_for(out: &Mutex<Vec<u8>>, needle: &[u8], within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if contains(&out.lock().unwrap(), needle) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The lab asks the terminal where its cursor is (as it starts, and as it redraws after an
/// editor): answered as a terminal would, for as long as the test runs.
pub fn answer_cursor_queries(out: &Arc<Mutex<Vec<u8>>>, mut keys: std::fs::File) {
    use std::io::Write;
    let out = out.clone();
    std::thread::spawn(move || {
        let mut answered = 0;
        loop {
            let asked = count(&out.lock().unwrap(), b"\x1b[6n");
            while answered < asked {
                if keys.write_all(b"\x1b[1;1R").is_err() {
                    return;
                }
                answered += 1;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
}

pub fn count(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}
