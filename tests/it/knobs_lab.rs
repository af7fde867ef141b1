//! Knobs in the lab: turned with keys, each setting's figures kept in the knob table; from a
//! recording without a GPU, and through a worker (the fake one, standing for a GPU) with one.
//! `gpulab record` runs every value of every knob, and what it writes replays.

use crate::support::common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::results::Source;
use gpulab::session::client::WorkerClient;
use gpulab::session::progress::Progress;
use gpulab::session::recording::Recording;
use gpulab::ui::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn course() -> Vec<Lesson> {
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    lessons
}

/// The lab on `lesson`, its first variant focused, showing `rec`, no GPU (as the worker says).
fn lab(lessons: Vec<Lesson>, rec: Option<Recording>, lesson: &str) -> App {
    let mut app = App::new(lessons, rec, Progress::default());
    app.view.set_color(false);
    app.reading.select_id(lesson).unwrap();
    app.runs.set_caps(Some(gpulab::session::fold::Capabilities {
        no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
        ..Default::default()
    }));
    app
}

fn draw(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

#[test]
fn the_knob_table_after_three_settings_from_a_recording() {
    // The recording holds the coalescing lesson as measured on an H100, with its STRIDE knob
    // at 1, 2 and 32 (where the lesson's named variants stand); the knob here is given
    // just those values, so each turn lands on recorded figures.
    let mut lessons = course();
    let l = lessons
        .iter_mut()
        .find(|l| l.id == "global-coalescing")
        .unwrap();
    l.knobs[0]
        .settings
        .retain(|s| [1, 2, 32].contains(&s.value));
    let text =
        std::fs::read_to_string(common::fixture("knobs/nvidia-h100-80gb-hbm3.json")).unwrap();
    let rec = Recording::parse(&text).unwrap();
    let mut app = lab(lessons, Some(rec), "global-coalescing");
    app.on_key(key('v'));
    for _ in 0..3 {
        app.on_key(key('+'));
    }
    let screen = draw(&app, 140, 40);
    assert!(
        screen.contains("knob stride (floats) on coalesced"),
        "{screen}"
    );
    let row = |v: &str| {
        screen
            .lines()
            .filter_map(|l| l.split("││").nth(1))
            .find(|l| {
                l.trim_start_matches([' ', '▸'])
                    .starts_with(&format!("{v} "))
            })
            .unwrap_or_else(|| panic!("no row {v}:\n{screen}"))
            .to_string()
    };
    // Sectors per request follow the stride: 4, 8, then one per lane.
    assert!(
        row("1").contains(" 4.0 ") && row("1").contains("rec"),
        "{screen}"
    );
    assert!(row("2").contains(" 8.0 "), "{screen}");
    assert!(
        row("32").contains(" 32.0 ") && row("32").contains('▸'),
        "{screen}"
    );
    assert!(
        app.message
            .as_deref()
            .unwrap_or("")
            .contains("highest value"),
        "the third turn finds the knob at its end: {:?}",
        app.message
    );
    insta::assert_snapshot!("knob_table_three_settings", screen);
}

#[test]
fn a_knob_shows_its_keys_and_a_variant_without_one_says_where_they_are() {
    let mut app = lab(course(), None, "shared-banks");
    let screen = draw(&app, 160, 40);
    assert!(
        screen.contains("+- knob"),
        "the footer names the keys:\n{screen}"
    );
    app.on_key(key('?'));
    assert!(draw(&app, 160, 48).contains("turn the focused variant's knob"));
    app.on_key(key('?'));
    app.on_key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE));
    app.on_key(key('+'));
    let said = app.message.clone().unwrap_or_default();
    assert!(
        said.contains("no knob on this variant (←→ to stride-1)"),
        "{said}"
    );
    // No recording and no GPU: the table says the setting was not measured.
    app.on_key(KeyEvent::new(KeyCode::Left, KeyModifiers::NONE));
    app.on_key(key('+'));
    assert!(draw(&app, 160, 40).contains("not recorded"));
    app.on_key(key('o'));
    assert!(!app.knob_table_shown(), "o goes back to the columns");
    app.on_key(key('o'));
    assert!(app.knob_table_shown(), "and o shows the table again");
    // Another lesson whose first variant has a knob shows its columns: the table is
    // shown for the knob that was turned.
    app.reading.select_id("global-coalescing").unwrap();
    app.view.focus(0);
    assert!(app.focused_knob().is_some() && !app.knob_table_shown());
    assert!(!draw(&app, 160, 40).contains("knob stride"));
}

#[test]
fn with_a_gpu_turning_the_knob_reruns_the_variant_through_the_worker() {
    let client = WorkerClient::with_command(common::bin(), vec!["worker".into()])
        .env("GPULAB_WORKER_FAKE", "gpu");
    let mut app = App::new(course(), None, Progress::default());
    app.reading.select_id("local-spills").unwrap();
    // static-index holds the register cap.
    app.view.focus(1);
    let (tx, rx) = std::sync::mpsc::channel();
    let jobs = gpulab::ui::spawn_worker(tx, 0, client);
    common::pump(&mut app, &rx, &jobs, 60, |a| a.runs.caps().is_some());
    app.on_key(key('+'));
    assert!(app.runs.running().is_some(), "{:?}", app.message);
    // While it runs, its row and the status line say how far it is.
    let going = draw(&app, 140, 40);
    assert!(going.contains("starting…"), "{going}");
    assert!(
        going.contains("static-index@maxrregcount=24 starting"),
        "{going}"
    );
    common::pump(&mut app, &rx, &jobs, 60, |a| a.runs.knobs().run().is_none());
    app.on_key(key('+'));
    common::pump(&mut app, &rx, &jobs, 60, |a| a.runs.knobs().run().is_none());
    let l = app.reading.lessons()[app.reading.selected()].clone();
    assert_eq!(app.knob_rows(&l, 0), [0, 1], "two settings turned to");
    for i in [0, 1] {
        let f = app.knob_figures(&l, &l.knobs[0], i).expect("measured");
        assert_eq!(f.source, Source::Live);
        assert_eq!(f.result.correct, Some(true), "{:?}", f.result);
        let cap = l.knobs[0].settings[i].value;
        assert_eq!(f.result.name, format!("static-index@maxrregcount={cap}"));
    }
    // The lesson's own figures are untouched by the knob's runs.
    let own = &app.runs.results()[&l.id];
    assert_ne!(own.source, Source::Live);
    assert!(draw(&app, 140, 40).contains("live"));
}

