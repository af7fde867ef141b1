//! Snapshot tests of what the lab draws, from the recording, at fixed sizes. The recording
//! holds real figures from a real run; nothing here reads a clock or times anything.

use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::{App, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn app() -> App {
    let root = CourseRoot::Bundled;
    let (lessons, errors): (Vec<Lesson>, _) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships with the lessons");
    let mut app = App::new(lessons, Some(rec), Progress::default());
    app.color = false;
    // As on a machine without a GPU, once the worker has said so.
    app.caps = Some(gpulab::session::fold::Capabilities {
        no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
        ..Default::default()
    });
    app
}

fn draw(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

#[test]
fn every_lesson_screen() {
    let mut a = app();
    for i in 0..a.lessons.len() {
        a.selected = i;
        let id = a.lessons[i].id.clone();
        let screen = draw(&a, 160, 48);
        assert!(
            screen.contains("recorded on NVIDIA"),
            "{id}: the source is labelled"
        );
        insta::assert_snapshot!(format!("lesson_{id}"), screen);
    }
}

#[test]
fn narrow_terminal_stacks_the_variants() {
    let mut a = app();
    a.selected = 0;
    let screen = draw(&a, 80, 40);
    insta::assert_snapshot!("narrow_global_coalescing", screen);
}

#[test]
fn list_and_help() {
    let mut a = app();
    a.overlay = Overlay::Help;
    let screen = draw(&a, 120, 36);
    assert!(screen.contains("run the lesson on this GPU"));
    insta::assert_snapshot!("help_overlay", screen);
}

fn heatmap_app(variant: &str, color: bool) -> App {
    let mut a = app();
    a.selected = a
        .lessons
        .iter()
        .position(|l| l.id == "shared-banks")
        .unwrap();
    a.variant = a.lessons[a.selected]
        .variants
        .iter()
        .position(|v| v.name == variant)
        .unwrap();
    a.overlay = Overlay::Heatmap;
    a.color = color;
    a
}

#[test]
fn heatmap_of_a_conflicted_and_a_clean_request_without_colour() {
    let conflicted = draw(&heatmap_app("stride-32", false), 100, 30);
    assert!(conflicted.contains("32-way conflict"), "{conflicted}");
    insta::assert_snapshot!("heatmap_stride32_plain", conflicted);
    let clean = draw(&heatmap_app("stride-33", false), 100, 30);
    assert!(clean.contains("no conflict"), "{clean}");
    insta::assert_snapshot!("heatmap_stride33_plain", clean);
}

#[test]
fn heatmap_in_colour_marks_the_conflicting_bank() {
    let a = heatmap_app("stride-32", true);
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| f.render_widget(&a, f.area())).unwrap();
    let buf = t.backend().buffer();
    // The conflicting cells (degree 32, '+') are drawn red on a dark red ground.
    let hot: Vec<_> = buf
        .content()
        .iter()
        .filter(|c| c.symbol() == "+" && c.fg == ratatui::style::Color::Red)
        .collect();
    assert!(hot.len() >= 16, "{} hot cells", hot.len());
    insta::assert_debug_snapshot!("heatmap_stride32_colour", buf);
}

/// The "all instructions" heatmap and the single-request one agree: an instruction's worst
/// bank has the degree its sample request shows, over the real recording.
#[test]
fn heatmap_all_instructions_agrees_with_the_single_view() {
    use gpulab::analysis::heatmap::{aggregate, shared_grid, worst_first};
    use gpulab::model::access::Space;
    let a = app();
    let banks = a
        .lessons
        .iter()
        .position(|l| l.id == "shared-banks")
        .unwrap();
    let r = &a.results[&a.lessons[banks].id];
    for v in &r.variants {
        let shared: Vec<_> = worst_first(v)
            .into_iter()
            .filter(|i| i.space == Space::Shared)
            .collect();
        for (row, i) in aggregate(v).iter().zip(shared) {
            let sample = shared_grid(i.sample.as_ref().unwrap());
            let single = sample.iter().flatten().copied().max().unwrap();
            let all = row.degree.iter().copied().max().unwrap();
            assert_eq!(all, single, "{} line {:?}", v.name, i.source_line);
        }
    }
}

#[test]
fn heatmap_of_all_instructions_has_its_own_legend_and_the_single_views_figures() {
    let mut a = heatmap_app("stride-32", false);
    a.aggregate = true;
    let screen = draw(&a, 100, 30);
    assert!(screen.contains("32 wf/req"), "{screen}");
    assert!(screen.contains("conflict degree"), "{screen}");
    assert!(!screen.contains("words per request"), "{screen}");
    insta::assert_snapshot!("heatmap_all_stride32_plain", screen);
}
