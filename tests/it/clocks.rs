//! Timings that say their clock: a recording keeps the clocks, temperature and power NVML
//! read while each variant was timed (and whether its L2 was cold), one made before they
//! were kept still loads, and the card, the detail pane and the report show them. The
//! figures set below stand for what a live run's worker sends; the worker's reading and
//! judging of NVML is tested against a made-up NVML in `worker::clocks`.

use crate::support::common;

use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::results::{Clocks, LessonResult, Source};
use gpulab::session::progress::Progress;
use gpulab::session::recording::{self, Recording};
use gpulab::ui::{App, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn lessons() -> Vec<Lesson> {
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    lessons
}

fn shipped() -> Recording {
    recording::newest(&CourseRoot::Bundled.recordings()).expect("a recording ships")
}

/// What an H100 reads while a memory-bound kernel is timed.
fn h100_clocks() -> Clocks {
    Clocks {
        sm_mhz: 1980,
        sm_min_mhz: 1980,
        sm_max_mhz: 1980,
        mem_mhz: Some(2619),
        temp_c: Some(43),
        power_w: Some(312.0),
        app_sm_mhz: Some(1980),
        throttle: vec![],
        samples: 14,
    }
}

/// global-coalescing as a live run would give it: its first variant with its clocks, the
/// second with a cold L2 too, the third timed while the clock fell under a power cap.
fn with_clocks(lessons: &[Lesson]) -> LessonResult {
    let l = lessons
        .iter()
        .find(|l| l.id == "global-coalescing")
        .unwrap();
    let mut r = shipped().replay(l).unwrap();
    r.source = Source::Live;
    // The recording's own clocks out of the way: the fourth variant has none.
    for v in &mut r.variants {
        v.clocks = None;
    }
    r.variants[0].clocks = Some(h100_clocks());
    r.variants[1].clocks = Some(h100_clocks());
    r.variants[1].cold_l2 = true;
    r.variants[2].clocks = Some(Clocks {
        sm_min_mhz: 1620,
        throttle: vec!["power cap".into()],
        ..h100_clocks()
    });
    r.variants[2].noise = Some(
        "timings noisy: the SM clock fell to 1620 MHz, 18% below 1980 MHz, in 3 of 14 \
         samples; clocks held back by power cap"
            .into(),
    );
    r
}

/// `v` without the object keys named, at any depth.
fn strip_keys(v: &mut serde_json::Value, keys: &[&str]) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| !keys.contains(&k.as_str()));
            m.values_mut().for_each(|x| strip_keys(x, keys));
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| strip_keys(x, keys)),
        _ => {}
    }
}

