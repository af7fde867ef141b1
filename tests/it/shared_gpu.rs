//! One GPU shared by a workshop, seen from the command line: a run that waits for its turn
//! says where it is in the queue and what it waits for, as the queue moves, and a holder
//! that dies hands its turn on at once. The worker is the fake GPU (`GPULAB_WORKER_FAKE`),
//! which takes its turns in the folder a test names exactly as the real worker does; the
//! other holders are turns taken in this test process, through the same code.

use crate::support::common;

use common::{bin, fixture};
use gpulab::model::protocol::JobKind;
use gpulab::worker::fake::FAKE_BUS;
use gpulab::worker::gpu_turn::GpuTurn;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// `gpulab run copy-basics` on the fake GPU, taking turns in `turns`, with `mode` added
/// to the fake's words; its stderr comes line by line through the receiver.
fn fake_run(turns: &Path, data: &Path, mode: &str) -> (Child, Receiver<String>) {
    let lessons = fixture("lessons");
    fake_gpulab(
        turns,
        data,
        mode,
        &["--lessons", lessons.to_str().unwrap(), "run", "copy-basics"],
    )
}

/// `gpulab ARGS` on the fake GPU, as `fake_run`.
fn fake_gpulab(turns: &Path, data: &Path, mode: &str, args: &[&str]) -> (Child, Receiver<String>) {
    fake_gpulab_logged(turns, data, mode, args, None)
}

/// `fake_gpulab`, every turn it takes written to `log` (`GPULAB_TURN_LOG`) where one is given.
fn fake_gpulab_logged(
    turns: &Path,
    data: &Path,
    mode: &str,
    args: &[&str],
    log: Option<&Path>,
) -> (Child, Receiver<String>) {
    let mut command = Command::new(bin());
    if let Some(log) = log {
        command.env("GPULAB_TURN_LOG", log);
    }
    let mut child = command
        .args(args)
        .env("GPULAB_LOCK_DIR", turns)
        .env("GPULAB_DATA_DIR", data)
        .env("GPULAB_WORKER_FAKE", format!("gpu{mode}"))
        // No stall timeout of its own: only what the test does ends a wait.
        .env("GPULAB_TIMEOUT_S", "600")
        .env_remove("GPULAB_DEVICE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (child, rx)
}

/// Lines from `rx` until one contains `want` (within 30 s), every line seen on the way
/// kept in `seen`.
fn until(rx: &Receiver<String>, want: &str, seen: &mut Vec<String>) -> Instant {
    let t0 = Instant::now();
    loop {
        let left = Duration::from_secs(30).saturating_sub(t0.elapsed());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let found = line.contains(want);
                seen.push(line);
                if found {
                    return Instant::now();
                }
            }
            Err(e) => panic!("never said `{want}` ({e}); said:\n{}", seen.join("\n")),
        }
    }
}

/// The tickets in the queue folder `queue`: every user's folder in it walked (each user's
/// tickets lie in a folder named for their uid).
fn tickets(queue: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for folder in std::fs::read_dir(queue).unwrap().flatten() {
        let folder = folder.path();
        if folder.is_dir() {
            out.extend(
                std::fs::read_dir(&folder)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path()),
            );
        }
    }
    out
}