#[test]
fn record_runs_every_knob_value_and_the_recording_replays_them() {
    let dir = std::env::temp_dir().join(format!("gpulab-knobs-{}", std::process::id()));
    let out = dir.join("fake.json");
    let status = std::process::Command::new(common::bin())
        .args(["record", "--out"])
        .arg(&out)
        .env("GPULAB_WORKER_FAKE", "gpu")
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let rec = Recording::parse(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let lessons = course();
    for l in lessons.iter().filter(|l| !l.knobs.is_empty()) {
        let r = rec.lessons.iter().find(|r| r.lesson == l.id).unwrap();
        let want: Vec<String> = l
            .knobs
            .iter()
            .flat_map(|k| &k.settings)
            .map(|s| s.variant.name.clone())
            .collect();
        let got: Vec<String> = r.knobs.iter().map(|v| v.name.clone()).collect();
        assert_eq!(got, want, "{}", l.id);
    }
    // Replayed without a GPU: turning the transpose's padding shows recorded figures.
    let mut app = lab(lessons, Some(rec), "shared-transpose");
    app.view.focus(1);
    app.on_key(key('v'));
    app.on_key(key('+'));
    let l = app.reading.lessons()[app.reading.selected()].clone();
    let f = app.knob_figures(&l, &l.knobs[0], 1).expect("replayed");
    assert_eq!((f.source, f.result.stale), (Source::Recorded, false));
    assert_eq!(f.result.name, "tiled@PAD=1");
}

#[test]
fn with_nvrtc_alone_a_value_that_does_not_compile_shows_the_compilers_error_at_its_line() {
    if !common::nvrtc_or_skip("knob compile error") {
        return;
    }
    let root = CourseRoot::Dir(common::fixture("knobs/lessons"));
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let client = WorkerClient::with_command(common::bin(), vec!["worker".into()])
        .env("CUDA_VISIBLE_DEVICES", "");
    let mut app = App::new(lessons, None, Progress::default());
    app.view.set_color(false);
    let (tx, rx) = std::sync::mpsc::channel();
    let jobs = gpulab::ui::spawn_worker(tx, 0, client);
    common::pump(&mut app, &rx, &jobs, 60, |a| a.runs.caps().is_some());
    let caps = app.runs.caps().clone().unwrap();
    if caps.device.is_some() {
        eprintln!("skipped: a GPU is here, so the knob runs rather than only compiles");
        return;
    }
    // WIDTH 1 to 2 compiles; 2 to 3 does not.
    for _ in 0..2 {
        app.on_key(key('+'));
        common::pump(&mut app, &rx, &jobs, 60, |a| a.runs.knobs().run().is_none());
    }
    let l = app.reading.lessons()[0].clone();
    // Where the knob stood (WIDTH 1, the variant as written) is compiled with the first turn.
    let one = app.knob_figures(&l, &l.knobs[0], 0).expect("compiled");
    assert!(one.result.ptxas.is_some(), "{one:?}");
    let two = app.knob_figures(&l, &l.knobs[0], 1).expect("compiled");
    assert!(
        two.result.ptxas.is_some() && two.result.error.is_none(),
        "{two:?}"
    );
    let three = app.knob_figures(&l, &l.knobs[0], 2).expect("compiled");
    let e = three.result.error.clone().unwrap_or_default();
    // `#error` is a "catastrophic error" to NVRTC: shown under its line like any other.
    assert!(
        e.contains("kernels/copy.cu:9: error:") && e.contains("9 | #error"),
        "the compiler names the line: {e}"
    );
    let screen = draw(&app, 140, 40);
    assert!(screen.contains("copy@WIDTH=3 at WIDTH = 3:"), "{screen}");
    assert!(
        screen.contains("#error \"WIDTH 3 is not a power of two\""),
        "{screen}"
    );
    let said = app.message.clone().unwrap_or_default();
    assert!(said.starts_with("copy@WIDTH=3:"), "{said}");
}

#[test]
fn star_picks_the_next_knob_of_a_variant_that_has_several() {
    let mut lessons = course();
    let l = lessons.iter_mut().find(|l| l.id == "shared-banks").unwrap();
    let mut second = l.knobs[0].clone();
    second.label = "second".into();
    l.knobs.push(second);
    let mut app = lab(lessons, None, "shared-banks");
    assert_eq!(app.focused_knob().map(|(_, k)| k), Some(0));
    app.on_key(key('*'));
    assert_eq!(app.focused_knob().map(|(_, k)| k), Some(1));
    app.on_key(key('+'));
    assert!(draw(&app, 160, 40).contains("knob second on stride-1"));
    app.on_key(key('*'));
    assert_eq!(app.focused_knob().map(|(_, k)| k), Some(0), "round again");
}
