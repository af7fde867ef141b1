//! A lesson pack written by someone hostile, and a second user of the same machine, cannot
//! hurt the learner: nothing written outside the pack and the learner's own folders, nothing
//! read outside the pack, no panic, no hang (each case bounded in time), no progress lost to
//! two writers at once. Each case is one way in that was found open; keep adding them.

use crate::support::common;

use common::{bin, fixture};
use gpulab::session::exercise::progress::ExerciseBook;
use gpulab::session::progress::Progress;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn said(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `gpulab` with `args`, its data in `data`, killed if it runs past `limit` (a hang is a
/// failure, not a stuck test run).
fn gpulab_within(limit: Duration, data: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env("GPULAB_DATA_DIR", data)
        .env_remove("GPULAB_WORKSPACE")
        .env_remove("GPULAB_DEVICE")
        .env_remove("GPULAB_TIMEOUT_S")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // SAFETY: signalling the child this test started.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("gpulab {args:?} ran past {limit:?}");
        }
    }
}

/// The exercise pack, copied: its lessons folder, and a data folder beside it.
struct Pack {
    tmp: tempfile::TempDir,
}

impl Pack {
    fn ex() -> Pack {
        let tmp = tempfile::tempdir().unwrap();
        copy_dir(&fixture("expack"), &tmp.path().join("course"));
        std::fs::create_dir_all(tmp.path().join("data")).unwrap();
        Pack { tmp }
    }

    fn lessons(&self) -> PathBuf {
        self.tmp.path().join("course/lessons")
    }

    fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    fn ex_cmd(&self, args: &[&str]) -> Output {
        let lessons = self.lessons();
        let ws = self.tmp.path().join("ws");
        let mut all = vec![
            "--lessons",
            lessons.to_str().unwrap(),
            "ex",
            "--workspace",
            ws.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        gpulab_within(Duration::from_secs(60), &self.data(), &all, &[])
    }
}

// ---- progress: two writers, unreadable files, links ----

#[test]
fn two_writers_of_exercise_progress_lose_no_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exercises.json");
    // Two labs: each reads the file once and saves its own copy after every change.
    let writers: Vec<_> = (0..2)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let (mut book, _) = ExerciseBook::load_from(&path);
                for _ in 0..100 {
                    book.record_attempt("x", false, None);
                    book.save_to(&path).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let (book, note) = ExerciseBook::load_from(&path);
    assert_eq!(note, None);
    assert_eq!(book.get("x").attempts, 200, "an attempt was lost");
}

#[test]
fn two_writers_of_lesson_progress_lose_no_run_and_no_page() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("progress.json");
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let (mut p, _) = Progress::load_from(&path);
                for i in 0..100 {
                    p.mark_run("a");
                    // Each writer reads its own lesson's pages.
                    p.mark_page(if w == 0 { "b" } else { "c" }, i);
                    p.save_to(&path).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let (p, _) = Progress::load_from(&path);
    assert_eq!(p.get("a").runs, 200, "a run was lost");
    assert_eq!((p.get("b").pages_read, p.get("c").pages_read), (100, 100));
}

#[test]
fn an_unreadable_exercise_progress_file_is_an_error_naming_it_and_is_kept() {
    use std::os::unix::fs::PermissionsExt;
    let pack = Pack::ex();
    let book = pack.data().join("exercises.json");
    let before = r#"{"exercises":{"fix-copy":{"attempts":7,"hints_shown":1}}}"#;
    std::fs::write(&book, before).unwrap();
    std::fs::set_permissions(&book, std::fs::Permissions::from_mode(0o000)).unwrap();
    let root = std::fs::read(&book).is_ok();
    if root {
        // Root reads any file: a folder in its place cannot be read as one either.
        std::fs::remove_file(&book).unwrap();
        std::fs::create_dir(&book).unwrap();
        std::fs::write(book.join("inside"), before).unwrap();
    }
    let out = pack.ex_cmd(&["hint", "fix-copy"]);
    assert_ne!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("exercises.json") && said(&out).contains("cannot read"),
        "{}",
        said(&out)
    );
    if root {
        assert_eq!(
            std::fs::read_to_string(book.join("inside")).unwrap(),
            before
        );
    } else {
        std::fs::set_permissions(&book, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(std::fs::read_to_string(&book).unwrap(), before);
    }
}

#[test]
fn a_progress_link_out_of_the_data_folder_is_refused_and_one_inside_written_through() {
    let pack = Pack::ex();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("bashrc");
    std::fs::write(&victim, "# mine\n").unwrap();
    let book = pack.data().join("exercises.json");
    std::os::unix::fs::symlink(&victim, &book).unwrap();
    let out = pack.ex_cmd(&["hint", "fix-copy"]);
    assert_ne!(out.status.code(), Some(0), "{}", said(&out));
    assert!(
        said(&out).contains("outside") && said(&out).contains("exercises.json"),
        "{}",
        said(&out)
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "# mine\n");

    std::fs::remove_file(&book).unwrap();
    std::os::unix::fs::symlink("kept/book.json", &book).unwrap();
    std::fs::create_dir_all(pack.data().join("kept")).unwrap();
    let out = pack.ex_cmd(&["hint", "fix-copy"]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(std::fs::symlink_metadata(&book).unwrap().is_symlink());
    let real = std::fs::read_to_string(pack.data().join("kept/book.json")).unwrap();
    assert!(real.contains("\"hints_shown\": 1"), "{real}");
}

// ---- the shared GPU turn folder: another user of the server ----

#[test]
fn a_link_planted_where_the_gpu_lock_goes_leaves_its_target_untouched() {
    use gpulab::model::protocol::JobKind;
    use gpulab::worker::gpu_turn::GpuTurn;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victims-bashrc");
    std::fs::write(&victim, "# mine\n").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
    let turns = dir.path().join("gpulab-gpu-turns");
    std::fs::create_dir(&turns).unwrap();
    let made = std::fs::metadata(&turns).unwrap().permissions().mode() & 0o7777;
    std::os::unix::fs::symlink(&victim, turns.join("0000-41-00.0.lock")).unwrap();
    let err = GpuTurn::take(&turns, "0000:41:00.0", JobKind::Run, |_| {})
        .err()
        .expect("a planted link is refused");
    assert!(err.to_string().contains("is a link"), "{err}");
    let meta = std::fs::metadata(&victim).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o600, "mode changed");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "# mine\n");
    // A folder of ours that was there already keeps the mode we gave it: only one made
    // by gpulab is opened to every user (01777).
    let mode = std::fs::metadata(&turns).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, made, "our own folder's mode changed: {mode:o}");
}

