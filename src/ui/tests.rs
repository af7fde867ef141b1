//! The lab's state under keys and worker replies, without a terminal.

use crate::model::Lesson;
use crate::model::builder::LessonBuilder;
use crate::model::protocol::Reply;
use crate::model::results::{DeviceInfo, Source, VariantResult};
use crate::session::client::WorkerFailure;
use crate::session::fold::Capabilities;
use crate::session::progress::Progress;
use crate::session::source::Plan;
use crate::ui::event::CpuSize;
use crate::ui::{App, Job, Overlay, WorkerEvent};
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
    assert!(app.outbox.iter().all(|j| matches!(
        j,
        Job::Run {
            plan: Plan::CompileHere { .. },
            ..
        }
    )));
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
    assert!(matches!(
        app.outbox.as_slice(),
        [Job::Run {
            plan: Plan::Live(_),
            ..
        }]
    ));
    assert!(app.runs.running().is_some());
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
    assert_eq!(app.runs.running().as_ref().unwrap().stage, "timing");
    assert_eq!(app.result().unwrap().variants[1].samples_ms, vec![2.5]);
    app.outbox.clear();
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    assert_eq!(app.reading.progress().get("a").runs, 1);
    assert!(
        matches!(
            app.outbox.as_slice(),
            [Job::Run {
                plan: Plan::Live(_),
                ..
            }]
        ),
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
            code: Some("CUDA_ERROR_ILLEGAL_ADDRESS".into()),
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
    assert!(!app.runs.looping() && app.outbox.is_empty() && app.runs.running().is_none());
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
        !app.reading.any_answer(),
        "digits answer only on the checkpoint page"
    );
    // The checkpoint opens once the figures are out (`v`: no GPU needed).
    app.on_key(key(KeyCode::Char('v')));
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
    assert_eq!(app.reading.page(), 1);
    app.on_key(key(KeyCode::Char('n')));
    assert_eq!(app.reading.page(), 1, "no page past the last");
    app.on_key(key(KeyCode::Right));
    assert_eq!(app.view.variant(), 1);
    app.on_key(key(KeyCode::Right));
    assert_eq!(app.view.variant(), 1);
    app.on_key(key(KeyCode::Char('?')));
    assert_eq!(app.view.overlay(), Overlay::Help);
    app.on_key(key(KeyCode::Char('q')));
    assert_eq!(app.view.overlay(), Overlay::None);
    assert!(!app.quit, "q closes the pop-up first");
    app.on_key(key(KeyCode::Down));
    assert_eq!(
        (
            app.reading.selected(),
            app.reading.page(),
            app.view.variant()
        ),
        (1, 0, 0)
    );
    assert!(app.reading.progress().get("b").seen);
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
        app.reading.progress().get("a").runs,
        0,
        "a refusal is not a run"
    );
    assert!(!app.runs.looping() && app.outbox.is_empty() && app.runs.running().is_none());
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
    // No GPU here: `v` shows the recorded figures, which opens the checkpoint.
    app.on_key(key(KeyCode::Char('v')));
    app.on_key(key(KeyCode::Char('n')));
    app.on_key(key(KeyCode::Char('n')));
    assert!(
        !app.reading.progress().is_done("a"),
        "the checkpoint is not answered yet"
    );
    app.reading.take_save_request();
    app.on_key(key(KeyCode::Char('1')));
    assert!(app.reading.take_save_request(), "an answer is saved");
    assert!(app.reading.progress().is_done("a"));
    assert_eq!(
        app.reading.progress().get("a").runs,
        0,
        "no live run was needed"
    );
    assert_eq!(app.reading.progress().get("a").answers.get(&0), Some(&0));
    let again = App::new(
        vec![l.clone(), lesson("b")],
        None,
        app.reading.progress().clone(),
    );
    assert_eq!(
        again.reading.selected(),
        1,
        "opens at the first unfinished lesson"
    );
    assert_eq!(again.reading.answer("a", 0), Some(0));
}

