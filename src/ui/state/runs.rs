//! What the runs have measured and the run in flight: `r` asks the plan where figures come
//! from (live on the GPU, on the CPU interpreter, or none: the recording stays). A run on
//! the CPU interpreter is kept beside the recording, never in its place: the columns show
//! the interpreter's figures with the recording's times beside them, or the recording
//! alone (`s` switches), and each figure says which it is.

use crate::model::results::LessonResult;
use crate::session::fold::{Capabilities, Fold};
use std::collections::HashMap;

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
pub struct Runs {
    /// What each lesson shows from a GPU: the recording's figures (with compile reports
    /// made here) until a live run replaces them.
    pub results: HashMap<String, LessonResult>,
    /// Each lesson's last run on the CPU interpreter, kept beside `results`.
    pub interpreted: HashMap<String, LessonResult>,
    /// Which of the two the columns show where a lesson has both (`s` switches).
    pub front: Front,
    pub caps: Option<Capabilities>,
    /// What the worker found, held back while the lessons are read again at its GPU's
    /// sizes (`Job::Size`): until they are in, nothing runs on lessons of another size.
    pub sizing: Option<Capabilities>,
    pub running: Option<Running>,
    /// The fold of each request in flight, by lesson id.
    pub folds: HashMap<String, Fold>,
    /// Lessons whose compile reports were asked for and are not in yet: their request ends
    /// before any run of theirs queued after it, and is not that run's end.
    pub compiling: std::collections::HashSet<String>,
    pub looping: bool,
    /// Where compute-sanitizer is, once the worker has said.
    pub sanitizer: Option<std::path::PathBuf>,
    /// The last memcheck rerun (`m`).
    pub memcheck: Option<crate::ui::state::memcheck::Memcheck>,
    /// The knobs turned, their figures, and the knob run in flight.
    pub knobs: crate::ui::state::knobs::KnobBench,
    /// `C`: the next runs flush the L2 before every timed launch (a cold cache).
    pub cold_l2: bool,
    /// A lesson whose `r` came while another lesson's run was going: it runs next.
    pub queued: Option<String>,
    /// The GPU the lab's worker opens, by its number (`--device`, `GPULAB_DEVICE`).
    pub device: u32,
}

/// What a second `r` on the lesson that runs says; the run's end takes it away.
pub(in crate::ui) const ALREADY_GOING: &str = "a run is already going; it shows as it is measured";
