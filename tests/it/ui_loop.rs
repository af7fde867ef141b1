//! The lab's real main loop, `ui::run`, driven on a `TestBackend` by a script of keys and
//! worker replies, as the key-reader and worker threads would send them. Each step feeds its
//! events and closes the channel, so the loop runs until the script is drained: no sleeps,
//! no threads. The asserts read the frame the loop left on the screen.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::model::builder::LessonBuilder;
use gpulab::model::protocol::Reply;
use gpulab::model::results::{DeviceInfo, TimeMs, VariantResult};
use gpulab::session::client::WorkerFailure;
use gpulab::session::fold::Capabilities;
use gpulab::session::progress::Progress;
use gpulab::ui::{self, App, Job, UiEvent, WorkerEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::sync::mpsc::{Receiver, Sender, channel};

struct Lab {
    terminal: Terminal<TestBackend>,
    app: App,
    requests: (Sender<Job>, Receiver<Job>),
    saves: (Sender<Progress>, Receiver<Progress>),
}

impl Lab {
    fn new() -> Lab {
        let lesson = LessonBuilder::new("scripted")
            .title("A scripted lesson")
            .page("Why", "The first page of prose.")
            .page("How", "The second page of prose.")
            .variant("fast")
            .variant("slow")
            .build();
        let mut app = App::new(vec![lesson], None, Progress::default());
        app.view.set_color(false);
        Lab {
            terminal: Terminal::new(TestBackend::new(120, 32)).unwrap(),
            app,
            requests: channel(),
            saves: channel(),
        }
    }

    /// Run the real loop over `script` until it is drained or the learner quits; the frame
    /// on screen then, and how many events were left unread.
    fn play(&mut self, script: Vec<UiEvent>) -> (String, usize) {
        let (tx, rx) = channel();
        for ev in script {
            tx.send(ev).unwrap();
        }
        drop(tx);
        ui::run(
            &mut self.terminal,
            &mut self.app,
            &rx,
            &self.requests.0,
            &self.saves.0,
        )
        .unwrap();
        let screen = ui::buffer_to_text(self.terminal.backend().buffer());
        (screen, rx.try_iter().count())
    }

    fn jobs(&self) -> Vec<Job> {
        self.requests.1.try_iter().collect()
    }

    fn last_save(&self) -> Option<Progress> {
        self.saves.1.try_iter().last()
    }
}

fn key(c: char) -> UiEvent {
    UiEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn reply(reply: Reply) -> UiEvent {
    UiEvent::Worker(WorkerEvent::Reply {
        lesson: "scripted".into(),
        reply,
    })
}

fn finished(outcome: Result<(), WorkerFailure>) -> UiEvent {
    UiEvent::Worker(WorkerEvent::Finished {
        lesson: "scripted".into(),
        outcome,
    })
}

fn stage(variant: &str, stage: &str) -> UiEvent {
    reply(Reply::Stage {
        variant: variant.into(),
        stage: stage.into(),
    })
}

/// A correct variant measured at `ms`.
fn measured(name: &str, ms: f64) -> UiEvent {
    reply(Reply::Variant {
        result: Box::new(VariantResult {
            name: name.into(),
            correct: Some(true),
            samples_ms: vec![ms; 3],
            time_ms: Some(TimeMs {
                median: ms,
                min: ms,
                max: ms,
                runs: 3,
                spread_pct: 0.1,
            }),
            ..Default::default()
        }),
    })
}

/// What the worker thread sends once the worker has answered `Hello` on a machine with a GPU.
fn ready_with_a_gpu() -> UiEvent {
    let hello = Reply::Hello {
        device: Some(DeviceInfo {
            name: "Test GPU".into(),
            cc: "9.0".into(),
            ..Default::default()
        }),
        no_gpu: None,
        nvrtc: Ok("13.0".into()),
    };
    let caps = Capabilities::from_hello(&hello).unwrap();
    UiEvent::Worker(WorkerEvent::Ready(Ok(caps)))
}

fn open_and_turn_the_page(lab: &mut Lab) {
    let (screen, _) = lab.play(vec![]);
    assert!(screen.contains("01 · A scripted lesson"), "{screen}");
    assert!(screen.contains("Why · page 1/2"), "{screen}");
    assert!(screen.contains("The first page of prose."), "{screen}");
    assert!(screen.contains("looking for a GPU"), "{screen}");

    let (screen, _) = lab.play(vec![ready_with_a_gpu(), key('n')]);
    assert!(!screen.contains("looking for a GPU"), "{screen}");
    assert!(screen.contains("How · page 2/2"), "{screen}");
    assert!(screen.contains("The second page of prose."), "{screen}");
    assert!(lab.jobs().is_empty(), "a GPU is here: nothing to compile");
}

fn run_live(lab: &mut Lab) {
    let (screen, _) = lab.play(vec![key('r'), stage("fast", "timing")]);
    assert!(
        matches!(lab.jobs().as_slice(), [Job::Run { lesson, .. }] if lesson.id == "scripted"),
        "r asks the worker for a run"
    );
    assert!(
        screen.contains("running scripted · fast timing"),
        "{screen}"
    );
    assert!(screen.contains("… timing"), "{screen}");
    assert!(screen.contains("live on Test GPU"), "{screen}");

    let (screen, _) = lab.play(vec![
        reply(Reply::Sample {
            variant: "fast".into(),
            ms: 1.25,
        }),
        measured("fast", 1.25),
        stage("slow", "timing"),
        measured("slow", 5.0),
        reply(Reply::Done),
        finished(Ok(())),
    ]);
    assert!(screen.contains("1.25 ms"), "{screen}");
    assert!(screen.contains("5.00 ms"), "{screen}");
    assert!(screen.contains("4.0× slower than fast"), "{screen}");
    assert!(screen.contains("✓ correct"), "{screen}");
    let saved = lab.last_save().expect("a finished run is saved");
    assert_eq!(saved.get("scripted").runs, 1);
}

fn a_fault_in_one_variant(lab: &mut Lab) {
    let fault = WorkerFailure::Fault {
        variant: Some("slow".into()),
        message: "an illegal memory access was encountered".into(),
        code: Some("CUDA_ERROR_ILLEGAL_ADDRESS".into()),
    };
    let (screen, _) = lab.play(vec![
        key('r'),
        stage("fast", "timing"),
        measured("fast", 1.25),
        stage("slow", "checking the output"),
        reply(Reply::Fault {
            variant: Some("slow".into()),
            message: "an illegal memory access was encountered".into(),
            code: Some("CUDA_ERROR_ILLEGAL_ADDRESS".into()),
        }),
        finished(Err(fault)),
    ]);
    assert_eq!(lab.jobs().len(), 1);
    // The words are on the variant that faulted, and what was measured before it stands.
    assert!(screen.contains("✗ FAULT: `slow` faulted: an"), "{screen}");
    assert!(screen.contains("illegal memory access"), "{screen}");
    assert!(screen.contains("1.25 ms"), "{screen}");
    // The advice for the driver's error, named by its code as the worker sent it.
    assert!(screen.contains("outside every buffer"), "{screen}");
    assert!(!screen.contains("running scripted"), "{screen}");
    let v = &lab.app.result().unwrap().variants[1];
    assert_eq!(v.correct, Some(false));
    assert_eq!(
        lab.app.reading.progress().get("scripted").runs,
        1,
        "a fault is no run"
    );
}

#[test]
fn open_page_run_fault_quit_through_the_real_loop() {
    let mut lab = Lab::new();
    open_and_turn_the_page(&mut lab);
    run_live(&mut lab);
    a_fault_in_one_variant(&mut lab);

    let (_, unread) = lab.play(vec![key('q'), key('p')]);
    assert!(lab.app.quit);
    assert_eq!(unread, 1, "the loop ends at q, before the events after it");
    assert_eq!(
        lab.app.reading.page(),
        1,
        "the key after q was never applied"
    );
}

#[test]
fn a_crash_lands_on_the_variant_the_worker_was_on() {
    let mut lab = Lab::new();
    lab.play(vec![ready_with_a_gpu()]);
    let (screen, _) = lab.play(vec![
        key('r'),
        stage("fast", "timing"),
        measured("fast", 1.25),
        stage("slow", "compiling"),
        finished(Err(WorkerFailure::Crashed {
            detail: "signal: 6 (SIGABRT)".into(),
        })),
    ]);
    assert!(
        screen.contains("✗ FAILED: the worker process ended"),
        "{screen}"
    );
    assert!(screen.contains("1.25 ms"), "{screen}");
    assert!(lab.app.result().unwrap().variants[0].correct == Some(true));
    assert!(lab.app.runs.running().is_none());
}

fn memcheck_event(ev: WorkerEvent) -> UiEvent {
    UiEvent::Worker(ev)
}

/// A run whose second variant, `slow`, was lost to an illegal address.
fn slow_faults(lab: &mut Lab) -> String {
    let message =
        "`slow` faulted: an illegal memory access was encountered (CUDA_ERROR_ILLEGAL_ADDRESS)";
    let (screen, _) = lab.play(vec![
        key('r'),
        measured("fast", 1.25),
        stage("slow", "checking the output"),
        reply(Reply::Lost {
            variant: "slow".into(),
            error: message.into(),
            failure: "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
        }),
        finished(Ok(())),
        UiEvent::Key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE)),
    ]);
    screen
}