#[test]
fn the_list_marks_a_finished_lesson_and_a_live_run_apart() {
    use ratatui::{buffer::Buffer, layout::Rect, widgets::Widget};
    let mut p = Progress::default();
    p.mark_page("a", 1);
    p.check_finished("a", 2, 0);
    p.mark_run("b");
    let mut app = App::new(vec![lesson("a"), lesson("b")], None, p);
    app.view.set_color(false);
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
    app.view.set_color(false);
    app.on_worker(WorkerEvent::Ready(Ok(gpu_caps())));
    app.on_key(key(KeyCode::Char('r')));
    let status = |app: &App| {
        let area = Rect::new(0, 0, 120, 30);
        let mut buf = Buffer::empty(area);
        app.render(area, &mut buf);
        crate::ui::buffer_to_text(&buf)
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

fn no_gpu_caps(nvrtc: bool) -> Capabilities {
    Capabilities {
        no_gpu: Some("no NVIDIA driver".into()),
        nvrtc: nvrtc.then(|| "13.0".into()),
        ..Default::default()
    }
}

/// A recorded lesson with a CPU size, its two variants timed and judged by a claim about
/// times and one about the trace.
fn recorded_app() -> App {
    let mut l = lesson("a");
    l.problem_cpu = vec![("n".into(), 64)];
    let mut app = App::new(vec![l.clone()], None, Progress::default());
    let mut rec = crate::session::fold::blank_result(
        &l,
        Source::Recorded,
        Some(DeviceInfo {
            name: "Test GPU".into(),
            recorded_at: Some("2025-01-02T00:00:00Z".into()),
            ..Default::default()
        }),
    );
    for (v, ms) in rec.variants.iter_mut().zip([1.0, 3.0]) {
        v.correct = Some(true);
        v.time_ms = Some(crate::model::results::TimeMs {
            median: ms,
            min: ms,
            max: ms,
            runs: 10,
            spread_pct: 0.0,
        });
    }
    app.runs.show("a", rec);
    app
}

/// The worker says there is NVRTC and no GPU, and the compile reports it was asked for
/// are in.
fn ready_without_gpu(app: &mut App) {
    app.on_worker(WorkerEvent::Ready(Ok(no_gpu_caps(true))));
    assert!(matches!(
        app.outbox.as_slice(),
        [Job::Run {
            plan: Plan::CompileHere { .. },
            ..
        }]
    ));
    app.outbox.clear();
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
}

#[test]
fn a_cpu_run_is_kept_beside_the_recording_and_s_switches_between_them() {
    let mut app = recorded_app();
    ready_without_gpu(&mut app);
    let recorded = app.runs.results()["a"].clone();
    app.on_key(key(KeyCode::Char('r')));
    assert!(matches!(
        app.outbox.as_slice(),
        [Job::Run {
            plan: Plan::Interpreted,
            cpu_size: CpuSize::Read(_),
            ..
        }]
    ));
    assert!(app.runs.running().as_ref().unwrap().on_cpu);
    let mut v = VariantResult {
        name: "slow".into(),
        correct: Some(false),
        ..Default::default()
    };
    v.error = Some("out[3] = 1, expected 2".into());
    app.on_worker(WorkerEvent::Reply {
        lesson: "a".into(),
        reply: Reply::Variant {
            result: Box::new(v),
        },
    });
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    assert!(app.runs.running().is_none());
    // The recording is as it was; the interpreter's figures are their own, and in front.
    assert_eq!(app.runs.results()["a"], recorded);
    let cpu = &app.runs.interpreted()["a"];
    assert_eq!(cpu.source, Source::Interpreted);
    assert_eq!(cpu.variants[1].correct, Some(false));
    assert_eq!(app.result().unwrap().variants[1].correct, Some(false));
    assert!(app.revealed());
    // Its times come from the recording, beside the interpreter's verdict.
    let (_, rv) = app.recorded_beside("slow").unwrap();
    assert_eq!(rv.time_ms.as_ref().unwrap().median, 3.0);
    assert_eq!(app.reading.progress().get("a").runs, 0, "no GPU ran it");
    // `s`: the recording alone; `s`: the interpreter's again; `v`: the recording.
    app.on_key(key(KeyCode::Char('s')));
    assert_eq!(app.result().unwrap(), &recorded);
    assert!(app.recorded_beside("slow").is_none());
    app.on_key(key(KeyCode::Char('s')));
    assert_eq!(app.result().unwrap().source, Source::Interpreted);
    app.on_key(key(KeyCode::Char('v')));
    assert_eq!(app.result().unwrap(), &recorded);
}

#[test]
fn without_a_gpu_l_runs_once_and_never_loops() {
    let mut app = recorded_app();
    ready_without_gpu(&mut app);
    app.on_key(key(KeyCode::Char('l')));
    assert!(!app.runs.looping());
    assert!(matches!(
        app.outbox.as_slice(),
        [Job::Run {
            plan: Plan::Interpreted,
            cpu_size: CpuSize::Read(_),
            ..
        }]
    ));
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .contains("no loop without a GPU")
    );
    app.outbox.clear();
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    assert!(app.outbox.is_empty() && app.runs.running().is_none() && !app.runs.looping());
}

#[test]
fn without_nvrtc_or_a_cpu_size_r_says_why_and_shows_the_recording() {
    let get = "pip install nvidia-cuda-nvrtc";
    for (nvrtc, sized, why) in [(false, true, get), (true, false, "no CPU size")] {
        let mut app = recorded_app();
        if !sized {
            let mut l = app.reading.lessons()[0].clone();
            l.problem_cpu.clear();
            app.reading.read_again(vec![l]);
        }
        app.on_worker(WorkerEvent::Ready(Ok(no_gpu_caps(nvrtc))));
        app.outbox.clear();
        assert!(!app.revealed(), "hidden until the learner asks");
        app.on_key(key(KeyCode::Char('r')));
        assert!(app.outbox.is_empty() && app.runs.running().is_none());
        let said = app.message.clone().unwrap();
        assert!(
            said.contains(why) && said.contains("the recording's"),
            "{said}"
        );
        // What the message says is shown is shown.
        assert!(app.revealed(), "{said}");
        // `l` neither loops nor queues anything.
        app.on_key(key(KeyCode::Char('l')));
        assert!(app.outbox.is_empty() && !app.runs.looping());
    }
}

#[test]
fn a_page_that_answers_the_predictions_stays_closed_until_the_lesson_has_run() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;
    let mut l = LessonBuilder::new("a")
        .page("Predict", "Predict: which is faster?")
        .page("Reading the figures", "fast wins by a mile")
        .variant("fast")
        .question("Which?", &["fast", "slow"], 0, "fast is fast")
        .build();
    l.pages[1].answers = true;
    let mut app = App::new(vec![l], None, Progress::default());
    app.view.set_color(false);
    let screen = |app: &App| {
        let area = Rect::new(0, 0, 80, 24);
        let mut buf = Buffer::empty(area);
        app.render(area, &mut buf);
        crate::ui::buffer_to_text(&buf)
    };
    assert!(screen(&app).contains("Predict: which is faster?"));
    app.on_key(key(KeyCode::Char('n')));
    let closed = screen(&app);
    assert!(
        closed.contains("answers the lesson's predictions"),
        "{closed}"
    );
    assert!(!closed.contains("fast wins"), "{closed}");
    // The checkpoint too: a number answers nothing while it is closed.
    app.on_key(key(KeyCode::Char('n')));
    assert!(app.on_checkpoint_page() && app.page_closed());
    app.on_key(key(KeyCode::Char('1')));
    assert!(app.reading.progress().get("a").answers.is_empty());
    // `v` shows the figures: the answers are no longer a spoiler.
    app.on_key(key(KeyCode::Char('v')));
    app.on_key(key(KeyCode::Char('p')));
    let open = screen(&app);
    assert!(open.contains("fast wins by a mile"), "{open}");
}

