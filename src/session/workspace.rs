//! The learner's exercise files: one `.cu` per exercise in a workspace folder (the data
//! directory's `exercises/`, or one a workshop names). A learner's file is never
//! overwritten: `reset` keeps it as a timestamped backup first, and a starter that changed
//! upstream leaves it as it is.

use crate::model::exercise::Exercise;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The environment variable a workshop sets to put every learner's files in one folder.
pub const WORKSPACE_ENV: &str = "GPULAB_WORKSPACE";

#[derive(Debug, Error)]
pub enum WorkspaceError {
    #[error("no data directory on this system: give --workspace DIR or set {WORKSPACE_ENV}")]
    NoDataDir,
    #[error("exercise `{0}` is not started; run `gpulab ex start {0}`")]
    NotStarted(String),
    /// The cause is said here once (not also as the error's source, which a chain of
    /// causes would print a second time).
    #[error("{path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error(
        "the workspace {0} is a file, not a folder: give --workspace (or {WORKSPACE_ENV}) a folder, or move the file away"
    )]
    NotAFolder(PathBuf),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> WorkspaceError + '_ {
    move |cause| WorkspaceError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// The lab's data directory: `$GPULAB_DATA_DIR`, else the platform's (on Linux
/// `$XDG_DATA_HOME/gpulab` or `~/.local/share/gpulab`).
pub fn data_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("GPULAB_DATA_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    dirs::data_dir().map(|d| d.join("gpulab"))
}

/// What `start` did.
#[derive(Debug, Clone, PartialEq)]
pub enum Started {
    /// The starter was copied.
    Fresh(PathBuf),
    /// The learner's file was there already and is left as it is; `upstream_changed`: the
    /// starter is no longer the one it was copied from.
    Existing {
        path: PathBuf,
        upstream_changed: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    pub dir: PathBuf,
}

impl Workspace {
    /// `--workspace DIR`, else `$GPULAB_WORKSPACE`, else `<data dir>/exercises`.
    pub fn locate(explicit: Option<&Path>) -> Result<Workspace, WorkspaceError> {
        let env = std::env::var_os(WORKSPACE_ENV).filter(|d| !d.is_empty());
        let dir = match (explicit, env) {
            (Some(d), _) => d.to_path_buf(),
            (None, Some(d)) => PathBuf::from(d),
            (None, None) => data_dir()
                .ok_or(WorkspaceError::NoDataDir)?
                .join("exercises"),
        };
        Ok(Workspace { dir })
    }

    /// The learner's file for `ex`.
    pub fn file(&self, ex: &Exercise) -> PathBuf {
        self.dir.join(format!("{}.cu", ex.id))
    }

    /// The starter as it was when copied, to notice one that changed upstream.
    fn original(&self, ex: &Exercise) -> PathBuf {
        self.dir.join(".starters").join(format!("{}.cu", ex.id))
    }

    /// Copy the starter, unless the learner's file is there already.
    pub fn start(&self, ex: &Exercise) -> Result<Started, WorkspaceError> {
        let path = self.file(ex);
        if path.exists() {
            let upstream_changed = self.upstream_changed(ex);
            return Ok(Started::Existing {
                path,
                upstream_changed,
            });
        }
        self.copy_starter(ex)?;
        Ok(Started::Fresh(path))
    }

    /// Whether the starter differs from the one the learner's file was copied from.
    pub fn upstream_changed(&self, ex: &Exercise) -> bool {
        std::fs::read_to_string(self.original(ex)).is_ok_and(|o| o != ex.starter)
    }

    fn copy_starter(&self, ex: &Exercise) -> Result<(), WorkspaceError> {
        let path = self.file(ex);
        let original = self.original(ex);
        if self.dir.exists() && !self.dir.is_dir() {
            return Err(WorkspaceError::NotAFolder(self.dir.clone()));
        }
        for dir in [&self.dir, &self.dir.join(".starters")] {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        crate::session::recording::write_atomic(&original, ex.starter.as_bytes())
            .map_err(io(&original))?;
        // `create_new`: a file that appeared meanwhile is the learner's, never replaced.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io(&path))?;
        std::io::Write::write_all(&mut f, ex.starter.as_bytes()).map_err(io(&path))
    }

    /// The learner's file's text.
    pub fn read(&self, ex: &Exercise) -> Result<String, WorkspaceError> {
        let path = self.file(ex);
        if !path.exists() {
            return Err(WorkspaceError::NotStarted(ex.id.clone()));
        }
        std::fs::read_to_string(&path).map_err(io(&path))
    }

    /// Keep the learner's file as `<id>.cu.<stamp>.bak` (never replacing a backup), then
    /// copy the starter afresh. Returns the backup's path, if there was a file to keep.
    pub fn reset(&self, ex: &Exercise, stamp: &str) -> Result<Option<PathBuf>, WorkspaceError> {
        let path = self.file(ex);
        let backup = if path.exists() {
            let bak = self.free_backup(ex, stamp);
            std::fs::rename(&path, &bak).map_err(io(&path))?;
            Some(bak)
        } else {
            None
        };
        self.copy_starter(ex)?;
        Ok(backup)
    }

    fn free_backup(&self, ex: &Exercise, stamp: &str) -> PathBuf {
        let mut n = 0;
        loop {
            let suffix = if n == 0 {
                String::new()
            } else {
                format!("-{n}")
            };
            let p = self.dir.join(format!("{}.cu.{stamp}{suffix}.bak", ex.id));
            if !p.exists() {
                return p;
            }
            n += 1;
        }
    }
}

/// Now, as a backup's stamp: `20261122T014500Z` (no characters a file system refuses).
pub fn stamp_now() -> String {
    let t = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    t.chars().filter(|c| *c != '-' && *c != ':').collect()
}
