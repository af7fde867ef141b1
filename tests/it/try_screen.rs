//! The lab on a tried kernel (`gpulab try`), drawn on `TestBackend` at 80x24: the try's
//! lesson made from examples/try/shared_read.cu with `-D PAD=0 -D PAD=1`, and the figures
//! of a real run of it on the CPU interpreter (tests/fixtures/try, written by
//! `gpulab try examples/try/shared_read.cu -D PAD=0 -D PAD=1 --cpu --json`). Nothing here
//! reads a clock, runs a worker or needs NVRTC.

use crate::support::common;

use gpulab::course::tried::lesson::{self as try_lesson, TrySpec};
use gpulab::model::results::{LessonResult, Source};
use gpulab::ui::App;
use gpulab::ui::state::try_lab::TryLab;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn spec() -> TrySpec {
    TrySpec {
        // As the learner types it: the screen names the file so.
        files: vec!["examples/try/shared_read.cu".into()],
        defines: vec!["PAD=0".into(), "PAD=1".into()],
        ..Default::default()
    }
}

fn draw(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

/// The lab on the try, as after its first run on the CPU interpreter with no GPU.
fn lab_after_cpu_run() -> App {
    let tried = try_lesson::build(&spec()).unwrap_or_else(|e| panic!("{e:#?}"));
    let text = std::fs::read_to_string(common::fixture("try/shared_read_pad_cpu.json")).unwrap();
    let result: LessonResult = serde_json::from_str(&text).unwrap();
    assert_eq!(result.source, Source::Interpreted);
    let mut app = App::for_try(TryLab::new(spec(), tried, false));
    app.view.set_color(false);
    app.message = None;
    app.runs.set_caps(Some(gpulab::session::fold::Capabilities {
        no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
        nvrtc: Some("13.0".into()),
        ..Default::default()
    }));
    app.runs.show_interpreted(try_lesson::LESSON_ID, result);
    app
}

#[test]
fn the_lab_on_a_try_at_80x24() {
    let app = lab_after_cpu_run();
    let screen = draw(&app, 80, 24);
    // The figures are the interpreter's, and say so; each setting is a column.
    assert!(screen.contains("run on the CPU interpreter"), "{screen}");
    assert!(
        screen.contains("shared ld 32.00") && screen.contains("shared ld 1.00"),
        "{screen}"
    );
    assert!(
        screen.contains("-DPAD=0") && screen.contains("-DPAD=1"),
        "{screen}"
    );
    insta::assert_snapshot!("try_shared_read_pad_80x24", screen);
}