#[test]
fn c_asks_the_next_runs_for_a_cold_l2_and_again_for_a_warm_one() {
    let mut app = App::new(vec![lesson("a")], None, Progress::default());
    app.on_worker(WorkerEvent::Ready(Ok(gpu_caps())));
    app.outbox.clear();
    let cold_of_next_run = |app: &mut App| {
        app.on_key(key(KeyCode::Char('r')));
        let cold = match app.outbox.as_slice() {
            [Job::Run { options, .. }] => options.cold_l2,
            other => panic!("{other:?}"),
        };
        app.outbox.clear();
        app.on_worker(WorkerEvent::Finished {
            lesson: "a".into(),
            outcome: Ok(()),
        });
        cold
    };
    assert!(!cold_of_next_run(&mut app), "warm unless asked");
    app.on_key(key(KeyCode::Char('C')));
    assert!(app.message.as_deref().unwrap().starts_with("cold L2"));
    assert!(cold_of_next_run(&mut app));
    app.on_key(key(KeyCode::Char('C')));
    assert!(app.message.as_deref().unwrap().starts_with("warm L2"));
    assert!(!cold_of_next_run(&mut app));
}

#[test]
fn r_on_another_lesson_during_a_run_is_queued_and_runs_when_it_ends() {
    let mut app = App::new(vec![lesson("a"), lesson("b")], None, Progress::default());
    app.on_worker(WorkerEvent::Ready(Ok(gpu_caps())));
    app.outbox.clear();
    app.on_key(key(KeyCode::Char('r')));
    assert!(matches!(
        app.outbox.as_slice(),
        [Job::Run {
            plan: Plan::Live(_),
            ..
        }]
    ));
    app.outbox.clear();
    app.select_row(1, None);
    app.on_key(key(KeyCode::Char('r')));
    assert!(app.outbox.is_empty(), "one run at a time");
    let said = app.message.clone().unwrap_or_default();
    assert_eq!(said, "queued: b runs once a is done");
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    match app.outbox.as_slice() {
        [Job::Run { lesson, .. }] => assert_eq!(lesson.id, "b"),
        other => panic!("b runs next: {other:?}"),
    }
    assert_eq!(app.runs.running().as_ref().unwrap().lesson, "b");
    assert!(
        app.message.is_none(),
        "the queued note goes: {:?}",
        app.message
    );
}

