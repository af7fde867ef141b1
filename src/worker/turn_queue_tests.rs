use super::*;

/// A pid no process has (above the kernel's pid_max).
const DEAD: u32 = 0x7fff_fff0;

/// Our own folder in the shared folder `queue`, made as a ticket of ours makes it.
fn mine(queue: &Path) -> PathBuf {
    own_folder(queue).unwrap();
    queue.join(own_uid().to_string())
}

/// A uid that is not ours.
fn other_uid() -> u32 {
    if own_uid() == 4242 { 4243 } else { 4242 }
}

fn plant(folder: &Path, name: &str, text: &str) {
    fs::create_dir_all(folder).unwrap();
    fs::write(folder.join(name), text).unwrap();
}

use super::super::gpu_turn::tests::tree;

#[test]
fn our_start_time_is_read_and_a_pid_used_again_is_not_its_old_process() {
    let me = std::process::id();
    let start = start_time(me).expect("/proc/self/stat");
    assert!(alive(me, Some(start)));
    assert!(!alive(me, Some(start + 1)), "a later process under our pid");
    assert!(!alive(DEAD, None));
    assert!(!alive(DEAD, Some(start)));
}

#[test]
fn the_queue_is_in_ticket_order_with_dead_tickets_removed() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path();
    let m = mine(q);
    let me = std::process::id();
    let start = start_time(me).unwrap();
    plant(
        &m,
        &format!("{:020}-{me}-0", 3),
        &format!("pid={me} start={start} job=run"),
    );
    plant(&m, &format!("{:020}-{DEAD}-0", 1), "pid=0 job=recording");
    plant(
        &m,
        &format!("{:020}-{me}-9", 2),
        &format!("pid={me} job=exercise_check"),
    );
    // Our pid, but a start time that is not ours: a dead process whose pid we got.
    let old = format!("{:020}-{me}-4", 0);
    plant(&m, &old, &format!("pid={me} start={} job=run", start + 7));
    plant(&m, "not-a-ticket", "");
    plant(&m, &format!(".{:020}-{me}-5", 0), "half written");
    let t = read_queue(q, &mut Known::new());
    let seen: Vec<(String, JobKind)> = t.iter().map(|t| (t.name.clone(), t.job)).collect();
    assert_eq!(
        seen,
        vec![
            (format!("{:020}-{me}-9", 2), JobKind::ExerciseCheck),
            (format!("{:020}-{me}-0", 3), JobKind::Run),
        ]
    );
    assert!(t.iter().all(|t| t.fresh && t.pid == me));
    assert!(
        !m.join(format!("{:020}-{DEAD}-0", 1)).exists(),
        "dead ticket cleared"
    );
    assert!(!m.join(&old).exists(), "a reused pid's old ticket cleared");
    assert!(
        m.join("not-a-ticket").exists(),
        "what is not a ticket is left alone"
    );
}

#[test]
fn a_ticket_untouched_for_a_while_is_stale_and_unknown_words_say_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = mine(dir.path());
    let me = std::process::id();
    let name = format!("{:020}-{me}-0", 1);
    plant(&m, &name, &format!("pid={me} job=\x1b]0;pwned\x07"));
    let f = File::options().write(true).open(m.join(&name)).unwrap();
    f.set_modified(SystemTime::now() - STALE - Duration::from_secs(1))
        .unwrap();
    let t = read_queue(dir.path(), &mut Known::new());
    assert_eq!(t.len(), 1);
    assert!(!t[0].fresh);
    assert_eq!(t[0].job, JobKind::Other);
}

#[test]
fn our_ticket_is_written_whole_in_our_own_folder_and_sorts_after_earlier_ones() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_ticket(dir.path(), JobKind::Recording, Hold::Alone).unwrap();
    let b = write_ticket(dir.path(), JobKind::Memcheck, Hold::Shared).unwrap();
    assert!(a.name < b.name);
    let t = read_queue(dir.path(), &mut Known::new());
    let jobs: Vec<(JobKind, Hold)> = t.iter().map(|t| (t.job, t.hold)).collect();
    assert_eq!(
        jobs,
        [
            (JobKind::Recording, Hold::Alone),
            (JobKind::Memcheck, Hold::Shared)
        ]
    );
    let text = fs::read_to_string(&a.path).unwrap();
    let me = std::process::id();
    assert!(text.starts_with(&format!("pid={me} start=")), "{text}");
    let uid = own_uid().to_string();
    assert_eq!(
        tree(dir.path()),
        [
            uid.clone(),
            format!("{uid}/{}", a.name),
            format!("{uid}/{}", b.name)
        ],
        "only our folder and our tickets in it, no hidden leftovers"
    );
    let meta = fs::metadata(dir.path().join(&uid)).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o755, "{:o}", meta.mode());
    assert_eq!(meta.uid(), own_uid());
    a.remove();
    assert!(!a.path.exists());
    assert!(b.path.exists());
}

