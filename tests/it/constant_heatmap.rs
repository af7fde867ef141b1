//! The constant lesson's heatmap, from the recording an H100 run wrote: a `__constant__`
//! read is drawn lane by distinct address, 1 for a warp-uniform index, 4 and 32 for the
//! lane-dependent ones, while the `__ldg` variants keep their sector heatmap.

use crossterm::event::{KeyCode, KeyEvent};
use gpulab::course::bundle::CourseRoot;
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn recorded_constant() -> App {
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships with the lessons");
    let mut a = App::new(lessons, Some(rec), Progress::default());
    a.view.set_color(false);
    a.reading.select_id("constant").unwrap();
    a.reading.progress_mut().mark_revealed("constant");
    a
}

fn draw(app: &App) -> String {
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

fn heatmap_of(a: &mut App, variant: &str) -> String {
    let v = a.reading.lessons()[a.reading.selected()]
        .variants
        .iter()
        .position(|v| v.name == variant)
        .unwrap();
    a.view.start_at(v);
    a.view.close();
    a.on_key(KeyEvent::from(KeyCode::Char('h')));
    draw(a)
}

#[test]
fn constant_reads_are_drawn_by_distinct_address() {
    let mut a = recorded_constant();
    for (variant, n) in [
        ("const-uniform", 1),
        ("const-4", 4),
        ("const-divergent", 32),
    ] {
        let screen = heatmap_of(&mut a, variant);
        let title = format!("ld.const.u32 · {n}.0 distinct addresses/request");
        assert!(screen.contains(&title), "{variant}:\n{screen}");
        let legend = format!("columns: the {n} distinct addresses named");
        assert!(screen.contains(&legend), "{variant}:\n{screen}");
        if variant == "const-divergent" {
            insta::assert_snapshot!("heatmap_const_divergent", screen);
        }
    }
    let ldg = heatmap_of(&mut a, "ldg-divergent");
    assert!(ldg.contains("4.0 sectors/request"), "{ldg}");
}
