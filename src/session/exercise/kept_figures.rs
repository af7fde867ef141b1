//! The solution's and the compared variants' figures kept in a folder across checks
//! (`ex check --reuse-figures DIR`): a table of many answers to one exercise times and
//! traces them once on a GPU, at the lesson's size and at each extra size, and every later
//! check of that exercise on the same GPU compares with those figures. The traced sample
//! is kept too: a later check traces `yours` in the same blocks, so the figures compare as
//! those of one run do (drawn afresh by the first check, it is no more predictable to the
//! answers than a check's own). An entry is used only while every variant's fingerprint
//! (its source, defines, launch and buffer sizes) is what the check would run and it holds
//! what the check needs (a time, a trace); it is written whole or not at all (a new file
//! renamed into place), so checks running side by side never read half of one.

use crate::model::results::{DeviceInfo, LessonResult, VariantResult};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What an entry is for: one exercise of one lesson, on one GPU, at the lesson's size or
/// the editing size (`at` empty), or at one extra size (`at` names it).
pub(super) struct Key<'a> {
    pub lesson: &'a str,
    pub exercise: &'a str,
    pub device: &'a DeviceInfo,
    pub editing: bool,
    pub at: &'a str,
}

impl Key<'_> {
    fn file(&self, dir: &Path) -> PathBuf {
        use sha2::{Digest, Sha256};
        let d = self.device;
        let text = format!(
            "{}|{}|{}|{}|{}|{}|{}",
            self.lesson, self.exercise, d.name, d.cc, d.driver, self.editing, self.at
        );
        let hash = Sha256::digest(text.as_bytes());
        let hex: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
        dir.join(format!("{}-{hex}.json", self.exercise))
    }
}

/// What a run measured: timed, traced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Measured {
    pub timed: bool,
    pub traced: bool,
}

impl Measured {
    fn covers(self, need: Measured) -> bool {
        (self.timed || !need.timed) && (self.traced || !need.traced)
    }
}

/// An entry: the variants' figures, what they hold, and the sample their trace drew.
#[derive(Serialize, Deserialize)]
pub(super) struct Kept {
    pub seed: u32,
    pub measured: Measured,
    pub variants: Vec<VariantResult>,
}

/// The kept figures of `names`, when there is an entry holding what `need` asks and each
/// variant's fingerprint is that of the blank result the check would fill (`blank`).
pub(super) fn load(
    dir: &Path,
    key: &Key,
    names: &[String],
    blank: &LessonResult,
    need: Measured,
) -> Option<Kept> {
    let text = std::fs::read(key.file(dir)).ok()?;
    let kept: Kept = serde_json::from_slice(&text).ok()?;
    if !kept.measured.covers(need) {
        return None;
    }
    let same = |name: &String| {
        let now = blank.variants.iter().find(|v| &v.name == name)?;
        let then = kept.variants.iter().find(|v| &v.name == name)?;
        (now.source_hash == then.source_hash).then(|| then.clone())
    };
    let variants = names.iter().map(same).collect::<Option<Vec<_>>>()?;
    Some(Kept { variants, ..kept })
}

/// Keep the figures of `names` from `result`, when none of them came out wrong or met an
/// error and each was timed and traced as `measured` says, its trace drawn with `seed`. An error to
/// write is the caller's to say; the check's verdict does not depend on it.
pub(super) fn store(
    dir: &Path,
    key: &Key,
    names: &[String],
    (result, measured, seed): (&LessonResult, Measured, u32),
) -> std::io::Result<bool> {
    let vs: Vec<VariantResult> = (result.variants.iter())
        .filter(|v| names.contains(&v.name))
        .cloned()
        .collect();
    // A variant whose output was not checked (the interpreter checks outputs at the CPU
    // size, where a compared variant need not be) is kept on its trace; a wrong one never.
    let whole = vs.len() == names.len()
        && vs.iter().all(|v| {
            v.correct != Some(false)
                && v.error.is_none()
                && (!measured.timed || v.time_ms.is_some())
                && (!measured.traced || v.memory.is_some())
        });
    if !whole {
        return Ok(false);
    }
    let kept = Kept {
        seed,
        measured,
        variants: vs,
    };
    std::fs::create_dir_all(dir)?;
    let path = key.file(dir);
    let fresh = path.with_extension(format!("{}.new", std::process::id()));
    std::fs::write(&fresh, serde_json::to_vec(&kept)?)?;
    std::fs::rename(&fresh, &path)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::results::{MemoryStats, Source, TimeMs};

    fn result(names: &[&str], timed: bool, traced: bool) -> LessonResult {
        let v = |n: &&str| VariantResult {
            name: n.to_string(),
            correct: Some(true),
            source_hash: format!("hash of {n}"),
            time_ms: timed.then_some(TimeMs {
                median: 1.0,
                min: 1.0,
                max: 1.0,
                runs: 1,
                spread_pct: 0.0,
            }),
            memory: traced.then(MemoryStats::default),
            ..Default::default()
        };
        LessonResult {
            lesson: "l".into(),
            source: Source::Live,
            device: None,
            peak: Default::default(),
            variants: names.iter().map(v).collect(),
            expect: Vec::new(),
            compile: None,
            knobs: Vec::new(),
        }
    }

    #[test]
    fn an_entry_serves_only_its_size_and_what_it_measured_with_its_sample() {
        let dir = tempfile::tempdir().unwrap();
        let device = DeviceInfo::default();
        let key = |at| Key {
            lesson: "l",
            exercise: "e",
            device: &device,
            editing: false,
            at,
        };
        let names = vec!["solution".to_string(), "naive".to_string()];
        let traced = Measured {
            timed: false,
            traced: true,
        };
        let both = Measured {
            timed: true,
            traced: true,
        };
        let ran = result(&["yours", "solution", "naive"], false, true);
        // A run that did not trace what it says it did is not kept.
        let untraced = result(&["yours", "solution", "naive"], false, false);
        assert!(!store(dir.path(), &key("n = 1000"), &names, (&untraced, traced, 7)).unwrap());
        // Nor one whose compared variant came out wrong.
        let mut wrong = result(&["yours", "solution", "naive"], false, true);
        wrong.variants[2].correct = Some(false);
        assert!(!store(dir.path(), &key("n = 1000"), &names, (&wrong, traced, 7)).unwrap());
        assert!(store(dir.path(), &key("n = 1000"), &names, (&ran, traced, 7)).unwrap());
        let blank = result(&["yours", "solution", "naive"], false, false);
        let k = load(dir.path(), &key("n = 1000"), &names, &blank, traced).unwrap();
        assert_eq!(k.seed, 7);
        assert_eq!(k.variants.len(), 2);
        assert!(k.variants.iter().all(|v| v.memory.is_some()));
        // Another size, a time it never took, an edited variant: not served.
        assert!(load(dir.path(), &key(""), &names, &blank, traced).is_none());
        assert!(load(dir.path(), &key("n = 1000"), &names, &blank, both).is_none());
        let mut edited = blank.clone();
        edited.variants[2].source_hash = "edited".into();
        assert!(load(dir.path(), &key("n = 1000"), &names, &edited, traced).is_none());
    }
}
