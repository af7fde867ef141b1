//! The lab's state and how events change it. Pure: no terminal, no CUDA, so every key and
//! every worker reply can be tested; the views borrow this for a frame.

use crate::model::Lesson;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{LessonResult, Source};
use crate::session::client::WorkerFailure;
use crate::session::fold::{self, Capabilities};
use crate::session::progress::Progress;
use crate::session::recording::Recording;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::HashMap;

/// Everything that reaches the UI thread, on its one channel.
#[derive(Debug)]
pub enum UiEvent {
    Key(KeyEvent),
    Resize,
    Worker(WorkerEvent),
    /// Writing the progress file failed, in words.
    SaveFailed(String),
}

/// What the worker thread reports.
#[derive(Debug)]
pub enum WorkerEvent {
    Ready(Result<Capabilities, WorkerFailure>),
    Reply {
        lesson: String,
        reply: Reply,
    },
    Finished {
        lesson: String,
        outcome: Result<(), WorkerFailure>,
    },
}

/// What the UI asks of the worker thread.
#[derive(Debug, Clone)]
pub enum Job {
    Run {
        lesson: Box<Lesson>,
        options: RunOptions,
    },
    Compile {
        lesson: Box<Lesson>,
        arch: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Code,
    Heatmap,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Running {
    pub lesson: String,
    pub variant: String,
    pub stage: String,
    pub compile_only: bool,
}

pub struct App {
    pub lessons: Vec<Lesson>,
    pub selected: usize,
    pub page: usize,
    pub variant: usize,
    pub results: HashMap<String, LessonResult>,
    pub recording: Option<Recording>,
    pub caps: Option<Capabilities>,
    pub running: Option<Running>,
    pub looping: bool,
    pub overlay: Overlay,
    /// The last thing the learner must know (a failure in words, or what just happened).
    pub message: Option<String>,
    pub progress: Progress,
    /// Progress changed and should be written; the event loop hands it to a writer thread
    /// so the UI thread never waits on the disk.
    pub save_requested: bool,
    /// Which traced instruction the heatmap shows, worst first.
    pub instr: usize,
    /// Heatmap of all instructions × banks instead of one request.
    pub aggregate: bool,
    pub color: bool,
    pub code_scroll: u16,
    /// Checkpoint answers given in this session: (lesson id, question) -> choice.
    pub answers: HashMap<(String, usize), usize>,
    pub quit: bool,
    /// Jobs for the worker thread; the event loop drains this after each event.
    pub outbox: Vec<Job>,
}

impl App {
    pub fn new(lessons: Vec<Lesson>, recording: Option<Recording>, progress: Progress) -> App {
        let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
        let selected = progress.first_unfinished(&ids);
        let mut results = HashMap::new();
        for l in &lessons {
            let mut r = recording
                .as_ref()
                .and_then(|rec| rec.replay(l))
                .unwrap_or_else(|| fold::blank_result(l, Source::Recorded, None));
            fold::evaluate_claims(l, &mut r);
            results.insert(l.id.clone(), r);
        }
        App {
            lessons,
            selected,
            page: 0,
            variant: 0,
            results,
            recording,
            caps: None,
            running: None,
            looping: false,
            overlay: Overlay::None,
            message: None,
            progress,
            save_requested: false,
            instr: 0,
            aggregate: false,
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            code_scroll: 0,
            answers: HashMap::new(),
            quit: false,
            outbox: Vec::new(),
        }
    }

    pub fn lesson(&self) -> Option<&Lesson> {
        self.lessons.get(self.selected)
    }

    pub fn result(&self) -> Option<&LessonResult> {
        self.lesson().and_then(|l| self.results.get(&l.id))
    }

    /// Prose pages, plus one for the checkpoint questions when the lesson has them.
    pub fn page_count(&self) -> usize {
        self.lesson()
            .map_or(0, |l| l.pages.len() + usize::from(!l.checkpoint.is_empty()))
    }

    pub fn on_checkpoint_page(&self) -> bool {
        self.lesson()
            .is_some_and(|l| self.page == l.pages.len() && !l.checkpoint.is_empty())
    }

    /// Answer the first unanswered checkpoint question with choice `c`.
    fn answer(&mut self, c: usize) {
        let Some(l) = self.lesson() else { return };
        let id = l.id.clone();
        let next = (0..l.checkpoint.len()).find(|q| !self.answers.contains_key(&(id.clone(), *q)));
        if let Some(q) = next
            && c < l.checkpoint[q].choices.len()
        {
            self.answers.insert((id, q), c);
        }
    }

    pub fn has_gpu(&self) -> bool {
        self.caps.as_ref().is_some_and(|c| c.device.is_some())
    }

    fn save_progress(&mut self) {
        self.save_requested = true;
    }

    fn select_lesson(&mut self, idx: usize) {
        if idx < self.lessons.len() && idx != self.selected {
            self.selected = idx;
            self.page = 0;
            self.variant = 0;
            self.instr = 0;
            self.code_scroll = 0;
            self.looping = false;
            self.note_seen();
        }
    }

    pub fn note_seen(&mut self) {
        if let Some(id) = self.lesson().map(|l| l.id.clone()) {
            self.progress.mark_seen(&id, self.page);
            self.save_progress();
        }
    }

    /// Ask for a live run of the current lesson (or explain why there is none).
    pub fn start_run(&mut self) {
        let Some(lesson) = self.lesson().cloned() else {
            return;
        };
        if self.running.is_some() {
            self.message = Some("a run is already going; it shows as it is measured".into());
            return;
        }
        if !self.has_gpu() {
            let why = self
                .caps
                .as_ref()
                .and_then(|c| c.no_gpu.clone())
                .unwrap_or_else(|| "still looking for a GPU".into());
            self.message = Some(format!(
                "no live run: {why}. The figures shown are replayed from the recording."
            ));
            self.looping = false;
            return;
        }
        let device = self.caps.as_ref().and_then(|c| c.device.clone());
        self.results.insert(
            lesson.id.clone(),
            fold::blank_result(&lesson, Source::Live, device),
        );
        self.running = Some(Running {
            lesson: lesson.id.clone(),
            variant: String::new(),
            stage: "starting".into(),
            compile_only: false,
        });
        self.message = None;
        self.outbox.push(Job::Run {
            lesson: Box::new(lesson),
            options: RunOptions::default(),
        });
    }

    pub fn on_key(&mut self, key: KeyEvent) {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        if self.overlay != Overlay::None {
            match key.code {
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('?') => {
                    self.overlay = Overlay::None
                }
                KeyCode::Char('c') if self.overlay == Overlay::Code => self.overlay = Overlay::None,
                KeyCode::Char('h') if self.overlay == Overlay::Heatmap => {
                    self.overlay = Overlay::None
                }
                KeyCode::Down | KeyCode::Char('j') => {
                    self.code_scroll = self.code_scroll.saturating_add(1)
                }
                KeyCode::Up | KeyCode::Char('k') => {
                    self.code_scroll = self.code_scroll.saturating_sub(1)
                }
                KeyCode::PageDown => self.code_scroll = self.code_scroll.saturating_add(10),
                KeyCode::PageUp => self.code_scroll = self.code_scroll.saturating_sub(10),
                KeyCode::Char(']') => self.instr += 1,
                KeyCode::Char('[') => self.instr = self.instr.saturating_sub(1),
                KeyCode::Char('a') => self.aggregate = !self.aggregate,
                KeyCode::Left => self.variant = self.variant.saturating_sub(1),
                KeyCode::Right => self.next_variant(),
                _ => {}
            }
            return;
        }
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => self.quit = true,
            KeyCode::Char('?') => self.overlay = Overlay::Help,
            KeyCode::Char('c') => {
                self.code_scroll = 0;
                self.overlay = Overlay::Code;
            }
            KeyCode::Char('h') => self.overlay = Overlay::Heatmap,
            KeyCode::Up | KeyCode::Char('k') => self.select_lesson(self.selected.saturating_sub(1)),
            KeyCode::Down | KeyCode::Char('j') => self.select_lesson(self.selected + 1),
            KeyCode::Left => {
                self.variant = self.variant.saturating_sub(1);
                self.instr = 0;
            }
            KeyCode::Right | KeyCode::Tab => self.next_variant(),
            KeyCode::Char(d @ '1'..='6') if self.on_checkpoint_page() => {
                self.answer(d as usize - '1' as usize)
            }
            KeyCode::Char('n') | KeyCode::PageDown | KeyCode::Char(' ')
                if self.page + 1 < self.page_count() =>
            {
                self.page += 1;
                self.note_seen();
            }
            KeyCode::Char('p') | KeyCode::PageUp => self.page = self.page.saturating_sub(1),
            KeyCode::Char('r') => self.start_run(),
            KeyCode::Char('l') => {
                self.looping = !self.looping;
                if self.looping {
                    self.message = Some("looping: runs again after each run (l stops)".into());
                    if self.running.is_none() {
                        self.start_run();
                    }
                } else {
                    self.message = Some("loop stopped".into());
                }
            }
            KeyCode::Char(']') => self.instr += 1,
            KeyCode::Char('[') => self.instr = self.instr.saturating_sub(1),
            KeyCode::Char('a') => self.aggregate = !self.aggregate,
            _ => {}
        }
    }

    fn next_variant(&mut self) {
        let n = self.lesson().map_or(0, |l| l.variants.len());
        if self.variant + 1 < n {
            self.variant += 1;
            self.instr = 0;
        }
    }

    pub fn on_worker(&mut self, ev: WorkerEvent) {
        match ev {
            WorkerEvent::Ready(Ok(caps)) => {
                let compile_here = caps.device.is_none() && caps.nvrtc.is_some();
                self.caps = Some(caps);
                if compile_here {
                    // No GPU: the timings are the recording's, but the compile reports can
                    // still be live.
                    for l in self.lessons.clone() {
                        let arch = self
                            .results
                            .get(&l.id)
                            .and_then(|r| r.device.as_ref())
                            .map(|d| d.arch())
                            .unwrap_or_else(|| crate::model::protocol::FALLBACK_ARCH.into());
                        self.outbox.push(Job::Compile {
                            lesson: Box::new(l),
                            arch,
                        });
                    }
                }
            }
            WorkerEvent::Ready(Err(e)) => {
                self.caps = Some(Capabilities {
                    no_gpu: Some(e.to_string()),
                    ..Default::default()
                });
            }
            WorkerEvent::Reply { lesson, reply } => {
                if let Reply::Stage { variant, stage } = &reply
                    && let Some(r) = self.running.as_mut().filter(|r| r.lesson == lesson)
                {
                    r.variant = variant.clone();
                    r.stage = stage.clone();
                }
                if let Reply::Error { message } = &reply {
                    self.message = Some(message.clone());
                }
                if let Some(res) = self.results.get_mut(&lesson) {
                    fold::apply(res, &reply);
                    if matches!(reply, Reply::Compiled { .. }) && res.source == Source::Recorded {
                        res.compile = Some(Source::Live);
                    }
                }
            }
            WorkerEvent::Finished { lesson, outcome } => {
                let was_run = self.running.as_ref().is_some_and(|r| r.lesson == lesson);
                if let Some(l) = self.lessons.iter().find(|l| l.id == lesson).cloned()
                    && let Some(res) = self.results.get_mut(&lesson)
                {
                    if let Err(f) = &outcome {
                        fold::mark_failure(res, f);
                    }
                    fold::evaluate_claims(&l, res);
                }
                if was_run {
                    self.running = None;
                    match outcome {
                        Ok(()) => {
                            self.progress.mark_run(&lesson);
                            self.save_progress();
                            if self.looping && self.lesson().is_some_and(|l| l.id == lesson) {
                                self.start_run();
                            }
                        }
                        Err(f) => {
                            self.looping = false;
                            self.message = Some(f.to_string());
                        }
                    }
                } else if let Err(f) = outcome {
                    self.message = Some(f.to_string());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::results::{DeviceInfo, VariantResult};
    use crate::model::{Lesson, MemSpace, Metrics, Page, Reference, Variant};

    fn lesson(id: &str) -> Lesson {
        let v = |name: &str| Variant {
            name: name.into(),
            source_path: "k.cu".into(),
            source: "extern \"C\" __global__ void k() {}".into(),
            kernel: "k".into(),
            defines: vec![],
            grid: [1, 1, 1],
            block: [32, 1, 1],
            smem: 0,
            args: vec![],
            options: vec![],
            note: None,
        };
        Lesson {
            id: id.into(),
            title: id.into(),
            space: MemSpace::Global,
            order: 1,
            file: "x.yaml".into(),
            pages: vec![
                Page {
                    title: "a".into(),
                    text: "one".into(),
                },
                Page {
                    title: "b".into(),
                    text: "two".into(),
                },
            ],
            problem: vec![],
            buffers: vec![],
            variants: vec![v("fast"), v("slow")],
            reference: Reference::Variant(0),
            metrics: Metrics::default(),
            expect: vec![],
            checkpoint: vec![],
            trace_blocks: 4,
        }
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
        assert!(app.running.is_some());
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
        assert_eq!(app.running.as_ref().unwrap().stage, "timing");
        assert_eq!(app.result().unwrap().variants[1].samples_ms, vec![2.5]);
        app.outbox.clear();
        app.on_worker(WorkerEvent::Finished {
            lesson: "a".into(),
            outcome: Ok(()),
        });
        assert_eq!(app.progress.get("a").runs, 1);
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
        assert!(!app.looping && app.outbox.is_empty() && app.running.is_none());
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
            app.answers.is_empty(),
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
        assert_eq!(app.page, 1);
        app.on_key(key(KeyCode::Char('n')));
        assert_eq!(app.page, 1, "no page past the last");
        app.on_key(key(KeyCode::Right));
        assert_eq!(app.variant, 1);
        app.on_key(key(KeyCode::Right));
        assert_eq!(app.variant, 1);
        app.on_key(key(KeyCode::Char('?')));
        assert_eq!(app.overlay, Overlay::Help);
        app.on_key(key(KeyCode::Char('q')));
        assert_eq!(app.overlay, Overlay::None);
        assert!(!app.quit, "q closes the pop-up first");
        app.on_key(key(KeyCode::Down));
        assert_eq!((app.selected, app.page, app.variant), (1, 0, 0));
        assert!(app.progress.get("b").seen);
        app.on_key(key(KeyCode::Char('q')));
        assert!(app.quit);
    }
}
