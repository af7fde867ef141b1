//! What the runs have measured and the run in flight: `r` asks the plan where figures come
//! from (live on the GPU, on the CPU interpreter, or none: the recording stays). A run on
//! the CPU interpreter is kept beside the recording, never in its place: the columns show
//! the interpreter's figures with the recording's times beside them, or the recording
//! alone (`s` switches), and each figure says which it is. Its fields are its own: a run
//! begins and ends through the methods below, which put its figures where its plan says.

use crate::model::results::LessonResult;
use crate::session::fold::{Capabilities, Fold};
use crate::ui::state::knobs::KnobBench;
use crate::ui::state::memcheck::Memcheck;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// The live run in flight, as the status line and its column show it.
#[derive(Debug, Clone, PartialEq)]
pub struct Running {
    pub lesson: String,
    pub variant: String,
    pub stage: String,
    /// On the CPU interpreter: its replies fill `Runs::interpreted`, not `Runs::results`.
    pub on_cpu: bool,
}

/// Which figures the columns show on a lesson the CPU interpreter ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Front {
    /// The interpreter's (correctness, traces, compile reports), the recording's times
    /// beside them, each labelled.
    #[default]
    Interpreted,
    /// The recording's alone, as before the run.
    Recorded,
}

/// What the runs have measured, and what is running.
#[derive(Default)]
pub struct Runs {
    /// What each lesson shows from a GPU: the recording's figures (with compile reports
    /// made here) until a live run replaces them.
    results: HashMap<String, LessonResult>,
    /// Each lesson's last run on the CPU interpreter, kept beside `results`.
    interpreted: HashMap<String, LessonResult>,
    /// Which of the two the columns show where a lesson has both (`s` switches).
    front: Front,
    caps: Option<Capabilities>,
    /// What the worker found, held back while the lessons are read again at its GPU's
    /// sizes (`Job::Size`): until they are in, nothing runs on lessons of another size.
    sizing: Option<Capabilities>,
    running: Option<Running>,
    /// The fold of each request in flight, by lesson id.
    folds: HashMap<String, Fold>,
    /// Lessons whose compile reports were asked for and are not in yet: their request ends
    /// before any run of theirs queued after it, and is not that run's end.
    compiling: HashSet<String>,
    looping: bool,
    /// Where compute-sanitizer is, once the worker has said.
    sanitizer: Option<PathBuf>,
    /// The last memcheck rerun (`m`).
    memcheck: Option<Memcheck>,
    /// The knobs turned, their figures, and the knob run in flight.
    knobs: KnobBench,
    /// `C`: the next runs flush the L2 before every timed launch (a cold cache).
    cold_l2: bool,
    /// A lesson whose `r` came while another lesson's run was going: it runs next.
    queued: Option<String>,
    /// The GPU the lab's worker opens, by its number (`--device`, `GPULAB_DEVICE`).
    device: u32,
}

impl Runs {
    /// Before any run: each lesson's figures as `results` has them (the recording's).
    pub fn new(results: HashMap<String, LessonResult>) -> Runs {
        Runs {
            results,
            ..Runs::default()
        }
    }

    /// What each lesson shows from a GPU (recorded, or live once run here), by lesson id.
    pub fn results(&self) -> &HashMap<String, LessonResult> {
        &self.results
    }

    /// Lesson `id` shows `result` from a GPU (recorded or live).
    pub fn show(&mut self, id: &str, result: LessonResult) {
        self.results.insert(id.to_string(), result);
    }

    /// Every lesson's GPU figures at once (a course loaded anew).
    pub fn show_all(&mut self, results: HashMap<String, LessonResult>) {
        self.results = results;
    }

    /// Each lesson's last run on the CPU interpreter, by lesson id.
    pub fn interpreted(&self) -> &HashMap<String, LessonResult> {
        &self.interpreted
    }

    /// Lesson `id`'s run on the CPU interpreter (a replay of one, in a test), in front.
    pub fn show_interpreted(&mut self, id: &str, result: LessonResult) {
        self.interpreted.insert(id.to_string(), result);
        self.front = Front::Interpreted;
    }

    /// Lesson `id` back to its recording alone.
    pub fn forget_interpreted(&mut self, id: &str) {
        self.interpreted.remove(id);
    }

    /// Where a reply about lesson `id` goes: the interpreter's figures or the GPU's.
    pub fn result_mut(&mut self, id: &str, on_cpu: bool) -> Option<&mut LessonResult> {
        match on_cpu {
            true => self.interpreted.get_mut(id),
            false => self.results.get_mut(id),
        }
    }

    /// Which figures the columns show where a lesson has both.
    pub fn front(&self) -> Front {
        self.front
    }

    pub fn set_front(&mut self, front: Front) {
        self.front = front;
    }

    /// What the worker found this machine has, once it has said.
    pub fn caps(&self) -> &Option<Capabilities> {
        &self.caps
    }

    pub fn set_caps(&mut self, caps: Option<Capabilities>) {
        self.caps = caps;
    }

    /// What the worker found, taken back (to be held while the lessons are sized).
    pub fn take_caps(&mut self) -> Option<Capabilities> {
        self.caps.take()
    }

