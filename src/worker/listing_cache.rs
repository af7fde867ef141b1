//! nvdisasm's listings kept on disk (the user's cache folder, `gpulab/sass`), by what made
//! them: the CUBIN's bytes and the nvdisasm that read it. nvdisasm spends a fifth of a
//! second starting, whatever it reads; a lesson traced again, in this process or the next,
//! reads its listing back instead. A listing that cannot be kept or read back is made again:
//! the cache only ever saves time.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Listings kept; the oldest go first past this.
const KEEP: usize = 256;

fn folder() -> Option<PathBuf> {
    Some(dirs::cache_dir()?.join("gpulab").join("sass"))
}

/// Where the listing of `image` by `nvdisasm` is kept; none where there is no cache folder.
pub fn path(nvdisasm: &Path, image: &[u8]) -> Option<PathBuf> {
    Some(folder()?.join(key(nvdisasm, image)))
}

/// The name of a listing: its inputs' digest, the tool's path, size and time included, so
/// that another nvdisasm's listing is never taken for this one's.
fn key(nvdisasm: &Path, image: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(nvdisasm.as_os_str().as_encoded_bytes());
    if let Ok(m) = std::fs::metadata(nvdisasm) {
        h.update(m.len().to_le_bytes());
        let modified = m.modified().ok();
        let since = modified.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        h.update(since.map_or(0, |d| d.as_nanos()).to_le_bytes());
    }
    h.update(image);
    let digest = h.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}.sass")
}

pub fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Keep `text` at `path`, written whole under another name first so that a reader never
/// sees half of it; the oldest listings go past `KEEP`.
pub fn write(path: &Path, text: &str) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return;
    }
    prune(dir);
}

fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut kept: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "sass"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if kept.len() <= KEEP {
        return;
    }
    kept.sort();
    for (_, p) in &kept[..kept.len() - KEEP] {
        let _ = std::fs::remove_file(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_listing_is_read_back_and_another_image_or_tool_has_another_name() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("nvdisasm");
        std::fs::write(&tool, b"tool").unwrap();
        let a = key(&tool, b"cubin a");
        assert_ne!(a, key(&tool, b"cubin b"));
        assert_ne!(a, key(&dir.path().join("other"), b"cubin a"));
        let at = dir.path().join("sass").join(&a);
        write(&at, "listing");
        assert_eq!(read(&at).as_deref(), Some("listing"));
        // Nothing half-written is left beside it.
        let names: Vec<_> = std::fs::read_dir(at.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn past_the_limit_the_oldest_go() {
        let dir = tempfile::tempdir().unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        for k in 0..KEEP + 2 {
            let p = dir.path().join(format!("{k:04}.sass"));
            std::fs::write(&p, "x").unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(old + std::time::Duration::from_secs(k as u64))
                .unwrap();
        }
        prune(dir.path());
        assert!(!dir.path().join("0000.sass").exists());
        assert!(!dir.path().join("0001.sass").exists());
        assert!(dir.path().join("0002.sass").exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), KEEP);
    }
}
