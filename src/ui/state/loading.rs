//! Loading the course behind the first frame: the lab counts the lesson files (names only,
//! nothing read), draws "loading N lessons…", and a thread of its own loads and checks them
//! and sends the course as one event. A large pack costs time, never a blank screen.

use crate::course::Broken;
use crate::course::bundle::CourseRoot;
use crate::model::builder::LessonBuilder;
use crate::model::results::DeviceInfo;
use crate::model::{Lesson, Topic};
use crate::session::recording::{self, Recording};
use crate::session::source;
use thiserror::Error;

/// What the lab needs once the lessons are in.
#[derive(Debug)]
pub struct Course {
    /// In course order, each lesson file that does not load among them as a stand-in
    /// (`stand_in`) that says why.
    pub lessons: Vec<Lesson>,
    pub recording: Option<Recording>,
    /// The lesson files that do not load: their stand-ins carry their `file`.
    pub broken: Vec<Broken>,
}

/// Why the course could not be opened: every problem, each at its `file:line:col`.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{} problem(s) in the lessons (run `gpulab check` for all of them)", .problems.len())]
pub struct LoadFailure {
    pub problems: Vec<String>,
}

/// Where the lab is with its course.
#[derive(Debug, Clone, PartialEq)]
pub enum Loading {
    /// Being loaded: how many lesson files there are.
    Pending(usize),
    Failed(LoadFailure),
}

/// Load and check the whole course, and the newest recording shipped with it. A lesson file
/// that does not load costs only itself: it stays in the list, where opening it says why.
/// The course fails only when no lesson loads or the folder itself is at fault.
pub fn load(root: &CourseRoot) -> Result<Course, LoadFailure> {
    let course = crate::course::open_course(root);
    if !course.problems.is_empty() || course.lessons.is_empty() {
        let mut problems: Vec<String> = course.errors().iter().map(ToString::to_string).collect();
        if problems.is_empty() {
            problems.push("no lessons found".to_string());
        }
        return Err(LoadFailure { problems });
    }
    let recording = recording::newest(&root.recordings());
    // Until a GPU answers, the lessons are read at the sizes the recording ran with.
    let mut lessons = match &recording {
        Some(rec) => on_device(root, course.lessons, &rec.device),
        None => course.lessons,
    };
    for b in &course.broken {
        let at = lessons.partition_point(|l| l.order <= b.order);
        // Its own space where the file says it; the list heads one it does not say
        // apart (`views::list`), never under the space of the lesson before it.
        let space = b.space.unwrap_or(Topic::Global);
        let taken = lessons.iter().any(|l| l.id == b.name);
        lessons.insert(at, stand_in(b, space, taken));
    }
    Ok(Course {
        lessons,
        recording,
        broken: course.broken,
    })
}

/// A lesson file that does not load, as a lesson of one page: its problems, each at its
/// `file:line:col`. It has no variants; the lab lets the learner read it and move on
/// (`App::broken`), and nothing else.
fn stand_in(b: &Broken, space: Topic, id_taken: bool) -> Lesson {
    let mut text = format!(
        "{} does not load, so this lesson cannot open. The rest of the course works \
         without it.\n\n",
        b.file
    );
    for p in &b.problems {
        text.push_str(&format!("{p}\n"));
    }
    text.push_str("\nFix the file and start the lab again; `gpulab check` lists every problem.\n");
    // An id of its own: a loaded lesson may have the one its name implies.
    let id = if id_taken {
        format!("{:02}-{}", b.order, b.name)
    } else {
        b.name.clone()
    };
    let mut l = LessonBuilder::new(&id)
        .title("does not load")
        .topic(space)
        .order(b.order)
        .page("This lesson does not load", &text)
        .build();
    l.file = b.file.clone();
    l
}

/// `lessons`, each that sizes its problem from the GPU read again with `device`'s figures;
/// one that fails to read so stays as it was (its problem is reported where it runs).
pub fn on_device(root: &CourseRoot, lessons: Vec<Lesson>, device: &DeviceInfo) -> Vec<Lesson> {
    lessons
        .into_iter()
        .map(|l| match source::device_sized(root, &l, device) {
            Ok(Some(sized)) => sized,
            _ => l,
        })
        .collect()
}