// ---- render --all: the pack's snapshot folder ----

/// The fixture pack (lessons and kernels) in a fresh folder, snapshots written by `--update`.
fn snapshot_pack() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["lessons", "kernels"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        for e in std::fs::read_dir(fixture(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                std::fs::copy(&p, dir.path().join(sub).join(p.file_name().unwrap())).unwrap();
            }
        }
    }
    dir
}

fn render_all(pack: &Path, mode: &str) -> Output {
    let lessons = pack.join("lessons");
    gpulab_within(
        Duration::from_secs(120),
        &pack.join("data"),
        &[
            "--lessons",
            lessons.to_str().unwrap(),
            "render",
            "--all",
            mode,
        ],
        &[],
    )
}

/// Every file under `dir` with its bytes, to show that nothing changed.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                out.extend(tree(&p));
            } else if meta.is_symlink() {
                out.push((
                    p.clone(),
                    std::fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                ));
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn render_check_writes_nothing_at_all_and_never_through_a_link() {
    let pack = snapshot_pack();
    let snaps = pack.path().join("snapshots");
    let outside = tempfile::tempdir().unwrap();
    let rc = outside.path().join("shellrc");
    std::fs::write(&rc, "# mine\n").unwrap();
    std::fs::create_dir_all(&snaps).unwrap();
    // A screen that differs (no snapshot yet) and a .snap.new already a link to a file
    // outside the pack: the old check wrote the page there.
    std::os::unix::fs::symlink(&rc, snaps.join("copy-basics__120x40.snap.new")).unwrap();
    let before = tree(pack.path());
    let out = render_all(pack.path(), "--check");
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert_eq!(std::fs::read_to_string(&rc).unwrap(), "# mine\n");
    assert_eq!(tree(pack.path()), before, "--check wrote into the pack");
}

#[test]
fn render_update_refuses_a_snapshot_that_is_a_link_naming_it_and_the_rule() {
    let pack = snapshot_pack();
    let snaps = pack.path().join("snapshots");
    let outside = tempfile::tempdir().unwrap();
    let rc = outside.path().join("shellrc");
    std::fs::write(&rc, "# mine\n").unwrap();
    std::fs::create_dir_all(&snaps).unwrap();
    std::os::unix::fs::symlink(&rc, snaps.join("copy-basics__120x40.snap")).unwrap();
    for mode in ["--update", "--check"] {
        let out = render_all(pack.path(), mode);
        assert_eq!(out.status.code(), Some(2), "{}", said(&out));
        let words = said(&out);
        assert!(
            words.contains("copy-basics__120x40.snap is a link")
                && words.contains("never through a link"),
            "{words}"
        );
        assert_eq!(std::fs::read_to_string(&rc).unwrap(), "# mine\n");
    }
}

#[test]
fn render_refuses_a_snapshot_folder_that_is_a_link() {
    let pack = snapshot_pack();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), pack.path().join("snapshots")).unwrap();
    for mode in ["--update", "--check"] {
        let out = render_all(pack.path(), mode);
        assert_eq!(out.status.code(), Some(2), "{}", said(&out));
        assert!(said(&out).contains("snapshots is a link"), "{}", said(&out));
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}

