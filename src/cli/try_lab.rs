//! `gpulab try` in the lab: the try's lesson is the course, loaded at once, and the lab
//! watches its files and runs it again on every save (`ui::try_lab`).

use super::TryArgs;
use crate::course::tried::lesson::Tried;
use crate::ui::App;
use crate::ui::state::loading::Course;
use crate::ui::state::try_lab::TryLab;
use anyhow::{Result, anyhow};

/// Open the lab on `tried`; its exit status as `gpulab`'s: 0, or 128 + the number of the
/// signal that ended it.
pub(super) fn open(device: u32, a: &TryArgs, tried: Tried) -> Result<i32> {
    super::needs_a_terminal().map_err(|_| {
        anyhow!(
            "the lab needs a terminal (its output and keys), and this is not one; from a \
             script add --json or --report"
        )
    })?;
    let lesson = tried.lesson.clone();
    let app = App::for_try(TryLab::new(a.spec(), tried, a.cpu));
    let course = move || {
        Ok(Course {
            lessons: vec![lesson],
            recording: None,
            broken: Vec::new(),
        })
    };
    let app = crate::ui::terminal::open(app, device, course)?;
    Ok(app.terminated_by.map_or(0, |s| 128 + s))
}
