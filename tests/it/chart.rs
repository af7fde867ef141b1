//! The sweep chart on `TestBackend`. Its geometry is checked on a hand-made result (figures
//! made up for the test and labelled with a test GPU, never shown as measured); the
//! snapshot is of the shipped l2 lesson drawn from the recording a real run wrote.

use crossterm::event::{KeyCode, KeyEvent};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::builder::LessonBuilder;
use gpulab::model::results::{DeviceInfo, Source};
use gpulab::session::fold::blank_result;
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::views::chart::plot;
use gpulab::ui::{App, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const MIB: [i64; 9] = [4, 8, 16, 32, 64, 128, 256, 512, 1024];
const GBPS: [f64; 9] = [
    6100.0, 6400.0, 6300.0, 5200.0, 3300.0, 3050.0, 3000.0, 2990.0, 2980.0,
];

fn lesson() -> Lesson {
    let mut l = LessonBuilder::new("l2")
        .title("L2: the working-set staircase")
        .page("One page", "Text.")
        .sweep("ws", "WS_MIB", "working set (MiB)", &MIB)
        .build();
    l.metrics.bytes = Some(4.0 * 1024.0 * 1024.0 * 1024.0);
    l
}

fn app(with_figures: bool) -> App {
    let l = lesson();
    let device = DeviceInfo {
        name: "Test GPU".into(),
        recorded_at: Some("2026-11-21T12:00:00Z".into()),
        ..Default::default()
    };
    let mut r = blank_result(&l, Source::Recorded, Some(device));
    for (v, g) in r.variants.iter_mut().zip(GBPS) {
        v.gbps = Some(g);
    }
    let mut a = App::new(vec![l], None, Progress::default());
    a.runs.show("l2", r);
    a.view.set_color(false);
    if with_figures {
        a.reading.progress_mut().mark_revealed("l2");
    }
    a
}

fn draw(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

fn key(a: &mut App, c: char) {
    a.on_key(KeyEvent::from(KeyCode::Char(c)));
}

#[test]
fn values_spanning_more_than_ten_times_are_placed_by_log2() {
    let a = app(true);
    let l = &a.reading.lessons()[0];
    let p = plot(l, &l.sweeps[0], a.runs.results().get("l2"));
    assert!(p.log_x);
    assert_eq!(p.x_bounds, [2.0, 10.0]);
    assert_eq!(p.x_ticks, ["4", "64", "1024"].map(String::from));
    assert_eq!(p.points.len(), 9);
    assert_eq!(p.points[0], (2.0, 6100.0));
    assert_eq!(p.points[8], (10.0, 2980.0));
    assert_eq!(p.y_title, "GB/s");
    assert!(p.y_max >= 6400.0 && p.y_max <= 8000.0, "{}", p.y_max);
}

/// The bundled course with its recording, on the shipped l2 lesson, figures revealed.
fn recorded_l2() -> App {
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships with the lessons");
    let mut a = App::new(lessons, Some(rec), Progress::default());
    a.view.set_color(false);
    a.reading.select_id("l2").unwrap();
    a.reading.progress_mut().mark_revealed("l2");
    a
}

#[test]
fn g_swaps_the_variants_for_the_chart_and_back() {
    let mut a = recorded_l2();
    let before = draw(&a, 120, 40);
    assert!(before.contains("g chart"), "the key is offered:\n{before}");
    key(&mut a, 'g');
    assert!(a.view.chart());
    let screen = draw(&a, 120, 40);
    assert!(screen.contains("GB/s by working set (MiB)"), "{screen}");
    assert!(
        screen.contains("recorded on NVIDIA H100 80GB HBM3"),
        "{screen}"
    );
    assert!(screen.contains("working set (MiB) (log scale)"), "{screen}");
    for tick in ["1024", "64"] {
        assert!(screen.contains(tick), "tick {tick}:\n{screen}");
    }
    insta::assert_snapshot!("chart_l2_staircase", screen);
    key(&mut a, 'g');
    assert_eq!(draw(&a, 120, 40), before);
}

#[test]
fn the_chart_hides_the_figures_until_they_are_asked_for() {
    let mut a = app(false);
    key(&mut a, 'g');
    let screen = draw(&a, 120, 40);
    assert!(screen.contains("v shows the recorded figures"), "{screen}");
    assert!(!screen.contains('•'), "no point drawn:\n{screen}");
}

#[test]
fn help_lists_g_only_where_there_is_a_sweep() {
    let mut a = app(true);
    a.view.open(Overlay::Help);
    assert!(draw(&a, 120, 40).contains("chart of the sweep"));
    let mut plain = App::new(
        vec![LessonBuilder::new("p").variant("a").build()],
        None,
        Progress::default(),
    );
    plain.view.open(Overlay::Help);
    assert!(!draw(&plain, 120, 40).contains("chart of the sweep"));
    key(&mut plain, 'q');
    plain.view.close();
    key(&mut plain, 'g');
    assert!(
        !plain.view.chart(),
        "g does nothing on a lesson with no sweep"
    );
}

/// Two sweeps of the same lesson: both charts, one under the other where they fit, else the
/// one `[`/`]` picks.
#[test]
fn every_sweep_has_its_chart() {
    let mut l = lesson();
    let more = LessonBuilder::new("x")
        .sweep(
            "threads",
            "THREADS",
            "threads per block",
            &[64, 128, 256, 512],
        )
        .build();
    l.variants.extend(more.variants);
    l.sweeps.extend(more.sweeps);
    let mut a = App::new(vec![l], None, Progress::default());
    a.view.set_color(false);
    key(&mut a, 'g');
    let tall = draw(&a, 120, 60);
    assert!(
        tall.contains("ws · 1/2: GB/s by working set (MiB)"),
        "{tall}"
    );
    assert!(
        tall.contains("threads · 2/2: GB/s by threads per block"),
        "{tall}"
    );
    let short = draw(&a, 120, 30);
    assert!(
        short.contains("1/2, [ ] others") && !short.contains("threads:"),
        "{short}"
    );
    key(&mut a, ']');
    assert_eq!(a.view.sweep(), 1);
    let second = draw(&a, 120, 30);
    assert!(
        second.contains("threads · 2/2, [ ] others: GB/s by threads per block · v shows"),
        "{second}"
    );
    // At 80 columns the title keeps the way to the other chart; its end is cut by words.
    let narrow = draw(&a, 80, 24);
    let top = narrow
        .lines()
        .find(|l| l.contains("threads ·"))
        .expect(&narrow);
    assert!(top.contains("2/2, [ ] others"), "{narrow}");
    key(&mut a, ']');
    assert_eq!(a.view.sweep(), 1, "no third sweep");
}

#[test]
fn render_draws_the_chart_screen() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulab"))
        .args([
            "render", "l2", "--view", "chart", "--reveal", "--width", "100",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("staircase: GB/s by working set (MiB)"),
        "{text}"
    );
    assert!(text.contains("(log scale)"), "{text}");
}
