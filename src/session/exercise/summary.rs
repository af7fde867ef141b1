//! The instructor's view of a workshop: each participant's exercise progress, read from
//! their data folder (its `exercises.json`) and workspace (their kernel files), never
//! written. A workshop keeps each participant's folder under one shared folder; a folder
//! given that holds no progress of its own stands for the participants inside it.

use super::progress::{ExerciseBook, ExerciseProgress};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SummaryError {
    #[error("{0}: no such folder")]
    NotAFolder(PathBuf),
    #[error("{0}: no participant here (no exercises.json in it or in the folders inside)")]
    NoParticipant(PathBuf),
    /// Said once: `why` is not the error's source, which a report would say again.
    #[error("{path}: {why}")]
    Read { path: PathBuf, why: std::io::Error },
}

/// One participant: their name (the folder's), where their progress came from, and how
/// far they got with each exercise.
#[derive(Debug, Clone, Serialize)]
pub struct Participant {
    pub name: String,
    pub dir: PathBuf,
    /// The progress file read; None when the participant has kernel files but no checks.
    pub progress: Option<PathBuf>,
    /// Why the progress file could not be read (it is left as it is).
    pub note: Option<String>,
    pub exercises: BTreeMap<String, Standing>,
}

/// A participant on one exercise.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Standing {
    /// Their kernel file is in the workspace.
    pub started: bool,
    pub attempts: u32,
    /// Every check passed on a GPU.
    pub passed: bool,
    /// Every check the CPU interpreter can judge passed there.
    pub passed_cpu: bool,
    pub hints_shown: u32,
    pub solution_shown: bool,
    pub shown_before_passing: bool,
    /// Their best passing median, and the solution's in that same run.
    pub best_ms: Option<f64>,
    pub solution_ms: Option<f64>,
    /// best_ms / solution_ms: below 1, faster than the solution.
    pub vs_solution: Option<f64>,
}

impl Standing {
    fn of(p: &ExerciseProgress, started: bool) -> Standing {
        let vs_solution = match (p.best_ms, p.solution_ms) {
            (Some(b), Some(s)) if s > 0.0 => Some(b / s),
            _ => None,
        };
        Standing {
            started: started || p.attempts > 0,
            attempts: p.attempts,
            passed: p.passed,
            passed_cpu: p.passed_cpu,
            hints_shown: p.hints_shown,
            solution_shown: p.solution_shown,
            shown_before_passing: p.shown_before_passing,
            best_ms: p.best_ms,
            solution_ms: p.solution_ms,
            vs_solution,
        }
    }
}

