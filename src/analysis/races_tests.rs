use super::*;

/// A warp's request: lanes 0..n, lane l at byte `base + 4 l`.
fn access(block: u32, warp: u32, op: Op, line: u32, base: u64, n: u32) -> SharedEvent {
    let mut addrs = [0u64; 32];
    for (l, a) in addrs.iter_mut().enumerate().take(n as usize) {
        *a = base + 4 * l as u64;
    }
    SharedEvent {
        block,
        warp,
        op,
        line: Some(line),
        mask: if n == 32 { u32::MAX } else { (1 << n) - 1 },
        width: 4,
        addrs,
    }
}

fn barrier(block: u32, warp: u32) -> SharedEvent {
    SharedEvent {
        block,
        warp,
        op: Op::Barrier,
        line: Some(12),
        mask: u32::MAX,
        width: 0,
        addrs: [0; 32],
    }
}

/// A stencil's block of two warps: each writes its 32 words of the tile (line 11), then
/// reads its own words and the first word of the next warp's (line 14).
fn stencil(with_barrier: bool) -> Vec<SharedEvent> {
    let mut ev = vec![access(0, 0, Op::Write, 11, 0, 32)];
    if with_barrier {
        ev.push(barrier(0, 0));
    }
    ev.push(access(0, 0, Op::Read, 14, 4, 32));
    ev.push(access(0, 1, Op::Write, 11, 128, 32));
    if with_barrier {
        ev.push(barrier(0, 1));
    }
    ev.push(access(0, 1, Op::Read, 14, 132, 31));
    ev
}

#[test]
fn a_read_of_another_warps_write_without_a_barrier_is_a_race() {
    let races = find_races(&stencil(false));
    // Warp 0 reads word 32 (byte 128) before warp 1 writes it: write after read.
    assert_eq!(races.len(), 1, "{races:?}");
    let r = &races[0];
    assert_eq!(r.kind, RaceKind::ReadWrite);
    assert_eq!((r.first_line, r.second_line), (Some(14), Some(11)));
    assert_eq!((r.first_warp, r.second_warp), (0, 1));
    assert_eq!((r.block, r.offset, r.count), (0, 128, 1));
    assert_eq!(race_words(r), "line 11 writes what line 14 reads");
}

#[test]
fn a_write_then_a_read_by_another_warp_is_read_after_write() {
    let ev = vec![
        access(3, 1, Op::Write, 11, 0, 32),
        access(3, 0, Op::Read, 14, 0, 32),
    ];
    let races = find_races(&ev);
    assert_eq!(races.len(), 1);
    assert_eq!(races[0].kind, RaceKind::WriteRead);
    // Every lane's word met the other warp's write.
    assert_eq!(races[0].count, 32);
    assert_eq!(races[0].block, 3);
    assert_eq!(race_words(&races[0]), "line 14 reads what line 11 writes");
}

#[test]
fn a_barrier_between_the_write_and_the_read_clears_it() {
    assert!(find_races(&stencil(true)).is_empty());
}

#[test]
fn one_warp_alone_never_races_with_itself() {
    let ev = vec![
        access(0, 2, Op::Write, 11, 0, 32),
        access(0, 2, Op::Read, 14, 0, 32),
        access(0, 2, Op::Write, 15, 0, 32),
    ];
    assert!(find_races(&ev).is_empty());
}

#[test]
fn different_blocks_and_different_words_do_not_meet() {
    let ev = vec![
        access(0, 0, Op::Write, 11, 0, 32),
        access(1, 1, Op::Read, 14, 0, 32),
        access(0, 1, Op::Read, 14, 128, 32),
    ];
    assert!(find_races(&ev).is_empty());
    // Bytes of one word, written by two warps, do not overlap: no hazard either.
    let mut a = access(0, 0, Op::Write, 11, 0, 1);
    let mut b = access(0, 1, Op::Write, 11, 2, 1);
    a.width = 2;
    b.width = 2;
    assert!(find_races(&[a.clone(), b]).is_empty());
    let mut c = access(0, 1, Op::Write, 11, 1, 1);
    c.width = 2;
    let ww = find_races(&[a, c]);
    assert_eq!(ww.len(), 1);
    assert_eq!(ww[0].kind, RaceKind::WriteWrite);
    assert_eq!(race_words(&ww[0]), "line 11 writes one word from two warps");
}