    /// What the worker found, held back while the lessons are read at its GPU's sizes.
    pub fn sizing(&self) -> &Option<Capabilities> {
        &self.sizing
    }

    pub fn hold_while_sizing(&mut self, caps: Capabilities) {
        self.sizing = Some(caps);
    }

    /// The lessons are sized: what the worker found, to be made ready.
    pub fn take_sizing(&mut self) -> Option<Capabilities> {
        self.sizing.take()
    }

    /// The run in flight.
    pub fn running(&self) -> &Option<Running> {
        &self.running
    }

    /// A run of lesson `id` begins, its blank figures where its replies will go: the
    /// interpreter's beside the recording (and in front), a GPU's in place of what was
    /// shown.
    pub fn begin(&mut self, id: &str, blank: LessonResult, on_cpu: bool, stage: &str) {
        match on_cpu {
            true => self.show_interpreted(id, blank),
            false => self.show(id, blank),
        }
        self.running = Some(Running {
            lesson: id.to_string(),
            variant: String::new(),
            stage: stage.to_string(),
            on_cpu,
        });
    }

    /// A knob's settings begin to be measured as lesson `id` (its figures go to the knob
    /// bench), `variant` the setting turned to: on a GPU, or compiled here.
    pub fn begin_knob(&mut self, id: &str, variant: &str) {
        self.running = Some(Running {
            lesson: id.to_string(),
            variant: variant.to_string(),
            stage: "starting".into(),
            on_cpu: false,
        });
    }

    /// The run of lesson `id`, if it is the one in flight, is at `stage` of `variant`.
    pub fn at_stage(&mut self, id: Option<&str>, variant: Option<&str>, stage: String) {
        if let Some(r) = (self.running.as_mut()).filter(|r| id.is_none_or(|id| r.lesson == id)) {
            if let Some(v) = variant {
                r.variant = v.to_string();
            }
            r.stage = stage;
        }
    }

    /// The run in flight is over.
    pub fn end(&mut self) {
        self.running = None;
    }

    /// The fold of lesson `id`'s request in flight (a new one where none was kept).
    pub fn take_fold(&mut self, id: &str) -> Fold {
        self.folds.remove(id).unwrap_or_default()
    }

    pub fn keep_fold(&mut self, id: String, fold: Fold) {
        self.folds.insert(id, fold);
    }

    /// Lesson `id`'s compile reports were asked for.
    pub fn compile_asked(&mut self, id: &str) {
        self.compiling.insert(id.to_string());
    }

    /// Whether any lesson's compile reports are still to come.
    pub fn compiles_pending(&self) -> bool {
        !self.compiling.is_empty()
    }

    /// Whether lesson `id`'s compile reports are still to come.
    pub fn is_compiling(&self, id: &str) -> bool {
        self.compiling.contains(id)
    }

    /// Lesson `id`'s compile reports are in; false where none were asked for.
    pub fn compiled(&mut self, id: &str) -> bool {
        self.compiling.remove(id)
    }

    /// Whether each run is started again once it ends (`l`).
    pub fn looping(&self) -> bool {
        self.looping
    }

    pub fn set_looping(&mut self, on: bool) {
        self.looping = on;
    }

    /// Where compute-sanitizer is, once the worker has said.
    pub fn sanitizer(&self) -> &Option<PathBuf> {
        &self.sanitizer
    }

    pub fn set_sanitizer(&mut self, at: Option<PathBuf>) {
        self.sanitizer = at;
    }

    /// The last memcheck rerun (`m`).
    pub fn memcheck(&self) -> &Option<Memcheck> {
        &self.memcheck
    }

    pub fn memcheck_mut(&mut self) -> Option<&mut Memcheck> {
        self.memcheck.as_mut()
    }

    pub fn set_memcheck(&mut self, m: Option<Memcheck>) {
        self.memcheck = m;
    }

    /// The knobs turned, their figures, and the knob run in flight.
    pub fn knobs(&self) -> &KnobBench {
        &self.knobs
    }

    pub fn knobs_mut(&mut self) -> &mut KnobBench {
        &mut self.knobs
    }

    /// Whether the next runs flush the L2 before every timed launch.
    pub fn cold_l2(&self) -> bool {
        self.cold_l2
    }

    pub fn set_cold_l2(&mut self, on: bool) {
        self.cold_l2 = on;
    }

    /// The lesson whose `r` waits for the run in flight to end.
    pub fn queued(&self) -> &Option<String> {
        &self.queued
    }

    /// Lesson `id` runs once the run in flight ends, in place of the one that waited (which
    /// is given back).
    pub fn queue(&mut self, id: &str) -> Option<String> {
        self.queued.replace(id.to_string())
    }

    pub fn take_queued(&mut self) -> Option<String> {
        self.queued.take()
    }

    /// The GPU the lab's worker opens, by its number.
    pub fn device(&self) -> u32 {
        self.device
    }

    pub fn set_device(&mut self, device: u32) {
        self.device = device;
    }
}

/// What a second `r` on the lesson that runs says; the run's end takes it away.
pub(in crate::ui) const ALREADY_GOING: &str = "a run is already going; it shows as it is measured";
