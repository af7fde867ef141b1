//! A variant's SASS: built exactly as a run builds it, then disassembled by nvdisasm with
//! the source lines `-lineinfo` keeps.

use super::compile;
use super::disk_cache;
use crate::analysis::sass::{self, SassError};
use crate::analysis::sass_map::{self, Reshape};
use crate::cuda::discover;
use crate::model::target::{Gpus, target};
use crate::model::{Lesson, Variant};
use crate::trace::instrument::Site;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

pub fn listing(lesson: &Lesson, variant: &str, arch: &str) -> Result<String, SassError> {
    let v = lesson
        .variants
        .iter()
        .find(|v| v.name == variant)
        .ok_or_else(|| SassError::NoVariant {
            variant: variant.to_string(),
            lesson: lesson.id.clone(),
        })?;
    // As a compile request: the parent's choice, never below what the lesson requires.
    let chosen = Gpus {
        arch: Some(arch),
        ..Default::default()
    };
    let arch = target(Some(lesson), &chosen).arch;
    let built =
        compile::compile_checked(lesson, v, &arch).map_err(|e| SassError::Build(e.to_string()))?;
    disassemble(&built.image)
}

/// A listing, made or being made: whoever asks while nvdisasm runs waits for that run.
type Cell = Arc<OnceLock<Result<String, SassError>>>;

/// nvdisasm's listing of a CUBIN, made once per distinct CUBIN and nvdisasm and kept, in
/// this process and on disk (`disk_cache`): a variant is traced and shown again and
/// again while the learner works, and from one session to the next.
pub fn disassemble(image: &[u8]) -> Result<String, SassError> {
    static SEEN: Mutex<Vec<(Vec<u8>, Cell)>> = Mutex::new(Vec::new());
    let cell = {
        let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
        match seen.iter().find(|(i, _)| i == image) {
            Some((_, c)) => c.clone(),
            None => {
                if seen.len() >= 16 {
                    seen.remove(0);
                }
                let c = Cell::default();
                seen.push((image.to_vec(), c.clone()));
                c
            }
        }
    };
    cell.get_or_init(|| made_or_kept(image)).clone()
}

/// Start reading `image`'s SASS now, on a thread of its own, for a trace that will ask for
/// it later: nvdisasm spends a fifth of a second starting, which then overlaps the
/// compile and the CPU check that come first.
pub fn prefetch(image: Vec<u8>) {
    std::thread::spawn(move || drop(disassemble(&image)));
}

fn made_or_kept(image: &[u8]) -> Result<String, SassError> {
    let nvdisasm = discover::find()
        .nvdisasm
        .clone()
        .ok_or(SassError::NoNvdisasm)?;
    let shelf = &disk_cache::LISTINGS;
    let kept = shelf.path(&[&disk_cache::identity(&nvdisasm), image]);
    let read = kept.as_deref().and_then(|p| shelf.read(p));
    if let Some(text) = read.and_then(|b| String::from_utf8(b).ok()) {
        return Ok(text);
    }
    let text = run_nvdisasm(&nvdisasm, image)?;
    if let Some(p) = &kept {
        shelf.write(p, text.as_bytes());
    }
    Ok(text)
}

fn run_nvdisasm(nvdisasm: &std::path::Path, image: &[u8]) -> Result<String, SassError> {
    let dir = tempfile_dir()?;
    let path = dir.join("kernel.cubin");
    std::fs::write(&path, image).map_err(|e| io(&path, e))?;
    let out = Command::new(nvdisasm)
        // No dataflow analysis: it annotates branch-stack jumps, which sm_70 and later do not
        // have, and takes a quarter of nvdisasm's time.
        .args(["-c", "-g", "-ndf"])
        .arg(&path)
        .output()
        .map_err(|e| io(nvdisasm, e));
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(SassError::Failed(stderr.trim().to_string()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The traced shared accesses that the SASS of `v`, built as a run builds it, makes in
/// other instructions than its PTX, and what it made of each atomic (`sass_map::reshape`);
/// an error when there is no SASS to read (no nvdisasm), and the figures then follow the
/// PTX.
pub fn shapes(
    lesson: &Lesson,
    v: &Variant,
    arch: &str,
    sites: &[Site],
) -> Result<Vec<Reshape>, SassError> {
    // Only an access wider than a word can become narrower instructions, and only an
    // atomic can be aggregated: a kernel with neither needs no SASS read (nvdisasm takes a
    // good part of a second to start).
    if !sites.iter().any(Site::may_split) {
        return Ok(Vec::new());
    }
    let built =
        compile::compile_checked(lesson, v, arch).map_err(|e| SassError::Build(e.to_string()))?;
    let listings = sass::parse(&disassemble(&built.image)?);
    let listing = (listings.iter())
        .find(|l| l.kernel == built.lowered_name || l.kernel == v.kernel)
        .or(listings.first())
        .ok_or(SassError::NoKernel)?;
    let ptx = crate::trace::instrument::sass_accesses(sites);
    Ok(sass_map::reshape(&ptx, listing))
}

/// A fresh folder of our own under the temp dir (nvdisasm reads a file, not a pipe).
fn tempfile_dir() -> Result<std::path::PathBuf, SassError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("gpulab-sass-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    Ok(dir)
}

fn io(path: &std::path::Path, e: std::io::Error) -> SassError {
    SassError::Io {
        path: path.display().to_string(),
        why: e.to_string(),
    }
}
