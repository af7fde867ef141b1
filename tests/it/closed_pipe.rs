//! A reader that has gone ends every command quietly (`gpulab check | head -1`): exit
//! status 141, as for a tool SIGPIPE ended, never a panic. Each command is run with its
//! stdout a pipe whose reading end is closed before it starts, so its first write fails;
//! a worker's closed pipe is still a fault the command reports.

use crate::support::common;

use common::bin;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `gpulab args` with stdout (and, when `both`, stderr) a pipe nobody reads.
fn into_closed_pipe(home: &Path, args: &[&str], both: bool) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env("GPULAB_DATA_DIR", home.join("data"))
        .env("GPULAB_WORKSPACE", home.join("work"))
        .env_remove("GPULAB_WORKER_FAKE")
        .env_remove("GPULAB_DEVICE")
        .stdin(Stdio::null())
        .stdout(writer.try_clone().unwrap());
    if both {
        cmd.stderr(writer);
    } else {
        drop(writer);
        cmd.stderr(Stdio::piped());
    }
    cmd.output().unwrap()
}

fn ends_quietly(home: &Path, args: &[&str], both: bool) {
    let out = into_closed_pipe(home, args, both);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(
        out.status.code(),
        Some(141),
        "{args:?}: {:?} {err}",
        out.status
    );
}

/// A home with a started exercise and one participant's progress for `ex summary`.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for args in [
        &["ex", "start", "pad-tile"][..],
        &["ex", "hint", "pad-tile"],
    ] {
        let out = Command::new(bin())
            .args(args)
            .env("GPULAB_DATA_DIR", home.path().join("people/ann"))
            .env("GPULAB_WORKSPACE", home.path().join("work"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    home
}

#[test]
fn every_command_that_needs_no_compiler_ends_quietly() {
    let home = home();
    let people = home.path().join("people");
    let people = people.to_str().unwrap();
    for args in [
        &["list"][..],
        &["list", "--json"],
        &["ex", "list"],
        &["ex", "list", "--json"],
        &["ex", "start", "coalesce-copy"],
        &["ex", "hint", "pad-tile"],
        &["ex", "hint", "pad-tile", "--json"],
        &["ex", "solution", "pad-tile", "--show-anyway"],
        &["ex", "summary", people],
        &["ex", "summary", people, "--json"],
        &["run", "01", "--replay"],
        &["run", "01", "--replay", "--json"],
        &["render", "01"],
        &["render", "06", "--view", "heatmap", "--reveal"],
        &["doctor"],
    ] {
        ends_quietly(home.path(), args, false);
    }
    // clap's help ends as clap ends it: quietly, with 0.
    let out = into_closed_pipe(home.path(), &["--help"], false);
    assert!(
        matches!(out.status.code(), Some(0 | 141)),
        "{:?}",
        out.status
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn check_without_nvrtc_ends_quietly() {
    let home = tempfile::tempdir().unwrap();
    let out = {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        Command::new(bin())
            .arg("check")
            .env("GPULAB_DATA_DIR", home.path())
            .env("PATH", "/nonexistent")
            .env_remove("GPULAB_CUDA")
            .env_remove("CUDA_HOME")
            .env_remove("CUDA_PATH")
            .stdout(writer)
            .output()
            .unwrap()
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
}

#[test]
fn stderr_gone_too_ends_quietly() {
    let home = home();
    // Progress goes to stderr before the figures go to stdout.
    ends_quietly(home.path(), &["run", "01", "--replay"], true);
    ends_quietly(home.path(), &["list"], true);
    // An error said to a gone stderr.
    let out = into_closed_pipe(home.path(), &["run", "no-such-lesson", "--replay"], true);
    assert_eq!(out.status.code(), Some(141), "{:?}", out.status);
}

#[test]
fn commands_that_talk_to_a_worker_end_quietly() {
    if !common::nvrtc_or_skip("commands_that_talk_to_a_worker_end_quietly") {
        return;
    }
    let home = home();
    let lesson = common::manifest_dir().join("lessons/06-shared-banks.yaml");
    for args in [
        &["check", lesson.to_str().unwrap()][..],
        &["sass", "06", "stride-1"],
        &["sass", "06", "stride-1", "--json"],
        &["diff", "06", "stride-1", "stride-32"],
        &["run", "06", "--cpu", "--variant", "stride-1"],
        &["ex", "check", "pad-tile", "--cpu"],
    ] {
        ends_quietly(home.path(), args, false);
    }
}

/// Only the reader of stdout ends a command quietly: a worker that dies mid-run is still
/// said, and the rest of the lesson runs.
#[test]
fn a_worker_that_dies_is_still_reported() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .args(["run", "01", "--no-trace"])
        .env("GPULAB_DATA_DIR", home.path())
        .env("GPULAB_WORKER_FAKE", "gpu,crash-on:stride-2")
        .env_remove("GPULAB_DEVICE")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let row = text.lines().find(|l| l.starts_with("stride-2 ")).unwrap();
    assert!(row.contains("crash"), "{row}");
    let after = text.lines().find(|l| l.starts_with("stride-32 ")).unwrap();
    assert!(!after.contains("crash"), "the rest ran: {after}");
}
