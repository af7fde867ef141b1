//! The real binary in a pseudo-terminal: on an exercise, `e` lends the terminal to the
//! learner's `$EDITOR` (cooked mode, the main screen, every key typed reaching the editor
//! and none the lab) and takes it back after (the alternate screen again, keys reaching the
//! lab). The editor here is a script that notes the terminal's mode, reads a line typed at
//! it and saves the learner's file. Unix only. The line typed is written under another name
//! and renamed, since a shell's `>` makes the file before it writes to it.
#![cfg(unix)]

use crate::support::{common, pty, vt};

use pty::{answer_cursor_queries, count, open_pty, reader, wait_for};
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

const ENTER_ALT: &[u8] = b"\x1b[?1049h";

const EDITOR: &str = r#"#!/bin/sh
stty -a > "$EDITOR_NOTES/tty"
: > "$EDITOR_NOTES/started"
IFS= read -r line
printf '%s' "$line" > "$EDITOR_NOTES/typed.part"
mv "$EDITOR_NOTES/typed.part" "$EDITOR_NOTES/typed"
printf '// edited\n' > "$1"
"#;

fn wait_file(p: &Path, within: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < within {
        if p.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn e_lends_the_terminal_to_the_editor_and_takes_it_back() {
    use std::os::unix::fs::PermissionsExt;
    let pty = open_pty();
    let out = reader(&pty.master);
    let tmp = tempfile::tempdir().unwrap();
    let (data, notes) = (tmp.path().join("data"), tmp.path().join("notes"));
    std::fs::create_dir_all(&notes).unwrap();
    let editor = tmp.path().join("editor.sh");
    std::fs::write(&editor, EDITOR).unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let slave = |fd: &OwnedFd| Stdio::from(fd.try_clone().unwrap());
    let mut cmd = Command::new(common::bin());
    cmd.env("GPULAB_DATA_DIR", &data)
        .env_remove("GPULAB_WORKSPACE")
        .env_remove("VISUAL")
        .env("EDITOR", &editor)
        .env("EDITOR_NOTES", &notes)
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
    assert!(
        wait_for(&out, b"local-rung", Duration::from_secs(30)),
        "the course with its exercises never showed: {:?}",
        String::from_utf8_lossy(&out.lock().unwrap())
    );
    // From the first lesson: down onto its first exercise.
    keys.write_all(b"j").unwrap();
    // Read from the screen as drawn: a frame writes only the cells that changed.
    let start = Instant::now();
    let mut opened = false;
    while !opened && start.elapsed() < Duration::from_secs(10) {
        let mut screen = vt::Screen::new(100, 30);
        screen.feed(&out.lock().unwrap());
        opened = screen.text().contains("exercise local-rung");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(opened, "the exercise never opened");
    keys.write_all(b"e").unwrap();
    let started = wait_file(&notes.join("started"), Duration::from_secs(10));
    if !started {
        let _ = child.kill();
        panic!("the editor never started");
    }
    let tty = std::fs::read_to_string(notes.join("tty")).unwrap();
    assert!(
        tty.contains(" icanon") && tty.contains(" echo "),
        "the editor got a cooked terminal: {tty}"
    );
    keys.write_all(b"hello\r").unwrap();
    assert!(wait_file(&notes.join("typed"), Duration::from_secs(10)));
    let typed = std::fs::read_to_string(notes.join("typed")).unwrap();
    assert_eq!(typed, "hello", "every key typed reached the editor");
    let file = data.join("exercises/local-rung.cu");
    let back = Instant::now();
    while count(&out.lock().unwrap(), ENTER_ALT) < 2 && back.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        count(&out.lock().unwrap(), ENTER_ALT),
        2,
        "the lab took its screen back"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "// edited\n");
    // The keys reach the lab again: q leaves it. Keys typed in the moment the lab takes
    // the terminal back are dropped with the editor's leftovers, by design, so q is typed
    // again each second until the lab has gone.
    let start = Instant::now();
    let mut typed_at = None::<Instant>;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("q did not reach the lab after the editor");
        }
        if typed_at.is_none_or(|t| t.elapsed() > Duration::from_secs(1)) {
            std::thread::sleep(Duration::from_millis(200));
            keys.write_all(b"q").unwrap();
            typed_at = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(100));
    let text = out.lock().unwrap().clone();
    let tail = String::from_utf8_lossy(&text[text.len().saturating_sub(300)..]).into_owned();
    assert!(status.success(), "{status:?}: {tail:?}");
}