fn finished(mut child: Child) -> i32 {
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if t0.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the run did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_waiting_run_prints_its_place_and_what_it_waits_for_as_the_queue_moves() {
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    // A recording has the GPU; an exercise check waits behind it.
    let recording = GpuTurn::take(&turns, FAKE_BUS, JobKind::Recording, |_| {}).unwrap();
    let (release_check, released) = channel::<()>();
    let (check_has_it, has_it) = channel::<()>();
    let t = turns.clone();
    let check = std::thread::spawn(move || {
        let turn = GpuTurn::take(&t, FAKE_BUS, JobKind::ExerciseCheck, |_| {}).unwrap();
        check_has_it.send(()).unwrap();
        released.recv().unwrap();
        drop(turn);
    });
    // Its ticket is in before the run's: wait until the queue holds two.
    let queue = turns.join("fake-00-00.0.queue");
    let t0 = Instant::now();
    while tickets(&queue).len() < 2 {
        assert!(t0.elapsed() < Duration::from_secs(5));
        std::thread::sleep(Duration::from_millis(10));
    }
    let (run, rx) = fake_run(&turns, &dir.path().join("data"), "");
    let mut seen = Vec::new();
    until(
        &rx,
        "stride-1 waiting for the GPU: 2 ahead (a recording, an exercise check)",
        &mut seen,
    );
    drop(recording);
    until(
        &rx,
        "stride-1 waiting for the GPU: 1 ahead (an exercise check)",
        &mut seen,
    );
    has_it.recv_timeout(Duration::from_secs(5)).unwrap();
    release_check.send(()).unwrap();
    check.join().unwrap();
    until(&rx, "stride-1 the GPU is free: waited", &mut seen);
    assert_eq!(finished(run), 0, "{}", seen.join("\n"));
    let waits = seen.iter().filter(|l| l.contains("2 ahead")).count();
    assert_eq!(
        waits,
        1,
        "said once, not at every heartbeat:\n{}",
        seen.join("\n")
    );
    // Every variant had its turn: none is left waiting, and nothing was left behind.
    assert_eq!(tickets(&queue), Vec::<PathBuf>::new());
}

#[test]
fn a_turn_held_by_a_run_that_was_killed_is_taken_over_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    let data = dir.path().join("data");
    // The first run's first variant never ends: it holds the GPU until it is killed.
    let (mut holder, held) = fake_run(&turns, &data, ",hang-on:stride-1");
    let mut seen = Vec::new();
    until(&held, "stride-1 checking the output", &mut seen);
    let (waiter, rx) = fake_run(&turns, &data, "");
    until(
        &rx,
        "stride-1 waiting for the GPU: 1 ahead (a lesson run)",
        &mut seen,
    );
    // Killed: its worker dies with it (PR_SET_PDEATHSIG), and the lock with the worker.
    holder.kill().unwrap();
    let killed = Instant::now();
    holder.wait().unwrap();
    let free = until(&rx, "stride-1 the GPU is free", &mut seen);
    let took = free.duration_since(killed);
    assert!(took < Duration::from_secs(3), "taken over after {took:?}");
    assert_eq!(finished(waiter), 0, "{}", seen.join("\n"));
}

#[test]
fn two_runs_of_one_user_take_turns_in_order_through_their_folder() {
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    let data = dir.path().join("data");
    let log = dir.path().join("turns.log");
    let holder = GpuTurn::take(&turns, FAKE_BUS, JobKind::Recording, |_| {}).unwrap();
    let lessons = fixture("lessons");
    let args = ["--lessons", lessons.to_str().unwrap(), "run", "copy-basics"];
    let logged = || fake_gpulab_logged(&turns, &data, "", &args, Some(&log));
    // Two processes of this same user, the first in the queue before the second.
    let (first, rx1) = logged();
    let mut seen = Vec::new();
    until(
        &rx1,
        "stride-1 waiting for the GPU: 1 ahead (a recording)",
        &mut seen,
    );
    let (second, rx2) = logged();
    until(
        &rx2,
        "stride-1 waiting for the GPU: 2 ahead (a recording, a lesson run)",
        &mut seen,
    );
    // Both tickets lie in this user's own folder, and nowhere else.
    let queue = turns.join("fake-00-00.0.queue");
    let folders: Vec<String> = std::fs::read_dir(&queue)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(dir.path()).unwrap());
    assert_eq!(folders, [uid.to_string()]);
    drop(holder);
    assert_eq!(finished(first), 0, "{}", seen.join("\n"));
    assert_eq!(finished(second), 0, "{}", seen.join("\n"));
    // Each variant's turn went to whoever asked first: the first run's first variant, then
    // the second's, which was waiting before the first run asked for its next. Later turns
    // follow the order the runs ask in, which depends on how long each takes between its
    // turns (a busy machine reorders them): each run has its three, neither all of them
    // before the other's first.
    let text = std::fs::read_to_string(&log).unwrap();
    let mut turns_taken: Vec<(f64, u32)> = text
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].parse().unwrap(), w[2].parse().unwrap())
        })
        .collect();
    turns_taken.sort_by(|a, b| a.0.total_cmp(&b.0));
    let pids: Vec<u32> = turns_taken.iter().map(|t| t.1).collect();
    assert_eq!(pids.len(), 6, "{text}");
    assert_ne!(
        pids[0], pids[1],
        "the waiting run's turn came second: {text}"
    );
    for p in &pids[..2] {
        assert_eq!(pids.iter().filter(|q| *q == p).count(), 3, "{text}");
    }
    assert_eq!(tickets(&queue), Vec::<PathBuf>::new(), "none left behind");
}

