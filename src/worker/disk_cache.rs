//! Work kept on disk, in the user's cache folder (`gpulab/<shelf>`), so that the next
//! process does not do it again: nvdisasm's listings (nvdisasm spends a fifth of a second
//! starting, whatever it reads), NVRTC's builds (a lesson opened again, every `ex check` of
//! a workshop that builds the same solution) and a GPU's copy bandwidth (`copy_peak`). Each file is named by the
//! digest of everything that made it, the tools' own files included, is written whole under
//! another name first, and the oldest go past a shelf's limit. A file that cannot be kept or
//! read back is made again: the cache only ever saves time.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// One kind of kept file: its folder under the cache folder, its extension, how many stay.
pub struct Shelf {
    pub folder: &'static str,
    pub ext: &'static str,
    pub keep: usize,
}

/// nvdisasm's listings, by the CUBIN's bytes and the nvdisasm that read it.
pub const LISTINGS: Shelf = Shelf {
    folder: "sass",
    ext: "sass",
    keep: 256,
};

/// NVRTC's builds, by the whole job and the NVRTC, headers and gpulab that made them.
pub const BUILDS: Shelf = Shelf {
    folder: "builds",
    ext: "build",
    keep: 512,
};

/// Each GPU's copy bandwidth, by its PCI address, name, driver and memory (`copy_peak`).
pub const PEAKS: Shelf = Shelf {
    folder: "peaks",
    ext: "peak",
    keep: 16,
};

impl Shelf {
    /// Where the file made from `parts` is kept; none where there is no cache folder.
    pub fn path(&self, parts: &[&[u8]]) -> Option<PathBuf> {
        let dir = dirs::cache_dir()?.join("gpulab").join(self.folder);
        Some(dir.join(self.name(parts)))
    }

    fn name(&self, parts: &[&[u8]]) -> String {
        let mut h = Sha256::new();
        for p in parts {
            // Each part's length first, so that no two splits of one text name alike.
            h.update((p.len() as u64).to_le_bytes());
            h.update(p);
        }
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        format!("{hex}.{}", self.ext)
    }

    pub fn read(&self, path: &Path) -> Option<Vec<u8>> {
        std::fs::read(path).ok()
    }

    /// Keep `bytes` at `path`, written whole under another name first so that a reader
    /// never sees half of it; the oldest files go past `keep`.
    pub fn write(&self, path: &Path, bytes: &[u8]) {
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, bytes).is_err() || std::fs::rename(&tmp, path).is_err() {
            let _ = std::fs::remove_file(&tmp);
            return;
        }
        self.prune(dir);
    }

    fn prune(&self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut kept: Vec<(std::time::SystemTime, PathBuf)> = entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == self.ext))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        if kept.len() <= self.keep {
            return;
        }
        kept.sort();
        for (_, p) in &kept[..kept.len() - self.keep] {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// A tool's file as a key part: its path, size and modification time, so that another
/// build of it (an upgrade, another toolkit) is never taken for this one.
pub fn identity(tool: &Path) -> Vec<u8> {
    let mut id = tool.as_os_str().as_encoded_bytes().to_vec();
    if let Ok(m) = std::fs::metadata(tool) {
        id.extend(m.len().to_le_bytes());
        let modified = m.modified().ok();
        let since = modified.and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        id.extend(since.map_or(0, |d| d.as_nanos()).to_le_bytes());
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_file_is_read_back_and_other_parts_or_another_tool_name_another() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("nvdisasm");
        std::fs::write(&tool, b"tool").unwrap();
        let name = |tool: &Path, image: &[u8]| LISTINGS.name(&[&identity(tool), image]);
        let a = name(&tool, b"cubin a");
        assert_ne!(a, name(&tool, b"cubin b"));
        assert_ne!(a, name(&dir.path().join("other"), b"cubin a"));
        // The same bytes split otherwise are other parts.
        assert_ne!(LISTINGS.name(&[b"ab", b"c"]), LISTINGS.name(&[b"a", b"bc"]));
        let at = dir.path().join("sass").join(&a);
        LISTINGS.write(&at, b"listing");
        assert_eq!(LISTINGS.read(&at).as_deref(), Some(&b"listing"[..]));
        // Nothing half-written is left beside it.
        let names: Vec<_> = std::fs::read_dir(at.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn past_the_limit_the_oldest_go() {
        let dir = tempfile::tempdir().unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        let keep = LISTINGS.keep;
        for k in 0..keep + 2 {
            let p = dir.path().join(format!("{k:04}.sass"));
            std::fs::write(&p, "x").unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(old + std::time::Duration::from_secs(k as u64))
                .unwrap();
        }
        LISTINGS.prune(dir.path());
        assert!(!dir.path().join("0000.sass").exists());
        assert!(!dir.path().join("0001.sass").exists());
        assert!(dir.path().join("0002.sass").exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), keep);
    }
}
