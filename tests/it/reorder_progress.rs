//! A learner's progress survives a reordering of the course. The course once ran
//! occupancy (03) before local-spills (04) and the transpose (06) before the stencil (15);
//! it then taught spills and the barrier first. Later the host (20), atomics (18) and
//! async-copy (19) lessons sat after the capstone; they now come after aos-soa (03), the
//! reduction (10) and the tiled matmul (12), and the capstone is last (20). Progress, the
//! exercise book and the recordings are keyed by lesson and exercise id, never by number
//! or position, so files written under an old order mark the same lessons done, and the
//! lab opens at the same lesson, under the new one.

use crate::support::common;

use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::session::exercise::progress::ExerciseBook;
use gpulab::session::progress::Progress;
use gpulab::ui::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::process::Command;

/// `progress.json` as the lab wrote it before the reorders, `last` key and all: the first
/// four lessons of the oldest order done (read through, or run: occupancy was 03), the old
/// 04 (local-spills) only seen, the old 06 (transpose) run and the old 15 (stencil) opened;
/// the host lesson (once 20, now 03) read through and atomics (once 18) opened.
const OLD_PROGRESS: &str = r#"{
  "lessons": {
    "memory-ladder": { "seen": true, "runs": 0, "pages_read": 7, "answers": { "0": 1, "1": 0, "2": 2, "3": 1 }, "finished": true, "revealed": true },
    "global-coalescing": { "seen": true, "runs": 1, "pages_read": 5, "finished": false, "revealed": true },
    "aos-soa": { "seen": true, "runs": 0, "pages_read": 4, "answers": { "0": 0, "1": 2, "2": 1 }, "finished": true, "revealed": true },
    "occupancy": { "seen": true, "runs": 2, "pages_read": 5, "answers": { "0": 1 }, "finished": false, "revealed": true },
    "local-spills": { "seen": true, "runs": 0, "pages_read": 2, "finished": false, "revealed": false },
    "shared-transpose": { "seen": true, "runs": 1, "pages_read": 1, "finished": false, "revealed": true },
    "stencil": { "seen": true, "runs": 0, "pages_read": 1, "finished": false, "revealed": false },
    "host": { "seen": true, "runs": 0, "pages_read": 5, "answers": { "0": 1, "1": 1, "2": 1, "3": 1 }, "finished": true, "revealed": true },
    "atomics": { "seen": true, "runs": 0, "pages_read": 1, "finished": false, "revealed": false }
  },
  "last": "local-spills"
}"#;

/// `exercises.json` from before the reorder: one exercise of the old 03 passed, one of the
/// old 15 tried.
const OLD_BOOK: &str = r#"{
  "exercises": {
    "spill-cap": { "attempts": 3, "passed": true, "best_ms": 1.5, "hints_shown": 1, "solution_shown": false },
    "halo-tile": { "attempts": 1, "passed": false, "best_ms": null, "hints_shown": 0, "solution_shown": false }
  }
}"#;

/// The lessons the old file marks done (finished, or run live).
const DONE: [&str; 6] = [
    "memory-ladder",
    "global-coalescing",
    "aos-soa",
    "occupancy",
    "shared-transpose",
    "host",
];

fn course() -> Vec<Lesson> {
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    lessons
}

fn place(lessons: &[Lesson], id: &str) -> usize {
    lessons.iter().position(|l| l.id == id).unwrap()
}

fn old_files() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("progress.json"), OLD_PROGRESS).unwrap();
    std::fs::write(data.path().join("exercises.json"), OLD_BOOK).unwrap();
    data
}

#[test]
fn the_new_order_is_the_one_the_old_files_did_not_know() {
    // Without this the other tests would not tell an id from a position.
    let lessons = course();
    assert!(place(&lessons, "local-spills") < place(&lessons, "occupancy"));
    assert!(place(&lessons, "stencil") < place(&lessons, "shared-transpose"));
    assert_eq!(lessons[place(&lessons, "occupancy")].order, 5);
    assert_eq!(lessons[place(&lessons, "local-spills")].order, 4);
    // The second reorder: host early, atomics after the reduction, async-copy between
    // the tiled matmul and the capstone, the capstone last.
    assert_eq!(lessons[place(&lessons, "host")].order, 3);
    assert_eq!(lessons[place(&lessons, "atomics")].order, 10);
    assert_eq!(lessons[place(&lessons, "async-copy")].order, 12);
    assert!(place(&lessons, "host") < place(&lessons, "local-spills"));
    assert!(place(&lessons, "reduction") < place(&lessons, "atomics"));
    assert!(place(&lessons, "tiled-matmul") < place(&lessons, "async-copy"));
    assert_eq!(lessons.last().map(|l| l.id.as_str()), Some("gemm"));
}

