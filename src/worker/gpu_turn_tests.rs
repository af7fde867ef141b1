use super::*;
use crate::model::protocol::JobKind::{ExerciseCheck, Recording, Run};
use std::sync::{Arc, Mutex};

const BUS: &str = "0000:17:00.0";

/// A job ahead, as the waiter is told of it: this test process's own tickets.
fn q(job: JobKind) -> QueuedJob {
    QueuedJob {
        pid: std::process::id(),
        job,
    }
}

fn no_wait(_: &[QueuedJob]) {
    panic!("no wait expected")
}

/// Our user's own folder in the queue folder `queue`, where our tickets go.
fn own(queue: &Path) -> PathBuf {
    // SAFETY: geteuid has no preconditions.
    queue.join(unsafe { libc::geteuid() }.to_string())
}

/// Every path under `dir`, relative to it, links not followed (the turn queue's tests
/// read folders with it too).
pub(in crate::worker) fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let rel = p.strip_prefix(dir).unwrap().display().to_string();
        if fs::symlink_metadata(&p).unwrap().is_dir() {
            out.extend(tree(&p).into_iter().map(|s| format!("{rel}/{s}")));
        }
        out.push(rel);
    }
    out.sort();
    out
}

/// Wait (at most 5 s) until the queue folder holds `n` tickets.
fn until_tickets(dir: &Path, n: usize) {
    let queue = dir.join("0000-17-00.0.queue");
    let t0 = Instant::now();
    while turn_queue::read_queue(&queue, &mut HashMap::new()).len() < n {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "{n} tickets never came"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A waiter on its own thread: what it was told, the order it got its turn in (pushed to
/// `order` as `name`), held for `hold`.
fn waiter(
    dir: &Path,
    job: JobKind,
    name: &'static str,
    order: &Arc<Mutex<Vec<&'static str>>>,
    hold: Duration,
) -> std::thread::JoinHandle<Vec<Vec<QueuedJob>>> {
    held_waiter(dir, (job, Hold::Alone), name, order, hold)
}

/// `waiter` for a turn held as `how` says.
fn held_waiter(
    dir: &Path,
    how: (JobKind, Hold),
    name: &'static str,
    order: &Arc<Mutex<Vec<&'static str>>>,
    hold: Duration,
) -> std::thread::JoinHandle<Vec<Vec<QueuedJob>>> {
    let (d, order) = (dir.to_path_buf(), Arc::clone(order));
    std::thread::spawn(move || {
        let mut told = Vec::new();
        let t = GpuTurn::take_held(&d, BUS, how, |ahead| told.push(ahead.to_vec())).unwrap();
        order.lock().unwrap().push(name);
        std::thread::sleep(hold);
        drop(t);
        told
    })
}

#[test]
fn a_free_gpu_is_taken_at_once_and_a_second_taker_waits_until_the_first_lets_go() {
    let dir = tempfile::tempdir().unwrap();
    let first = GpuTurn::take(dir.path(), BUS, Recording, no_wait).unwrap();
    assert_eq!(first.waited(), None);
    let order = Arc::new(Mutex::new(Vec::new()));
    let second = waiter(dir.path(), Run, "second", &order, Duration::ZERO);
    until_tickets(dir.path(), 2);
    // Held across two heartbeats: the waiter hears where it is again though nothing moved
    // (a client takes a long silence for a hung worker).
    std::thread::sleep(HEARTBEAT * 2 + Duration::from_millis(300));
    drop(first);
    let told = second.join().unwrap();
    assert!(told.len() >= 3, "{told:?}");
    assert!(told.iter().all(|t| *t == [q(Recording)]), "{told:?}");
    // Its ticket is gone once it has had its turn.
    let queue = dir.path().join("0000-17-00.0.queue");
    assert_eq!(fs::read_dir(own(&queue)).unwrap().count(), 0);
}

#[test]
fn shared_turns_run_together_and_an_alone_turn_waits_for_them_and_keeps_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let take = |hold| GpuTurn::take_held(dir.path(), BUS, (ExerciseCheck, hold), no_wait);
    // Two untimed stretches at once: the second is not told to wait.
    let (a, b) = (take(Hold::Shared).unwrap(), take(Hold::Shared).unwrap());
    assert_eq!(b.waited(), None);
    let order = Arc::new(Mutex::new(Vec::new()));
    let timed = held_waiter(
        dir.path(),
        (Run, Hold::Alone),
        "timed",
        &order,
        Duration::from_millis(200),
    );
    until_tickets(dir.path(), 3);
    // A shared turn asked for after the timed one goes after it, not beside the others.
    let late = held_waiter(
        dir.path(),
        (ExerciseCheck, Hold::Shared),
        "late",
        &order,
        Duration::ZERO,
    );
    until_tickets(dir.path(), 4);
    std::thread::sleep(Duration::from_millis(150));
    assert!(order.lock().unwrap().is_empty(), "{order:?}");
    drop(a);
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        order.lock().unwrap().is_empty(),
        "one shared turn still holds: {order:?}"
    );
    drop(b);
    let (told_timed, told_late) = (timed.join().unwrap(), late.join().unwrap());
    assert_eq!(*order.lock().unwrap(), ["timed", "late"]);
    assert_eq!(told_timed[0], [q(ExerciseCheck), q(ExerciseCheck)]);
    // The late shared turn waits for the timed one alone, and hears only of it.
    assert!(told_late.iter().all(|t| *t == [q(Run)]), "{told_late:?}");
}

#[test]
fn turns_come_in_ticket_order_and_each_waiter_hears_the_queue_move() {
    let dir = tempfile::tempdir().unwrap();
    let holder = GpuTurn::take(dir.path(), BUS, Recording, no_wait).unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    let check = waiter(
        dir.path(),
        ExerciseCheck,
        "check",
        &order,
        Duration::from_millis(200),
    );
    until_tickets(dir.path(), 2);
    let run = waiter(dir.path(), Run, "run", &order, Duration::ZERO);
    until_tickets(dir.path(), 3);
    std::thread::sleep(Duration::from_millis(100));
    drop(holder);
    let told_check = check.join().unwrap();
    let told_run = run.join().unwrap();
    assert_eq!(*order.lock().unwrap(), ["check", "run"]);
    assert_eq!(told_check.first().unwrap(), &[q(Recording)]);
    // The run was told of both ahead, then of the check alone once the recording let go.
    assert_eq!(told_run.first().unwrap(), &[q(Recording), q(ExerciseCheck)]);
    assert_eq!(told_run.last().unwrap(), &[q(ExerciseCheck)]);
    let lines: Vec<String> = told_run
        .iter()
        .map(|t| crate::analysis::gpu_share::queue_words(t))
        .collect();
    assert!(
        lines.contains(&"waiting for the GPU: 2 ahead (a recording, an exercise check)".into()),
        "{lines:?}"
    );
}

#[test]
fn a_long_job_asking_again_goes_to_the_back_so_a_short_check_gets_in_between() {
    let dir = tempfile::tempdir().unwrap();
    let variant_one = GpuTurn::take(dir.path(), BUS, Recording, no_wait).unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    let check = waiter(
        dir.path(),
        ExerciseCheck,
        "check",
        &order,
        Duration::from_millis(100),
    );
    until_tickets(dir.path(), 2);
    // The recording's next variant asks as soon as its last one is done.
    drop(variant_one);
    let mut told = Vec::new();
    let variant_two = GpuTurn::take(dir.path(), BUS, Recording, |a| told.push(a.to_vec()));
    order.lock().unwrap().push("recording");
    assert!(variant_two.unwrap().waited().is_some());
    check.join().unwrap();
    assert_eq!(*order.lock().unwrap(), ["check", "recording"]);
    assert_eq!(told.first().unwrap(), &[q(ExerciseCheck)]);
}

#[test]
fn a_dead_process_ticket_ahead_is_passed_over_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let queue = dir.path().join("0000-17-00.0.queue");
    fs::create_dir_all(own(&queue)).unwrap();
    // Older than any ticket of ours, of a pid no process has.
    fs::write(
        own(&queue).join(format!("{:020}-{}-0", 1, 0x7fff_fff0u32)),
        "pid=2147483632 job=recording",
    )
    .unwrap();
    let t = GpuTurn::take(dir.path(), BUS, Run, no_wait).unwrap();
    assert_eq!(t.waited(), None);
    assert_eq!(
        fs::read_dir(own(&queue)).unwrap().count(),
        1,
        "only ours left"
    );
}

