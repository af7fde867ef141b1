//! `gpulab ex watch`: check again on every save, whichever editor saved. What counts as a
//! save is `session::watch`, the same the lab uses.

use super::say::say_err;
use crate::session::watch::FileWatch;
use anyhow::Result;
use std::path::Path;

/// Run `check` now and after every change of `file`, until interrupted.
pub fn watch(file: &Path, mut check: impl FnMut() -> Result<i32>) -> Result<i32> {
    let mut w = FileWatch::new(file, None);
    if !w.native {
        say_err!(
            "· no file events here: polling {} every second",
            file.display()
        );
    }
    loop {
        if w.changed().is_some() {
            if let Err(e) = check() {
                say_err!("gpulab: {e:#}");
            }
            say_err!("· watching {} (Ctrl-C ends)", file.display());
        }
        w.wait();
    }
}
