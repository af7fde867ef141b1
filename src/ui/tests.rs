//! The lab's state under keys and worker replies, without a terminal.

use super::{App, Job, Overlay, WorkerEvent};
use crate::model::Lesson;
use crate::model::builder::LessonBuilder;
use crate::model::protocol::Reply;
use crate::model::results::{DeviceInfo, VariantResult};
use crate::session::client::WorkerFailure;
use crate::session::fold::Capabilities;
use crate::session::progress::Progress;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn lesson(id: &str) -> Lesson {
    LessonBuilder::new(id)
        .page("a", "one")
        .page("b", "two")
        .variant("fast")
        .variant("slow")
        .build()
}

fn key(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn gpu_caps() -> Capabilities {
    Capabilities {
        device: Some(DeviceInfo {
            name: "Test GPU".into(),
            cc: "9.0".into(),
            ..Default::default()
        }),
        nvrtc: Some("13.0".into()),
        ..Default::default()
    }
}

#[test]
fn run_without_a_gpu_explains_and_queues_nothing() {
    let mut app = App::new(vec![lesson("a")], None, Progress::default());
    app.on_worker(WorkerEvent::Ready(Ok(Capabilities {
        no_gpu: Some("no NVIDIA driver".into()),
        nvrtc: Some("13.0".into()),
        ..Default::default()
    })));
    // NVRTC but no GPU: compile jobs for live reports, nothing else.
    assert!(app.outbox.iter().all(|j| matches!(j, Job::Compile { .. })));
    assert_eq!(app.outbox.len(), 1);
    app.outbox.clear();
    app.on_key(key(KeyCode::Char('r')));
    assert!(app.outbox.is_empty());
    assert!(app.message.as_deref().unwrap().contains("no NVIDIA driver"));
}

#[test]
fn a_live_run_streams_samples_and_loops_until_stopped() {
    let mut app = App::new(vec![lesson("a")], None, Progress::default());
    app.on_worker(WorkerEvent::Ready(Ok(gpu_caps())));
    app.on_key(key(KeyCode::Char('l')));
    assert!(matches!(app.outbox.as_slice(), [Job::Run { .. }]));
    assert!(app.runs.running.is_some());
    let reply = |reply| WorkerEvent::Reply {
        lesson: "a".into(),
        reply,
    };
    app.on_worker(reply(Reply::Stage {
        variant: "slow".into(),
        stage: "timing".into(),
    }));
    app.on_worker(reply(Reply::Sample {
        variant: "slow".into(),
        ms: 2.5,
    }));
    assert_eq!(app.runs.running.as_ref().unwrap().stage, "timing");
    assert_eq!(app.result().unwrap().variants[1].samples_ms, vec![2.5]);
    app.outbox.clear();
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    assert_eq!(app.reading.progress.get("a").runs, 1);
    assert!(
        matches!(app.outbox.as_slice(), [Job::Run { .. }]),
        "looping runs again"
    );
    app.on_key(key(KeyCode::Char('l')));
    app.outbox.clear();
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    assert!(app.outbox.is_empty(), "the loop stopped");
}

#[test]
fn a_fault_marks_its_variant_wrong_in_words_and_stops_the_loop() {
    let mut app = App::new(vec![lesson("a")], None, Progress::default());
    app.on_worker(WorkerEvent::Ready(Ok(gpu_caps())));
    app.on_key(key(KeyCode::Char('l')));
    app.outbox.clear();
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Err(WorkerFailure::Fault {
            variant: Some("slow".into()),
            message: "illegal memory access".into(),
        }),
    });
    let v: &VariantResult = &app.result().unwrap().variants[1];
    assert_eq!(v.correct, Some(false));
    assert!(
        v.error
            .as_deref()
            .unwrap()
            .contains("illegal memory access")
    );
    assert!(!app.runs.looping && app.outbox.is_empty() && app.runs.running.is_none());
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .contains("worker was restarted")
    );
}

#[test]
fn the_checkpoint_is_a_last_page_answered_with_number_keys() {
    let mut l = lesson("a");
    l.checkpoint = vec![crate::model::Question {
        q: "Which is faster?".into(),
        choices: vec!["fast".into(), "slow".into()],
        answer: 0,
        why: "It reads less.".into(),
    }];
    let mut app = App::new(vec![l.clone()], None, Progress::default());
    assert_eq!(app.page_count(), 3);
    app.on_key(key(KeyCode::Char('2')));
    assert!(
        app.reading.answers.is_empty(),
        "digits answer only on the checkpoint page"
    );
    app.on_key(key(KeyCode::Char('n')));
    app.on_key(key(KeyCode::Char('n')));
    assert!(app.on_checkpoint_page());
    let before = crate::ui::views::checkpoint::page(&app, &l).text;
    assert!(before.contains("press the number"));
    app.on_key(key(KeyCode::Char('2')));
    let after = crate::ui::views::checkpoint::page(&app, &l).text;
    assert!(
        after.contains("✗ 2) is not it; the answer is 1). It reads less."),
        "{after}"
    );
}

