//! The racecheck rerun's plumbing on any machine: a stand-in for compute-sanitizer checks
//! that it was asked for racecheck, writes a racecheck log where it is told and starts the
//! worker it was given (the fake one); the session reads the hazards and the lines.

use crate::support::common;

use common::bin;
use gpulab::course::bundle::CourseRoot;
use gpulab::session::client;
use std::os::unix::fs::PermissionsExt;

const LOG: &str = "========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at stencil+0x1a0 in kernels/stencil/stencil.cu:36:stencil
=========     and Read access at stencil+0x2b0 in kernels/stencil/stencil.cu:46:stencil [448 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
";

#[test]
fn a_rerun_under_racecheck_starts_the_given_worker_and_reads_its_log() {
    let dir = std::env::temp_dir().join(format!("gpulab-racecheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("log.txt"), LOG).unwrap();
    // Arguments: --tool racecheck --log-file PATH --print-limit N EXE worker; the worker
    // it starts is the EXE it was given, not a name it knows, as the fake GPU: set for that
    // worker alone, as in this process's environment it would reach every other test's.
    let script = format!(
        "#!/bin/sh\n[ \"$1 $2 $3 $8\" = \"--tool racecheck --log-file worker\" ] || exit 9\n\
         echo '========= COMPUTE-SANITIZER' > \"$4\"\n\
         GPULAB_WORKER_FAKE=gpu \"$7\" worker\nstatus=$?\n\
         tail -n +2 '{}' >> \"$4\"\nexit $status\n",
        dir.join("log.txt").display()
    );
    let sanitizer = dir.join("compute-sanitizer");
    std::fs::write(&sanitizer, script).unwrap();
    std::fs::set_permissions(&sanitizer, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let l = lessons.iter().find(|l| l.id == "stencil").unwrap();
    let report = client::racecheck(l, "no-sync", &sanitizer, &bin(), 0).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.hazards, Some(1), "{}", report.log);
    assert_eq!(report.races.len(), 1);
    assert_eq!(report.lines, [36, 46]);
    assert_eq!(report.outcome, None);
}
