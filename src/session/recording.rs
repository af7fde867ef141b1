//! Recordings: what a real run on a GPU measured, kept in `lessons/recordings/<gpu>.json`
//! so that a machine without a GPU shows the same screens, labelled as recorded. An entry
//! whose kernel changed since is marked stale rather than shown as current.

use crate::model::Lesson;
use crate::model::results::{DeviceInfo, LessonResult, Peak, Source};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FORMAT: u32 = 1;

/// Why a recording file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    #[error("not a recording: {0}")]
    Json(#[from] serde_json::Error),
    #[error("recording format {found} (this gpulab reads {FORMAT})")]
    Format { found: u32 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    pub format: u32,
    pub gpulab_version: String,
    pub device: DeviceInfo,
    /// RFC 3339, UTC.
    pub recorded_at: String,
    pub peak: Peak,
    pub lessons: Vec<LessonResult>,
}

impl Recording {
    pub fn new(device: DeviceInfo, peak: Peak, lessons: Vec<LessonResult>) -> Recording {
        Recording {
            format: FORMAT,
            gpulab_version: env!("CARGO_PKG_VERSION").to_string(),
            device,
            recorded_at: now_rfc3339(),
            peak,
            lessons,
        }
    }

    /// "recorded on NVIDIA H100 80GB HBM3, 2026-11-21".
    pub fn label(&self) -> String {
        format!(
            "recorded on {}, {}",
            self.device.name,
            self.recorded_at.get(..10).unwrap_or(&self.recorded_at)
        )
    }

    /// `label` for one lesson: a lesson merged in from another recording (`newest`) is
    /// labelled with the device and date it was recorded on.
    pub fn label_of(&self, lesson: &str) -> String {
        let merged = (self.lessons.iter().find(|l| l.lesson == lesson))
            .and_then(|l| l.device.as_ref())
            .and_then(|d| Some((d.name.as_str(), d.recorded_at.as_deref()?)));
        match merged {
            Some((name, at)) => format!("recorded on {name}, {}", at.get(..10).unwrap_or(at)),
            None => self.label(),
        }
    }

    /// The recorded figures of `lesson`, labelled as recorded, with each variant whose
    /// kernel or launch changed since marked stale.
    pub fn replay(&self, lesson: &Lesson) -> Option<LessonResult> {
        let rec = self.lessons.iter().find(|l| l.lesson == lesson.id)?;
        let mut out = rec.clone();
        out.source = Source::Recorded;
        out.compile = None;
        // A lesson merged in from another recording (see `newest`) carries its own device,
        // with when it was recorded, and its own peak.
        if rec.device.as_ref().is_none_or(|d| d.recorded_at.is_none()) {
            let mut device = self.device.clone();
            device.recorded_at = Some(self.recorded_at.clone());
            out.device = Some(device);
            // The copy peak is the session's; a cuBLAS peak belongs to the lesson's problem.
            out.peak.copy_gbps = self.peak.copy_gbps.or(rec.peak.copy_gbps);
        }
        // Keep the lesson's order; a variant added since the recording shows as not run.
        let mut variants = Vec::new();
        for v in &lesson.variants {
            let hash = crate::analysis::fingerprint::variant_hash(lesson, v);
            match rec.variants.iter().find(|r| r.name == v.name) {
                Some(r) => {
                    let mut r = r.clone();
                    r.stale = r.source_hash != hash;
                    variants.push(r);
                }
                None => variants.push(crate::model::results::VariantResult {
                    stale: true,
                    unrecorded: true,
                    ..crate::model::results::VariantResult::blank(v, hash)
                }),
            }
        }
        out.variants = variants;
        Some(out)
    }

    pub fn parse(text: &str) -> Result<Recording, RecordingError> {
        let r: Recording = serde_json::from_str(text)?;
        if r.format != FORMAT {
            return Err(RecordingError::Format { found: r.format });
        }
        Ok(r)
    }

    /// Write atomically: a half-written recording must never replace a good one.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        write_atomic(path, text.as_bytes())
    }
}

/// `lessons/recordings/nvidia-h100-80gb-hbm3.json` for that GPU.
pub fn file_name_for(device: &DeviceInfo) -> String {
    let mut slug = String::new();
    for c in device.name.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    format!("{}.json", slug.trim_matches('-'))
}

pub fn default_path(dir: &Path, device: &DeviceInfo) -> PathBuf {
    dir.join(file_name_for(device))
}

/// The course's recording that holds the most lessons (the newest of equals) among those
/// that parse, with the lessons it lacks taken from the others, newest first: a lesson that
/// needs two GPUs is recorded on a machine that has them. A lesson taken from another
/// recording keeps that recording's device and peak.
pub fn newest(recordings: &[(String, String)]) -> Option<Recording> {
    let mut all: Vec<Recording> = recordings
        .iter()
        .filter_map(|(_, text)| Recording::parse(text).ok())
        .collect();
    all.sort_by(|a, b| (b.lessons.len(), &b.recorded_at).cmp(&(a.lessons.len(), &a.recorded_at)));
    let mut all = all.into_iter();
    let mut base = all.next()?;
    for other in all {
        for mut l in other.lessons {
            if base.lessons.iter().any(|b| b.lesson == l.lesson) {
                continue;
            }
            let mut device = other.device.clone();
            device.recorded_at = Some(other.recorded_at.clone());
            l.device = Some(device);
            l.peak = other.peak.clone();
            base.lessons.push(l);
        }
    }
    Some(base)
}

pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}