#[test]
fn m_reruns_a_faulted_variant_under_memcheck_and_shows_its_line() {
    use gpulab::session::client::{MemcheckReport, SourceLine};
    let mut lab = Lab::new();
    lab.play(vec![
        ready_with_a_gpu(),
        memcheck_event(WorkerEvent::Sanitizer(Some(
            "/opt/cuda/bin/compute-sanitizer".into(),
        ))),
    ]);
    let screen = slow_faults(&mut lab);
    assert!(screen.contains("✗ FAULT: `slow` faulted"), "{screen}");
    assert!(
        screen.contains("m: find the line where slow faulted"),
        "{screen}"
    );
    lab.jobs();

    let (screen, _) = lab.play(vec![key('m'), memcheck_event(WorkerEvent::MemcheckTick(7))]);
    let jobs = lab.jobs();
    let [
        Job::Memcheck {
            lesson,
            variant,
            sanitizer,
        },
    ] = jobs.as_slice()
    else {
        panic!("one memcheck job: {jobs:?}");
    };
    assert_eq!((lesson.id.as_str(), variant.as_str()), ("scripted", "slow"));
    assert!(sanitizer.ends_with("compute-sanitizer"));
    assert!(
        screen.contains("under compute-sanitizer's memcheck"),
        "{screen}"
    );
    assert!(
        screen.contains("7 s so far"),
        "progress while it runs:\n{screen}"
    );
    let (screen, _) = lab.play(vec![UiEvent::Key(KeyEvent::new(
        KeyCode::Esc,
        KeyModifiers::NONE,
    ))]);
    assert!(screen.contains("memcheck of slow: 7 s"), "{screen}");
    let (screen, _) = lab.play(vec![key('m')]);
    assert!(screen.contains("7 s so far"), "m shows it again:\n{screen}");
    assert!(lab.jobs().is_empty(), "and starts no second rerun");

    let report = MemcheckReport {
        errors: vec!["Invalid __global__ write of size 4 bytes".into()],
        lines: vec![SourceLine {
            file: "kernels/scripted/k.cu".into(),
            line: 12,
            text: Some("out[i + n] = in[i];".into()),
        }],
        outcome: Some("faulted: an illegal memory access".into()),
        log: String::new(),
    };
    let (screen, _) = lab.play(vec![memcheck_event(WorkerEvent::Memchecked {
        lesson: "scripted".into(),
        variant: "slow".into(),
        outcome: Ok(report),
    })]);
    assert!(screen.contains("at kernels/scripted/k.cu:12"), "{screen}");
    assert!(screen.contains("12 | out[i + n] = in[i];"), "{screen}");
    assert!(screen.contains("Invalid __global__ write"), "{screen}");

    let (screen, _) = lab.play(vec![key('m'), key('?')]);
    assert!(
        !screen.contains("out[i + n]"),
        "m closes the pop-up:\n{screen}"
    );
    assert!(
        screen.contains("faulted variant under memcheck: its line"),
        "help has m:\n{screen}"
    );
    assert!(lab.jobs().is_empty(), "no second rerun");
}

#[test]
fn m_without_a_sanitizer_or_a_fault_says_why_and_sends_nothing() {
    let mut lab = Lab::new();
    lab.play(vec![ready_with_a_gpu()]);
    let screen = slow_faults(&mut lab);
    assert!(!screen.contains("m: find the line"), "{screen}");
    lab.jobs();
    let (screen, _) = lab.play(vec![key('m')]);
    assert!(screen.contains("m needs compute-sanitizer"), "{screen}");
    lab.play(vec![memcheck_event(WorkerEvent::Sanitizer(Some(
        "/opt/cuda/bin/compute-sanitizer".into(),
    )))]);
    let (screen, _) = lab.play(vec![
        UiEvent::Key(KeyEvent::new(KeyCode::Left, KeyModifiers::NONE)),
        key('m'),
    ]);
    assert!(screen.contains("this one did not fault"), "{screen}");
    assert!(lab.jobs().is_empty());
}