#[test]
fn a_progress_file_from_before_the_reorder_marks_the_same_lessons_done() {
    let lessons = course();
    let data = old_files();
    let (p, note) = Progress::load_from(&data.path().join("progress.json"));
    assert_eq!(note, None, "the old file reads as it is");
    let done: Vec<&str> = lessons
        .iter()
        .map(|l| l.id.as_str())
        .filter(|id| p.is_done(id))
        .collect();
    let mut want = DONE.to_vec();
    want.sort_by_key(|id| place(&lessons, id));
    assert_eq!(done, want);
    // What else each lesson had stays with its id: pages, answers, runs.
    assert_eq!(p.get("occupancy").answers.get(&0), Some(&1));
    assert_eq!(p.get("shared-transpose").runs, 1);
    assert!(p.get("stencil").seen && !p.get("stencil").revealed);
    assert_eq!(p.get("host").answers.len(), 4);
    assert!(p.get("atomics").seen && !p.is_done("atomics"));

    // The lab opens at the first lesson not done in the new order (local-spills, now 04,
    // after the host lesson, which is done), not at the old place of anything, and marks
    // the rows by id.
    let mut app = App::new(lessons.clone(), None, p);
    app.view.set_color(false);
    assert_eq!(
        app.reading.lessons()[app.reading.selected()].id,
        "local-spills"
    );
    app.view.set_list(Some(true));
    // Tall enough for every lesson row and its exercises: nothing scrolls out.
    let mut t = Terminal::new(TestBackend::new(120, 90)).unwrap();
    t.draw(|f| f.render_widget(&app, f.area())).unwrap();
    let screen = gpulab::ui::buffer_to_text(t.backend().buffer());
    for l in &lessons {
        let row = format!(" {:02} {}", l.order, l.id);
        let line = screen
            .lines()
            .find(|s| s.contains(&row) && !s.contains(&format!("{row}-")))
            .unwrap_or_else(|| panic!("{row} listed:\n{screen}"));
        let marked = line.contains(&format!("✓{row}"));
        assert_eq!(marked, DONE.contains(&l.id.as_str()), "{line}\n{screen}");
    }
}

#[test]
fn list_and_the_exercise_book_count_the_same_after_the_reorder() {
    let lessons = course();
    let data = old_files();
    let out = Command::new(common::bin())
        .arg("list")
        .env("GPULAB_DATA_DIR", data.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "{} of {} lessons finished",
            DONE.len(),
            lessons.len()
        )),
        "{out}"
    );
    assert!(last.contains(" · 1 of "), "spill-cap still passed:\n{out}");
    // `list --json` says the same, lesson by lesson.
    let json = Command::new(common::bin())
        .args(["list", "--json"])
        .env("GPULAB_DATA_DIR", data.path())
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let finished: Vec<&str> = (rows.as_array().unwrap().iter())
        .filter(|r| r["finished"] == true)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let mut done = DONE.to_vec();
    done.sort_by_key(|id| place(&lessons, id));
    assert_eq!(finished, done, "{rows:#}");
    let (book, note) = ExerciseBook::load_from(&data.path().join("exercises.json"));
    assert_eq!(note, None);
    let owner = |ex: &str| {
        lessons
            .iter()
            .find(|l| l.exercises.iter().any(|x| x.id == ex))
            .map(|l| l.id.as_str())
    };
    assert_eq!(owner("spill-cap"), Some("occupancy"));
    assert_eq!(owner("halo-tile"), Some("stencil"));
    assert!(book.get("spill-cap").passed);
    assert_eq!(book.get("halo-tile").attempts, 1);
}
