//! The learner's progress (lessons seen, pages read, checkpoint answers, runs done), kept in
//! the user's data directory and written through `store`: merged with what another gpulab
//! process wrote meanwhile, and atomically, so a crash mid-write never loses it. A file
//! that no longer parses is copied aside before anything replaces it; one that cannot be
//! read is never replaced.

use super::store::{self, Base, Mergeable, Read, StoreError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

// Files written by earlier versions carry `last` too: serde skips keys it does not know
// (these types must never deny unknown fields), so those files still load. Every key added
// since has a default for the same reason.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LessonProgress {
    pub seen: bool,
    /// Live runs completed.
    pub runs: u32,
    /// How far the learner has read: the furthest page reached, counted from 1.
    #[serde(default)]
    pub pages_read: u32,
    /// Checkpoint answers, question index to the choice given, so they outlive the session
    /// and count without a GPU.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub answers: BTreeMap<usize, usize>,
    /// Every page read and every question answered: finished, with or without a GPU.
    #[serde(default)]
    pub finished: bool,
    /// The learner chose to see the figures before predicting (or has run the lesson).
    #[serde(default)]
    pub revealed: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub lessons: BTreeMap<String, LessonProgress>,
    /// What this copy was when last read or written: its next save merges from there.
    #[serde(skip)]
    base: Base,
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
        Self::load_noting().0
    }

    /// As `load`, and the words to say once when a broken file was set aside.
    pub fn load_noting() -> (Progress, Option<String>) {
        match Self::path() {
            Some(p) => Self::load_from(&p),
            None => (Progress::default(), None),
        }
    }

    /// A file that does not parse (cut short by a full disk, edited by hand) is copied to
    /// the first free `progress.json.bak-N` before the lab starts afresh, so the next save
    /// cannot destroy what may still be recovered by hand; an older backup is never touched.
    pub fn load_from(path: &Path) -> (Progress, Option<String>) {
        let bytes = match store::load::<Progress>(path) {
            Ok(Read::Missing) => return (Progress::default(), None),
            Ok(Read::Parsed(p)) => return (p, None),
            Ok(Read::Damaged(bytes)) => bytes,
            // Said, and the file is left alone: every save fails naming it until it reads.
            Err(e) => return (Progress::default(), Some(e.to_string())),
        };
        let note = match back_up(path, &bytes) {
            Ok(bak) => format!(
                "progress file was damaged; kept as {} and started afresh",
                bak.display()
            ),
            Err(e) => format!("progress file was damaged and could not be kept aside: {e}"),
        };
        (Progress::default(), Some(note))
    }

    #[cfg(test)]
    fn parse(bytes: &[u8]) -> Option<Progress> {
        serde_json::from_slice(bytes).ok()
    }

    /// Write this process's changes into the progress file, merged with another process's.
    pub fn save(&self) -> Result<(), StoreError> {
        match Self::path() {
            Some(path) => self.save_to(&path),
            None => Ok(()),
        }
    }

    pub fn save_to(&self, path: &Path) -> Result<(), StoreError> {
        store::save(path, self).map(drop)
    }

    pub fn get(&self, id: &str) -> LessonProgress {
        self.lessons.get(id).cloned().unwrap_or_default()
    }

    /// A lesson is done once every page is read and every question answered, which needs no
    /// GPU; a finished live run (all that counted before) still counts.
    pub fn is_done(&self, id: &str) -> bool {
        let p = self.get(id);
        p.finished || p.runs > 0
    }

    fn entry(&mut self, id: &str) -> &mut LessonProgress {
        self.lessons.entry(id.to_string()).or_default()
    }

    pub fn mark_seen(&mut self, id: &str) {
        self.entry(id).seen = true;
    }

    /// A live run finished: it shows its own mark, and its figures are no longer a spoiler.
    pub fn mark_run(&mut self, id: &str) {
        let p = self.entry(id);
        p.runs = p.runs.saturating_add(1);
        p.revealed = true;
    }

    pub fn mark_revealed(&mut self, id: &str) {
        self.entry(id).revealed = true;
    }

    /// Page `page` (from 0) is on screen.
    pub fn mark_page(&mut self, id: &str, page: usize) {
        let p = self.entry(id);
        p.pages_read = p.pages_read.max(page as u32 + 1);
    }

    pub fn record_answer(&mut self, id: &str, question: usize, choice: usize) {
        self.entry(id).answers.insert(question, choice);
    }

    /// Mark the lesson finished once `pages` pages are read and `questions` answered.
    pub fn check_finished(&mut self, id: &str, pages: usize, questions: usize) {
        let p = self.entry(id);
        if p.pages_read as usize >= pages && (0..questions).all(|q| p.answers.contains_key(&q)) {
            p.finished = true;
        }
    }

    /// Index of the first lesson not done, in course order.
    pub fn first_unfinished(&self, ids: &[&str]) -> usize {
        ids.iter().position(|id| !self.is_done(id)).unwrap_or(0)
    }
}

