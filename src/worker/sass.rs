//! A variant's SASS: built exactly as a run builds it, then disassembled by nvdisasm with
//! the source lines `-lineinfo` keeps.

use super::compile;
use crate::cuda::discover;
use crate::model::Lesson;
use crate::model::protocol::PIP_HINT;
use std::process::Command;

pub fn listing(lesson: &Lesson, variant: &str, arch: &str) -> Result<String, String> {
    let v = lesson
        .variants
        .iter()
        .find(|v| v.name == variant)
        .ok_or_else(|| format!("no variant `{variant}` in {}", lesson.id))?;
    let nvdisasm = discover::find()
        .nvdisasm
        .clone()
        .ok_or_else(|| format!("nvdisasm not found; get it with: {PIP_HINT}"))?;
    let built = compile::compile_checked(lesson, v, arch).map_err(|e| e.to_string())?;
    let dir = tempfile_dir()?;
    let path = dir.join(format!("{variant}.cubin"));
    std::fs::write(&path, &built.image).map_err(|e| format!("{}: {e}", path.display()))?;
    let out = Command::new(&nvdisasm)
        .args(["-c", "-g"])
        .arg(&path)
        .output()
        .map_err(|e| format!("{}: {e}", nvdisasm.display()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    if !out.status.success() {
        return Err(format!(
            "nvdisasm failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A fresh folder of our own under the temp dir (nvdisasm reads a file, not a pipe).
fn tempfile_dir() -> Result<std::path::PathBuf, String> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("gpulab-sass-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}
