//! The real binary in a pseudo-terminal: after SIGTERM, SIGINT or SIGHUP the terminal is as
//! the lab found it (cooked mode with echo, main screen, cursor shown). Unix only.
#![cfg(unix)]

use crate::support::{common, pty};

use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pty::{contains, open_pty, reader, termios, wait_for};

const ENTER_ALT: &[u8] = b"\x1b[?1049h";
const LEAVE_ALT: &[u8] = b"\x1b[?1049l";
const SHOW_CURSOR: &[u8] = b"\x1b[?25h";

fn signal_restores_the_terminal(signal: libc::c_int, name: &str) {
    let pty = open_pty();
    let before = termios(&pty.slave);
    let out = reader(&pty.master);
    let data = tempfile::tempdir().unwrap();
    let slave = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
    let mut cmd = Command::new(common::bin());
    cmd.env("GPULAB_DATA_DIR", data.path())
        .env("TERM", "xterm-256color")
        .stdin(slave(&pty.slave))
        .stdout(slave(&pty.slave))
        .stderr(slave(&pty.slave));
    // SAFETY: only async-signal-safe calls between fork and exec: a new session, and the pty
    // as its controlling terminal, so the lab finds it at /dev/tty as a learner's would be.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    assert!(
        wait_for(&out, ENTER_ALT, Duration::from_secs(20)),
        "{name}: the lab never drew its first frame"
    );
    let raw = termios(&pty.slave);
    assert_eq!(
        raw.c_lflag & libc::ECHO,
        0,
        "{name}: not in raw mode while running"
    );
    // SAFETY: kill takes a pid we spawned and still own (not yet waited for).
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("{name}: the lab did not exit within 10 s of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(100));
    let after = termios(&pty.slave);
    let text = out.lock().unwrap().clone();
    let tail = &text[text.len().saturating_sub(400)..];
    assert_eq!(
        after.c_lflag & (libc::ECHO | libc::ICANON),
        before.c_lflag & (libc::ECHO | libc::ICANON),
        "{name}: echo and line mode not restored (exit {status:?})"
    );
    let enter = text
        .windows(ENTER_ALT.len())
        .rposition(|w| w == ENTER_ALT)
        .unwrap();
    assert!(
        contains(&text[enter..], LEAVE_ALT),
        "{name}: still on the alternate screen; last output: {:?}",
        String::from_utf8_lossy(tail)
    );
    assert!(
        contains(&text[enter..], SHOW_CURSOR),
        "{name}: cursor left hidden; last output: {:?}",
        String::from_utf8_lossy(tail)
    );
}

#[test]
fn sigterm_restores_the_terminal() {
    signal_restores_the_terminal(libc::SIGTERM, "SIGTERM");
}

#[test]
fn sigint_restores_the_terminal() {
    signal_restores_the_terminal(libc::SIGINT, "SIGINT");
}

#[test]
fn sighup_restores_the_terminal() {
    signal_restores_the_terminal(libc::SIGHUP, "SIGHUP");
}