/// A second `r` on the lesson that runs says so, until the run ends (it hid the claims'
/// count after it); a third lesson's `r` takes the queued one's place and says so.
#[test]
fn a_second_r_s_note_goes_when_the_run_ends_and_a_replaced_queue_says_so() {
    let mut app = App::new(
        vec![lesson("a"), lesson("b"), lesson("c")],
        None,
        Progress::default(),
    );
    app.on_worker(WorkerEvent::Ready(Ok(gpu_caps())));
    app.on_key(key(KeyCode::Char('r')));
    app.on_key(key(KeyCode::Char('r')));
    assert_eq!(
        app.message.as_deref(),
        Some(crate::ui::state::runs::ALREADY_GOING)
    );
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    assert!(app.message.is_none(), "{:?}", app.message);
    app.outbox.clear();
    app.on_key(key(KeyCode::Char('r')));
    app.select_row(1, None);
    app.on_key(key(KeyCode::Char('r')));
    app.select_row(2, None);
    app.on_key(key(KeyCode::Char('r')));
    assert_eq!(
        app.message.as_deref(),
        Some("queued: c runs once a is done, in place of b")
    );
    assert_eq!(app.runs.queued().as_deref(), Some("c"));
}

#[test]
fn a_queued_r_answered_after_the_learner_moved_on_reveals_only_its_own_lesson() {
    // No GPU, NVRTC: `a` runs on the CPU interpreter; `b` has no CPU size, so its `r`
    // shows its recording; the learner is on `c` when `a`'s run ends and `b`'s `r` is
    // answered. Seen once in the 80x24 walk: l2-window's recorded times before its `r`.
    let mut a = lesson("a");
    a.problem_cpu = vec![("n".into(), 64)];
    let mut app = App::new(
        vec![a.clone(), lesson("b"), lesson("c")],
        None,
        Progress::default(),
    );
    for l in ["a", "b", "c"] {
        let at = app.reading.lessons().iter().find(|x| x.id == l).unwrap();
        let device = DeviceInfo {
            name: "Test GPU".into(),
            recorded_at: Some("2025-01-02T00:00:00Z".into()),
            ..Default::default()
        };
        let rec = crate::session::fold::blank_result(at, Source::Recorded, Some(device));
        app.runs.show(l, rec);
    }
    app.on_worker(WorkerEvent::Ready(Ok(no_gpu_caps(true))));
    // The compile reports asked for on the way in, answered.
    let asked: Vec<String> = (app.outbox.drain(..))
        .filter_map(|j| match j {
            Job::Run { lesson, .. } => Some(lesson.id.clone()),
            _ => None,
        })
        .collect();
    for id in asked {
        app.on_worker(WorkerEvent::Finished {
            lesson: id,
            outcome: Ok(()),
        });
    }
    app.outbox.clear();
    app.on_key(key(KeyCode::Char('r')));
    assert!(app.runs.running().as_ref().is_some_and(|r| r.on_cpu));
    app.select_row(1, None);
    app.on_key(key(KeyCode::Char('r')));
    assert_eq!(app.runs.queued().as_deref(), Some("b"));
    app.select_row(2, None);
    assert!(!app.revealed(), "c before its r");
    app.on_worker(WorkerEvent::Finished {
        lesson: "a".into(),
        outcome: Ok(()),
    });
    assert!(!app.revealed(), "b's answer gave away c's figures");
    let said = app.message.clone().unwrap_or_default();
    assert!(said.starts_with("b: "), "{said}");
    app.select_row(1, None);
    assert!(app.revealed(), "b's recording is shown, as its r asked");
}

#[test]
fn without_a_gpu_c_and_m_say_what_they_would_do_here() {
    let mut app = recorded_app();
    app.on_worker(WorkerEvent::Ready(Ok(no_gpu_caps(true))));
    app.on_key(key(KeyCode::Char('C')));
    let said = app.message.clone().unwrap();
    assert!(
        said.contains("no GPU here, so it applies to live runs only"),
        "{said}"
    );
    // Nothing faulted: that is why m has nothing to rerun, whether or not a run goes.
    let blank = app.runs.results()["a"].clone();
    app.runs.begin("a", blank, true, "timing");
    app.on_key(key(KeyCode::Char('m')));
    let said = app.message.clone().unwrap();
    assert!(said.contains("this one did not fault"), "{said}");
}