#[test]
fn a_stopped_waiter_ahead_holds_nobody_up_but_is_still_named() {
    let dir = tempfile::tempdir().unwrap();
    let queue = dir.path().join("0000-17-00.0.queue");
    fs::create_dir_all(own(&queue)).unwrap();
    // A live process (ours) whose ticket nobody touches any more: stopped with ^Z.
    let stopped = own(&queue).join(format!("{:020}-{}-0", 1, std::process::id()));
    fs::write(&stopped, "job=exercise_check").unwrap();
    let f = File::options().write(true).open(&stopped).unwrap();
    f.set_modified(SystemTime::now() - turn_queue::STALE * 2)
        .unwrap();
    let t = GpuTurn::take(dir.path(), BUS, Run, no_wait).unwrap();
    assert_eq!(t.waited(), None);
    // Whoever waits behind the holder still hears of the stopped one, in its place.
    let order = Arc::new(Mutex::new(Vec::new()));
    let w = waiter(dir.path(), Run, "w", &order, Duration::ZERO);
    std::thread::sleep(Duration::from_millis(200));
    drop(t);
    let told = w.join().unwrap();
    assert_eq!(told.first().unwrap(), &[q(ExerciseCheck), q(Run)]);
}

#[test]
fn a_held_turn_keeps_its_ticket_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let t = GpuTurn::take(dir.path(), BUS, Recording, no_wait).unwrap();
    let f = File::options().write(true).open(&t.ticket.path).unwrap();
    f.set_modified(SystemTime::now() - turn_queue::STALE * 2)
        .unwrap();
    std::thread::sleep(HEARTBEAT + Duration::from_millis(400));
    let queue = dir.path().join("0000-17-00.0.queue");
    let tickets = turn_queue::read_queue(&queue, &mut HashMap::new());
    assert_eq!(tickets.len(), 1);
    assert!(tickets[0].fresh, "touched again by its heartbeat");
}

