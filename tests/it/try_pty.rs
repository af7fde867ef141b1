//! `gpulab try` in a pseudo-terminal, the real binary end to end: the lab opens on the
//! tried kernel and runs it (on the CPU interpreter: the worker is shown no GPU), a save of
//! the file from outside the lab runs it again with the header as saved, `q` leaves with 0,
//! and no progress file is written. NVRTC only (CI has it); skipped, saying why, without.
#![cfg(unix)]

use crate::support::{common, pty, vt};

use pty::{answer_cursor_queries, open_pty_sized, reader};
use std::io::Write;
use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Wait until the screen as drawn shows `needle`; the screen's text either way.
fn wait_screen(out: &Arc<Mutex<Vec<u8>>>, needle: &str, within: Duration) -> (bool, String) {
    let start = Instant::now();
    loop {
        let mut screen = vt::Screen::new(100, 30);
        screen.feed(&out.lock().unwrap());
        let text = screen.text();
        if text.contains(needle) {
            return (true, text);
        }
        if start.elapsed() > within {
            return (false, text);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_lab_on_a_try_runs_it_and_runs_it_again_on_save() {
    if !common::nvrtc_or_skip("the_lab_on_a_try_runs_it_and_runs_it_again_on_save") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("stencil.cu");
    let text =
        std::fs::read_to_string(common::manifest_dir().join("examples/try/stencil.cu")).unwrap();
    std::fs::write(&file, &text).unwrap();
    let data = tmp.path().join("data");
    let pty = open_pty_sized(100, 30);
    let out = reader(&pty.master);
    let slave = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
    let mut cmd = Command::new(common::bin());
    cmd.args(["try", "stencil.cu"])
        .current_dir(tmp.path())
        .env("GPULAB_DATA_DIR", &data)
        .env("CUDA_VISIBLE_DEVICES", "-1")
        .env("GPULAB_TIMEOUT_S", "300")
        .env("TERM", "xterm-256color")
        .stdin(slave(&pty.slave))
        .stdout(slave(&pty.slave))
        .stderr(slave(&pty.slave));
    // SAFETY: only async-signal-safe calls between fork and exec: a new session, and the pty
    // as its controlling terminal.
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
    let mut keys = std::fs::File::from(pty.master.try_clone().unwrap());
    answer_cursor_queries(&out, keys.try_clone().unwrap());
    let long = Duration::from_secs(120);
    let (ran, screen) = wait_screen(&out, "traced 4 of", long);
    if !ran {
        let _ = child.kill();
        panic!("the try never ran:\n{screen}");
    }
    assert!(
        screen.contains("race:"),
        "the stencil's race is shown:\n{screen}"
    );
    // Saved from outside the lab, with a header that traces two blocks.
    std::fs::write(&file, text.replace("block=256", "block=256 trace=2")).unwrap();
    let (again, screen) = wait_screen(&out, "traced 2 of", long);
    if !again {
        let _ = child.kill();
        panic!("the save did not run the try again:\n{screen}");
    }
    keys.write_all(b"q").unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("q did not end the lab");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    assert!(
        !data.join("progress.json").exists(),
        "a try writes no progress"
    );
}
