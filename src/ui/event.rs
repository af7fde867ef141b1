//! The messages of the lab: what reaches the UI thread on its one channel, and what it asks
//! of the worker thread. Background threads only send these; the UI thread owns the state.

use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::exercise::Exercise;
use crate::model::protocol::{Reply, RunOptions};
use crate::session::client::{MemcheckReport, NoListing, WorkerFailure};
use crate::session::exercise::progress::ExerciseBook;
use crate::session::exercise::report::CheckReport;
use crate::session::fold::Capabilities;
use crate::session::source::Plan;
use crossterm::event::KeyEvent;

/// Everything that reaches the UI thread, on its one channel.
#[derive(Debug)]
pub enum UiEvent {
    Key(KeyEvent),
    /// The mouse wheel, down (true) or up.
    Wheel(bool),
    Resize,
    Worker(WorkerEvent),
    /// Writing the progress file failed, in words.
    SaveFailed(String),
    /// SIGTERM, SIGINT or SIGHUP arrived (its number): leave as on `q`, so progress is
    /// written and the terminal restored on the one way out.
    Terminate(i32),
    /// The course, loaded and checked on a thread of its own, or why it could not be.
    Loaded(Result<crate::ui::state::loading::Course, crate::ui::state::loading::LoadFailure>),
    /// The learner's exercise file was saved with a new text (by whatever editor).
    Saved(std::path::PathBuf),
}

/// What the worker thread reports.
#[derive(Debug)]
pub enum WorkerEvent {
    Ready(Result<Capabilities, WorkerFailure>),
    /// A try's lesson made again (`Job::RemakeTry`), or the first problem in words and how
    /// many there were.
    Remade(Result<Box<crate::course::tried::lesson::Tried>, (String, usize)>),
    /// The lessons read again at the sizes of the GPU the worker found (`Job::Size`).
    Sized(Vec<Lesson>),
    Reply {
        lesson: String,
        reply: Reply,
    },
    Finished {
        lesson: String,
        outcome: Result<(), WorkerFailure>,
    },
    /// Where compute-sanitizer is, if the toolkit has it (asked once a GPU is found).
    Sanitizer(Option<std::path::PathBuf>),
    /// A memcheck rerun is still going, this many seconds in.
    MemcheckTick(u64),
    /// A memcheck rerun is over: what the sanitizer found, or why it could not run.
    Memchecked {
        lesson: String,
        variant: String,
        outcome: Result<MemcheckReport, crate::session::client::MemcheckError>,
    },
    /// An exercise check is at this stage, in words.
    ExStage {
        exercise: String,
        text: String,
    },
    /// The main run of an exercise check is in: its figures, before the output is
    /// checked at the other sizes.
    ExFigures {
        exercise: String,
        report: Box<CheckReport>,
    },
    /// A variant's SASS listing (nvdisasm's text), or why there is none.
    Sass {
        lesson: String,
        variant: String,
        listing: Result<String, NoListing>,
    },
    /// An exercise check is over: the report, or why there is none.
    Checked {
        exercise: String,
        outcome: Result<Box<CheckReport>, WorkerFailure>,
    },
}

/// An exercise check: the learner's text as it was saved, checked against the course.
#[derive(Debug, Clone)]
pub struct CheckJob {
    pub root: CourseRoot,
    pub lesson: Lesson,
    pub ex: Exercise,
    pub src: String,
    pub path: String,
    pub quick: bool,
}

/// Where a run on the CPU interpreter finds its lesson at the size its outputs are
/// checked at.
#[derive(Debug, Clone)]
pub enum CpuSize {
    /// Read again from the course at its CPU size (`problem_cpu`, `source::cpu_sized`), on
    /// the worker thread, not on the UI thread.
    Read(CourseRoot),
    /// In hand: a try's, made with its lesson. None: outputs not checked at another size
    /// (and nothing to find for a live run or a compile).
    Given(Option<Box<Lesson>>),
}

impl Default for CpuSize {
    fn default() -> Self {
        CpuSize::Given(None)
    }
}

/// What the UI asks of the worker thread.
#[derive(Debug, Clone)]
pub enum Job {
    /// Carry `plan` out for `lesson` (a live run, a run on the CPU interpreter, compile
    /// reports): the plan is made on the UI thread (`source::plan`) and the worker thread
    /// builds its request (`Plan::request`), reading the CPU size first where it must.
    Run {
        plan: Plan,
        lesson: Box<Lesson>,
        options: Box<RunOptions>,
        cpu_size: CpuSize,
    },
    /// Rerun one variant under the compute-sanitizer at `sanitizer` (slow: minutes).
    Memcheck {
        lesson: Box<Lesson>,
        variant: String,
        sanitizer: std::path::PathBuf,
    },
    Check(Box<CheckJob>),
    /// A variant's SASS, built as a run builds it, for the code and diff views.
    Sass {
        lesson: Box<Lesson>,
        variant: String,
        arch: String,
    },
    /// Watch this file for saves, whose text as the lab last saw it is given (None: stop
    /// watching). Served beside the worker, never queued behind a run.
    Watch(Option<(std::path::PathBuf, Option<Vec<u8>>)>),
    /// Watch these files (of one folder) for saves, each with its text as the lab last saw
    /// it, in place of whatever was watched: a try's kernel files.
    WatchFiles(Vec<(std::path::PathBuf, Option<Vec<u8>>)>),
    /// A tried kernel's lesson made again from its files and flags after a save: the files
    /// are read here, off the UI thread, and the lesson comes back as `WorkerEvent::Remade`.
    RemakeTry(Box<crate::course::tried::lesson::TrySpec>),
    /// The lessons that take their problem from the GPU (its L2's size, its SMs) read
    /// again with `device`'s figures: the files are read here, off the UI thread, and the
    /// lessons come back as `WorkerEvent::Sized`.
    Size {
        lessons: Vec<Lesson>,
        root: CourseRoot,
        device: Box<crate::model::results::DeviceInfo>,
    },
    /// Write the exercise progress (beside the worker, like `Watch`).
    SaveBook {
        book: ExerciseBook,
        path: std::path::PathBuf,
    },
}