#[test]
fn render_names_a_fifo_where_a_snapshot_goes_as_a_fifo_not_a_file() {
    let pack = snapshot_pack();
    let snaps = pack.path().join("snapshots");
    std::fs::create_dir_all(&snaps).unwrap();
    let fifo = snaps.join("copy-basics__120x40.snap");
    let _ = std::fs::remove_file(&fifo);
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let out = render_all(pack.path(), "--check");
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("is a FIFO, not a plain file"),
        "{}",
        said(&out)
    );
}

#[test]
fn render_update_removes_a_stale_snap_new_link_without_touching_its_target() {
    let pack = snapshot_pack();
    let snaps = pack.path().join("snapshots");
    let outside = tempfile::tempdir().unwrap();
    let rc = outside.path().join("shellrc");
    std::fs::write(&rc, "# mine\n").unwrap();
    std::fs::create_dir_all(&snaps).unwrap();
    let new = snaps.join("copy-basics__120x40.snap.new");
    std::os::unix::fs::symlink(&rc, &new).unwrap();
    let out = render_all(pack.path(), "--update");
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(std::fs::symlink_metadata(&new).is_err(), "the link is gone");
    assert_eq!(std::fs::read_to_string(&rc).unwrap(), "# mine\n");
}

#[test]
fn render_states_its_largest_screen_instead_of_allocating_one() {
    let pack = snapshot_pack();
    let lessons = pack.path().join("lessons");
    let started = Instant::now();
    let out = gpulab_within(
        Duration::from_secs(20),
        &pack.path().join("data"),
        &[
            "--lessons",
            lessons.to_str().unwrap(),
            "render",
            "copy-basics",
            "--width",
            "65535",
            "--height",
            "65535",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("1000"), "{}", said(&out));
    assert!(started.elapsed() < Duration::from_secs(20));
}

// ---- workers end with their parent ----

/// The children of `pid`, from /proc.
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // pid (comm) state ppid ...: comm may hold spaces, so read after its ')'.
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let ppid: u32 = after.split(' ').nth(1).unwrap().parse().unwrap();
        if ppid == pid {
            out.push(child);
        }
    }
    out
}

/// Gone, or a zombie waiting to be reaped by whoever adopted it: no longer running.
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat[stat.rfind(')').unwrap() + 2..].starts_with('Z'),
        Err(_) => false,
    }
}