#[test]
fn a_warp_that_already_passed_the_barrier_is_in_the_next_interval() {
    // Warp 0 passes its barrier; warp 1's write before its own barrier is interval 0, and
    // warp 0's read after is interval 1: ordered by the barrier.
    let ev = vec![
        barrier(0, 0),
        access(0, 1, Op::Write, 11, 0, 32),
        barrier(0, 1),
        access(0, 0, Op::Read, 14, 0, 32),
    ];
    assert!(find_races(&ev).is_empty());
    // Without warp 1's barrier, its write is in interval 0 and warp 0's read in 1: still
    // no hazard by count, which is why the intervals need every warp's barriers.
    let ev2 = [ev[0].clone(), ev[1].clone(), ev[3].clone()];
    assert!(find_races(&ev2).is_empty());
}

#[test]
fn races_come_most_frequent_first_one_per_pair_of_lines() {
    let ev = vec![
        access(0, 0, Op::Write, 11, 0, 32),
        access(0, 1, Op::Read, 14, 0, 32),
        access(0, 2, Op::Read, 14, 0, 32),
        access(0, 1, Op::Write, 20, 0, 2),
    ];
    let races = find_races(&ev);
    let kinds: Vec<(RaceKind, u64)> = races.iter().map(|r| (r.kind, r.count)).collect();
    // Line 14 met line 11's writes 64 times (32 words, two warps); line 20's two words met
    // warp 0's write (line 11) and warp 2's read (line 14), but not warp 1's own read.
    assert_eq!(
        kinds,
        [
            (RaceKind::WriteRead, 64),
            (RaceKind::ReadWrite, 2),
            (RaceKind::WriteWrite, 2)
        ]
    );
    assert_eq!(races[1].first_warp, 2);
}

#[test]
fn a_hundred_thousand_requests_of_eight_warps_are_all_judged() {
    // Every warp writes then reads the same 64 words, with a barrier every 1000 requests:
    // races in every interval.
    let events: Vec<SharedEvent> = (0..100_000u32)
        .map(|i| match i % 1000 {
            999 => barrier(i % 4, i % 8),
            _ => {
                let op = if i % 2 == 0 { Op::Write } else { Op::Read };
                access(i % 4, i % 8, op, 10 + i % 3, 4 * u64::from(i % 2), 32)
            }
        })
        .collect();
    // Its speed is the race benchmark's to measure (a timed test fails on a busy machine);
    // here, that a long stream is judged through to its last interval.
    let races = find_races(&events);
    assert!(!races.is_empty());
    assert!(
        races.iter().any(|r| r.first_warp != r.second_warp),
        "{races:?}"
    );
}

/// Warp 0 is through its barrier before warp 1 reads (the interpreter's order too): warp 1
/// is still in interval 0, with warp 0's write.
fn warp_0_passes_first() -> Vec<SharedEvent> {
    vec![
        access(0, 0, Op::Write, 11, 0, 32),
        barrier(0, 0),
        access(0, 1, Op::Read, 14, 0, 32),
        barrier(0, 1),
        access(0, 0, Op::Write, 15, 0, 32),
        access(0, 1, Op::Read, 16, 128, 32),
    ]
}

#[test]
fn an_interval_stays_open_until_the_last_warp_has_left_it() {
    let races = find_races(&warp_0_passes_first());
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(
        (races[0].first_line, races[0].second_line, races[0].count),
        (Some(11), Some(14), 32)
    );
}