#[test]
fn keys_move_between_pages_variants_lessons_and_overlays() {
    let mut app = App::new(vec![lesson("a"), lesson("b")], None, Progress::default());
    app.on_key(key(KeyCode::Char('n')));
    assert_eq!(app.reading.page, 1);
    app.on_key(key(KeyCode::Char('n')));
    assert_eq!(app.reading.page, 1, "no page past the last");
    app.on_key(key(KeyCode::Right));
    assert_eq!(app.view.variant, 1);
    app.on_key(key(KeyCode::Right));
    assert_eq!(app.view.variant, 1);
    app.on_key(key(KeyCode::Char('?')));
    assert_eq!(app.view.overlay, Overlay::Help);
    app.on_key(key(KeyCode::Char('q')));
    assert_eq!(app.view.overlay, Overlay::None);
    assert!(!app.quit, "q closes the pop-up first");
    app.on_key(key(KeyCode::Down));
    assert_eq!(
        (app.reading.selected, app.reading.page, app.view.variant),
        (1, 0, 0)
    );
    assert!(app.reading.progress.get("b").seen);
    app.on_key(key(KeyCode::Char('q')));
    assert!(app.quit);
}

#[test]
fn a_refused_run_is_a_failure_on_its_variant_not_a_finished_run() {
    let mut app = App::new(vec![lesson("a")], None, Progress::default());
    app.on_worker(WorkerEvent::Ready(Ok(gpu_caps())));
    app.on_key(key(KeyCode::Char('l')));
    app.outbox.clear();
    let reply = |reply| WorkerEvent::Reply {
        lesson: "a".into(),
        reply,
    };
    app.on_worker(reply(Reply::Stage {
        variant: "slow".into(),
        stage: "compiling".into(),
    }));
    app.on_worker(reply(Reply::Error {
        message: "no GPU to run on: the device went away".into(),
    }));
    app.on_worker(reply(Reply::Done));
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    let v = &app.result().unwrap().variants[1];
    assert_eq!(v.correct, Some(false));
    assert!(v.error.as_deref().unwrap().contains("the device went away"));
    assert_eq!(
        app.reading.progress.get("a").runs,
        0,
        "a refusal is not a run"
    );
    assert!(!app.runs.looping && app.outbox.is_empty() && app.runs.running.is_none());
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .contains("the device went away")
    );
}

#[test]
fn without_a_gpu_reading_and_answering_finish_a_lesson_and_answers_are_kept() {
    let mut l = lesson("a");
    l.checkpoint = vec![crate::model::Question {
        q: "Which is faster?".into(),
        choices: vec!["fast".into(), "slow".into()],
        answer: 0,
        why: "It reads less.".into(),
    }];
    let mut app = App::new(vec![l.clone(), lesson("b")], None, Progress::default());
    app.on_worker(WorkerEvent::Ready(Ok(Capabilities {
        no_gpu: Some("no NVIDIA driver".into()),
        ..Default::default()
    })));
    app.note_seen();
    app.on_key(key(KeyCode::Char('n')));
    app.on_key(key(KeyCode::Char('n')));
    assert!(
        !app.reading.progress.is_done("a"),
        "the checkpoint is not answered yet"
    );
    app.reading.save_requested = false;
    app.on_key(key(KeyCode::Char('1')));
    assert!(app.reading.save_requested, "an answer is saved");
    assert!(app.reading.progress.is_done("a"));
    assert_eq!(
        app.reading.progress.get("a").runs,
        0,
        "no live run was needed"
    );
    assert_eq!(app.reading.progress.get("a").answers.get(&0), Some(&0));
    let again = App::new(
        vec![l.clone(), lesson("b")],
        None,
        app.reading.progress.clone(),
    );
    assert_eq!(
        again.reading.selected, 1,
        "opens at the first unfinished lesson"
    );
    assert_eq!(again.reading.answers.get(&("a".to_string(), 0)), Some(&0));
}

#[test]
fn the_list_marks_a_finished_lesson_and_a_live_run_apart() {
    use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};
    let mut p = Progress::default();
    p.mark_page("a", 1);
    p.check_finished("a", 2, 0);
    p.mark_run("b");
    let mut app = App::new(vec![lesson("a"), lesson("b")], None, p);
    app.view.color = false;
    let area = Rect::new(0, 0, 100, 20);
    let mut buf = Buffer::empty(area);
    (&app).render(area, &mut buf);
    let text = crate::ui::buffer_to_text(&buf);
    assert!(text.contains("✓ 01 a"), "{text}");
    assert!(text.contains("01 b ◆"), "{text}");
}

#[test]
fn the_status_line_shows_the_queue_for_the_gpu_as_it_moves() {
    use crate::model::protocol::{JobKind, QueuedJob};
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;
    let mut app = App::new(vec![lesson("a")], None, Progress::default());
    app.view.color = false;
    app.on_worker(WorkerEvent::Ready(Ok(gpu_caps())));
    app.on_key(key(KeyCode::Char('r')));
    let status = |app: &App| {
        let area = Rect::new(0, 0, 120, 30);
        let mut buf = Buffer::empty(area);
        app.render(area, &mut buf);
        super::buffer_to_text(&buf)
    };
    let queue = |ahead: &[JobKind], waited_ms| WorkerEvent::Reply {
        lesson: "a".into(),
        reply: Reply::Queue {
            variant: "slow".into(),
            ahead: ahead.iter().map(|&job| QueuedJob { pid: 7, job }).collect(),
            waited_ms,
        },
    };
    app.on_worker(queue(&[JobKind::Recording, JobKind::ExerciseCheck], 0.0));
    let screen = status(&app);
    assert!(
        screen.contains(
            "running a · slow waiting for the GPU: 2 ahead (a recording, an exercise check)"
        ),
        "{screen}"
    );
    app.on_worker(queue(&[JobKind::ExerciseCheck], 0.0));
    assert!(status(&app).contains("slow waiting for the GPU: 1 ahead (an exercise check)"));
    app.on_worker(queue(&[], 1500.0));
    assert!(status(&app).contains("slow the GPU is free: waited 1.5 s"));
}
