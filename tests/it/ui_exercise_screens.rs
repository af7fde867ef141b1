//! Snapshots of the exercise screen at a fixed size, with no clock and no GPU: the lesson's
//! columns from the shipped recording, the learner's column from a check report given
//! here (failing without a GPU, passing on one, and not compiling). The reports are the
//! screen's input: their figures stand for what a check says, they are not measured here.

use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::exercise::YOURS;
use gpulab::model::results::{PtxasReport, Source};
use gpulab::session::exercise::report::{CORRECT_LINE, CheckLine, CheckReport, Mark};
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::session::workspace::Workspace;
use gpulab::ui::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const EXERCISE: &str = "spill-cap";

/// The lab on the exercise, as on a machine without a GPU, its workspace where a learner's
/// would be (nothing is read from it: the report says what was checked).
fn app() -> App {
    let root = CourseRoot::Bundled;
    let (lessons, errors): (Vec<Lesson>, _) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships with the lessons");
    let mut app = App::new(lessons, Some(rec), Progress::default());
    app.view.set_color(false);
    app.runs.set_caps(Some(gpulab::session::fold::Capabilities {
        no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
        ..Default::default()
    }));
    app.exercises = gpulab::ui::state::exercise::Exercises::new(
        Some(Workspace {
            dir: "/home/learner/.local/share/gpulab/exercises".into(),
        }),
        Default::default(),
        None,
    );
    let (l, e) = app
        .reading
        .lessons()
        .iter()
        .enumerate()
        .find_map(|(i, l)| Some((i, l.exercises.iter().position(|e| e.id == EXERCISE)?)))
        .expect("the exercise ships");
    // As after the lesson: its figures shown (before that its variants' cards keep them
    // hidden on the exercise too: hidden_figures).
    let id = app.reading.lessons()[l].id.clone();
    app.reading.progress_mut().mark_revealed(&id);
    app.select_row(l, Some(e));
    assert!(app.exercises.open().is_some());
    app
}

fn line(check: &str, mark: Mark, detail: &str) -> CheckLine {
    CheckLine {
        check: check.into(),
        mark,
        detail: detail.into(),
        at: None,
    }
}

/// A report on `yours` as the check gives it, with the compile report `ptxas`.
fn report(app: &App, live: bool, lines: Vec<CheckLine>, ptxas: Option<PtxasReport>) -> CheckReport {
    let x = app.exercises.open().unwrap();
    let source = if live { Source::Live } else { Source::None };
    let mut result = gpulab::session::fold::blank_result(x.lesson(), source, None);
    result.variants.retain(|v| v.name == YOURS);
    result.variants[0].ptxas = ptxas.clone();
    result.variants[0].correct = live.then_some(true);
    CheckReport {
        exercise: EXERCISE.into(),
        live,
        compile_error: None,
        ptxas,
        time_ms: None,
        solution_ms: None,
        lines,
        result,
    }
}

fn ptxas(registers: u32, spill: u32) -> Option<PtxasReport> {
    Some(PtxasReport {
        registers,
        stack_frame: spill,
        spill_stores: spill,
        spill_loads: spill,
        ..Default::default()
    })
}

/// A check without a GPU that fails on the spills the starter makes.
fn failing(a: &App) -> CheckReport {
    report(
        a,
        false,
        vec![
            line(CORRECT_LINE, Mark::NeedsGpu, "needs a GPU"),
            line("yours spill_stores == 0", Mark::Fail, "spill_stores = 136"),
            line("yours registers <= 32", Mark::Pass, "registers = 32"),
        ],
        ptxas(32, 136),
    )
}

fn show(app: App, r: CheckReport, src: &str) -> String {
    show_at(app, r, src, (160, 48))
}

/// The screen at `w` x `h` with the report `r` on the learner's `src`.
fn show_at(mut app: App, r: CheckReport, src: &str, (w, h): (u16, u16)) -> String {
    app.exercises.open_mut().unwrap().read_as(src.into());
    app.message = Some(gpulab::ui::state::exercise::verdict(&r));
    app.exercises.record_report(EXERCISE.into(), r);
    app.refresh_shown();
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(&app, f.area())).unwrap();
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