#[test]
fn a_recording_keeps_the_clocks_and_one_without_them_loads() {
    let lessons = lessons();
    let old = shipped();
    // The shipped recording was made with clocks kept: a live H100 run's.
    let shipped_text = serde_json::to_string(&old).unwrap();
    assert!(
        shipped_text.contains("\"clocks\""),
        "the shipped recording keeps its clocks"
    );
    // One made before clocks were kept has neither key: they are absent, not zero.
    let mut before: serde_json::Value = serde_json::from_str(&shipped_text).unwrap();
    strip_keys(&mut before, &["clocks", "cold_l2"]);
    let text = serde_json::to_string(&before).unwrap();
    assert!(!text.contains("\"clocks\"") && !text.contains("\"cold_l2\""));
    let back = Recording::parse(&text).unwrap();
    assert!(
        back.lessons
            .iter()
            .flat_map(|l| &l.variants)
            .all(|v| v.clocks.is_none() && !v.cold_l2)
    );

    let live = with_clocks(&lessons);
    let rec = Recording::new(old.device.clone(), old.peak.clone(), vec![live.clone()]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gpu.json");
    rec.write(&path).unwrap();
    let read = Recording::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let l = lessons
        .iter()
        .find(|l| l.id == "global-coalescing")
        .unwrap();
    let replayed = read.replay(l).unwrap();
    for (a, b) in live.variants.iter().zip(&replayed.variants) {
        assert_eq!(a.clocks, b.clocks, "{}", a.name);
        assert_eq!(a.cold_l2, b.cold_l2, "{}", a.name);
        assert_eq!(a.noise, b.noise, "{}", a.name);
    }
    assert_eq!(
        replayed.variants[1].clocks.as_ref().unwrap().temp_c,
        Some(43)
    );
    assert!(replayed.variants[1].cold_l2);
    // A result with no clocks writes none of their fields.
    let json = serde_json::to_string(&replayed.variants[3]).unwrap();
    assert!(
        !json.contains("clocks") && !json.contains("cold_l2"),
        "{json}"
    );
}

fn app(lessons: Vec<Lesson>, r: LessonResult) -> App {
    let mut app = App::new(lessons, Some(shipped()), Progress::default());
    app.view.set_color(false);
    app.reading.select(
        (app.reading.lessons().iter())
            .position(|l| l.id == r.lesson)
            .unwrap(),
    );
    app.runs.show(&r.lesson.clone(), r);
    app
}

fn draw(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

#[test]
fn the_card_shows_the_clock_and_the_cold_l2() {
    let lessons = lessons();
    let r = with_clocks(&lessons);
    let mut a = app(lessons, r);
    let wide = draw(&a, 160, 48);
    assert!(wide.contains("1980 MHz, 43 °C"), "{wide}");
    assert!(wide.contains("1980 MHz, 43 °C · cold L2"), "{wide}");
    assert!(wide.contains("1620–1980 MHz, 43 °C"), "{wide}");
    insta::assert_snapshot!("card_clocks_160x48", wide);
    let small = draw(&a, 80, 24);
    insta::assert_snapshot!("card_clocks_80x24", small);
    // At 80 x 24 the lesson's seven cards have room for their notes alone: the focused
    // variant's clock is in its detail pane, which has the room at any size.
    a.view.open(Overlay::Detail);
    let small_detail = draw(&a, 80, 24);
    assert!(small_detail.contains("1980 MHz"), "{small_detail}");
    // The detail pane has the room for every figure.
    a.view.focus(2);
    a.view.open(Overlay::Detail);
    let detail = draw(&a, 120, 40);
    let flat = detail.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "SM 1980 MHz (1620–1980), memory 2619 MHz, 43 °C, 312 W; held back by power cap"
        ),
        "{detail}"
    );
    assert!(
        flat.contains("timings noisy: the SM clock fell to 1620 MHz"),
        "{detail}"
    );
    insta::assert_snapshot!("detail_clocks_120x40", detail);
}

#[test]
fn the_report_says_what_each_variant_was_timed_at() {
    let lessons = lessons();
    let r = with_clocks(&lessons);
    let l = lessons
        .iter()
        .find(|l| l.id == "global-coalescing")
        .unwrap();
    let text = gpulab::cli::report::text_report(l, &r);
    assert!(text.contains("\ntimed at:\n"), "{text}");
    let line = |name: &str| {
        (text.lines())
            .find(|t| t.trim_start().starts_with(name) && t.contains("MHz"))
            .unwrap_or_else(|| panic!("{name}: {text}"))
            .to_string()
    };
    assert!(line("coalesced").contains("SM 1980 MHz, memory 2619 MHz, 43 °C, 312 W"));
    assert!(line("stride-2").ends_with("cold L2 (flushed before every timed launch)"));
    assert!(line("stride-32").contains("held back by power cap"));
    // A result with none says nothing of clocks.
    let mut plain = shipped().replay(l).unwrap();
    for v in &mut plain.variants {
        v.clocks = None;
        v.cold_l2 = false;
    }
    assert!(!gpulab::cli::report::text_report(l, &plain).contains("timed at"));
}

const PROBE: &str = r#"format_version: 1
id: probe
title: Probe
space: global
pages: [{ title: t, text: x }]
problem: { n: 1024 }
buffers:
  - { name: in, type: f32, len: n, init: random }
  - { name: tbl, type: f32, len: 64, init: random }
  - { name: out, type: f32, len: n, init: poison }
  - { name: cycles, type: u64, len: n, init: poison }
variants:
  - name: warm
    source: kernels/probe.cu
    kernel: probe
    defines: { ITERS: 4 }
    launch: { grid: "n / 256", block: 256 }
    args: [in, out, cycles, n]
    constants: [{ symbol: table, from: tbl }]
  - name: cold
    like: warm
    cold_l2: true
  - { name: still-cold, like: cold }
  - { name: warm-again, like: cold, cold_l2: false }
reference: warm
"#;

#[test]
fn cold_l2_is_a_variant_key_that_like_keeps() {
    let l = common::load_probe("07-probe.yaml", PROBE).unwrap();
    let cold: Vec<bool> = l.variants.iter().map(|v| v.cold_l2).collect();
    assert_eq!(cold, [false, true, true, false]);
    // Anything but a boolean is refused at its line and column.
    common::single_probe_error(
        "07-probe.yaml",
        PROBE,
        "    cold_l2: true",
        "    cold_l2: very",
        "expected a boolean",
    );
}