/// A warp that reaches `__syncthreads()` diverged logs the barrier once per lane group:
/// lanes 8-31 arrive first, lanes 0-7 after storing a halo word. The halo store is before
/// lanes 0-7's barrier, so another warp's read after its own barrier is ordered.
#[test]
fn a_barrier_logged_by_diverged_lane_groups_orders_each_groups_own_stores() {
    let group = |block, warp, mask: u32| SharedEvent {
        mask,
        ..barrier(block, warp)
    };
    let halo = |n: u32| SharedEvent {
        mask: (1 << n) - 1,
        ..access(0, 0, Op::Write, 39, 1024, n)
    };
    let mut ev = vec![
        access(0, 0, Op::Write, 36, 0, 32),
        access(0, 1, Op::Write, 36, 128, 32),
        group(0, 0, 0xffff_ff00),
        halo(8),
        group(0, 0, 0x0000_00ff),
        barrier(0, 1),
        access(0, 1, Op::Read, 46, 1024, 8),
    ];
    assert!(find_races(&ev).is_empty(), "{:?}", find_races(&ev));
    // A halo store after lanes 0-7's barrier shares the reader's interval: a race.
    ev.swap(3, 4);
    let races = find_races(&ev);
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(
        (races[0].first_line, races[0].second_line),
        (Some(39), Some(46))
    );
}

#[test]
fn read_as_made_the_races_are_those_of_the_whole_trace() {
    // Read as made, the finder does not know warp 1 before it reaches the barrier: it must
    // keep interval 0 open for it all the same.
    let events = warp_0_passes_first();
    let whole = find_races(&events);
    let mut f = RaceFinder::new(Warps::All(2));
    events.iter().for_each(|e| f.push(e));
    let streamed = f.finish();
    assert_eq!(streamed, whole);
    assert_eq!(whole.len(), 1, "{whole:?}");
    assert_eq!((whole[0].kind, whole[0].count), (RaceKind::WriteRead, 32));
    // Broadcasts count once per lane: 32 lanes reading one word warp 0 wrote.
    let mut b = access(0, 1, Op::Read, 16, 0, 32);
    b.addrs = [0; 32];
    let mut f = RaceFinder::new(Warps::All(2));
    [access(0, 0, Op::Write, 11, 0, 1), b]
        .iter()
        .for_each(|e| f.push(e));
    assert_eq!(f.finish()[0].count, 32);
}

#[test]
fn reads_before_an_intervals_first_write_are_still_raced_by_it_however_many() {
    // Warp 0 reads its words many times (more than are kept aside at once), then warp 1
    // writes one of them, and after that warp 0 reads again: one write-after-read race
    // for the write, one read-after-write for each later read.
    let mut ev = Vec::new();
    for k in 0..UNWRITTEN as u64 + 5 {
        ev.push(access(0, 0, Op::Read, 14 + (k % 2) as u32, 0, 32));
    }
    ev.push(access(0, 1, Op::Write, 11, 60, 1));
    for _ in 0..3 {
        ev.push(access(0, 0, Op::Read, 20, 60, 1));
    }
    let races = find_races(&ev);
    let kinds: Vec<_> = races
        .iter()
        .map(|r| (r.kind, r.first_line, r.second_line, r.count))
        .collect();
    assert_eq!(
        kinds,
        [
            (RaceKind::WriteRead, Some(11), Some(20), 3),
            (RaceKind::ReadWrite, Some(14), Some(11), 1),
            (RaceKind::ReadWrite, Some(15), Some(11), 1),
        ]
    );
}

#[test]
fn a_race_is_named_with_its_lines_its_warps_and_what_is_missing() {
    let race = |kind, first: u32, second: u32| Race {
        kind,
        first_line: Some(first),
        second_line: Some(second),
        block: 3,
        offset: 128,
        first_warp: 0,
        second_warp: 5,
        count: 32,
    };
    assert_eq!(
        race_why(&race(RaceKind::WriteRead, 18, 25)),
        "line 25 reads what another warp writes at line 18, with no barrier between: a \
         barrier is missing (block 3: warp 5 read after warp 0 wrote)"
    );
    let rw = race_why(&race(RaceKind::ReadWrite, 26, 18));
    assert!(
        rw.starts_with("line 18 overwrites what another warp reads at line 26"),
        "{rw}"
    );
    assert!(rw.contains("a barrier is missing"), "{rw}");
    let ww = race_why(&race(RaceKind::WriteWrite, 7, 7));
    assert!(
        ww.starts_with("line 7 writes the same word from two warps"),
        "{ww}"
    );
    assert!(ww.contains("warps 0 and 5"), "{ww}");
}

