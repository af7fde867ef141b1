//! Without a GPU, `r` in the lab runs the lesson on the CPU interpreter, through the real
//! worker: the header says so, no time is shown as measured, and the traced wavefronts of
//! every variant equal those the H100 recorded. NVRTC only (CI has it).

mod common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::results::Source;
use gpulab::session::client::WorkerClient;
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

#[test]
fn without_a_gpu_r_interprets_the_lesson_and_its_wavefronts_are_the_recordings() {
    if !common::nvrtc_or_skip("cpu_ui") {
        return;
    }
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships");
    let recorded = rec
        .replay(lessons.iter().find(|l| l.id == "shared-banks").unwrap())
        .expect("shared-banks is recorded");
    let mut app = App::new(lessons, Some(rec), Progress::default());
    app.view.color = false;
    app.reading.selected = app
        .reading
        .lessons
        .iter()
        .position(|l| l.id == "shared-banks")
        .unwrap();
    // The worker is asked to see no GPU, whatever this machine has.
    let client = WorkerClient::with_command(common::bin(), vec!["worker".into()])
        .env("CUDA_VISIBLE_DEVICES", "-1");
    let (tx, rx) = std::sync::mpsc::channel();
    let jobs = gpulab::ui::spawn_worker(tx, 0, client);
    common::pump(&mut app, &rx, &jobs, 240, |a| a.runs.caps.is_some());
    if app.runs.caps.as_ref().unwrap().device.is_some() {
        eprintln!("skipped: the worker sees a GPU here, and r runs on it");
        return;
    }
    app.on_key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE));
    assert!(app.runs.running.is_some(), "{:?}", app.message);
    common::pump(&mut app, &rx, &jobs, 240, |a| {
        a.runs.running.is_none() && a.outbox.is_empty()
    });
    let shown = &app.runs.results["shared-banks"];
    assert_eq!(shown.source, Source::Interpreted);
    let mut t = Terminal::new(TestBackend::new(160, 48)).unwrap();
    t.draw(|f| f.render_widget(&app, f.area())).unwrap();
    let screen = gpulab::ui::buffer_to_text(t.backend().buffer());
    assert!(screen.contains("run on the CPU interpreter"), "{screen}");
    // The learner's own run answers the prediction: its figures are shown.
    assert!(!screen.contains("figures hidden"), "{screen}");
    assert!(screen.contains("wavefronts/req"), "{screen}");
    for v in &recorded.variants {
        let cpu = shown.variants.iter().find(|x| x.name == v.name).unwrap();
        assert!(cpu.time_ms.is_none(), "{}: no time is invented", v.name);
        assert_eq!(cpu.correct, Some(true), "{}: {:?}", v.name, cpu.error);
        let (got, want) = (
            &cpu.memory.as_ref().unwrap().shared,
            &v.memory.as_ref().unwrap().shared,
        );
        assert_eq!(
            (got.requests, got.wavefronts, got.ideal_wavefronts),
            (want.requests, want.wavefronts, want.ideal_wavefronts),
            "{}",
            v.name
        );
    }
}
