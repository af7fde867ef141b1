//! One broken lesson costs only itself: a copy of the course with one lesson file broken
//! (a byte that is not UTF-8, a YAML error, an exercise file that is gone) still lists, runs
//! and opens in the lab; the broken lesson is listed at its place with where it fails,
//! `check` still fails, and the lab shows its problems when it is opened.

use crate::support::common;

use common::{bin, manifest_dir};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::course::bundle::CourseRoot;
use gpulab::session::progress::Progress;
use gpulab::ui::state::loading::{self, Loading};
use gpulab::ui::{self, App, UiEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc::channel;

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

/// The shipped course, copied; `break_it` is given the copy's root.
struct Copy {
    tmp: tempfile::TempDir,
}

impl Copy {
    fn broken(break_it: impl FnOnce(&Path)) -> Copy {
        let tmp = tempfile::tempdir().unwrap();
        for sub in ["lessons", "kernels", "exercises"] {
            copy_dir(
                &manifest_dir().join(sub),
                &tmp.path().join("course").join(sub),
            );
        }
        std::fs::create_dir_all(tmp.path().join("data")).unwrap();
        std::fs::create_dir_all(tmp.path().join("work")).unwrap();
        break_it(&tmp.path().join("course"));
        Copy { tmp }
    }

    fn lessons(&self) -> PathBuf {
        self.tmp.path().join("course/lessons")
    }

    fn gpulab(&self, args: &[&str]) -> Output {
        let lessons = self.lessons();
        let mut all = vec!["--lessons", lessons.to_str().unwrap()];
        all.extend(args);
        Command::new(bin())
            .args(&all)
            .env("GPULAB_DATA_DIR", self.tmp.path().join("data"))
            .env("GPULAB_WORKSPACE", self.tmp.path().join("work"))
            // No NVRTC to be found: `check` then validates without compiling every kernel.
            .env("PATH", "/nonexistent")
            .env_remove("GPULAB_CUDA")
            .env_remove("CUDA_HOME")
            .env_remove("CUDA_PATH")
            .env_remove("GPULAB_DEVICE")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn append(path: &Path, bytes: &[u8]) {
    let mut all = std::fs::read(path).unwrap();
    all.extend_from_slice(bytes);
    std::fs::write(path, all).unwrap();
}

/// Every lesson file of the shipped course but `broken`, by the id its name gives.
fn other_ids(broken: &str) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(manifest_dir().join("lessons"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let stem = name.strip_suffix(".yaml")?;
            Some(stem.split_once('-')?.1.to_string())
        })
        .filter(|id| id != broken)
        .collect();
    ids.sort();
    ids
}

/// What every broken course must still do: `want` is the `file:line:col` the problem is
/// at (`line` 0 for a problem found elsewhere in the file), `other` a lesson that runs,
/// `heading` the one the lab lists the broken lesson under.
fn costs_only_itself(copy: &Copy, broken: (&str, &str), want: &str, other: &str, heading: &str) {
    let (order, id) = broken;
    let file = format!("{order}-{id}.yaml");

    // list: the others, and the broken one at its place with where it fails.
    let out = copy.gpulab(&["list"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    // The lesson rows: the progress line under them is not one.
    let listed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.len() > 3 && l[..2].bytes().all(|b| b.is_ascii_digit()) && &l[2..4] == "  ")
        .map(|l| l.split_whitespace().nth(1).unwrap())
        .collect();
    for other in other_ids(id) {
        assert!(
            listed.contains(&other.as_str()),
            "{other} missing:\n{stdout}"
        );
    }
    let row = stdout
        .lines()
        .find(|l| l.starts_with(&format!("{order}  {id} ")))
        .unwrap_or_else(|| panic!("no row for {order} {id}:\n{stdout}"));
    assert!(row.contains("does not load") && row.contains(want), "{row}");
    let orders: Vec<u32> = stdout
        .lines()
        .filter(|l| l.len() > 3 && l[..2].bytes().all(|b| b.is_ascii_digit()) && &l[2..4] == "  ")
        .map(|l| l[..2].parse().unwrap())
        .collect();
    assert!(
        orders.windows(2).all(|w| w[0] <= w[1]),
        "in course order: {orders:?}"
    );
    // Every lesson file counted, and the one that does not load said so, as the lab does.
    let total = other_ids(id).len() + 1;
    assert!(
        stdout.contains(&format!("0 of {total} lessons finished (1 does not load)")),
        "{stdout}"
    );

    // list --json: the same, the broken entry with its problems.
    let out = copy.gpulab(&["list", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = v.as_array().unwrap();
    assert_eq!(items.len(), other_ids(id).len() + 1, "{v}");
    let entry = items.iter().find(|i| i["id"] == id).unwrap();
    assert_eq!(entry["broken"], true, "{entry}");
    assert_eq!(entry["order"], order.parse::<u64>().unwrap());
    let problems = entry["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p.as_str().unwrap().contains(want)),
        "{entry}"
    );
    assert!(
        items
            .iter()
            .filter(|i| i["broken"] == false)
            .all(|i| i["title"].is_string())
    );

    // check: still a failure, naming the place.
    let out = copy.gpulab(&["check"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains(want), "{stdout}{stderr}");

    // Another lesson runs from the recording.
    let out = copy.gpulab(&["run", other, "--replay", "--json"]);
    let (stdout, stderr) = text(&out);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
    let r: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["lesson"], other);
    assert_eq!(r["source"], "recorded");

    // The broken one, asked for, says why rather than "no lesson".
    let out = copy.gpulab(&["run", order, "--replay"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(want) && stderr.contains("does not load"),
        "{stderr}"
    );

    lab_opens(
        &copy.lessons(),
        &file,
        want,
        (heading, other_ids(id).len() + 1),
    );
}

/// The lab opens on the course, lists the broken lesson under `heading` and counts
/// `total` lessons as `gpulab list` does, and opening it shows its problem; keys that need
/// a lesson that loads do nothing there.
fn lab_opens(lessons: &Path, file: &str, want: &str, (heading, total): (&str, usize)) {
    let root = CourseRoot::Dir(lessons.to_path_buf());
    let mut app = App::loading(root.lesson_count(), Progress::default());
    app.view.set_color(false);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let (jobs, _) = channel();
    let (saves, _) = channel();
    let mut play = |app: &mut App, events: Vec<UiEvent>| {
        let (tx, rx) = channel();
        for e in events {
            tx.send(e).unwrap();
        }
        drop(tx);
        ui::run(&mut terminal, app, &rx, &jobs, &saves).unwrap();
        ui::buffer_to_text(terminal.backend().buffer())
    };
    let key = |c: KeyCode| UiEvent::Key(KeyEvent::new(c, KeyModifiers::NONE));
    let screen = play(&mut app, vec![UiEvent::Loaded(loading::load(&root))]);
    assert!(app.loading.is_none(), "the course opens:\n{screen}");
    assert!(!screen.contains("could not be opened"), "{screen}");
    assert_eq!(app.reading.broken().len(), 1);
    assert!(app.reading.lessons().iter().any(|l| l.file.ends_with(file)));

    // Down the list until the broken lesson is on screen.
    let mut steps = 0;
    let mut screen = screen;
    while app.broken().is_none() {
        screen = play(&mut app, vec![key(KeyCode::Down)]);
        steps += 1;
        assert!(steps < 200, "never reached {file}:\n{screen}");
    }
    assert!(screen.contains("does not load"), "{screen}");
    let order = &file[..2];
    assert!(
        screen.contains(&format!("▸✗ {order} ")),
        "the list marks it:\n{screen}"
    );
    // Under its own heading, not the one of the lesson before it.
    let list: Vec<String> = (screen.lines())
        .map(|l| l.split('│').nth(1).unwrap_or("").trim().to_string())
        .collect();
    let row = (list.iter())
        .position(|l| l.starts_with(&format!("▸✗ {order} ")))
        .expect(&screen);
    let above = (list[..row].iter().rev())
        .find(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_uppercase() || c == ' '))
        .expect(&screen);
    assert_eq!(above, heading, "{screen}");
    assert!(
        screen.contains(&format!("Lessons 0/{total} finished")),
        "counted as `gpulab list` counts:\n{screen}"
    );
    assert!(
        screen.contains(want),
        "its problem, at its place:\n{screen}"
    );
    let jobs_before = app.outbox.len();
    let after = play(
        &mut app,
        vec![key(KeyCode::Char('r')), key(KeyCode::Char('c'))],
    );
    assert!(app.broken().is_some(), "{after}");
    assert_eq!(app.outbox.len(), jobs_before, "nothing to run");
    assert!(after.contains("does not load"), "{after}");
    // And on: the next lesson opens as ever.
    let _ = play(&mut app, vec![key(KeyCode::Up)]);
    assert!(app.broken().is_none() && app.lesson().is_some());
    assert!(!matches!(app.loading, Some(Loading::Failed(_))));
}

#[test]
fn a_byte_that_is_not_utf8_costs_only_its_lesson() {
    let copy = Copy::broken(|c| append(&c.join("lessons/21-gemm.yaml"), b"\xff"));
    let lines = std::fs::read(copy.lessons().join("21-gemm.yaml"))
        .unwrap()
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let want = format!("21-gemm.yaml:{}:1: invalid UTF-8", lines + 1);
    // No text to read its space from: a heading of its own.
    costs_only_itself(
        &copy,
        ("21", "gemm"),
        &want,
        "global-coalescing",
        "NOT LOADED",
    );
}

#[test]
fn a_yaml_error_costs_only_its_lesson() {
    let copy = Copy::broken(|c| {
        let f = c.join("lessons/06-shared-banks.yaml");
        let t = std::fs::read_to_string(&f).unwrap();
        std::fs::write(&f, t.replacen("title:", "title: [unclosed\n", 1)).unwrap();
    });
    costs_only_itself(
        &copy,
        ("06", "shared-banks"),
        "06-shared-banks.yaml:",
        "global-coalescing",
        "SHARED",
    );
}

#[test]
fn a_missing_exercise_file_costs_only_its_lesson() {
    let copy = Copy::broken(|c| {
        std::fs::remove_file(c.join("exercises/gemm/conflict-free/starter.cu")).unwrap()
    });
    let yaml = std::fs::read_to_string(copy.lessons().join("21-gemm.yaml")).unwrap();
    let line = 1 + yaml
        .lines()
        .position(|l| l.contains("exercises/gemm/conflict-free/starter.cu"))
        .unwrap();
    let want = format!("21-gemm.yaml:{line}:");
    costs_only_itself(&copy, ("21", "gemm"), &want, "shared-banks", "CAPSTONE");

    // The exercises of the other lessons are there to start; the note says what is not.
    let out = copy.gpulab(&["ex", "list"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("coalesce-copy") && stdout.contains("pad-tile"),
        "{stdout}"
    );
    assert!(!stdout.contains("conflict-free"), "{stdout}");
    assert!(stderr.contains("21") && stderr.contains(&want), "{stderr}");
}