#[test]
fn a_holder_without_a_ticket_is_named_by_the_pid_in_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let t = GpuTurn::take(dir.path(), BUS, Run, no_wait).unwrap();
    // An older gpulab held the lock and left no ticket: only the lock names it.
    fs::remove_file(&t.ticket.path).unwrap();
    let order = Arc::new(Mutex::new(Vec::new()));
    let w = waiter(dir.path(), Run, "w", &order, Duration::ZERO);
    std::thread::sleep(Duration::from_millis(200));
    drop(t);
    let told = w.join().unwrap();
    assert_eq!(
        told.first().unwrap(),
        &[QueuedJob {
            pid: std::process::id(),
            job: JobKind::Other
        }]
    );
}

#[test]
fn the_folder_is_sticky_and_the_lock_names_its_holder() {
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    let t = GpuTurn::take(&turns, BUS, Run, no_wait).unwrap();
    let mode = fs::metadata(&turns).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o1777, "{mode:o}");
    let queue_mode = fs::metadata(turns.join("0000-17-00.0.queue"))
        .unwrap()
        .mode()
        & 0o7777;
    assert_eq!(queue_mode, 0o1777, "{queue_mode:o}");
    // Our tickets' own folder is ours alone to write in.
    let own_meta = fs::metadata(own(&turns.join("0000-17-00.0.queue"))).unwrap();
    assert_eq!(own_meta.mode() & 0o7777, 0o755, "{:o}", own_meta.mode());
    // SAFETY: geteuid has no preconditions.
    assert_eq!(own_meta.uid(), unsafe { libc::geteuid() });
    let lock = turns.join("0000-17-00.0.lock");
    assert_eq!(
        fs::read_to_string(&lock).unwrap().trim(),
        std::process::id().to_string()
    );
    drop(t);
}

