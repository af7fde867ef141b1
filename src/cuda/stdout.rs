//! The worker's stdout, kept for the protocol alone. CUDA writes a kernel's `printf` to file
//! descriptor 1, as do libraries that chatter; after `take` those go to stderr, so they can
//! never corrupt a reply.

use std::fs::File;

/// A handle on the original stdout; file descriptor 1 then points at stderr. Call once.
pub fn take() -> File {
    use std::os::fd::FromRawFd;
    // SAFETY: dup returns a fresh descriptor that nothing else owns, so the File may own
    // and close it; dup2 only re-points descriptor 1, which no Rust object owns.
    unsafe {
        let fd = libc::dup(1);
        libc::dup2(2, 1);
        File::from_raw_fd(fd)
    }
}
