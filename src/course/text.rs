//! Files of the course as text. A byte that is not UTF-8 is named where it is (a lesson from
//! another editor or system must say where to look), and a UTF-8 byte order mark, which some
//! editors write, is dropped so that columns count from the first character shown.

use thiserror::Error;

/// The first byte that is not UTF-8, at a 1-based line and column (in characters).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid UTF-8 (byte 0x{byte:02X}); course files must be UTF-8 text")]
pub struct NotUtf8 {
    pub line: usize,
    pub col: usize,
    pub byte: u8,
}

/// Why a file of the course could not be read as text.
#[derive(Debug, Error)]
pub enum FileError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    NotUtf8(#[from] NotUtf8),
    /// A FIFO, a device or a folder: reading one could wait for ever, or never end.
    #[error("not a plain file (a {0}); course files must be plain files")]
    NotAFile(&'static str),
    /// Larger than a file of its kind ever is: a sparse file of gigabytes, or a link to
    /// something that never ends, would take the memory and the time of everything else.
    #[error("{} long, past the {} a {kind} may be", size(*.bytes), size(*.limit))]
    TooLarge {
        kind: &'static str,
        bytes: u64,
        limit: u64,
    },
}

/// The most a file of each kind may hold: many times the largest of its kind in the course.
pub const COURSE_FILE_MAX: u64 = 4 << 20;
/// A progress file (a learner's, or a participant's read by `ex summary`).
pub const PROGRESS_FILE_MAX: u64 = 16 << 20;

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30)),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20)),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}

/// What a file that is not a plain one is, in a word: `FIFO`, `folder`, `socket`, `device`
/// (`file` for a plain one).
pub fn kind_of(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_file() {
        "file"
    } else if ft.is_fifo() {
        "FIFO"
    } else if ft.is_dir() {
        "folder"
    } else if ft.is_socket() {
        "socket"
    } else {
        "device"
    }
}

/// The bytes of the plain file at `path`, a `kind` of at most `limit` bytes: refused before
/// a byte is read where its size says so, and cut off there where it lies about its size
/// (a file of /proc says 0).
pub fn read_bounded(
    path: &std::path::Path,
    kind: &'static str,
    limit: u64,
) -> Result<Vec<u8>, FileError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = f.metadata()?;
    let ft = meta.file_type();
    if !ft.is_file() {
        return Err(FileError::NotAFile(kind_of(&ft)));
    }
    let too_large = |bytes| FileError::TooLarge { kind, bytes, limit };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The text of a file's bytes, without a byte order mark.
pub fn decode(mut bytes: Vec<u8>) -> Result<String, NotUtf8> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let good = e.utf8_error().valid_up_to();
        // Valid up to `good` by definition, so this never falls back.
        let before = std::str::from_utf8(&bytes[..good]).unwrap_or_default();
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        NotUtf8 {
            line: before.matches('\n').count() + 1,
            col: before[line_start..].chars().count() + 1,
            byte: bytes[good],
        }
    })
}

/// Read and decode a file of the course: only a plain file, found so before a byte is
/// read (opened without waiting: a FIFO would block the open until a writer came), and no
/// larger than `COURSE_FILE_MAX`.
pub fn read(path: &std::path::Path) -> Result<String, FileError> {
    let bytes = read_bounded(path, "course file", COURSE_FILE_MAX)?;
    Ok(decode(bytes)?)
}

/// `text` without a leading byte order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The bidirectional controls: embeddings, overrides, isolates and marks. A terminal that
/// honours them shows text in another order than it is (a right-to-left override makes
/// `// check passed` out of other words, as in the "Trojan Source" attacks).
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("k.cu");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string naming a path in our own temporary folder.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read(&fifo).unwrap_err();
        assert!(e.to_string().contains("not a plain file (a FIFO)"), "{e}");
        assert!(read(dir.path()).is_err());
    }

    #[test]
    fn names_the_first_bad_byte() {
        assert_eq!(decode(b"a: 1\n".to_vec()).unwrap(), "a: 1\n");
        assert_eq!(decode(b"\xEF\xBB\xBFa".to_vec()).unwrap(), "a");
        let e = decode(b"a: 1\nb: \xC3\xA9\xFFx\n".to_vec()).unwrap_err();
        assert_eq!((e.line, e.col, e.byte), (2, 5, 0xFF));
        assert!(e.to_string().contains("0xFF"), "{e}");
        let e = decode(b"\xEF\xBB\xBF\xC3(".to_vec()).unwrap_err();
        assert_eq!((e.line, e.col, e.byte), (1, 1, 0xC3));
    }
}