#[test]
fn a_ticket_dated_ahead_of_now_holds_no_one_up() {
    let dir = tempfile::tempdir().unwrap();
    let m = mine(dir.path());
    let me = std::process::id();
    let name = format!("{:020}-{me}-0", 1);
    plant(&m, &name, &format!("pid={me} job=run"));
    let f = File::options().write(true).open(m.join(&name)).unwrap();
    // 2100-01-01.
    f.set_modified(UNIX_EPOCH + Duration::from_secs(4_102_444_800))
        .unwrap();
    let t = read_queue(dir.path(), &mut Known::new());
    assert_eq!(t.len(), 1);
    assert!(!t[0].fresh, "a ticket touched in 2100 is not fresh");
}

#[test]
fn a_queue_swapped_for_a_link_is_not_read_and_nothing_there_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    let inside = victim.join(own_uid().to_string());
    let looks_dead = format!("{:020}-{DEAD}-0", 1);
    plant(&inside, &looks_dead, "pid=0 job=run");
    let queue = dir.path().join("gpu.queue");
    std::os::unix::fs::symlink(&victim, &queue).unwrap();
    assert!(read_queue(&queue, &mut Known::new()).is_empty());
    assert!(
        inside.join(&looks_dead).exists(),
        "nothing removed through the link"
    );
    let users = dir.path().join("gpu.users");
    std::os::unix::fs::symlink(&victim, &users).unwrap();
    plant(&inside, &format!("{DEAD}-5"), "");
    assert!(self::users(dir.path(), "gpu").is_empty());
    assert!(inside.join(format!("{DEAD}-5")).exists());
}

#[test]
fn tickets_in_a_folder_not_owned_by_the_uid_it_is_named_for_are_passed_over_and_left() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path();
    let me = std::process::id();
    // Ours, under another user's name: a live, fresh, early ticket of our own process
    // that would hold us up were it trusted, and one of a dead process.
    let planted = q.join(other_uid().to_string());
    let live = format!("{:020}-{me}-0", 1);
    let dead = format!("{:020}-{DEAD}-0", 2);
    plant(&planted, &live, &format!("pid={me} job=recording"));
    plant(&planted, &dead, "pid=0 job=run");
    // A name that is our uid written otherwise, and a link in our own name to a folder
    // of ours: neither is read, nothing there is removed.
    let padded = q.join(format!("0{}", own_uid()));
    plant(&padded, &dead, "pid=0 job=run");
    let elsewhere = dir.path().join("elsewhere");
    plant(&elsewhere, &dead, "pid=0 job=run");
    let q = q.join("gpu.queue");
    fs::create_dir(&q).unwrap();
    for p in [&planted, &padded] {
        fs::rename(p, q.join(p.file_name().unwrap())).unwrap();
    }
    std::os::unix::fs::symlink(&elsewhere, q.join(own_uid().to_string())).unwrap();
    let before = tree(dir.path());
    assert!(read_queue(&q, &mut Known::new()).is_empty());
    assert_eq!(tree(dir.path()), before, "nothing removed");
    // Nor does our ticket go where the link leads: the link is refused, in words.
    let err = write_ticket(&q, JobKind::Run, Hold::Alone)
        .err()
        .expect("refused");
    assert!(err.to_string().contains("link"), "{err}");
    assert_eq!(tree(dir.path()), before, "nothing made");
}

