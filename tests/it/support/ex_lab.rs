//! The lab on an exercise for the tests: the real loop (`ui::run_with`) on a
//! `TestBackend`, the real worker thread over a worker the test chooses, the real file
//! watcher, the fixture course (one lesson, one exercise) in a folder of its own. Each step
//! runs the loop until a check is over, then gives the screen.

#![allow(dead_code)]

use crate::support::common::{bin, fixture};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::course::bundle::CourseRoot;
use gpulab::session::client::WorkerClient;
use gpulab::session::progress::Progress;
use gpulab::session::workspace::Workspace;
use gpulab::ui::{self, App, EditError, Job, UiEvent, WorkerEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

pub struct Lab {
    _tmp: tempfile::TempDir,
    pub course: PathBuf,
    pub ws: PathBuf,
    pub book: PathBuf,
    pub terminal: Terminal<TestBackend>,
    pub app: App,
    hub: Option<Receiver<UiEvent>>,
    jobs: Sender<Job>,
    saves: Sender<Progress>,
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

impl Lab {
    /// The lab as on a machine without a GPU (one that has it hides it from the worker).
    pub fn new() -> Lab {
        let client = WorkerClient::with_command(bin(), vec!["worker".into()])
            .env("CUDA_VISIBLE_DEVICES", "");
        Lab::with_worker(client)
    }

    pub fn with_worker(client: WorkerClient) -> Lab {
        let tmp = tempfile::tempdir().unwrap();
        let course = tmp.path().join("course");
        copy_dir(&fixture("expack"), &course);
        Lab::on_course(tmp, course, client)
    }

    /// The lab over the bundled course (read where it is, never written), as on a machine
    /// without a GPU, on exercise `ex` of lesson `lesson`.
    pub fn bundled(lesson: &str, ex: &str) -> Lab {
        let client = WorkerClient::with_command(bin(), vec!["worker".into()])
            .env("CUDA_VISIBLE_DEVICES", "");
        let tmp = tempfile::tempdir().unwrap();
        let mut lab = Lab::on_course(tmp, crate::support::common::manifest_dir(), client);
        let l = (lab.app.reading.lessons().iter())
            .position(|l| l.id == lesson)
            .unwrap();
        let e = (lab.app.reading.lessons()[l].exercises.iter())
            .position(|x| x.id == ex)
            .unwrap();
        lab.app.select_row(l, Some(e));
        lab
    }

    fn on_course(tmp: tempfile::TempDir, course: PathBuf, client: WorkerClient) -> Lab {
        let root = CourseRoot::Dir(course.join("lessons"));
        let (lessons, errors) = gpulab::course::load_course(&root);
        assert!(errors.is_empty(), "{errors:?}");
        let mut app = App::new(lessons, None, Progress::default());
        app.view.set_color(false);
        app.reading.set_course_root(root);
        let ws = tmp.path().join("ws");
        let book = tmp.path().join("data/exercises.json");
        std::fs::create_dir_all(book.parent().unwrap()).unwrap();
        app.exercises = gpulab::ui::state::exercise::Exercises::new(
            Some(Workspace { dir: ws.clone() }),
            Default::default(),
            Some(book.clone()),
        );
        let (hub_tx, hub) = channel();
        let jobs = ui::spawn_worker(hub_tx, 0, client);
        let (saves, _) = channel();
        Lab {
            _tmp: tmp,
            course,
            ws,
            book,
            terminal: Terminal::new(TestBackend::new(120, 44)).unwrap(),
            app,
            hub: Some(hub),
            jobs,
            saves,
        }
    }

    /// Feed `script`, then pass on what the worker and the watcher send until a check is
    /// over (or two minutes pass); the screen when the loop has drawn it all.
    pub fn play_until_checked(
        &mut self,
        script: Vec<UiEvent>,
        edit: &mut dyn FnMut(&Path) -> Result<(), EditError>,
    ) -> String {
        self.play_noting(script, edit).0
    }

    /// `play_until_checked`, also saying whether the figures came before the check's end.
    /// An editor's save may be seen twice (the file emptied, then written), and a check of
    /// an older text may still be going: the lab is played on until the last check is of
    /// the learner's file as it is now.
    pub fn play_noting(
        &mut self,
        script: Vec<UiEvent>,
        edit: &mut dyn FnMut(&Path) -> Result<(), EditError>,
    ) -> (String, bool) {
        let end = Instant::now() + Duration::from_secs(240);
        let (mut screen, mut early) = self.play_once(script, edit);
        while !self.settled() && Instant::now() < end {
            let (s, e) = self.play_once(Vec::new(), edit);
            (screen, early) = (s, early || e);
        }
        (screen, early)
    }

    /// No check in flight, and the last one was of the learner's file as it is now.
    fn settled(&self) -> bool {
        let Some(x) = &self.app.exercises.open() else {
            return true;
        };
        let now = (x.file()).and_then(|f| std::fs::read_to_string(f).ok());
        x.checking().is_none() && now.is_none_or(|t| t == x.src())
    }

    fn play_once(
        &mut self,
        script: Vec<UiEvent>,
        edit: &mut dyn FnMut(&Path) -> Result<(), EditError>,
    ) -> (String, bool) {
        let (tx, rx) = channel();
        for ev in script {
            tx.send(ev).unwrap();
        }
        let hub = self.hub.take().unwrap();
        let relay = std::thread::spawn(move || {
            let end = Instant::now() + Duration::from_secs(120);
            let mut early = false;
            while let Ok(ev) = hub.recv_timeout(end.saturating_duration_since(Instant::now())) {
                early |= matches!(ev, UiEvent::Worker(WorkerEvent::ExFigures { .. }));
                let done = matches!(ev, UiEvent::Worker(WorkerEvent::Checked { .. }));
                if tx.send(ev).is_err() || done {
                    break;
                }
            }
            (hub, early)
        });
        ui::run_with(
            &mut self.terminal,
            &mut self.app,
            &rx,
            &self.jobs,
            &self.saves,
            edit,
        )
        .unwrap();
        let (hub, early) = relay.join().unwrap();
        self.hub = Some(hub);
        (ui::buffer_to_text(self.terminal.backend().buffer()), early)
    }

    pub fn mine(&self) -> PathBuf {
        self.ws.join("fix-copy.cu")
    }

    /// The learner's file of exercise `id`.
    pub fn file(&self, id: &str) -> PathBuf {
        self.ws.join(format!("{id}.cu"))
    }
}

pub fn key(c: char) -> UiEvent {
    UiEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

pub fn down() -> UiEvent {
    UiEvent::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE))
}

pub fn no_editor(_: &Path) -> Result<(), EditError> {
    Err(EditError::NoTerminal)
}