#[test]
fn an_exercise_check_waiting_for_the_gpu_prints_its_place_and_names_itself_to_others() {
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    let data = dir.path().join("data");
    let ws = dir.path().join("ws");
    let lessons = fixture("expack").join("lessons");
    let ex = |more: &[&str]| {
        let mut args = vec!["--lessons", lessons.to_str().unwrap(), "ex", "--workspace"];
        args.push(ws.to_str().unwrap());
        args.extend_from_slice(more);
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let start = Command::new(bin())
        .args(ex(&["start", "fix-copy"]))
        .env("GPULAB_DATA_DIR", &data)
        .output()
        .unwrap();
    assert!(start.status.success(), "{start:?}");
    let run = GpuTurn::take(&turns, FAKE_BUS, JobKind::Run, |_| {}).unwrap();
    let args = ex(&["check", "fix-copy", "--json"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (check, rx) = fake_gpulab(&turns, &data, "", &args);
    let mut seen = Vec::new();
    until(
        &rx,
        "yours waiting for the GPU: 1 ahead (a lesson run)",
        &mut seen,
    );
    // Whoever comes next is told it waits behind an exercise check.
    let queue = turns.join("fake-00-00.0.queue");
    let tickets: Vec<String> = tickets(&queue)
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(
        tickets.iter().any(|t| t.contains("job=exercise_check")),
        "{tickets:?}"
    );
    drop(run);
    until(&rx, "yours the GPU is free: waited", &mut seen);
    // The check's other runs (the output at another size) take turns too, quietly here.
    let code = finished(check);
    assert!(code == 1 || code == 0, "{code}: {}", seen.join("\n"));
}

#[test]
fn noise_said_after_the_figures_marks_that_variant_in_the_json_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let lessons = fixture("lessons");
    // The fake says at the run's end, after every variant's figures, that another process
    // computed while stride-32 was timed: as the real worker does once NVML's samples for
    // the timed runs are in.
    let run = |json: bool| {
        let mut args = vec!["--lessons", lessons.to_str().unwrap(), "run", "copy-basics"];
        if json {
            args.push("--json");
        }
        let out = Command::new(bin())
            .args(&args)
            .env("GPULAB_DATA_DIR", dir.path().join("data"))
            .env("GPULAB_WORKER_FAKE", "gpu,noisy:stride-32")
            .env_remove("GPULAB_LOCK_DIR")
            .env_remove("GPULAB_DEVICE")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let doc: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let variants = doc["variants"].as_array().expect("variants");
    let noise = |name: &str| {
        let v = variants.iter().find(|v| v["name"] == name).expect(name);
        assert_eq!(v["correct"], true, "{name}: its figures stand: {v}");
        assert!(v["time_ms"]["median"].is_number(), "{name}: {v}");
        v.get("noise").and_then(|n| n.as_str()).map(str::to_string)
    };
    assert_eq!(
        noise("stride-32").as_deref(),
        Some("timings noisy: another process (pid 4242) kept the SMs 30% busy during 1 of 1 runs")
    );
    assert_eq!(noise("stride-1"), None, "only the variant named");
    let report = run(false);
    let lines: Vec<&str> = report
        .lines()
        .filter(|l| l.contains("timings noisy"))
        .collect();
    assert_eq!(lines.len(), 1, "{report}");
    assert!(lines[0].contains("stride-32"), "{report}");
}