/// A histogram in shared memory: every warp adds to the same 8 counters (line 20), which
/// atomics make safe; zeroing them (line 18) and reading them back (line 24) are plain
/// accesses, which a missing barrier leaves racing with other warps' atomics.
#[test]
fn atomics_race_with_plain_accesses_of_other_warps_but_not_with_each_other() {
    // Each warp zeroes its half of the counters.
    let zero = |w: u32| access(0, w, Op::Write, 18, 16 * u64::from(w), 4);
    let add = |w| access(0, w, Op::Atomic, 20, 0, 8);
    let read = |w| access(0, w, Op::Read, 24, 0, 8);
    let synced = vec![
        zero(0),
        zero(1),
        barrier(0, 0),
        barrier(0, 1),
        add(0),
        add(1),
        add(0),
        barrier(0, 0),
        barrier(0, 1),
        read(0),
        read(1),
    ];
    assert!(find_races(&synced).is_empty(), "{:?}", find_races(&synced));
    // No barrier after the zeroing: warp 1 zeroes what warp 0 already added to.
    let unzeroed = vec![zero(0), add(0), zero(1), add(1)];
    let races = find_races(&unzeroed);
    let kinds: Vec<_> = (races.iter())
        .map(|r| (r.kind, r.first_line, r.second_line))
        .collect();
    assert!(
        kinds.contains(&(RaceKind::WriteWrite, Some(20), Some(18))),
        "{kinds:?}"
    );
    // No barrier before the read: warp 1 reads a counter warp 0 is still adding to.
    let early = vec![add(0), read(1)];
    let races = find_races(&early);
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(
        (races[0].kind, races[0].first_line, races[0].second_line),
        (RaceKind::WriteRead, Some(20), Some(24))
    );
    // And the other way round: a read, then another warp's atomic.
    let late = vec![read(1), add(0)];
    assert_eq!(find_races(&late)[0].kind, RaceKind::ReadWrite);
}

fn event(warp: u32, op: Op) -> SharedEvent {
    SharedEvent {
        op,
        line: Some(30),
        width: 0,
        ..barrier(0, warp)
    }
}

/// Warp 0 copies word block A (line 20) then B (line 21) in two groups and waits with
/// `wait_group 1`, which completes A only; after the barrier warp 1 reads A (line 25) and B
/// (line 26). B's copy may still land: its read races, A's does not. With `wait_all` neither.
#[test]
fn a_copy_is_in_force_until_the_wait_that_completes_its_group() {
    let run = |wait: Op| {
        let ev = vec![
            access(0, 0, Op::CopyWrite, 20, 0, 32),
            event(0, Op::CopyCommit),
            access(0, 0, Op::CopyWrite, 21, 128, 32),
            event(0, Op::CopyCommit),
            event(0, wait),
            barrier(0, 0),
            barrier(0, 1),
            access(0, 1, Op::Read, 25, 0, 32),
            access(0, 1, Op::Read, 26, 128, 32),
        ];
        find_races(&ev)
    };
    let some = run(Op::CopyWait {
        groups: 1,
        all: false,
    });
    let lines: Vec<_> = some.iter().map(|r| (r.first_line, r.second_line)).collect();
    assert_eq!(lines, [(Some(21), Some(26))], "{some:?}");
    assert_eq!(some[0].kind, RaceKind::WriteRead);
    let none = run(Op::CopyWait {
        groups: 0,
        all: true,
    });
    assert!(none.is_empty(), "{none:?}");
}