#[test]
fn a_worker_whose_gpulab_run_is_killed_ends_too() {
    let pack = snapshot_pack();
    let lessons = pack.path().join("lessons");
    let mut run = Command::new(bin())
        .args(["--lessons", lessons.to_str().unwrap(), "run", "copy-basics"])
        .env("GPULAB_DATA_DIR", pack.path().join("data"))
        // A fake GPU whose first variant never ends, and no stall timeout to stop it.
        .env("GPULAB_WORKER_FAKE", "gpu,hang-on:stride-1")
        .env("GPULAB_TIMEOUT_S", "600")
        .env_remove("GPULAB_DEVICE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the worker to be in the endless variant: its stage is said on stderr.
    let stderr = run.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("stride-1") {
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the run never reached the endless variant");
    let workers = children(run.id());
    assert_eq!(workers.len(), 1, "one worker: {workers:?}");
    let worker = workers[0];
    assert!(running(worker));
    run.kill().unwrap();
    run.wait().unwrap();
    let t = Instant::now();
    while running(worker) && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = running(worker);
    if left {
        // SAFETY: the worker this test's run started; leave nothing behind.
        unsafe { libc::kill(worker as i32, libc::SIGKILL) };
    }
    assert!(!left, "the worker outlived its parent by 5 s");
}

#[test]
fn a_worker_whose_parent_dies_leaves_even_with_its_stdin_still_open() {
    use std::io::BufRead;
    // The parent, a shell, starts the worker on a copy of the stdin this test holds open,
    // says its pid, and waits; killing it leaves the worker nothing but the parent's death
    // to notice.
    let mut parent = Command::new("sh")
        .arg("-c")
        .arg(r#"exec 3<&0; "$0" worker <&3 3<&- & echo $!; exec sleep 600"#)
        .arg(bin())
        .env_remove("GPULAB_WORKER_PARENT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut said = std::io::BufReader::new(parent.stdout.take().unwrap());
    said.read_line(&mut line).unwrap();
    let worker: u32 = line.trim().parse().unwrap();
    // Give it the moment it needs to start and ask to follow its parent.
    std::thread::sleep(Duration::from_millis(300));
    assert!(running(worker));
    // Held apart: `wait` would close it.
    let held = parent.stdin.take();
    parent.kill().unwrap();
    parent.wait().unwrap();
    let t = Instant::now();
    while running(worker) && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = running(worker);
    if left {
        // SAFETY: the worker this test started; leave nothing behind.
        unsafe { libc::kill(worker as i32, libc::SIGKILL) };
    }
    drop((held, said));
    assert!(!left, "the worker outlived its parent by 5 s");
}

// ---- text from the pack reaches the terminal with its controls made visible ----

/// The exercise pack with escape sequences in its title, task, hints and a warning.
fn escaping_pack() -> Pack {
    let pack = Pack::ex();
    let yaml = pack.lessons().join("01-tiny.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let text = text
        .replace(
            r#"title: "A copy with one exercise""#,
            r#"title: "A copy\e]0;pwned\a\e[2K""#,
        )
        .replace(
            r#"title: "Copy without spilling""#,
            r#"title: "Copy\e]52;c;cm0gLXJmIH4=\a""#,
        )
        .replace(
            "    task: |\n      Copy in to out without spilling under the register cap.",
            r#"    task: "Copy in to out.\r\e[32mall checks passed\e[0m\n""#,
        )
        .replace(r#"- "First hint.""#, r#"- "First\e[1A\e[2K hint.""#)
        // A right-to-left override, which a terminal would honour: the words shown in
        // another order than they are.
        .replace(
            r#"title: "Copy\e]52;c;cm0gLXJmIH4=\a""#,
            r#"title: "Copy\e]52;c;cm0gLXJmIH4=\a \u202Edessap\u202C""#,
        );
    assert!(text.matches(r"\e").count() >= 6, "the fixture moved");
    std::fs::write(&yaml, text).unwrap();
    pack
}

fn assert_no_controls(what: &str, out: &Output) {
    let all = said(out);
    assert!(
        !all.chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t')
                || gpulab::course::text::is_bidi_control(c)),
        "{what} printed a control character: {all:?}"
    );
    assert!(all.contains("^["), "{what} shows the escape as ^[: {all}");
}

#[test]
fn pack_text_printed_by_the_cli_has_its_controls_made_visible() {
    let pack = escaping_pack();
    let lessons = pack.lessons();
    let list = gpulab_within(
        Duration::from_secs(30),
        &pack.data(),
        &["--lessons", lessons.to_str().unwrap(), "list"],
        &[],
    );
    assert_eq!(list.status.code(), Some(0), "{}", said(&list));
    assert_no_controls("list", &list);
    for args in [&["list"][..], &["start", "fix-copy"], &["hint", "fix-copy"]] {
        let out = pack.ex_cmd(args);
        assert_eq!(out.status.code(), Some(0), "ex {args:?}: {}", said(&out));
        assert_no_controls(&format!("ex {args:?}"), &out);
        if args == ["list"] {
            assert!(said(&out).contains("\\u{202e}dessap"), "{}", said(&out));
        }
    }
    // An error quoting the pack: a lesson id it does not have, named back.
    let out = gpulab_within(
        Duration::from_secs(30),
        &pack.data(),
        &[
            "--lessons",
            lessons.to_str().unwrap(),
            "run",
            "no\u{1b}[2Jsuch",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert_no_controls("run's error", &out);
}

// ---- crashes and hangs, each bounded in time ----

/// The fixture pack with `edit` applied to its first lesson; `gpulab list` and `check` on
/// it must answer within `limit`, exit 2 and name the place.
fn refused_within(limit: Duration, edit: impl Fn(&str) -> String, want: &str) {
    let pack = snapshot_pack();
    let yaml = pack.path().join("lessons/01-copy-basics.yaml");
    let before = std::fs::read_to_string(&yaml).unwrap();
    let edited = edit(&before);
    assert_ne!(edited, before, "the fixture moved");
    std::fs::write(&yaml, edited).unwrap();
    let lessons = pack.path().join("lessons");
    for cmd in ["list", "check"] {
        let started = Instant::now();
        let out = gpulab_within(
            limit,
            &pack.path().join("data"),
            &["--lessons", lessons.to_str().unwrap(), cmd],
            &[],
        );
        let words = said(&out);
        assert!(
            matches!(out.status.code(), Some(1 | 2)),
            "{cmd}: {:?} {words}",
            out.status
        );
        assert!(words.contains(want), "{cmd}: {words}");
        assert!(started.elapsed() < limit);
    }
}

#[test]
fn fifty_thousand_minus_signs_in_a_length_are_an_error_at_their_place() {
    refused_within(
        Duration::from_secs(30),
        |t| {
            t.replace(
                r#"len: "n", init: poison"#,
                &format!(r#"len: "{}n", init: poison"#, "-".repeat(50_000)),
            )
        },
        "01-copy-basics.yaml:14:",
    );
}

#[test]
fn two_hundred_thousand_nested_brackets_are_an_error_at_their_place() {
    refused_within(
        Duration::from_secs(30),
        |t| {
            t.replace(
                "trace: { blocks: 2 }",
                &format!("trace: {}", "[".repeat(200_000)),
            )
        },
        "nested too deeply",
    );
}

#[test]
fn a_one_line_flow_list_of_forty_thousand_maps_loads_in_linear_time() {
    let pack = snapshot_pack();
    let yaml = pack.path().join("lessons/01-copy-basics.yaml");
    let yaml_text = std::fs::read_to_string(&yaml).unwrap();
    let items: Vec<String> = (0..40_000)
        .map(|i| format!("{{ name: b{i}, type: f32, len: 4, init: zeros }}"))
        .collect();
    let start = yaml_text.find("buffers:\n").unwrap();
    let end = yaml_text.find("variants:\n").unwrap();
    let edited = format!(
        "{}buffers: [{{ name: in, type: f32, len: n, init: random }}, \
         {{ name: out, type: f32, len: n, init: poison }}, \
         {{ name: scale, type: i32, len: 4, init: const, value: 3 }}, {}]\n{}",
        &yaml_text[..start],
        items.join(", "),
        &yaml_text[end..]
    );
    std::fs::write(&yaml, edited).unwrap();
    let lessons = pack.path().join("lessons");
    let started = Instant::now();
    // Linear, this is a few seconds even unoptimised; quadratic, it was minutes.
    let out = gpulab_within(
        Duration::from_secs(60),
        &pack.path().join("data"),
        &["--lessons", lessons.to_str().unwrap(), "list"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    eprintln!("40,000 buffers listed in {:?}", started.elapsed());
}

#[test]
fn a_fifo_named_as_a_kernel_is_refused_without_waiting() {
    let pack = snapshot_pack();
    let kernel = pack.path().join("kernels/copy.cu");
    std::fs::remove_file(&kernel).unwrap();
    let c = std::ffi::CString::new(kernel.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string naming a path in the test's own folder.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let lessons = pack.path().join("lessons");
    for cmd in ["list", "check"] {
        let out = gpulab_within(
            Duration::from_secs(20),
            &pack.path().join("data"),
            &["--lessons", lessons.to_str().unwrap(), cmd],
            &[],
        );
        assert!(
            said(&out).contains("`kernels/copy.cu` is not a plain file (a FIFO)"),
            "{cmd}: {}",
            said(&out)
        );
    }
}

#[test]
fn a_fifo_named_as_a_starter_is_refused_without_waiting() {
    let pack = Pack::ex();
    let starter = pack
        .tmp
        .path()
        .join("course/exercises/tiny/fix-copy/starter.cu");
    std::fs::remove_file(&starter).unwrap();
    let c = std::ffi::CString::new(starter.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string naming a path in the test's own folder.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let out = pack.ex_cmd(&["list"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("not a plain file (a FIFO)"),
        "{}",
        said(&out)
    );
}

#[test]
fn an_endless_timeout_does_not_panic() {
    let pack = snapshot_pack();
    let lessons = pack.path().join("lessons");
    for value in ["inf", "1e30"] {
        let out = gpulab_within(
            Duration::from_secs(60),
            &pack.path().join("data"),
            &["--lessons", lessons.to_str().unwrap(), "run", "copy-basics"],
            &[("GPULAB_TIMEOUT_S", value), ("GPULAB_WORKER_FAKE", "gpu")],
        );
        assert!(
            !said(&out).contains("panicked"),
            "GPULAB_TIMEOUT_S={value}: {}",
            said(&out)
        );
        assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    }
}

// ---- words ----

#[test]
fn a_workspace_that_is_a_file_is_said_once_in_words() {
    let pack = Pack::ex();
    std::fs::write(pack.tmp.path().join("ws"), "not a folder").unwrap();
    let out = pack.ex_cmd(&["start", "fix-copy"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    let words = said(&out);
    assert!(words.contains("is a file, not a folder"), "{words}");
    assert!(words.matches("os error").count() <= 1, "{words}");
}

#[test]
fn an_empty_gpulab_device_breaks_only_the_commands_that_use_a_gpu() {
    let pack = snapshot_pack();
    let lessons = pack.path().join("lessons");
    let data = pack.path().join("data");
    let empty = [("GPULAB_DEVICE", "")];
    let l = lessons.to_str().unwrap();
    for args in [
        &["--lessons", l, "list"][..],
        &["--lessons", l, "check"],
        &["--lessons", l, "render", "copy-basics"],
    ] {
        let out = gpulab_within(Duration::from_secs(60), &data, args, &empty);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", said(&out));
    }
    let out = gpulab_within(
        Duration::from_secs(60),
        &data,
        &["--lessons", l, "run", "copy-basics"],
        &[("GPULAB_DEVICE", ""), ("GPULAB_WORKER_FAKE", "gpu")],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("GPULAB_DEVICE (or --device) is empty"),
        "{}",
        said(&out)
    );
}

#[test]
fn the_lab_without_a_terminal_says_it_needs_one() {
    let pack = snapshot_pack();
    let lessons = pack.path().join("lessons");
    let out = gpulab_within(
        Duration::from_secs(20),
        &pack.path().join("data"),
        &["--lessons", lessons.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("needs a terminal"), "{}", said(&out));
    assert!(!said(&out).contains("os error 6"), "{}", said(&out));
}

#[test]
fn a_number_two_lessons_share_is_refused_naming_both() {
    let pack = snapshot_pack();
    let dir = pack.path().join("lessons");
    std::fs::rename(
        dir.join("01-copy-basics.yaml"),
        dir.join("00-copy-basics.yaml"),
    )
    .unwrap();
    std::fs::rename(
        dir.join("02-tiny-transpose.yaml"),
        dir.join("00-tiny-transpose.yaml"),
    )
    .unwrap();
    let out = gpulab_within(
        Duration::from_secs(30),
        &pack.path().join("data"),
        &["--lessons", dir.to_str().unwrap(), "render", "00"],
        &[],
    );
    let words = said(&out);
    assert_eq!(out.status.code(), Some(2), "{words}");
    assert!(
        words.contains("copy-basics")
            && words.contains("tiny-transpose")
            && words.contains("numbered 00"),
        "{words}"
    );
    // By id, each is still found.
    let out = gpulab_within(
        Duration::from_secs(30),
        &pack.path().join("data"),
        &[
            "--lessons",
            dir.to_str().unwrap(),
            "render",
            "tiny-transpose",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
}

#[test]
fn attempts_saturate_instead_of_wrapping() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exercises.json");
    std::fs::write(
        &path,
        format!(r#"{{"exercises":{{"x":{{"attempts":{}}}}}}}"#, u32::MAX),
    )
    .unwrap();
    let (mut book, _) = ExerciseBook::load_from(&path);
    book.record_attempt("x", false, None);
    book.save_to(&path).unwrap();
    assert_eq!(ExerciseBook::load_from(&path).0.get("x").attempts, u32::MAX);
}

// ---- NVRTC reads nothing outside the pack ----

#[test]
fn a_variant_option_outside_the_allow_list_is_refused_at_its_place() {
    let pack = Pack::ex();
    let yaml = pack.lessons().join("01-tiny.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let book = pack.data().join("exercises.json");
    let edited = text
        .replace(
            "    args: [in, out, n]\n",
            &format!(
                "    args: [in, out, n]\n    options: [\"-lineinfo\", \"-fdevice-time-trace={}\"]\n",
                book.display()
            ),
        )
        .replace(
            r#"options: ["-maxrregcount=32"]"#,
            r#"options: ["-maxrregcount=32", "--pre-include=/etc/passwd"]"#,
        );
    assert_eq!(edited.matches("options:").count(), 2, "the fixture moved");
    std::fs::write(&yaml, edited).unwrap();
    let lessons = pack.lessons();
    let out = gpulab_within(
        Duration::from_secs(30),
        &pack.data(),
        &["--lessons", lessons.to_str().unwrap(), "check"],
        &[],
    );
    let words = said(&out);
    assert_ne!(out.status.code(), Some(0), "{words}");
    assert!(
        words.contains("01-tiny.yaml:18:28: NVRTC option `-fdevice-time-trace="),
        "{words}"
    );
    assert!(
        words.contains("`--pre-include=/etc/passwd` is not allowed"),
        "{words}"
    );
    assert!(!book.exists(), "nothing was written");
}

#[test]
fn an_include_that_leaves_the_pack_is_refused_at_its_line_in_the_kernel() {
    let pack = snapshot_pack();
    let kernel = pack.path().join("kernels/copy.cu");
    let text = std::fs::read_to_string(&kernel).unwrap();
    std::fs::write(&kernel, format!("#include \"/etc/passwd\"\n{text}")).unwrap();
    let transpose = pack.path().join("kernels/transpose.cu");
    let text = std::fs::read_to_string(&transpose).unwrap();
    std::fs::write(
        &transpose,
        format!("// a header\n#include \"../../../../secret.h\"\n{text}"),
    )
    .unwrap();
    let lessons = pack.path().join("lessons");
    for cmd in ["list", "check"] {
        let out = gpulab_within(
            Duration::from_secs(30),
            &pack.path().join("data"),
            &["--lessons", lessons.to_str().unwrap(), cmd],
            &[],
        );
        let words = said(&out);
        assert_ne!(out.status.code(), Some(0), "{words}");
        assert!(
            words.contains("kernels/copy.cu:1:10: `#include \"/etc/passwd\"` is an absolute path"),
            "{cmd}: {words}"
        );
        assert!(
            words.contains(
                "kernels/transpose.cu:2:10: `#include \"../../../../secret.h\"` leads outside"
            ),
            "{cmd}: {words}"
        );
        assert!(!words.contains("root:"), "{cmd}: {words}");
    }
}

#[test]
fn an_include_in_a_starter_that_leaves_the_pack_is_refused() {
    let pack = Pack::ex();
    let starter = pack
        .tmp
        .path()
        .join("course/exercises/tiny/fix-copy/starter.cu");
    let text = std::fs::read_to_string(&starter).unwrap();
    std::fs::write(
        &starter,
        format!("#define F \"/etc/passwd\"\n#include F\n{text}"),
    )
    .unwrap();
    let out = pack.ex_cmd(&["list"]);
    let words = said(&out);
    assert_eq!(out.status.code(), Some(2), "{words}");
    assert!(
        words.contains("starter.cu:2:10: `#include` names its file by a macro"),
        "{words}"
    );
}

mod interpreter;

mod lab_quit;
mod nvrtc_reads;

#[test]
fn a_progress_file_that_claims_more_hints_than_there_are_is_held_to_their_count() {
    let pack = Pack::ex();
    let path = pack.data().join("exercises.json");
    let mut book = ExerciseBook::default();
    book.entry("fix-copy").hints_shown = u32::MAX;
    book.save_to(&path).unwrap();
    let out = pack.ex_cmd(&["list"]);
    let text = said(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("4294967295"), "{text}");
    let json = pack.ex_cmd(&["list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let fix = (v.as_array().unwrap().iter())
        .find(|e| e["id"] == "fix-copy")
        .unwrap();
    assert!(
        fix["hints_shown"].as_u64() <= fix["hints"].as_u64(),
        "{fix}"
    );
}

// ---- sizes: every read bounded by the kind of file ----

#[test]
fn files_far_larger_than_their_kind_are_refused_with_their_size_at_once() {
    let limit = Duration::from_secs(30);
    // A lesson's kernel of 2 GB (sparse: no disk spent).
    let pack = Pack::ex();
    let kernel = pack.tmp.path().join("course/kernels/tiny/copy.cu");
    std::fs::File::options()
        .write(true)
        .open(&kernel)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let lessons = pack.lessons();
    let started = Instant::now();
    let out = gpulab_within(
        limit,
        &pack.data(),
        &["--lessons", lessons.to_str().unwrap(), "list"],
        &[],
    );
    assert!(
        said(&out).contains("2.0 GiB long, past the 4.0 MiB"),
        "{}",
        said(&out)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // A try of 1 GB.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.cu");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let out = gpulab_within(
        limit,
        &pack.data(),
        &["try", "--cpu", "--report", big.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("1.0 GiB long"), "{}", said(&out));
    // A participant's progress of 3 GB, a link to a device that never ends, and one to a
    // file of /proc that says it is empty.
    for (name, target, says) in [
        ("sparse", None, "past the 16.0 MiB a progress file may be"),
        ("zero", Some("/dev/zero"), "no participant here"),
        ("pagemap", Some("/proc/self/pagemap"), "exercises.json"),
    ] {
        let room = tempfile::tempdir().unwrap();
        let who = room.path().join(name);
        std::fs::create_dir(&who).unwrap();
        let file = who.join("exercises.json");
        match target {
            None => std::fs::File::create(&file)
                .unwrap()
                .set_len(3 << 30)
                .unwrap(),
            Some(t) => std::os::unix::fs::symlink(t, &file).unwrap(),
        }
        let started = Instant::now();
        let out = gpulab_within(
            limit,
            &pack.data(),
            &["ex", "summary", room.path().to_str().unwrap()],
            &[],
        );
        assert_eq!(out.status.code(), Some(2), "{name}: {}", said(&out));
        assert!(said(&out).contains(says), "{name}: {}", said(&out));
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{name}: {:?}",
            started.elapsed()
        );
    }
}

// ---- inputs that took quadratic time, each now answered within a bound ----

/// The exercise pack with its lesson file edited by `edit`.
fn edited_pack(edit: impl Fn(&str) -> String) -> Pack {
    let pack = Pack::ex();
    let yaml = pack.lessons().join("01-tiny.yaml");
    let before = std::fs::read_to_string(&yaml).unwrap();
    let after = edit(&before);
    assert_ne!(after, before, "the fixture moved");
    std::fs::write(&yaml, after).unwrap();
    pack
}

#[test]
fn two_hundred_thousand_problem_sizes_are_listed_within_a_bound() {
    // A scan for a key given twice, for each key, took 42 s (release) on this.
    let sizes: Vec<String> = (0..200_000).map(|i| format!("k{i}: {i}")).collect();
    let pack = edited_pack(|t| {
        t.replace(
            "problem: { n: 4096, threads: 256 }",
            &format!("problem: {{ n: 4096, threads: 256, {} }}", sizes.join(", ")),
        )
    });
    let lessons = pack.lessons();
    let limit = Duration::from_secs(60);
    let out = gpulab_within(
        limit,
        &pack.data(),
        &["--lessons", lessons.to_str().unwrap(), "list"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
}

#[test]
fn a_word_of_a_megabyte_in_prose_is_rendered_within_a_bound() {
    // Each row cut off a long word measured and copied the rest again: 30 s (release).
    let word = "x".repeat(1 << 20);
    let pack = edited_pack(|t| {
        t.replace(
            "text: A copy moves each word once.",
            &format!("text: A copy moves each word once. {word}"),
        )
    });
    let lessons = pack.lessons();
    let limit = Duration::from_secs(60);
    let out = gpulab_within(
        limit,
        &pack.data(),
        &["--lessons", lessons.to_str().unwrap(), "render", "tiny"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    assert!(said(&out).contains("xxxxxxxx"), "the word is shown");
}

#[test]
fn a_try_header_of_a_hundred_thousand_sizes_is_read_within_a_bound() {
    // `try --cpu` is refused before the header is read where NVRTC is missing: the bound
    // would be proved by nothing there.
    if !common::nvrtc_or_skip("a_try_header_of_a_hundred_thousand_sizes_is_read_within_a_bound") {
        return;
    }
    // A scan of the sizes before for each size, twice over: 78 s (release) for 150,000.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("// gpulab: n=32 out:f32[n] grid=1 block=32\n");
    for i in 0..100_000 {
        text.push_str(&format!("// gpulab: k{i}={i}\n"));
    }
    text.push_str("extern \"C\" __global__ void k(float* out) { out[threadIdx.x] = 1.0f; }\n");
    let file = dir.path().join("h.cu");
    std::fs::write(&file, text).unwrap();
    let limit = Duration::from_secs(60);
    let out = gpulab_within(
        limit,
        &dir.path().join("data"),
        &["try", "--cpu", "--report", file.to_str().unwrap()],
        &[],
    );
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "{:?} {}",
        out.status,
        said(&out)
    );
}
