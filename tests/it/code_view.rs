//! The code view (`c`, then `s` for the SASS or both) and the diff view (`d`): which
//! listings they ask the worker for, and what they draw from the recording and real
//! nvdisasm listings (tests/fixtures/sass), at a fixed size, without a clock.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::analysis::sass;
use gpulab::course::bundle::CourseRoot;
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::state::code_view::{Panes, SassState};
use gpulab::ui::{App, Job, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn app(nvrtc: bool) -> App {
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships");
    let mut app = App::new(lessons, Some(rec), Progress::default());
    app.view.set_color(false);
    app.runs.set_caps(Some(gpulab::session::fold::Capabilities {
        no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
        nvrtc: nvrtc.then(|| "13.0".to_string()),
        ..Default::default()
    }));
    app.reading.select_id("shared-banks").unwrap();
    // The recorded figures shown, as `v` does: before it the code view has none.
    app.reading.progress_mut().mark_revealed("shared-banks");
    app
}

fn key(a: &mut App, c: char) {
    a.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
}

fn focus(a: &mut App, name: &str) {
    a.view.focus(
        a.lesson()
            .unwrap()
            .variants
            .iter()
            .position(|v| v.name == name)
            .unwrap(),
    );
}

fn sass_jobs(a: &mut App) -> Vec<String> {
    a.outbox
        .drain(..)
        .filter_map(|j| match j {
            Job::Sass { variant, arch, .. } => Some(format!("{variant} {arch}")),
            _ => None,
        })
        .collect()
}

fn listing(file: &str) -> SassState {
    let text = std::fs::read_to_string(format!("tests/fixtures/sass/{file}")).unwrap();
    SassState::Ready(sass::parse(&text).remove(0))
}

fn draw(app: &App) -> String {
    let mut t = Terminal::new(TestBackend::new(160, 48)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

#[test]
fn the_sass_is_asked_for_once_when_shown_and_for_both_sides_of_a_diff() {
    let mut a = app(true);
    focus(&mut a, "stride-32");
    key(&mut a, 'c');
    assert_eq!(a.view.overlay(), Overlay::Code);
    assert!(
        sass_jobs(&mut a).is_empty(),
        "the source alone needs no SASS"
    );
    key(&mut a, 's');
    assert_eq!(a.view.code().panes(), Panes::Sass);
    // The recording's GPU is an sm_90: the SASS is built for it.
    assert_eq!(sass_jobs(&mut a), vec!["stride-32 sm_90"]);
    key(&mut a, 's');
    assert_eq!(a.view.code().panes(), Panes::Both);
    assert!(sass_jobs(&mut a).is_empty(), "asked once");
    key(&mut a, 'c');
    key(&mut a, 'd');
    assert_eq!(a.view.overlay(), Overlay::Diff);
    assert_eq!(
        sass_jobs(&mut a),
        vec!["stride-2 sm_90"],
        "the neighbour only"
    );
}

#[test]
fn without_nvrtc_the_sass_says_why_and_nothing_is_asked() {
    let mut a = app(false);
    focus(&mut a, "stride-32");
    key(&mut a, 'c');
    key(&mut a, 's');
    assert!(sass_jobs(&mut a).is_empty());
    let screen = draw(&a);
    assert!(screen.contains("no NVRTC here"), "{screen}");
}

#[test]
fn code_view_source_and_sass_with_the_recorded_figures() {
    let mut a = app(true);
    focus(&mut a, "stride-32");
    key(&mut a, 'c');
    key(&mut a, 's');
    key(&mut a, 's');
    a.outbox.clear();
    a.view.code_mut().set(
        ("shared-banks".into(), "stride-32".into()),
        listing("banks_stride32.sass"),
    );
    let top = draw(&a);
    // The loop's loads sit further down the listing.
    for _ in 0..4 {
        a.on_key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
    }
    let screen = draw(&a);
    // Its figure follows it, on its row or, where the pane is too narrow, under it.
    let rows: Vec<&str> = screen.lines().collect();
    let lds = (0..rows.len())
        .filter(|&i| rows[i].contains(" LDS "))
        .map(|i| format!("{}\n{}", rows[i], rows.get(i + 1).unwrap_or(&"")))
        .find(|l| l.contains("wavefronts/request"))
        .unwrap_or_else(|| panic!("no annotated LDS in:\n{screen}"));
    assert!(lds.contains("32 wavefronts/request"), "{lds}");
    insta::assert_snapshot!("code_view_stride32_both", top);
    insta::assert_snapshot!("code_view_stride32_both_scrolled", screen);
}

#[test]
fn diff_view_of_two_strides() {
    let mut a = app(true);
    focus(&mut a, "stride-32");
    key(&mut a, 'd');
    a.outbox.clear();
    for (v, f) in [
        ("stride-32", "banks_stride32.sass"),
        ("stride-2", "banks_stride2.sass"),
    ] {
        a.view
            .code_mut()
            .set(("shared-banks".into(), v.into()), listing(f));
    }
    let screen = draw(&a);
    assert!(screen.contains("shared wavefronts/request"), "{screen}");
    insta::assert_snapshot!("diff_view_stride32_stride2", screen);
    assert!(screen.contains("time (ms, recorded)"), "{screen}");
    // Figures of a run here are said to be live, not recorded.
    let mut live = a.runs.results()["shared-banks"].clone();
    live.source = gpulab::model::results::Source::Live;
    a.runs.show("shared-banks", live);
    assert!(draw(&a).contains("time (ms, live)"));
}

#[test]
fn a_view_opened_before_the_worker_answers_asks_for_its_sass_when_it_does() {
    let mut a = app(true);
    let caps = a.runs.take_caps().unwrap();
    focus(&mut a, "stride-32");
    key(&mut a, 'c');
    key(&mut a, 's');
    assert!(sass_jobs(&mut a).is_empty(), "nothing known of NVRTC yet");
    a.on_event(gpulab::ui::UiEvent::Worker(gpulab::ui::WorkerEvent::Ready(
        Ok(caps),
    )));
    assert_eq!(sass_jobs(&mut a), vec!["stride-32 sm_90"]);
}

/// A copy between the host and the GPU (`transfer:`) has no code: `c` says so and opens
/// nothing, a diff against it asks the worker for no SASS and says why, and its heatmap
/// says it has no accesses to trace.
#[test]
fn a_copy_has_no_code_and_says_so() {
    let mut a = app(true);
    a.reading.select(
        (a.reading.lessons().iter())
            .position(|l| l.id == "host")
            .unwrap(),
    );
    focus(&mut a, "h2d-pinned");
    key(&mut a, 'c');
    assert_eq!(a.view.overlay(), Overlay::None);
    let said = a.message.clone().unwrap_or_default();
    assert!(said.contains("`h2d-pinned` is a copy"), "{said}");
    assert!(said.contains("no code or SASS"), "{said}");
    focus(&mut a, "h2d-pageable");
    key(&mut a, 'd');
    let jobs = sass_jobs(&mut a);
    assert!(
        jobs.iter().all(|j| !j.starts_with("h2d-")),
        "no SASS asked for a copy: {jobs:?}"
    );
    // Its heatmap says why there is none, rather than that nothing was found.
    a.reading.progress_mut().mark_revealed("host");
    a.view.open(Overlay::Heatmap);
    let screen = draw(&a);
    assert!(
        screen.contains("`h2d-pageable` is a copy between the host and the GPU"),
        "{screen}"
    );
}