#[test]
fn a_link_planted_where_the_lock_goes_is_refused_and_its_target_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("bashrc");
    fs::write(&victim, "# mine\n").unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o600)).unwrap();
    let turns = dir.path().join("turns");
    fs::create_dir(&turns).unwrap();
    std::os::unix::fs::symlink(&victim, turns.join("0000-17-00.0.lock")).unwrap();
    let err = GpuTurn::take(&turns, BUS, Run, no_wait)
        .err()
        .expect("refused");
    let words = err.to_string();
    assert!(
        words.contains("0000-17-00.0.lock") && words.contains("link"),
        "{words}"
    );
    assert_eq!(fs::read_to_string(&victim).unwrap(), "# mine\n");
    assert_eq!(fs::metadata(&victim).unwrap().mode() & 0o7777, 0o600);
}

#[test]
fn a_link_planted_where_the_queue_goes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    fs::create_dir(&home).unwrap();
    let turns = dir.path().join("turns");
    fs::create_dir(&turns).unwrap();
    std::os::unix::fs::symlink(&home, turns.join("0000-17-00.0.queue")).unwrap();
    let err = GpuTurn::take(&turns, BUS, Run, no_wait)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("link"), "{err}");
    assert_eq!(
        fs::read_dir(&home).unwrap().count(),
        0,
        "no ticket written there"
    );
}

#[test]
fn a_turn_folder_that_is_a_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    fs::create_dir(&home).unwrap();
    fs::set_permissions(&home, fs::Permissions::from_mode(0o700)).unwrap();
    let turns = dir.path().join("turns");
    std::os::unix::fs::symlink(&home, &turns).unwrap();
    let err = GpuTurn::take(&turns, BUS, Run, no_wait)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("link"), "{err}");
    assert_eq!(fs::metadata(&home).unwrap().mode() & 0o7777, 0o700);
    assert_eq!(fs::read_dir(&home).unwrap().count(), 0);
}

#[test]
fn a_private_folder_of_ours_named_for_the_turns_keeps_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine");
    fs::create_dir(&mine).unwrap();
    fs::set_permissions(&mine, fs::Permissions::from_mode(0o700)).unwrap();
    let t = GpuTurn::take(&mine, BUS, Run, no_wait).unwrap();
    drop(t);
    assert_eq!(fs::metadata(&mine).unwrap().mode() & 0o7777, 0o700);
}

#[test]
fn a_folder_writable_by_all_without_the_sticky_bit_on_the_way_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let open = dir.path().join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let turns = open.join("turns");
    let err = GpuTurn::take(&turns, BUS, Run, no_wait)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("sticky"), "{err}");
    assert!(!turns.exists(), "nothing made there");
}

#[test]
fn a_link_of_another_users_on_the_way_is_refused() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: not root, so no link of another user's can be planted");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let private = dir.path().join("private");
    fs::create_dir(&private).unwrap();
    let link = dir.path().join("shared");
    std::os::unix::fs::symlink(&private, &link).unwrap();
    std::os::unix::fs::lchown(&link, Some(4242), None).unwrap();
    let err = GpuTurn::take(&link.join("turns"), BUS, Run, no_wait)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("another user"), "{err}");
    assert_eq!(
        fs::read_dir(&private).unwrap().count(),
        0,
        "nothing made in it"
    );
}

