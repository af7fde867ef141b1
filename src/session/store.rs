//! The learner's progress files, shared by every gpulab process of the learner: the lab and
//! `gpulab ex …` in another shell, two labs, two `ex check` loops. Each process keeps its own
//! copy, so a write must merge: take the side lock (`<file>.lock`, flock), read the file as
//! it is now, apply what this process changed since it last read or wrote it, and replace
//! the file atomically (a temporary file beside it, then a rename).
//!
//! A file that cannot be read (permissions) is an error that names it, and is never
//! replaced. A progress file that is a link is written through to its target only when the
//! target lies inside the folder the file is in (the data directory); a link that leads
//! elsewhere is refused, so a planted link cannot make gpulab write outside its folder.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What a progress file holds: a value that can take another process's changes in.
pub trait Mergeable: Serialize + DeserializeOwned + Default + Clone {
    /// Apply to `self` (the file as it is now) what changed from `base` (this process's
    /// copy as it last read or wrote it) to `mine` (its copy now). Counters add the
    /// difference (saturating), marks that only ever get set stay set, "furthest" and
    /// "best" figures keep the further or better one.
    fn take_in(&mut self, base: &Self, mine: &Self);

    /// This copy's base (`#[serde(skip)]` in the value).
    fn base(&self) -> &Base;
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "cannot read {path}: {source} (it is left as it is; nothing is saved until it can be read)"
    )]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is a link to {target}, outside its folder {dir}: gpulab writes progress only \
         inside its data folder (replace the link with the file itself)"
    )]
    LinkOutside {
        path: PathBuf,
        target: PathBuf,
        dir: PathBuf,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What a copy of a file's value was when last read from or written to the file: the base
/// its next write is merged against. Shared by the copy's clones (the lab sends clones of
/// its copy to the thread that writes them), and by nothing else: two copies read
/// separately, as two processes or two threads have, merge as two writers.
#[derive(Clone, Default)]
pub struct Base(Arc<Mutex<Option<serde_json::Value>>>);

impl Base {
    fn set<T: Serialize>(&self, value: &T) {
        let v = serde_json::to_value(value).ok();
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = v;
    }

    fn get<T: Mergeable>(&self) -> T {
        let v = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        v.and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default()
    }
}

/// Not part of the value: two values are equal whatever their bases.
impl PartialEq for Base {
    fn eq(&self, _: &Base) -> bool {
        true
    }
}

impl std::fmt::Debug for Base {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Base")
    }
}

/// How a read of the file went.
pub enum Read<T> {
    /// No file yet.
    Missing,
    Parsed(T),
    /// There, but not JSON of this shape: its bytes, to keep aside.
    Damaged(Vec<u8>),
}

/// Read `path` (through a link, wherever it leads: reading is harmless); a value read is
/// its own base.
pub fn load<T: Mergeable>(path: &Path) -> Result<Read<T>, StoreError> {
    let read = read::<T>(path)?;
    if let Read::Parsed(v) = &read {
        v.base().set(v);
    }
    Ok(read)
}