/// Where a participant's progress file may be: their data folder itself, or the `gpulab`
/// folder of one used as `XDG_DATA_HOME`.
fn progress_file(dir: &Path) -> Option<PathBuf> {
    [
        dir.join("exercises.json"),
        dir.join("gpulab/exercises.json"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// Where a participant's kernel files may be: the data folder's `exercises/` (the default
/// workspace), or the folder itself (a workspace given on its own).
fn workspaces(dir: &Path) -> [PathBuf; 3] {
    [
        dir.join("exercises"),
        dir.join("gpulab/exercises"),
        dir.to_path_buf(),
    ]
}

/// The participants of `dirs`, in the order given (those inside a shared folder by name);
/// `ids` are the course's exercises, in course order.
pub fn read(dirs: &[PathBuf], ids: &[String]) -> Result<Vec<Participant>, SummaryError> {
    let mut out = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(SummaryError::NotAFolder(dir.clone()));
        }
        if is_participant(dir, ids) {
            out.push(participant(dir, ids)?);
            continue;
        }
        let mut inside: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|why| SummaryError::Read {
                path: dir.clone(),
                why,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir() && is_participant(p, ids))
            .collect();
        if inside.is_empty() {
            return Err(SummaryError::NoParticipant(dir.clone()));
        }
        inside.sort();
        for p in inside {
            out.push(participant(&p, ids)?);
        }
    }
    Ok(out)
}

/// A folder with a progress file, or with a kernel file of one of the exercises.
fn is_participant(dir: &Path, ids: &[String]) -> bool {
    progress_file(dir).is_some() || ids.iter().any(|id| kernel_file(dir, id).is_some())
}

fn kernel_file(dir: &Path, id: &str) -> Option<PathBuf> {
    workspaces(dir)
        .into_iter()
        .map(|w| w.join(format!("{id}.cu")))
        .find(|p| p.is_file())
}

fn participant(dir: &Path, ids: &[String]) -> Result<Participant, SummaryError> {
    let name = dir
        .file_name()
        .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into());
    let progress = progress_file(dir);
    let (book, note) = match &progress {
        None => (ExerciseBook::default(), None),
        Some(p) => {
            let bytes = crate::course::text::read_bounded(
                p,
                "progress file",
                crate::course::text::PROGRESS_FILE_MAX,
            )
            .map_err(|e| SummaryError::Read {
                path: p.clone(),
                why: match e {
                    crate::course::text::FileError::Io(io) => io,
                    other => {
                        std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string())
                    }
                },
            })?;
            // Read only: a damaged file is reported, never moved aside or rewritten.
            match serde_json::from_slice::<ExerciseBook>(&bytes) {
                Ok(b) => (b, None),
                Err(e) => (
                    ExerciseBook::default(),
                    Some(format!("{} could not be read: {e}", p.display())),
                ),
            }
        }
    };
    let mut exercises = BTreeMap::new();
    for id in ids {
        let s = Standing::of(&book.get(id), kernel_file(dir, id).is_some());
        if s != Standing::default() {
            exercises.insert(id.clone(), s);
        }
    }
    Ok(Participant {
        name,
        dir: dir.to_path_buf(),
        progress,
        note,
        exercises,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_folder_stands_for_the_participants_inside_and_a_damaged_file_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let ids = vec!["a".to_string(), "b".to_string()];
        let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
        std::fs::create_dir_all(one.join("exercises")).unwrap();
        std::fs::create_dir_all(&two).unwrap();
        std::fs::write(one.join("exercises/b.cu"), "// mine").unwrap();
        std::fs::write(two.join("exercises.json"), "{ damaged").unwrap();
        std::fs::create_dir_all(tmp.path().join("empty")).unwrap();
        let ps = read(&[tmp.path().to_path_buf()], &ids).unwrap();
        let names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["one", "two"]);
        assert!(ps[0].exercises["b"].started);
        assert!(!ps[0].exercises.contains_key("a"));
        assert!(ps[1].note.as_deref().unwrap().contains("could not be read"));
        assert_eq!(
            std::fs::read_to_string(two.join("exercises.json")).unwrap(),
            "{ damaged"
        );
        let entries = std::fs::read_dir(&two).unwrap().count();
        assert_eq!(entries, 1, "nothing was written beside it");
        let e = read(&[tmp.path().join("empty")], &ids).unwrap_err();
        assert!(e.to_string().contains("no participant"), "{e}");
        let e = read(&[tmp.path().join("nowhere")], &ids).unwrap_err();
        assert!(e.to_string().contains("no such folder"), "{e}");
    }

    #[test]
    fn the_time_against_the_solution_is_the_ratio_of_one_run() {
        let p = ExerciseProgress {
            attempts: 3,
            passed: true,
            best_ms: Some(1.5),
            solution_ms: Some(1.25),
            ..Default::default()
        };
        let s = Standing::of(&p, true);
        assert_eq!(s.vs_solution, Some(1.2));
        let q = ExerciseProgress {
            best_ms: Some(1.5),
            ..p
        };
        assert_eq!(
            Standing::of(
                &ExerciseProgress {
                    solution_ms: None,
                    ..q
                },
                true
            )
            .vs_solution,
            None
        );
    }
}
