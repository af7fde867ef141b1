//! Without a GPU, `r` in the lab runs the lesson on the CPU interpreter, through the real
//! worker, and keeps its figures beside the recording's: the cards show the recording's
//! times and the interpreter's correctness and traces, each labelled; `s` switches to the
//! recording alone and back; claims about times are not judged and never count as failing;
//! the knob table keeps the recording's rows; `l` runs once. The traced wavefronts of every
//! variant equal those the H100 recorded. NVRTC only (CI has it).

use crate::support::common;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::results::Source;
use gpulab::session::client::WorkerClient;
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::{App, Job, UiEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::mpsc::{Receiver, Sender};

/// The lab on lesson `id` with a worker that sees no GPU, once it has said so; None (the
/// test skipped) without NVRTC, or where the worker sees a GPU anyway.
fn lab_without_gpu(test: &str, id: &str) -> Option<(App, Receiver<UiEvent>, Sender<Job>)> {
    if !common::nvrtc_or_skip(test) {
        return None;
    }
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships");
    let mut app = App::new(lessons, Some(rec), Progress::default());
    app.view.set_color(false);
    app.reading.select(
        (app.reading.lessons().iter())
            .position(|l| l.id == id)
            .unwrap(),
    );
    // The worker is asked to see no GPU, whatever this machine has.
    let client = WorkerClient::with_command(common::bin(), vec!["worker".into()])
        .env("CUDA_VISIBLE_DEVICES", "-1");
    let (tx, rx) = std::sync::mpsc::channel();
    let jobs = gpulab::ui::spawn_worker(tx, 0, client);
    common::pump(&mut app, &rx, &jobs, 240, |a| a.runs.caps().is_some());
    if app.runs.caps().as_ref().unwrap().device.is_some() {
        eprintln!("skipped {test}: the worker sees a GPU here, and r runs on it");
        return None;
    }
    // The compile reports asked for at the start are in before the run.
    common::pump(&mut app, &rx, &jobs, 240, |a| {
        !a.runs.compiles_pending() && a.outbox.is_empty()
    });
    Some((app, rx, jobs))
}

fn key(app: &mut App, c: char) {
    app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
}

/// `r`, and the run on the CPU interpreter to its end.
fn run_on_cpu(app: &mut App, rx: &Receiver<UiEvent>, jobs: &Sender<Job>) {
    key(app, 'r');
    assert!(app.runs.running().is_some(), "{:?}", app.message);
    common::pump(app, rx, jobs, 240, |a| {
        a.runs.running().is_none() && a.outbox.is_empty()
    });
}

fn draw(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

#[test]
fn without_a_gpu_r_interprets_the_lesson_and_its_wavefronts_are_the_recordings() {
    let Some((mut app, rx, jobs)) = lab_without_gpu("cpu_ui", "shared-banks") else {
        return;
    };
    let recorded = app.runs.results()["shared-banks"].clone();
    assert_eq!(recorded.source, Source::Recorded);
    run_on_cpu(&mut app, &rx, &jobs);
    let shown = &app.runs.interpreted()["shared-banks"];
    assert_eq!(shown.source, Source::Interpreted);
    // Kept beside the recording, never in its place.
    assert_eq!(app.runs.results()["shared-banks"], recorded);
    let screen = draw(&app, 160, 48);
    assert!(
        screen.contains("CPU interpreter · times recorded on"),
        "{screen}"
    );
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

/// The cards after `r` with no GPU: the recording's times and the interpreter's figures,
/// each labelled, the claims about times not judged; `s` and `v` bring the recording back,
/// `s` the interpreter's again; the knob table keeps the recording's rows; `l` runs once.
#[test]
fn after_r_without_a_gpu_the_cards_show_both_sources_labelled() {
    let Some((mut app, rx, jobs)) = lab_without_gpu("cpu_ui both", "global-coalescing") else {
        return;
    };
    let recorded = app.runs.results()["global-coalescing"].clone();
    run_on_cpu(&mut app, &rx, &jobs);
    assert_eq!(app.message, None, "the run ended without a word to say");

    let wide = draw(&app, 120, 40);
    let narrow = draw(&app, 80, 24);
    for screen in [&wide, &narrow] {
        assert!(
            screen.contains("CPU interpreter · times recorded on"),
            "{screen}"
        );
        // Nine claims are about times and rates, seven about the trace.
        assert!(screen.contains("7 hold, 9 need a GPU"), "{screen}");
        assert!(!screen.contains("claims hold"), "{screen}");
    }
    // Each card says where its figures come from; at 80 x 24 seven cards leave room for
    // their notes alone, and the focused card's detail pane says it.
    assert!(wide.contains("recorded: "), "{wide}");
    assert!(wide.contains("interpreted: ✓ correct"), "{wide}");
    app.view.open(gpulab::ui::Overlay::Detail);
    let detail = draw(&app, 80, 24);
    assert!(detail.contains("interpreted"), "{detail}");
    // The interpreter traced its blocks of the lesson's grid, not of the CPU size's (#35
    // item 5): the count says which grid it is of (the full size's).
    let tall = draw(&app, 160, 60);
    assert!(
        tall.contains("blocks at full size, on the CPU interpreter"),
        "{tall}"
    );
    // The list's rows carry the recording's times: its title says so (#35 item 7).
    assert!(narrow.contains("times: recorded"), "{narrow}");
    app.view.close();
    // The key that switches, where the keys line has room for it.
    assert!(wide.contains("s recorded/CPU"), "{wide}");
    // The recording's time of the first card, beside the interpreter's correctness.
    let t = recorded.variants[0].time_ms.as_ref().unwrap().median;
    let ms = gpulab::analysis::stats::fmt_ms(t);
    assert!(wide.contains(&format!("recorded: {ms}")), "{ms}\n{wide}");
    insta::assert_snapshot!("cpu_ui_global_coalescing_after_r_120x40", wide);
    insta::assert_snapshot!("cpu_ui_global_coalescing_after_r_80x24", narrow);

    // `s`: the recording alone, every claim judged on it; `s` again: the interpreter's.
    key(&mut app, 's');
    let screen = draw(&app, 120, 40);
    assert!(!screen.contains("── CPU interpreter"), "{screen}");
    assert!(screen.contains("recorded on NVIDIA"), "{screen}");
    assert!(
        screen.contains("16 of 16 claims hold on these figures"),
        "{screen}"
    );
    assert!(!screen.contains("interpreted: "), "{screen}");
    key(&mut app, 's');
    assert!(draw(&app, 120, 40).contains("interpreted: ✓ correct"));
    // `v` shows the recorded figures, as its help says.
    key(&mut app, 'v');
    assert!(draw(&app, 120, 40).contains("16 of 16 claims hold on these figures"));
    key(&mut app, 's');

    // The knob turned: its rows are the recording's, sectors per request among them.
    for _ in 0..2 {
        key(&mut app, '+');
        common::pump(&mut app, &rx, &jobs, 240, |a| {
            a.runs.knobs().run().is_none() && a.outbox.is_empty()
        });
    }
    assert!(app.knob_table_shown(), "{:?}", app.message);
    let table = draw(&app, 120, 40);
    assert!(table.contains("sect/req"), "{table}");
    let rows: Vec<&str> = (table.lines())
        .filter(|l| l.contains(" rec") && l.contains(" 4.0 "))
        .collect();
    assert_eq!(rows.len(), 1, "stride 1: 4 sectors per request\n{table}");
    assert!(!table.contains("hidden (v shows it)"), "{table}");
    key(&mut app, 'o');

    // `l` with no GPU: one run, never a loop.
    key(&mut app, 'l');
    assert!(!app.runs.looping());
    let said = app.message.clone().unwrap_or_default();
    assert!(said.contains("no loop without a GPU"), "{said}");
    common::pump(&mut app, &rx, &jobs, 240, |a| {
        a.runs.running().is_none() && a.outbox.is_empty()
    });
    assert!(!app.runs.looping() && app.outbox.is_empty() && app.runs.running().is_none());
}

/// A lesson the interpreter cannot run here (no CPU size): `r` says why and shows the
/// recording, never "figures hidden" under a message that says they are shown.
#[test]
fn r_on_a_lesson_without_a_cpu_size_says_why_and_shows_the_recording() {
    let Some((mut app, _rx, _jobs)) = lab_without_gpu("cpu_ui l2", "l2") else {
        return;
    };
    key(&mut app, 'r');
    assert!(app.runs.running().is_none());
    let said = app.message.clone().unwrap_or_default();
    assert!(said.contains("no CPU size"), "{said}");
    // And why: the L2 lesson's sizes are set against the GPU's L2.
    assert!(said.contains("set against the GPU's own"), "{said}");
    assert!(said.contains("the recording's"), "{said}");
    let screen = draw(&app, 120, 40);
    assert!(!screen.contains("figures hidden"), "{screen}");
    assert!(screen.contains(" ms"), "{screen}");
    key(&mut app, 'l');
    assert!(!app.runs.looping() && app.runs.running().is_none() && app.outbox.is_empty());
}

/// One rule for counts (#35 item 4): after a run on the CPU interpreter the lab's status
/// line and `gpulab run --cpu` count the claims in the same words, held and needing a GPU
/// apart ("2 hold, 16 need a GPU" on lesson 00, where the claims about times cannot be
/// judged), each claim marked as the lab's cards mark it; and so do the lab showing the
/// recording and `gpulab run --replay`.
#[test]
fn the_lab_and_the_cli_count_claims_in_the_same_words() {
    let id = "memory-ladder";
    let Some((mut app, rx, jobs)) = lab_without_gpu("cpu_ui counts", id) else {
        return;
    };
    run_on_cpu(&mut app, &rx, &jobs);
    // The count, from the claims themselves: none judged fails, none is left unmeasured.
    let claims = &app.runs.interpreted()[id].expect;
    let held = claims.iter().filter(|c| c.holds == Some(true)).count();
    let gpu = claims.iter().filter(|c| c.needs_gpu).count();
    assert!(
        held > 0 && gpu > 0 && held + gpu == claims.len(),
        "{claims:?}"
    );
    let words = format!("{held} hold, {gpu} need a GPU");
    let status = |app: &App| {
        let screen = draw(app, 160, 48);
        let rows: Vec<&str> = screen.lines().collect();
        // Right of the lesson list, where it is open.
        let row = rows[rows.len() - 2].rsplit('│').next().unwrap();
        row.trim().to_string()
    };
    let lab = status(&app);
    assert_eq!(lab, words, "the lab's status line");
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(common::bin())
            .args(args)
            .env("CUDA_VISIBLE_DEVICES", "-1")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let out = cli(&["run", id, "--cpu"]);
    assert!(out.contains(&format!("\nclaims: {lab}\n")), "{lab}\n{out}");
    // Each claim marked as the lab marks it: `·` a GPU would judge it, `✓` it holds.
    let marked = |m: &str| {
        out.lines()
            .filter(|l| l.starts_with(&format!("  {m} ")))
            .count()
    };
    assert_eq!(
        (marked("·"), marked("✓"), marked("?")),
        (gpu, held, 0),
        "{out}"
    );
    // The recording: every claim judged, and said alike.
    key(&mut app, 's');
    let lab = status(&app);
    assert!(lab.contains("claims hold on these figures"), "{lab}");
    let out = cli(&["run", id, "--replay"]);
    assert!(out.contains(&format!("\nclaims: {lab}\n")), "{lab}\n{out}");
}