fn read<T: Mergeable>(path: &Path) -> Result<Read<T>, StoreError> {
    use crate::course::text::{FileError, PROGRESS_FILE_MAX, read_bounded};
    match read_bounded(path, "progress file", PROGRESS_FILE_MAX) {
        Ok(bytes) => Ok(match serde_json::from_slice(&bytes) {
            Ok(v) => Read::Parsed(v),
            Err(_) => Read::Damaged(bytes),
        }),
        Err(FileError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(Read::Missing),
        Err(FileError::Io(source)) => Err(StoreError::Unreadable {
            path: path.to_path_buf(),
            source,
        }),
        // Neither text that parses nor damage to keep aside: refused, with what it is.
        Err(e) => Err(StoreError::Unreadable {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
        }),
    }
}

/// Write what changed in `mine` since it was last read or written, merged with what other
/// writers wrote meanwhile; gives the file's new value. `mine` is then its own base.
pub fn save<T: Mergeable>(path: &Path, mine: &T) -> Result<T, StoreError> {
    let base = mine.base().get::<T>();
    let now = update(path, |now: &mut T| now.take_in(&base, mine))?;
    mine.base().set(mine);
    Ok(now)
}

/// Under the lock: read the file as it is now, apply `change`, write it back atomically.
/// A damaged file is kept aside (`<file>.bak-N`) before it is replaced.
pub fn update<T: Mergeable>(path: &Path, change: impl FnOnce(&mut T)) -> Result<T, StoreError> {
    let target = writable_target(path)?;
    let _lock = lock(&target)?;
    let mut now = match read::<T>(&target)? {
        Read::Missing => T::default(),
        Read::Parsed(v) => v,
        Read::Damaged(bytes) => {
            super::progress::back_up(&target, &bytes).map_err(io(&target))?;
            T::default()
        }
    };
    change(&mut now);
    let text = serde_json::to_string_pretty(&now).map_err(|e| StoreError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    replace(&target, text.as_bytes())?;
    now.base().set(&now);
    Ok(now)
}

/// The file to write for `path`: itself, or the target of the link it is when that lies
/// inside `path`'s own folder (the data directory).
fn writable_target(path: &Path) -> Result<PathBuf, StoreError> {
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {}
        Ok(_) => return Ok(path.to_path_buf()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(io(path)(e)),
    }
    let home = std::fs::canonicalize(&dir).map_err(io(&dir))?;
    let link = std::fs::read_link(path).map_err(io(path))?;
    let target = dir.join(&link);
    // The target's folder, resolved (the target itself may not exist yet).
    let resolved = match (target.parent(), target.file_name()) {
        (Some(p), Some(name)) => std::fs::canonicalize(p).ok().map(|p| p.join(name)),
        _ => None,
    };
    match resolved {
        Some(t) if t.starts_with(&home) && !is_link(&t) => Ok(t),
        _ => Err(StoreError::LinkOutside {
            path: path.to_path_buf(),
            target,
            dir: home,
        }),
    }
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// The side lock `<file>.lock`, held until dropped. Never followed if it is a link.
fn lock(file: &Path) -> Result<File, StoreError> {
    let mut name = file.as_os_str().to_owned();
    name.push(".lock");
    let path = PathBuf::from(name);
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&path)
        .map_err(io(&path))?;
    f.lock().map_err(io(&path))?;
    Ok(f)
}

/// A temporary file beside `file`, then a rename over it: a crash leaves the old file or
/// the new one, never half of one.
fn replace(file: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let mut name = file.as_os_str().to_owned();
    name.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(name);
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)
        .map_err(io(&tmp))?;
    f.write_all(bytes).map_err(io(&tmp))?;
    f.sync_all().map_err(io(&tmp))?;
    drop(f);
    std::fs::rename(&tmp, file).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(file)(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    struct Count {
        n: u32,
        #[serde(skip)]
        base: Base,
    }

    impl Mergeable for Count {
        fn take_in(&mut self, base: &Self, mine: &Self) {
            self.n = self.n.saturating_add(mine.n.saturating_sub(base.n));
        }
        fn base(&self) -> &Base {
            &self.base
        }
    }

    fn count(n: u32) -> Count {
        Count {
            n,
            ..Default::default()
        }
    }

    #[test]
    fn two_copies_written_one_after_the_other_keep_both_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(&path, r#"{"n": 5}"#).unwrap();
        let Read::Parsed(mut mine) = load::<Count>(&path).unwrap() else {
            panic!()
        };
        // Another writer adds 2 meanwhile.
        update::<Count>(&path, |c| c.n += 2).unwrap();
        mine.n += 1;
        assert_eq!(save(&path, &mine).unwrap().n, 8);
        // The next write adds only what changed since this one; a clone shares the base.
        mine.n += 1;
        assert_eq!(save(&path, &mine.clone()).unwrap().n, 9);
        mine.n += 1;
        assert_eq!(save(&path, &mine).unwrap().n, 10);
    }

    #[test]
    fn an_unreadable_file_is_an_error_naming_it_and_is_left_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(&path, r#"{"n": 5}"#).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
        if std::fs::read(&path).is_ok() {
            eprintln!("skipped: running as root, every file is readable");
            return;
        }
        let err = load::<Count>(&path).err().expect("an error");
        assert!(err.to_string().contains("c.json"), "{err}");
        let err = save(&path, &count(1)).unwrap_err();
        assert!(matches!(err, StoreError::Unreadable { .. }), "{err}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"n": 5}"#);
    }

    #[test]
    fn a_link_inside_the_folder_is_written_through_and_one_outside_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        let real = dir.path().join("real.json");
        std::os::unix::fs::symlink("real.json", &path).unwrap();
        update::<Count>(&path, |c| c.n = 3).unwrap();
        assert!(is_link(&path), "the link is kept");
        assert!(std::fs::read_to_string(&real).unwrap().contains('3'));

        let victim = outside.path().join("victim");
        std::fs::write(&victim, "mine").unwrap();
        let path = dir.path().join("d.json");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let err = update::<Count>(&path, |c| c.n = 3).unwrap_err();
        let words = err.to_string();
        assert!(
            words.contains("d.json") && words.contains("outside"),
            "{words}"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
    }
}