#[test]
fn a_ticket_not_owned_by_its_processs_user_is_passed_over_and_left() {
    // Only root can give a file to another user here.
    if own_uid() != 0 {
        eprintln!("skipped: not root, so no file of another user's can be planted");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let me = std::process::id();
    let other = 4242;
    let claims_me = format!("{:020}-{me}-0", 1);
    let claims_dead = format!("{:020}-{DEAD}-0", 2);
    // In our folder, files of another user's; in theirs (theirs indeed), files of
    // theirs naming our process, and a dead one of ours.
    let m = mine(dir.path());
    let theirs = dir.path().join(other.to_string());
    for folder in [&m, &theirs] {
        plant(folder, &claims_me, &format!("pid={me} job=recording"));
        plant(folder, &claims_dead, "pid=0 job=run");
    }
    std::os::unix::fs::chown(&theirs, Some(other), None).unwrap();
    for n in [&claims_me, &claims_dead] {
        std::os::unix::fs::chown(m.join(n), Some(other), None).unwrap();
    }
    std::os::unix::fs::chown(theirs.join(&claims_me), Some(other), None).unwrap();
    let before = tree(dir.path());
    assert!(read_queue(dir.path(), &mut Known::new()).is_empty());
    assert_eq!(tree(dir.path()), before, "not ours to remove");
}

#[test]
fn another_users_tickets_count_in_their_order_only_from_a_folder_and_file_of_theirs() {
    // Only root can run a process as another user and give it files.
    if own_uid() != 0 {
        eprintln!("skipped: not root, so no process or file of another user's can be made");
        return;
    }
    use std::os::unix::process::CommandExt;
    let other = 4242;
    let mut theirs = std::process::Command::new("sleep")
        .arg("60")
        .uid(other)
        .gid(other)
        .spawn()
        .expect("sleep, as another user");
    let p = theirs.id();
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path();
    let me = std::process::id();
    let folder = q.join(other.to_string());
    let (t1, t2, t3) = (
        format!("{:020}-{p}-0", 1),
        format!("{:020}-{me}-0", 2),
        format!("{:020}-{p}-1", 3),
    );
    plant(&folder, &t1, &format!("pid={p} job=recording"));
    plant(&mine(q), &t2, &format!("pid={me} job=run"));
    plant(&folder, &t3, &format!("pid={p} job=exercise_check"));
    // Theirs in name and process, but a file of ours in their folder: not theirs.
    let t0 = format!("{:020}-{p}-2", 0);
    plant(&folder, &t0, &format!("pid={p} job=memcheck"));
    // A dead one of theirs: theirs to clear, not ours.
    let dead = format!("{:020}-{DEAD}-0", 0);
    plant(&folder, &dead, "pid=0 job=run");
    let chown = |p: &Path, uid| std::os::unix::fs::chown(p, Some(uid), None).unwrap();
    for n in [&t1, &t3, &dead] {
        chown(&folder.join(n), other);
    }
    chown(&folder, other);
    let seen = |known: &mut Known| -> Vec<(u32, JobKind)> {
        read_queue(q, known)
            .iter()
            .map(|t| (t.pid, t.job))
            .collect()
    };
    // Across both folders, in the order they were taken.
    assert_eq!(
        seen(&mut Known::new()),
        [
            (p, JobKind::Recording),
            (me, JobKind::Run),
            (p, JobKind::ExerciseCheck)
        ]
    );
    assert!(folder.join(&t0).exists() && folder.join(&dead).exists());
    // The same files in a folder another user made under their name: passed over.
    chown(&folder, 0);
    assert_eq!(seen(&mut Known::new()), [(me, JobKind::Run)]);
    assert!(folder.join(&t1).exists() && folder.join(&dead).exists());
    let _ = theirs.kill();
    let _ = theirs.wait();
}

#[test]
fn a_user_folder_under_a_turn_folder_that_is_a_link_is_not_made() {
    let dir = tempfile::tempdir().unwrap();
    let private = dir.path().join("private");
    fs::create_dir(&private).unwrap();
    let turns = dir.path().join("turns");
    std::os::unix::fs::symlink(&private, &turns).unwrap();
    assert!(register_user(&turns, "gpu").is_err());
    assert_eq!(fs::read_dir(&private).unwrap().count(), 0);
}

#[test]
fn users_are_the_live_entries_each_in_its_users_own_folder() {
    let dir = tempfile::tempdir().unwrap();
    register_user(dir.path(), "gpu").unwrap();
    register_user(dir.path(), "gpu").unwrap();
    let me = std::process::id();
    let uid = own_uid().to_string();
    let entry = format!("{uid}/{me}-{}", start_time(me).unwrap());
    assert_eq!(tree(&dir.path().join("gpu.users")), [uid.clone(), entry]);
    let users = dir.path().join("gpu.users").join(&uid);
    fs::write(users.join(format!("{DEAD}-5")), "").unwrap();
    fs::write(users.join("junk"), "").unwrap();
    // Ours, in a folder under another user's name: not read, not removed.
    let planted = dir.path().join("gpu.users").join(other_uid().to_string());
    plant(&planted, &format!("{me}-{}", start_time(me).unwrap()), "");
    plant(&planted, &format!("{DEAD}-6"), "");
    assert_eq!(self::users(dir.path(), "gpu"), vec![me]);
    assert!(!users.join(format!("{DEAD}-5")).exists());
    assert!(planted.join(format!("{DEAD}-6")).exists());
}
