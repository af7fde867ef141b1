//! The memcheck rerun's plumbing on any machine: a stand-in for compute-sanitizer writes a
//! memcheck log where it is told and starts the (fake) worker; the session names the
//! source line from the log and the loss from the run.

use crate::support::common;

use common::{bin, fixture};
use gpulab::course::bundle::CourseRoot;
use gpulab::session::client;
use std::os::unix::fs::PermissionsExt;

const LOG: &str = "========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at copy(const float *, float *, int)+0x70 in kernels/corpus/corpus.cu:18
=========     by thread (0,0,0) in block (0,0,0)
========= ERROR SUMMARY: 1 error
";

#[test]
fn a_rerun_under_the_sanitizer_names_the_faulting_line_of_the_source() {
    let dir = std::env::temp_dir().join(format!("gpulab-memcheck-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("log.txt"), LOG).unwrap();
    // Arguments: --tool memcheck --log-file PATH --print-limit N EXE worker. Like the real
    // sanitizer it starts its log at once and writes what it found when the worker exits,
    // so a worker that is killed, or a second sanitizer on the same log, loses the report.
    // The worker it starts is the fake GPU, set for that worker alone: in this process's
    // environment it would reach the workers of every other test running beside this one.
    let script = format!(
        "#!/bin/sh\n[ \"$1 $2 $3\" = \"--tool memcheck --log-file\" ] || exit 9\n\
         echo '========= COMPUTE-SANITIZER' > \"$4\"\n\
         GPULAB_WORKER_FAKE='gpu,fault-on:out-of-bounds' '{}' worker\nstatus=$?\n\
         tail -n +2 '{}' >> \"$4\"\nexit $status\n",
        bin().display(),
        dir.join("log.txt").display()
    );
    let sanitizer = dir.join("compute-sanitizer");
    std::fs::write(&sanitizer, script).unwrap();
    std::fs::set_permissions(&sanitizer, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (lessons, _) = gpulab::course::load_course(&CourseRoot::Dir(fixture("faultpack/lessons")));
    let l = lessons.iter().find(|l| l.id == "corpus").unwrap();
    let report = client::memcheck(l, "out-of-bounds", &sanitizer, 0).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        report.errors,
        vec!["Invalid __global__ write of size 4 bytes"]
    );
    let line = &report.lines[0];
    assert_eq!(
        (line.file.as_str(), line.line),
        ("kernels/corpus/corpus.cu", 18)
    );
    assert_eq!(line.text.as_deref(), Some("out[i + (1 << 28)] = 1.0f;"));
    assert!(report.outcome.unwrap().contains("faulted"));
}
