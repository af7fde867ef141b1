//! Snapshot tests of what the lab draws, from the recording, at fixed sizes. The recording
//! holds real figures from a real run; nothing here reads a clock or times anything.

use gpulab::lesson::bundle::CourseRoot;
use gpulab::lesson::{self, Lesson};
use gpulab::progress::Progress;
use gpulab::recording;
use gpulab::ui::state::{App, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn app() -> App {
    let root = CourseRoot::Bundled;
    let (lessons, errors): (Vec<Lesson>, _) = lesson::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships with the lessons");
    let mut app = App::new(lessons, Some(rec), Progress::default());
    app.color = false;
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
