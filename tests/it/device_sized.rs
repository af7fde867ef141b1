//! Lessons that size their problem from the GPU: read for the H100 when no GPU is known,
//! and read again with another GPU's figures (here an H200's, as a real recording on one
//! reported them) so that their premise holds there too.

use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::results::DeviceInfo;
use gpulab::session::source::device_sized;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn course() -> (CourseRoot, Vec<Lesson>) {
    let root = CourseRoot::Dir(repo().join("lessons"));
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    (root, lessons)
}

fn h200() -> DeviceInfo {
    let text = std::fs::read_to_string(repo().join("tests/fixtures/h200-device.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn size(l: &Lesson, name: &str) -> i64 {
    l.problem.iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn the_l2_window_lesson_streams_past_the_l2_of_the_gpu_it_runs_on() {
    let (root, lessons) = course();
    let l = lessons.iter().find(|l| l.id == "l2-window").unwrap();
    // Read with no GPU known: the H100's 50 MiB, a 24 MiB table, 48 MiB between visits.
    assert_eq!(size(l, "hot_mib"), 24);
    assert!(
        l.pages[1]
            .text
            .contains("48 MiB of new data into an L2 of\n50 MiB"),
        "{}",
        l.pages[1].text
    );

    let dev = h200();
    assert_eq!(dev.l2_bytes, 60 << 20, "the fixture is an H200's figures");
    let on_h200 = device_sized(&root, l, &dev)
        .unwrap()
        .expect("the H200 differs");
    let hot = size(&on_h200, "hot_mib");
    assert_eq!(hot, 28);
    // The stream between two visits of a line, twice the table, is about the whole L2.
    let between = 2 * hot;
    assert!(
        between * 100 >= 60 * 90 && between <= 60,
        "{between} MiB against 60"
    );
    assert_eq!(
        on_h200.buffers[0].len as i64,
        hot * 262144,
        "the table buffer follows"
    );
    assert_eq!(on_h200.l2_persisting_bytes.unwrap() as i64, hot << 20);
    let text = &on_h200.pages[1].text;
    assert!(
        text.contains("56 MiB of new data into an L2 of\n60 MiB"),
        "{text}"
    );
    assert!(on_h200.checkpoint[0].q.contains("28 MiB"));
}

#[test]
fn a_gpu_with_the_lessons_own_figures_reads_nothing_again() {
    let (root, lessons) = course();
    let l = lessons.iter().find(|l| l.id == "l2-window").unwrap();
    let h100 = DeviceInfo {
        l2_bytes: 52428800,
        ..h200()
    };
    assert!(device_sized(&root, l, &h100).unwrap().is_none());
    // A lesson that takes nothing from the GPU is never read again.
    let shared = lessons.iter().find(|l| l.id == "shared-banks").unwrap();
    assert!(device_sized(&root, shared, &h200()).unwrap().is_none());
}

#[test]
fn a_misspelt_device_figure_and_a_bad_figure_in_prose_are_errors_with_a_place() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("lessons/15-l2-window.yaml")).unwrap();
    let bad = text
        .replacen("gpu_l2_bytes: 52428800", "gpu_l2_size: 52428800", 1)
        .replacen(
            "{{ hot_mib }} MiB hot table",
            "{{ hot_mb }} MiB hot table",
            1,
        );
    let root = CourseRoot::Dir(dir.path().to_path_buf());
    let errs = gpulab::course::load_file(&root, "15-l2-window.yaml", &bad).unwrap_err();
    let all: Vec<String> = errs.iter().map(ToString::to_string).collect();
    assert!(
        all.iter().any(|e| e.contains("15-l2-window.yaml:")
            && e.contains("`gpu_l2_size` is not a figure of the GPU")),
        "{all:?}"
    );
    assert!(all.iter().any(|e| e.contains("hot_mb")), "{all:?}");
}

/// The lab on a GPU whose figures are not the recording's: the lessons are read again off
/// the UI thread (a `Job::Size` for the worker thread), and the lab is ready, with them,
/// only once they are in; so too when the worker answers before the course is loaded.
#[test]
fn the_lab_reads_lessons_again_for_its_gpu_off_the_ui_thread_before_it_runs_them() {
    use gpulab::session::fold::Capabilities;
    use gpulab::session::progress::Progress;
    use gpulab::ui::App;
    use gpulab::ui::event::{Job, UiEvent, WorkerEvent};
    use gpulab::ui::state::loading::{Course, on_device};
    let caps = Capabilities {
        device: Some(h200()),
        ..Default::default()
    };
    let l2 = |app: &App| {
        let l = app
            .reading
            .lessons()
            .iter()
            .find(|l| l.id == "l2-window")
            .unwrap();
        size(l, "gpu_l2_bytes")
    };
    // The worker thread's answer to the one job the lab queued.
    let serve = |app: &mut App| {
        let jobs = std::mem::take(&mut app.outbox);
        let sizes: Vec<_> = jobs
            .into_iter()
            .filter(|j| matches!(j, Job::Size { .. }))
            .collect();
        assert_eq!(sizes.len(), 1, "one job reads the lessons again");
        let Some(Job::Size {
            lessons,
            root,
            device,
        }) = sizes.into_iter().next()
        else {
            unreachable!()
        };
        app.on_worker(WorkerEvent::Sized(on_device(&root, lessons, &device)));
    };
    let (root, lessons) = course();
    let h100_l2 = 52428800;

    let mut app = App::new(lessons.clone(), None, Progress::default());
    app.reading.set_course_root(root.clone());
    assert_eq!(l2(&app), h100_l2);
    app.on_worker(WorkerEvent::Ready(Ok(caps.clone())));
    assert!(
        app.runs.caps().is_none(),
        "not ready while the lessons are read"
    );
    assert_eq!(l2(&app), h100_l2, "nothing read on the UI thread");
    serve(&mut app);
    assert_eq!(l2(&app), h200().l2_bytes as i64);
    assert!(app.runs.caps().is_some(), "ready with the lessons in");

    // The worker first, then the course (read at the recording's sizes).
    let mut app = App::loading(lessons.len(), Progress::default());
    app.reading.set_course_root(root);
    app.on_event(UiEvent::Worker(WorkerEvent::Ready(Ok(caps))));
    app.on_event(UiEvent::Loaded(Ok(Course {
        lessons,
        recording: None,
        broken: Vec::new(),
    })));
    assert!(
        app.runs.caps().is_none(),
        "not ready while the lessons are read"
    );
    assert_eq!(l2(&app), h100_l2);
    serve(&mut app);
    assert_eq!(l2(&app), h200().l2_bytes as i64);
    assert!(app.runs.caps().is_some());

    // A GPU with the lessons' own figures reads nothing and is ready at once.
    let (_, lessons) = course();
    let mut app = App::new(lessons, None, Progress::default());
    let h100 = DeviceInfo {
        l2_bytes: h100_l2 as u64,
        ..h200()
    };
    let same = Capabilities {
        device: Some(h100),
        ..Default::default()
    };
    app.on_worker(WorkerEvent::Ready(Ok(same)));
    assert!(app.runs.caps().is_some());
    assert!(!app.outbox.iter().any(|j| matches!(j, Job::Size { .. })));
}