#[test]
fn a_turn_writes_and_removes_only_in_our_own_folder() {
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    let queue = turns.join("0000-17-00.0.queue");
    // Another user's name on a folder of ours (so not theirs), with an early, fresh ticket
    // of our own live process, one of a dead process, and a ticket where tickets used to
    // lie: none is trusted, none removed.
    // SAFETY: geteuid has no preconditions.
    let other = if unsafe { libc::geteuid() } == 4242 {
        4243
    } else {
        4242
    };
    let planted = queue.join(other.to_string());
    fs::create_dir_all(&planted).unwrap();
    let me = std::process::id();
    fs::write(
        planted.join(format!("{:020}-{me}-0", 1)),
        format!("pid={me} job=recording"),
    )
    .unwrap();
    fs::write(
        planted.join(format!("{:020}-{}-0", 2, 0x7fff_fff0u32)),
        "pid=0 job=run",
    )
    .unwrap();
    fs::write(
        queue.join(format!("{:020}-{}-0", 3, 0x7fff_fff0u32)),
        "pid=0 job=run",
    )
    .unwrap();
    let before = tree(&turns);
    let first = GpuTurn::take(&turns, BUS, Recording, no_wait).unwrap();
    assert_eq!(first.waited(), None, "nothing planted held us up");
    let order = Arc::new(Mutex::new(Vec::new()));
    let second = waiter(&turns, Run, "second", &order, Duration::ZERO);
    until_tickets(&turns, 2);
    let mine = own(&queue);
    let rel = |p: &Path| p.strip_prefix(&turns).unwrap().display().to_string();
    let held: Vec<String> = (tree(&turns).into_iter())
        .filter(|p| !before.contains(p))
        .collect();
    let lock = "0000-17-00.0.lock".to_string();
    assert!(
        held.iter()
            .all(|p| *p == lock || *p == rel(&mine) || p.starts_with(&format!("{}/", rel(&mine)))),
        "made outside our own folder: {held:?}"
    );
    assert_eq!(fs::read_dir(&mine).unwrap().count(), 2, "{held:?}");
    drop(first);
    second.join().unwrap();
    let after = tree(&turns);
    let mut expected = before.clone();
    expected.extend([lock, rel(&mine)]);
    expected.sort();
    assert_eq!(
        after, expected,
        "every planted file left; nothing of ours left but our folder"
    );
}

#[test]
fn another_users_folder_in_our_name_is_refused_in_words_and_left() {
    // Only root can give a folder to another user here.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: not root, so no folder of another user's can be planted");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let turns = dir.path().join("turns");
    let queue = turns.join("0000-17-00.0.queue");
    let planted = own(&queue);
    fs::create_dir_all(&planted).unwrap();
    let looks_dead = planted.join(format!("{:020}-{}-0", 1, 0x7fff_fff0u32));
    fs::write(&looks_dead, "pid=0 job=run").unwrap();
    std::os::unix::fs::chown(&looks_dead, Some(4242), None).unwrap();
    std::os::unix::fs::chown(&planted, Some(4242), None).unwrap();
    fs::set_permissions(&planted, fs::Permissions::from_mode(0o777)).unwrap();
    let before = tree(&turns);
    let err = GpuTurn::take(&turns, BUS, Run, no_wait)
        .err()
        .expect("refused");
    let words = err.to_string();
    assert!(
        words.contains("not ours") && words.contains("4242"),
        "{words}"
    );
    // The lock file is made before the queue is looked at; nothing else.
    let mut expected = before;
    expected.push("0000-17-00.0.lock".into());
    expected.sort();
    assert_eq!(tree(&turns), expected);
    let meta = fs::metadata(&planted).unwrap();
    assert_eq!((meta.uid(), meta.mode() & 0o7777), (4242, 0o777));
}
