//! Which GPU a process opens and which architecture a lesson's kernels are built for. One
//! answer for every place that builds or runs a kernel: the command line (`sass`, `diff`,
//! `check`, and the number every GPU command is given), the lab (its compile reports and
//! its code view), the worker (the GPU it opens, a run on it, a compile, a SASS listing)
//! and the interpreter. Each gives what it knows and nothing is decided beside it, so
//! `gpulab sass` and the lab's code view never build one variant for two GPUs.

use super::Lesson;
use super::protocol::FALLBACK_ARCH;
use super::results::DeviceInfo;

/// Where a lesson's kernels go: the GPU opened, by its number, and the architecture they
/// are built for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub device: u32,
    pub arch: String,
}

/// What a target is chosen from; any of it may be unknown.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gpus<'a> {
    /// The GPU named by its number (`--device`, `GPULAB_DEVICE`, a `Hello`); none: GPU 0.
    pub named: Option<u32>,
    /// The GPU whose figures are shown beside what is built (the recording's, or a live
    /// run's): a compile report or a SASS listing is then of the code those figures measured.
    pub shown: Option<&'a DeviceInfo>,
    /// The GPU found at that number on this machine.
    pub here: Option<&'a DeviceInfo>,
    /// An architecture already chosen with this function (a request's, chosen by the
    /// parent): kept, though still raised to what the lesson requires, since a request may
    /// come from elsewhere.
    pub arch: Option<&'a str>,
}

/// The target for `lesson` (None: no lesson in hand, only a GPU): the GPU named, else 0;
/// built for the architecture already chosen, else the shown figures' GPU, else this
/// machine's, else the lab's default (the H100 the recordings come from), and never below
/// what the lesson requires: code written for a newer GPU (clusters need sm_90) would not
/// compile for an older target.
pub fn target(lesson: Option<&Lesson>, gpus: &Gpus) -> Target {
    let arch = match gpus.arch {
        Some(a) => a.to_string(),
        None => (gpus.shown.or(gpus.here)).map_or_else(|| FALLBACK_ARCH.into(), DeviceInfo::arch),
    };
    Target {
        device: gpus.named.unwrap_or(0),
        arch: match lesson {
            Some(l) => l.requires.arch_for(&arch),
            None => arch,
        },
    }
}

/// Why a GPU's number as given (`--device`, `GPULAB_DEVICE`) names no GPU.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadDevice {
    #[error(
        "GPULAB_DEVICE (or --device) is empty: name a GPU by its number (0, 1, …), or unset \
         it to use GPU 0"
    )]
    Empty,
    #[error("GPULAB_DEVICE (or --device) is `{0}`: a GPU is named by its number (0, 1, …)")]
    NotANumber(String),
}

/// The GPU `given` names by its number (spaces around it aside). Read the same way by the
/// command line and by the worker, which is told the number in `GPULAB_DEVICE`.
pub fn device_number(given: &str) -> Result<u32, BadDevice> {
    let given = given.trim();
    if given.is_empty() {
        return Err(BadDevice::Empty);
    }
    given
        .parse()
        .map_err(|_| BadDevice::NotANumber(given.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;

    fn gpu(cc: &str) -> DeviceInfo {
        DeviceInfo {
            name: format!("GPU {cc}"),
            cc: cc.into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_shown_gpu_comes_first_then_this_one_then_the_default() {
        let l = LessonBuilder::new("x").build();
        let (a100, h200) = (gpu("8.0"), gpu("9.0"));
        let pick = |g: Gpus| target(Some(&l), &g);
        assert_eq!(pick(Gpus::default()).arch, FALLBACK_ARCH);
        assert_eq!(pick(Gpus::default()).device, 0);
        let here = Gpus {
            named: Some(2),
            here: Some(&h200),
            ..Default::default()
        };
        assert_eq!(
            pick(here),
            Target {
                device: 2,
                arch: "sm_90".into()
            }
        );
        let shown = Gpus {
            shown: Some(&a100),
            ..here
        };
        assert_eq!(pick(shown).arch, "sm_80");
        let chosen = Gpus {
            arch: Some("sm_86"),
            ..shown
        };
        assert_eq!(pick(chosen).arch, "sm_86");
        // No lesson: the GPU's own.
        assert_eq!(target(None, &shown).arch, "sm_80");
    }

    #[test]
    fn never_below_what_the_lesson_requires() {
        let mut l = LessonBuilder::new("clusters").build();
        l.requires.cc = Some((9, 0));
        let a100 = gpu("8.0");
        let on = |g: Gpus| target(Some(&l), &g).arch;
        assert_eq!(
            on(Gpus {
                shown: Some(&a100),
                ..Default::default()
            }),
            "sm_90"
        );
        assert_eq!(
            on(Gpus {
                arch: Some("sm_80"),
                ..Default::default()
            }),
            "sm_90"
        );
    }

    #[test]
    fn a_number_is_read_the_same_wherever_it_is_given() {
        assert_eq!(device_number(" 3 "), Ok(3));
        assert_eq!(device_number(""), Err(BadDevice::Empty));
        assert_eq!(device_number("  "), Err(BadDevice::Empty));
        assert_eq!(
            device_number("xyz"),
            Err(BadDevice::NotANumber("xyz".into()))
        );
    }
}
