//! The `--device` number reaches every worker the client starts, not only the first: after a
//! fault, a crash or a kill, the fresh worker opens the same GPU. Checked with a fake worker
//! (a shell script) that says which device it was told to open.

use gpulab::model::protocol::{Reply, Request};
use gpulab::session::client::{WorkerClient, WorkerFailure};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Answers every request with a stage naming its device, then `done`; the first `tools`
/// request (while the marker file is absent) faults and exits, as a poisoned worker does.
const FAKE: &str = r#"
while read -r line; do
  case "$line" in
    *'"tools"'*)
      if [ ! -e "$MARK" ]; then
        : > "$MARK"
        echo '{"type":"fault","variant":null,"message":"boom"}'
        exit 3
      fi
      ;;
  esac
  echo "{\"type\":\"stage\",\"variant\":\"\",\"stage\":\"device ${GPULAB_DEVICE:-unset}\"}"
  echo '{"type":"done"}'
done
"#;

fn fake(mark: &Path) -> WorkerClient {
    WorkerClient::with_command(PathBuf::from("sh"), vec!["-c".into(), FAKE.into()])
        .env("MARK", mark.to_str().unwrap())
}

/// The device the worker reports for `req`.
fn device_seen(c: &mut WorkerClient, req: &Request) -> Result<String, WorkerFailure> {
    let mut seen = String::new();
    c.request(req, Duration::from_secs(10), |r| {
        if let Reply::Stage { stage, .. } = r {
            seen = stage.clone();
        }
    })?;
    Ok(seen)
}

#[test]
fn the_device_of_hello_survives_a_fault_and_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = fake(&dir.path().join("faulted"));
    let hello = Request::Hello { device: 3 };
    assert_eq!(device_seen(&mut c, &hello).unwrap(), "device 3");
    assert_eq!(c.device(), Some(3));

    // A fault ends the worker; the next request starts a fresh one, on the same device.
    let err = device_seen(&mut c, &Request::Tools).unwrap_err();
    assert!(matches!(err, WorkerFailure::Fault { .. }), "{err:?}");
    assert_eq!(device_seen(&mut c, &Request::Tools).unwrap(), "device 3");

    // So does a forced stop.
    assert!(!c.kill().is_empty(), "a worker was running");
    assert_eq!(device_seen(&mut c, &Request::Tools).unwrap(), "device 3");
}

#[test]
fn a_device_named_up_front_reaches_the_first_worker() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("faulted"), "").unwrap();
    let mut c = fake(&dir.path().join("faulted")).on_device(5);
    assert_eq!(device_seen(&mut c, &Request::Tools).unwrap(), "device 5");
    c.kill();
    assert_eq!(device_seen(&mut c, &Request::Tools).unwrap(), "device 5");
}

#[test]
fn without_a_device_the_worker_is_told_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("faulted"), "").unwrap();
    let mut c = fake(&dir.path().join("faulted"));
    assert_eq!(
        device_seen(&mut c, &Request::Tools).unwrap(),
        "device unset"
    );
}
