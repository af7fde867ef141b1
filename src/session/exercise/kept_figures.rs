//! The solution's and the compared variants' figures kept in a folder across checks
//! (`ex check --reuse-figures DIR`): a table of many answers to one exercise times and
//! traces them once on a GPU, and every later check of that exercise on the same GPU
//! compares with those figures. An entry is used only while every variant's fingerprint
//! (its source, defines, launch and buffer sizes) is what the check would run; it is
//! written whole or not at all (a new file renamed into place), so checks running side by
//! side never read half of one.

use crate::model::results::{DeviceInfo, LessonResult, VariantResult};
use std::path::{Path, PathBuf};

/// What an entry is for: one exercise of one lesson, on one GPU, at the lesson's size or
/// the editing size.
pub(super) struct Key<'a> {
    pub lesson: &'a str,
    pub exercise: &'a str,
    pub device: &'a DeviceInfo,
    pub editing: bool,
}

impl Key<'_> {
    fn file(&self, dir: &Path) -> PathBuf {
        use sha2::{Digest, Sha256};
        let d = self.device;
        let text = format!(
            "{}|{}|{}|{}|{}|{}",
            self.lesson, self.exercise, d.name, d.cc, d.driver, self.editing
        );
        let hash = Sha256::digest(text.as_bytes());
        let hex: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
        dir.join(format!("{}-{hex}.json", self.exercise))
    }
}

/// The kept figures of `names`, when there is an entry and each variant's fingerprint is
/// that of the blank result the check would fill (`blank`).
pub(super) fn load(
    dir: &Path,
    key: &Key,
    names: &[String],
    blank: &LessonResult,
) -> Option<Vec<VariantResult>> {
    let text = std::fs::read(key.file(dir)).ok()?;
    let kept: Vec<VariantResult> = serde_json::from_slice(&text).ok()?;
    let same = |name: &String| {
        let now = blank.variants.iter().find(|v| &v.name == name)?;
        let then = kept.iter().find(|v| &v.name == name)?;
        (now.source_hash == then.source_hash).then(|| then.clone())
    };
    names.iter().map(same).collect()
}

/// Keep the figures of `names` from `result`, when every one of them ran without an error
/// and was timed (and traced, where `traced`). An error to write is the caller's to say; the
/// check's verdict does not depend on it.
pub(super) fn store(
    dir: &Path,
    key: &Key,
    names: &[String],
    result: &LessonResult,
    traced: bool,
) -> std::io::Result<bool> {
    let vs: Vec<&VariantResult> = (result.variants.iter())
        .filter(|v| names.contains(&v.name))
        .collect();
    let whole = vs.len() == names.len()
        && vs.iter().all(|v| {
            v.correct != Some(false)
                && v.error.is_none()
                && v.time_ms.is_some()
                && (!traced || v.memory.is_some())
        });
    if !whole {
        return Ok(false);
    }
    std::fs::create_dir_all(dir)?;
    let path = key.file(dir);
    let fresh = path.with_extension(format!("{}.new", std::process::id()));
    std::fs::write(&fresh, serde_json::to_vec(&vs)?)?;
    std::fs::rename(&fresh, &path)?;
    Ok(true)
}
