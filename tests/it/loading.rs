//! The lab's first frame comes before its course: the real loop, on a backend that notes
//! when each frame was drawn, with a scripted slow and large load on its own thread, and a
//! course that fails to load shown at its positions with `q` still leaving.

use crate::support::{common, frame_clock};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use frame_clock::FrameClock;
use gpulab::course::bundle::CourseRoot;
use gpulab::model::builder::LessonBuilder;
use gpulab::session::progress::Progress;
use gpulab::ui::state::loading::{self, Course, Loading};
use gpulab::ui::{self, App, UiEvent};
use ratatui::Terminal;
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

const LESSONS: usize = 20_000;
const LOAD_TAKES: Duration = Duration::from_millis(600);

fn run_loop(app: &mut App, events: Receiver<UiEvent>, started: Instant) -> Vec<(Duration, String)> {
    let mut terminal = Terminal::new(FrameClock::new(100, 30, started)).unwrap();
    let (jobs, _) = channel();
    let (saves, _) = channel();
    ui::run(&mut terminal, app, &events, &jobs, &saves).unwrap();
    std::mem::take(&mut terminal.backend_mut().frames)
}

#[test]
fn the_first_frame_says_what_is_loading_long_before_a_slow_large_load_is_in() {
    let started = Instant::now();
    let mut app = App::loading(LESSONS, Progress::default());
    app.view.set_color(false);
    let (tx, rx) = channel();
    ui::spawn_loader(tx, move || {
        let lessons = (0..LESSONS)
            .map(|i| {
                LessonBuilder::new(&format!("l{i}"))
                    .order(i as u32 + 1)
                    .build()
            })
            .collect();
        std::thread::sleep(LOAD_TAKES);
        Ok(Course {
            lessons,
            recording: None,
            broken: Vec::new(),
        })
    });
    let frames = run_loop(&mut app, rx, started);

    let (first_at, first) = &frames[0];
    assert!(first.contains("loading 20000 lessons…"), "{first}");
    // Long before the load is in: a frame that waited for it would come after LOAD_TAKES.
    // (Half of it, not a few milliseconds, so that a busy machine running other tests
    // beside this one cannot fail it.)
    assert!(*first_at < LOAD_TAKES / 2, "first frame after {first_at:?}");
    let (ready_at, last) = frames.last().unwrap();
    assert!(*ready_at >= LOAD_TAKES, "{ready_at:?}");
    assert!(!last.contains("loading"), "{last}");
    assert!(
        last.contains("01 · "),
        "the lab, at its first lesson:\n{last}"
    );
    assert_eq!(app.reading.lessons().len(), LESSONS);
    assert!(app.loading.is_none());
}

#[test]
fn a_course_that_fails_to_load_is_shown_at_its_positions_and_q_leaves() {
    let root = CourseRoot::Dir(common::fixture("bad"));
    let count = root.lesson_count();
    assert_eq!(count, 9);
    let mut app = App::loading(count, Progress::default());
    let (tx, rx) = channel();
    tx.send(UiEvent::Loaded(loading::load(&root))).unwrap();
    tx.send(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('j'),
        KeyModifiers::NONE,
    )))
    .unwrap();
    drop(tx);
    let frames = run_loop(&mut app, rx, Instant::now());
    let screen = &frames.last().unwrap().1;
    assert!(
        screen.contains("The course could not be opened"),
        "{screen}"
    );
    assert!(screen.contains("01-misspelt-key.yaml:"), "{screen}");
    let Some(Loading::Failed(f)) = &app.loading else {
        panic!("the failure is kept: {:?}", app.loading)
    };
    let first = &f.problems[0];
    let position = first.split(": ").next().unwrap();
    assert_eq!(position.split(':').count(), 3, "file:line:col in {first}");
    assert!(!app.quit, "other keys do nothing");

    let (tx, rx) = channel();
    tx.send(UiEvent::Key(KeyEvent::new(
        KeyCode::Char('q'),
        KeyModifiers::NONE,
    )))
    .unwrap();
    drop(tx);
    run_loop(&mut app, rx, Instant::now());
    assert!(app.quit);
}

#[test]
fn the_bundled_course_is_counted_and_loads() {
    let root = CourseRoot::Bundled;
    let count = root.lesson_count();
    let course = loading::load(&root).expect("the bundled course loads");
    assert_eq!(count, course.lessons.len());
    assert!(course.recording.is_some());
}
