use super::*;
use crate::course::bundle::CourseRoot;
use crate::session::progress::Progress;
use crate::session::workspace::Workspace;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

/// The bundled course, at its first lesson, with a workspace in `dir`.
fn app(dir: &Path) -> App {
    let (lessons, errors) = crate::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let mut app = App::new(lessons, None, Progress::default());
    app.reading.select(0);
    app.exercises = crate::ui::state::exercise::Exercises::new(
        Some(Workspace {
            dir: dir.to_path_buf(),
        }),
        Default::default(),
        Some(dir.join("exercises.json")),
    );
    app
}

/// Down from the first lesson that has exercises, onto its first one.
fn onto_first_exercise(app: &mut App) -> usize {
    let l = app
        .reading
        .lessons()
        .iter()
        .position(|l| !l.exercises.is_empty())
        .unwrap();
    app.select_row(l, None);
    app.outbox.clear();
    app.on_key(key(KeyCode::Down));
    l
}

#[test]
fn the_cursor_walks_each_lessons_exercises_before_the_next_lesson() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app(dir.path());
    let l = onto_first_exercise(&mut app);
    let n = app.reading.lessons()[l].exercises.len();
    assert_eq!(app.current_row(), (l, Some(0)));
    let x = app.exercises.open().unwrap();
    assert_eq!(x.lesson().variants.last().unwrap().name, YOURS);
    assert_eq!(
        x.src(),
        x.ex().starter,
        "never the solution before the learner's file"
    );
    assert_eq!(
        app.view.variant(),
        x.lesson().variants.len() - 1,
        "yours in focus"
    );
    for _ in 0..n {
        app.on_key(key(KeyCode::Down));
    }
    assert_eq!(app.current_row(), (l + 1, None));
    assert!(app.exercises.open().is_none());
    assert!(
        app.outbox.iter().any(|j| matches!(j, Job::Watch(None))),
        "leaving an exercise stops watching its file"
    );
}

#[test]
fn e_starts_the_file_watches_it_and_asks_for_the_editor() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app(dir.path());
    onto_first_exercise(&mut app);
    app.on_key(key(KeyCode::Char('r')));
    assert!(app.message.as_deref().unwrap().contains("not started"));
    assert!(app.outbox.is_empty(), "nothing to check yet");
    app.on_key(key(KeyCode::Char('e')));
    let x = app.exercises.open().unwrap().clone();
    let file = x.file().unwrap();
    assert_eq!(std::fs::read_to_string(file).unwrap(), x.ex().starter);
    assert_eq!(app.exercises.take_edit().as_deref(), Some(file.as_path()));
    let watched = app.outbox.iter().find_map(|j| match j {
        Job::Watch(Some((p, base))) => Some((p.clone(), base.clone())),
        _ => None,
    });
    assert_eq!(
        watched,
        Some((file.clone(), Some(x.ex().starter.clone().into_bytes())))
    );
    // The learner's file is theirs: a second `e` leaves it as it is.
    std::fs::write(file, "// mine").unwrap();
    app.on_key(key(KeyCode::Char('e')));
    assert_eq!(std::fs::read_to_string(file).unwrap(), "// mine");
}

#[test]
fn saves_during_a_check_make_one_more_check_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app(dir.path());
    onto_first_exercise(&mut app);
    app.on_key(key(KeyCode::Char('e')));
    let file = app.exercises.open().unwrap().file().cloned().unwrap();
    app.outbox.clear();
    app.on_saved(&file);
    // The learner saves an edit twice while the first check runs.
    std::fs::write(&file, "// an edit\n").unwrap();
    app.on_saved(&file);
    app.on_saved(&file);
    let checks = |app: &App| {
        app.outbox
            .iter()
            .filter(|j| matches!(j, Job::Check(_)))
            .count()
    };
    assert_eq!(checks(&app), 1, "one check at a time");
    app.on_saved(Path::new("/elsewhere/other.cu"));
    let id = app.exercises.open().unwrap().ex().id.clone();
    let failure = WorkerFailure::Crashed {
        detail: "gone".into(),
    };
    app.on_checked(id.clone(), Err(failure));
    assert_eq!(checks(&app), 2, "the saves during it: one more");
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .contains("the check stopped")
    );
    let Some(Job::Check(job)) = app.outbox.last() else {
        panic!("{:?}", app.outbox)
    };
    assert!(job.quick, "a save's check has the short budget");
    assert_eq!(job.ex.id, id);
    // A save that changed nothing during that check (one write the watcher reported
    // twice): no third check, no attempt counted twice.
    app.on_saved(&file);
    let x = app.exercises.open().unwrap();
    let lesson = &app.reading.lessons()[app.reading.selected()];
    let report = crate::session::exercise::check::unjudged(x.ex(), lesson);
    app.on_checked(id.clone(), Ok(Box::new(report)));
    assert_eq!(checks(&app), 2, "the same text is not checked again");
    // `r` during a check still checks again, changed or not.
    app.on_saved(&file);
    app.on_key(key(KeyCode::Char('r')));
    let failure = WorkerFailure::Crashed {
        detail: "gone".into(),
    };
    app.on_checked(id, Err(failure));
    assert_eq!(
        checks(&app),
        4,
        "r asks for a check whatever the file holds"
    );
}

#[test]
fn hints_come_one_at_a_time_and_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app(dir.path());
    onto_first_exercise(&mut app);
    let (id, n) = {
        let x = app.exercises.open().unwrap();
        (x.ex().id.clone(), x.ex().hints.len())
    };
    assert!(n >= 2);
    app.on_key(key(KeyCode::Char('t')));
    assert_eq!(app.exercises.book().get(&id).hints_shown, 1);
    assert!(app.outbox.iter().any(|j| matches!(j, Job::SaveBook { .. })));
    for _ in 0..n + 2 {
        app.on_key(key(KeyCode::Char('t')));
    }
    assert_eq!(app.exercises.book().get(&id).hints_shown as usize, n);
    assert_eq!(app.message.as_deref(), Some("that was the last hint"));
}

#[test]
fn with_neither_a_gpu_nor_nvrtc_the_verdict_says_what_nvrtc_would_judge() {
    let (lessons, _) = crate::course::load_course(&CourseRoot::Bundled);
    let ex_of = |id: &str| {
        let l = (lessons.iter())
            .find(|l| l.exercises.iter().any(|e| e.id == id))
            .unwrap();
        (l.exercises.iter().find(|e| e.id == id).unwrap().clone(), l)
    };
    let (ex, l) = ex_of("coalesce-copy");
    let r = crate::session::exercise::check::unjudged(&ex, l);
    let n = r.nvrtc_would_judge();
    let words = verdict(&r);
    assert!(
        words.contains(&format!("the CPU interpreter would judge {n}")),
        "{words}"
    );
    assert!(words.contains(crate::model::protocol::PIP_HINT), "{words}");
    // Textures need a GPU whatever NVRTC does: NVRTC is not offered.
    let (ex, l) = ex_of("sample-texture");
    let r = crate::session::exercise::check::unjudged(&ex, l);
    assert!(!verdict(&r).contains("NVRTC"), "{}", verdict(&r));
}
