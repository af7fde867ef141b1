//! The learner's progress (lessons seen, runs done), kept in the user's data directory and
//! written atomically so a crash mid-write never loses it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

// Files written by earlier versions carry `last` and `pages_read` too: serde skips keys it
// does not know (these types must never deny unknown fields), so those files still load.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LessonProgress {
    pub seen: bool,
    /// Live runs completed.
    pub runs: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub lessons: BTreeMap<String, LessonProgress>,
}

impl Progress {
    /// `$GPULAB_DATA_DIR/progress.json`, else the platform's data directory.
    pub fn path() -> Option<PathBuf> {
        if let Some(d) = std::env::var_os("GPULAB_DATA_DIR").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(d).join("progress.json"));
        }
        dirs::data_dir().map(|d| d.join("gpulab").join("progress.json"))
    }

    /// Load, or start fresh when there is none (or it is unreadable: progress is a
    /// convenience, never a reason to refuse to open the lab).
    pub fn load() -> Progress {
        Self::path()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| Self::parse(&t))
            .unwrap_or_default()
    }

    fn parse(text: &str) -> Option<Progress> {
        serde_json::from_str(text).ok()
    }

    pub fn save(&self) -> std::io::Result<()> {
        let Some(path) = Self::path() else {
            return Ok(());
        };
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        crate::session::recording::write_atomic(&path, text.as_bytes())
    }

    pub fn get(&self, id: &str) -> LessonProgress {
        self.lessons.get(id).cloned().unwrap_or_default()
    }

    /// A lesson is done once a live run of it has finished; without a GPU there is no run,
    /// and replayed figures do not count.
    pub fn is_done(&self, id: &str) -> bool {
        self.get(id).runs > 0
    }

    pub fn mark_seen(&mut self, id: &str) {
        self.lessons.entry(id.to_string()).or_default().seen = true;
    }

    pub fn mark_run(&mut self, id: &str) {
        self.lessons.entry(id.to_string()).or_default().runs += 1;
    }

    /// Index of the first lesson not done, in course order.
    pub fn first_unfinished(&self, ids: &[&str]) -> usize {
        ids.iter().position(|id| !self.is_done(id)).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_at_the_first_unfinished_lesson() {
        let mut p = Progress::default();
        let ids = ["a", "b", "c"];
        assert_eq!(p.first_unfinished(&ids), 0);
        p.mark_run("a");
        p.mark_seen("b");
        assert_eq!(p.first_unfinished(&ids), 1);
        p.mark_run("b");
        assert_eq!(p.first_unfinished(&ids), 2);
        assert!(p.get("b").seen);
    }

    #[test]
    fn a_file_from_an_earlier_version_still_loads() {
        let old = r#"{
            "lessons": { "a": { "seen": true, "runs": 2, "pages_read": 3 } },
            "last": "a"
        }"#;
        let p = Progress::parse(old).expect("old keys are skipped, not refused");
        assert_eq!(
            p.get("a"),
            LessonProgress {
                seen: true,
                runs: 2
            }
        );
    }
}