impl Mergeable for Progress {
    fn take_in(&mut self, base: &Self, mine: &Self) {
        let none = LessonProgress::default();
        for (id, m) in &mine.lessons {
            let b = base.lessons.get(id).unwrap_or(&none);
            let now = self.lessons.entry(id.clone()).or_default();
            now.seen |= m.seen;
            now.runs = now.runs.saturating_add(m.runs.saturating_sub(b.runs));
            now.pages_read = now.pages_read.max(m.pages_read);
            for (q, c) in &m.answers {
                if b.answers.get(q) != Some(c) {
                    now.answers.insert(*q, *c);
                }
            }
            now.finished |= m.finished;
            now.revealed |= m.revealed;
        }
    }

    fn base(&self) -> &Base {
        &self.base
    }
}

/// Copy `bytes` to the first `<path>.bak-N` that does not exist yet; `create_new` makes
/// sure no earlier backup is overwritten, even by a second lab starting at the same time.
/// A backup that already holds these very bytes is named instead of making another: one
/// damaged file read twice in one command (load, then the save's fresh read) or by every
/// command until it is repaired is kept once.
pub(super) fn back_up(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    for n in 1..1000 {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".bak-{n}"));
        let bak = PathBuf::from(name);
        if same_bytes(&bak, bytes) {
            return Ok(bak);
        }
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&bak)
        {
            Ok(mut f) => return f.write_all(bytes).map(|()| bak),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "a thousand backups already; remove some",
    ))
}

/// Whether the plain file at `path` holds exactly `bytes` (read no further than that).
fn same_bytes(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() != bytes.len() as u64 {
        return false;
    }
    let mut held = Vec::with_capacity(bytes.len());
    (std::fs::File::open(path).and_then(|f| f.take(bytes.len() as u64).read_to_end(&mut held)))
        .is_ok_and(|_| held == bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_file_backed_up_twice_is_kept_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("progress.json");
        let first = back_up(&p, b"{broken").unwrap();
        assert_eq!(back_up(&p, b"{broken").unwrap(), first);
        let other = back_up(&p, b"{broken too").unwrap();
        assert_ne!(other, first, "other bytes are kept apart");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

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
        let p = Progress::parse(old.as_bytes()).expect("old keys are skipped, not refused");
        assert_eq!(
            p.get("a"),
            LessonProgress {
                seen: true,
                runs: 2,
                pages_read: 3,
                ..Default::default()
            }
        );
    }

    #[test]
    fn a_truncated_file_is_kept_aside_never_over_an_older_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.json");
        let mut good = Progress::default();
        good.mark_run("a");
        let text = serde_json::to_string_pretty(&good).unwrap();
        let cut = &text[..text.len() / 2];
        std::fs::write(&path, cut).unwrap();
        let (p, note) = Progress::load_from(&path);
        assert_eq!(p, Progress::default());
        let note = note.expect("the learner is told");
        assert!(note.contains("progress.json.bak-1"), "{note}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("progress.json.bak-1")).unwrap(),
            cut
        );
        std::fs::write(&path, "{").unwrap();
        let (_, note) = Progress::load_from(&path);
        assert!(note.unwrap().contains("progress.json.bak-2"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("progress.json.bak-1")).unwrap(),
            cut
        );
        std::fs::write(&path, &text).unwrap();
        assert_eq!(
            Progress::load_from(&path),
            (good, None),
            "a good file says nothing"
        );
    }

    #[test]
    fn reading_and_answering_finish_a_lesson_without_a_gpu() {
        let mut p = Progress::default();
        p.mark_page("a", 0);
        p.record_answer("a", 0, 1);
        p.check_finished("a", 2, 1);
        assert!(!p.is_done("a"), "page 2 unread");
        p.mark_page("a", 1);
        p.check_finished("a", 2, 1);
        assert!(p.is_done("a"));
        assert_eq!(p.get("a").runs, 0);
        assert_eq!(p.first_unfinished(&["a", "b"]), 1);
        let back: Progress = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(back, p, "answers survive a save");
    }
}