/// The smaller screens a learner over SSH has: the verdict and the `yours` checks in view
/// beside the lesson's variants as a list, at 80x24 and 120x40, failing without a GPU and
/// with nothing judged where neither a GPU nor NVRTC is (#35: snapshots of the exercise
/// screens at both sizes).
#[test]
fn the_exercise_screens_at_80x24_and_120x40() {
    let unjudged = |a: &App| {
        let x = a.exercises.open().unwrap();
        let l = gpulab::session::exercise::lesson::compile_only(
            x.lesson(),
            x.ex(),
            &gpulab::session::exercise::lesson::Yours {
                src: &x.ex().starter,
                path: "spill-cap.cu",
            },
        );
        gpulab::session::exercise::check::unjudged(x.ex(), &l)
    };
    for (w, h) in [(80, 24), (120, 40)] {
        let a = app();
        let starter = a.exercises.open().unwrap().ex().starter.clone();
        let r = failing(&a);
        let screen = show_at(a, r, &starter, (w, h));
        assert!(screen.contains("✗ spill stores"), "{w}x{h}:\n{screen}");
        assert!(screen.contains("1 fails"), "{w}x{h}:\n{screen}");
        // `yours`'s card spans the width at both sizes: a check and its figure on one row,
        // where a card beside two others wrapped them a few words a row.
        assert!(
            screen.contains("✗ spill stores (bytes) = 0 · spill stores (bytes) = 136"),
            "{w}x{h}:\n{screen}"
        );
        insta::assert_snapshot!(format!("exercise_failing_{w}x{h}"), screen);
        let a = app();
        let r = unjudged(&a);
        let screen = show_at(a, r, &starter, (w, h));
        assert!(screen.contains("need a GPU"), "{w}x{h}:\n{screen}");
        // How to get NVRTC is said once, on the status line; each check says it in short,
        // so that the checks stay in view (three of eight did, each two rows long).
        assert_eq!(
            screen.matches("nvidia-cuda-nvrtc").count(),
            1,
            "{w}x{h}:\n{screen}"
        );
        assert!(
            screen.matches("needs NVRTC or a GPU").count() >= 5,
            "{w}x{h}:\n{screen}"
        );
        insta::assert_snapshot!(format!("exercise_unjudged_{w}x{h}"), screen);
    }
}

#[test]
fn a_failing_check_without_a_gpu() {
    let a = app();
    let starter = a.exercises.open().unwrap().ex().starter.clone();
    let r = failing(&a);
    let screen = show(a, r, &starter);
    assert!(screen.contains("✗ spill stores (bytes) = 0"), "{screen}");
    assert!(
        screen.contains("not yet: 1 holds, 1 fails, 1 needs a GPU"),
        "{screen}"
    );
    assert!(!screen.contains("The solution, against yours"), "{screen}");
    insta::assert_snapshot!("exercise_failing", screen);
}

#[test]
fn a_passing_check_opens_the_solution_as_a_diff() {
    let a = app();
    let solution = a.exercises.open().unwrap().ex().solution.clone();
    let mine = solution.replace("unsigned sum = 0, mix = 0;", "unsigned mix = 0, sum = 0;");
    assert_ne!(mine, solution);
    let r = report(
        &a,
        true,
        vec![
            line(
                CORRECT_LINE,
                Mark::Pass,
                "right in 5 runs, each with fresh inputs",
            ),
            line("yours spill_stores == 0", Mark::Pass, "spill_stores = 0"),
            line("yours registers <= 32", Mark::Pass, "registers = 26"),
        ],
        ptxas(26, 0),
    );
    let screen = show(a, r, &mine);
    assert!(screen.contains("passed: every check holds"), "{screen}");
    assert!(
        screen.contains("-     unsigned mix = 0, sum = 0;"),
        "{screen}"
    );
    assert!(
        screen.contains("+     unsigned sum = 0, mix = 0;"),
        "{screen}"
    );
    insta::assert_snapshot!("exercise_passing", screen);
}

#[test]
fn a_compile_error_at_its_line() {
    let a = app();
    let file = "/home/learner/.local/share/gpulab/exercises/spill-cap.cu";
    let mut r = report(&a, false, Vec::new(), None);
    r.compile_error = Some(format!(
        "{file}:17: error: identifier \"summ\" is undefined\n17 |         summ += v.x + v.y + v.z + v.w;\n"
    ));
    let screen = show(a, r, "");
    assert!(screen.contains("✗ does not compile"), "{screen}");
    assert!(screen.contains("17 |         summ += v.x"), "{screen}");
    insta::assert_snapshot!("exercise_compile_error", screen);
}

/// After a check on the CPU interpreter, the detail pane of `yours` names the interpreter
/// as its figures' source, not the recording the lesson's other variants keep (#35 item 6).
#[test]
fn the_detail_pane_of_yours_names_the_checks_source() {
    let mut a = app();
    let mut r = report(
        &a,
        false,
        vec![line(CORRECT_LINE, Mark::Pass, "right")],
        ptxas(32, 0),
    );
    r.result.source = Source::Interpreted;
    a.message = Some(gpulab::ui::state::exercise::verdict(&r));
    a.exercises.record_report(EXERCISE.into(), r);
    a.refresh_shown();
    let yours = (a.result().unwrap().variants.iter())
        .position(|v| v.name == YOURS)
        .unwrap();
    a.view.focus(yours);
    a.on_key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('i'),
        crossterm::event::KeyModifiers::NONE,
    ));
    let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
    t.draw(|f| f.render_widget(&a, f.area())).unwrap();
    let screen = gpulab::ui::buffer_to_text(t.backend().buffer());
    assert!(
        screen.contains("figures: run on the CPU interpreter"),
        "{screen}"
    );
    assert!(!screen.contains("figures: recorded on"), "{screen}");
}
