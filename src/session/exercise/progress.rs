//! The learner's progress through the exercises: attempts, whether and how fast each
//! passed, hints and solutions shown. Kept beside the lessons' progress in the data
//! directory and written through `store`: merged with another gpulab process's changes,
//! atomically (a temporary file, then a rename).

use crate::session::store::{self, Base, Mergeable, Read, StoreError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

// Never deny unknown fields, and give every later key a default: older files must load.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExerciseProgress {
    /// `ex check` runs of this exercise.
    pub attempts: u32,
    /// Every check passed on a GPU at least once.
    #[serde(default)]
    pub passed: bool,
    /// The fastest median time of a passing run, in ms.
    #[serde(default)]
    pub best_ms: Option<f64>,
    #[serde(default)]
    pub hints_shown: u32,
    #[serde(default)]
    pub solution_shown: bool,
    /// The solution was shown with `--show-anyway` before the exercise passed.
    #[serde(default)]
    pub shown_before_passing: bool,
    /// Every check the CPU interpreter can judge passed there, correctness included (the
    /// checks about times are left to a GPU).
    #[serde(default)]
    pub passed_cpu: bool,
    /// The solution's median in the run that gave `best_ms`, on the same GPU.
    #[serde(default)]
    pub solution_ms: Option<f64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExerciseBook {
    pub exercises: BTreeMap<String, ExerciseProgress>,
    /// What this copy was when last read or written: its next save merges from there.
    #[serde(skip)]
    base: Base,
}

impl ExerciseBook {
    /// `exercises.json` in the data directory.
    pub fn path() -> Option<PathBuf> {
        crate::session::workspace::data_dir().map(|d| d.join("exercises.json"))
    }

    /// The book at `path`; a file that does not parse is copied aside first (and named in
    /// the note), so the next save cannot destroy it.
    pub fn load_from(path: &Path) -> (ExerciseBook, Option<String>) {
        match Self::load_checked(path) {
            Ok(loaded) => loaded,
            // Said, and the file is left alone: every save fails naming it until it reads.
            Err(e) => (ExerciseBook::default(), Some(e.to_string())),
        }
    }

    /// As `load_from`, but a file that cannot be read is an error (a command that would
    /// save refuses to start rather than fail at the end).
    pub fn load_checked(path: &Path) -> Result<(ExerciseBook, Option<String>), StoreError> {
        let bytes = match store::load::<ExerciseBook>(path)? {
            Read::Missing => return Ok((ExerciseBook::default(), None)),
            Read::Parsed(b) => return Ok((b, None)),
            Read::Damaged(bytes) => bytes,
        };
        let note = match crate::session::progress::back_up(path, &bytes) {
            Ok(bak) => format!(
                "exercise progress was damaged; kept as {} and started afresh",
                bak.display()
            ),
            Err(e) => format!("exercise progress was damaged and could not be kept: {e}"),
        };
        Ok((ExerciseBook::default(), Some(note)))
    }

    /// Write this process's changes, merged with what another process wrote meanwhile.
    pub fn save_to(&self, path: &Path) -> Result<(), StoreError> {
        store::save(path, self).map(drop)
    }

    pub fn get(&self, id: &str) -> ExerciseProgress {
        self.exercises.get(id).cloned().unwrap_or_default()
    }

    pub fn entry(&mut self, id: &str) -> &mut ExerciseProgress {
        self.exercises.entry(id.to_string()).or_default()
    }

    /// One `ex check`: a pass (every check ran and held) keeps the best time.
    pub fn record_attempt(&mut self, id: &str, passed: bool, ms: Option<f64>) {
        let p = self.entry(id);
        // Saturates: a counter that wrapped would say the exercise was never tried.
        p.attempts = p.attempts.saturating_add(1);
        if passed {
            p.passed = true;
            if let Some(ms) = ms {
                p.best_ms = Some(p.best_ms.map_or(ms, |b| b.min(ms)));
            }
        }
    }

    /// One `ex check` and its report: a pass on a GPU keeps the best time and the
    /// solution's time beside it; a pass of every check the CPU interpreter can judge is a
    /// pass on the CPU.
    pub fn record_check(&mut self, id: &str, r: &super::report::CheckReport) {
        use super::report::Mark;
        let p = self.entry(id);
        p.attempts = p.attempts.saturating_add(1);
        if r.live && r.passed() {
            p.passed = true;
            if let Some(ms) = r.time_ms
                && p.best_ms.is_none_or(|b| ms < b)
            {
                p.best_ms = Some(ms);
                p.solution_ms = r.solution_ms;
            }
        }
        let on_cpu = r.result.source == crate::model::results::Source::Interpreted;
        let right = r.lines.first().is_some_and(|l| l.mark == Mark::Pass);
        if on_cpu && right && !r.failed() {
            p.passed_cpu = true;
        }
    }

    /// The solution was shown; `anyway`: before passing, at the learner's word.
    pub fn record_solution(&mut self, id: &str) {
        let p = self.entry(id);
        p.shown_before_passing |= !p.passed;
        p.solution_shown = true;
    }
}

impl Mergeable for ExerciseBook {
    fn take_in(&mut self, base: &Self, mine: &Self) {
        let none = ExerciseProgress::default();
        for (id, m) in &mine.exercises {
            let b = base.exercises.get(id).unwrap_or(&none);
            let now = self.exercises.entry(id.clone()).or_default();
            now.attempts = now
                .attempts
                .saturating_add(m.attempts.saturating_sub(b.attempts));
            now.passed |= m.passed;
            now.passed_cpu |= m.passed_cpu;
            // The solution's time goes with the best time it was measured beside.
            if m.best_ms
                .is_some_and(|mb| now.best_ms.is_none_or(|nb| mb < nb))
            {
                now.solution_ms = m.solution_ms;
            }
            now.best_ms = match (now.best_ms, m.best_ms) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            now.hints_shown = now.hints_shown.max(m.hints_shown);
            now.solution_shown |= m.solution_shown;
            now.shown_before_passing |= m.shown_before_passing;
        }
    }

    fn base(&self) -> &Base {
        &self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_keeps_the_best_time_and_a_failure_keeps_none() {
        let mut b = ExerciseBook::default();
        b.record_attempt("x", false, Some(1.0));
        assert_eq!(b.get("x").best_ms, None);
        b.record_attempt("x", true, Some(3.0));
        b.record_attempt("x", true, Some(2.0));
        b.record_attempt("x", true, Some(5.0));
        let p = b.get("x");
        assert_eq!((p.attempts, p.passed, p.best_ms), (4, true, Some(2.0)));
    }

    #[test]
    fn a_damaged_file_is_kept_aside_and_a_saved_one_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("exercises.json");
        std::fs::write(&path, "{ not json").unwrap();
        let (b, note) = ExerciseBook::load_from(&path);
        assert_eq!(b, ExerciseBook::default());
        assert!(note.unwrap().contains("bak-"));
        let mut b = ExerciseBook::default();
        b.record_solution("y");
        b.save_to(&path).unwrap();
        let (back, note) = ExerciseBook::load_from(&path);
        assert!(note.is_none());
        assert!(back.get("y").shown_before_passing);
    }

    #[test]
    fn a_pass_on_the_cpu_and_the_solutions_time_are_written_through_the_merge() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("exercises.json");
        let mut b = ExerciseBook::default();
        b.entry("x").passed_cpu = true;
        let p = b.entry("y");
        (p.passed, p.best_ms, p.solution_ms) = (true, Some(2.0), Some(1.5));
        b.save_to(&path).unwrap();
        let back = ExerciseBook::load_from(&path).0;
        assert!(back.get("x").passed_cpu);
        assert_eq!(back.get("y").solution_ms, Some(1.5));
    }

    #[test]
    fn attempts_saturate_instead_of_wrapping() {
        let mut b = ExerciseBook::default();
        b.entry("x").attempts = u32::MAX;
        b.record_attempt("x", false, None);
        assert_eq!(b.get("x").attempts, u32::MAX);
    }

    #[test]
    fn a_save_keeps_a_pass_on_the_cpu_and_the_solutions_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("exercises.json");
        let mut b = ExerciseBook::default();
        let p = b.entry("x");
        (p.passed_cpu, p.best_ms, p.solution_ms) = (true, Some(2.0), Some(1.5));
        b.save_to(&path).unwrap();
        let back = ExerciseBook::load_from(&path).0.get("x");
        assert_eq!((back.passed_cpu, back.passed), (true, false), "{back:?}");
        assert_eq!((back.best_ms, back.solution_ms), (Some(2.0), Some(1.5)));
    }
}
