use super::*;
use crate::analysis::race_words::{race_why, race_words};

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
        remote: false,
        order: Order::default(),
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
        remote: false,
        order: Order::default(),
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
    let all = find_races(&stencil(false));
    // Each lane also reads the word its neighbour lane wrote: a race inside each warp too.
    let lanes: Vec<&Race> = all.iter().filter(|r| r.scope == RaceScope::Warp).collect();
    assert_eq!(lanes.len(), 1, "{all:?}");
    assert_eq!(
        (lanes[0].first_line, lanes[0].second_line),
        (Some(11), Some(14))
    );
    // 31 lanes of warp 0 and 30 of warp 1 (its last lane reads nothing, its 31st warp 0's).
    assert_eq!(lanes[0].count, 31 + 31);
    let races: Vec<&Race> = all.iter().filter(|r| r.scope == RaceScope::Block).collect();
    // Warp 0 reads word 32 (byte 128) before warp 1 writes it: write after read.
    assert_eq!(races.len(), 1, "{races:?}");
    let r = races[0];
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
        scope: RaceScope::Block,
        lanes: None,
        first_block: None,
        partial_barrier: None,
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

fn warp_sync(block: u32, warp: u32, mask: u32) -> SharedEvent {
    SharedEvent {
        op: Op::WarpSync,
        mask,
        ..barrier(block, warp)
    }
}

/// One warp's lanes exchange values through shared memory: every lane writes its word
/// (line 40), then reads its neighbour's, lane l reading lane l ^ 1's (line 42), with or
/// without `__syncwarp()` between. A block of one warp: no other warp to race with.
fn exchange(sync: Option<u32>) -> Vec<SharedEvent> {
    let mut read = access(0, 0, Op::Read, 42, 0, 32);
    for (l, a) in read.addrs.iter_mut().enumerate() {
        *a = 4 * (l as u64 ^ 1);
    }
    let mut ev = vec![access(0, 0, Op::Write, 40, 0, 32)];
    ev.extend(sync.map(|m| warp_sync(0, 0, m)));
    ev.push(read);
    ev
}

#[test]
fn lanes_of_one_warp_exchanging_through_shared_memory_without_syncwarp_race() {
    let races = find_races(&exchange(None));
    assert_eq!(races.len(), 1, "{races:?}");
    let r = &races[0];
    assert_eq!((r.scope, r.kind), (RaceScope::Warp, RaceKind::WriteRead));
    assert_eq!((r.first_line, r.second_line), (Some(40), Some(42)));
    // Every lane read a word another lane wrote.
    assert_eq!(r.count, 32);
    assert_eq!(r.lanes, Some((1, 0)));
    assert!(
        race_why(r).contains("`__syncwarp()` is missing"),
        "{}",
        race_why(r)
    );
    assert!(
        race_words(r).contains("two lanes of a warp"),
        "{}",
        race_words(r)
    );
    // `__syncwarp()` between: none.
    assert!(find_races(&exchange(Some(u32::MAX))).is_empty());
    // A `__syncwarp(mask)` of half the warp orders only the pairs inside that half: here
    // every pair (l, l ^ 1) is inside one half, so the lower half's sync clears its pairs
    // and the upper half still races.
    let half = find_races(&exchange(Some(0xffff)));
    assert_eq!(half.len(), 1, "{half:?}");
    assert_eq!(half[0].count, 16);
    // A block barrier orders the warp's lanes too.
    let mut ev = exchange(None);
    ev.insert(1, barrier(0, 0));
    assert!(find_races(&ev).is_empty(), "{:?}", find_races(&ev));
}

#[test]
fn a_lane_reading_its_own_word_or_a_second_write_after_a_sync_is_no_race() {
    // Each lane reads back the word it wrote: no other lane is involved.
    let ev = vec![
        access(0, 0, Op::Write, 40, 0, 32),
        access(0, 0, Op::Read, 42, 0, 32),
        access(0, 0, Op::Atomic, 43, 0, 32),
    ];
    assert!(find_races(&ev).is_empty(), "{:?}", find_races(&ev));
    // Lane 0 writes word 0, lanes 0-31 read it (a broadcast) after a sync; then lane 5
    // overwrites it without one: a write after the other lanes' reads.
    let mut b = access(0, 0, Op::Read, 42, 0, 32);
    b.addrs = [0; 32];
    let mut w = access(0, 0, Op::Write, 44, 0, 1);
    w.mask = 1 << 5;
    w.addrs[5] = 0;
    let ev = vec![
        access(0, 0, Op::Write, 40, 0, 1),
        warp_sync(0, 0, u32::MAX),
        b,
        w,
    ];
    let races = find_races(&ev);
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(
        (races[0].scope, races[0].kind),
        (RaceScope::Warp, RaceKind::ReadWrite)
    );
    assert_eq!(
        (races[0].first_line, races[0].second_line),
        (Some(42), Some(44))
    );
}

/// A copy lands at its wait, for its own lane: another lane may read it only after a
/// `__syncwarp()` that follows the wait.
#[test]
fn another_lane_reads_a_copy_only_after_its_wait_and_a_syncwarp() {
    let mut read = access(0, 0, Op::Read, 52, 0, 32);
    for (l, a) in read.addrs.iter_mut().enumerate() {
        *a = 4 * ((l as u64 + 1) % 32);
    }
    let copy = access(0, 0, Op::CopyWrite, 50, 0, 32);
    let wait = event(
        0,
        Op::CopyWait {
            groups: 0,
            all: true,
        },
    );
    let racy = vec![
        copy.clone(),
        warp_sync(0, 0, u32::MAX),
        wait.clone(),
        read.clone(),
    ];
    let races = find_races(&racy);
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(races[0].scope, RaceScope::Warp);
    let fine = vec![copy, wait, warp_sync(0, 0, u32::MAX), read];
    assert!(find_races(&fine).is_empty(), "{:?}", find_races(&fine));
}

fn cluster_barrier(block: u32, warp: u32, wait: bool) -> SharedEvent {
    SharedEvent {
        op: if wait {
            Op::ClusterWait
        } else {
            Op::ClusterArrive
        },
        ..barrier(block, warp)
    }
}

/// Two warps of one block: warp 0 writes words 0..32 (line 70), both meet at a cluster
/// barrier whose arrive is `.relaxed` or not, then warp 1 reads them (line 71).
#[test]
fn a_relaxed_cluster_arrive_orders_no_access_of_the_block_either() {
    let handover = |relaxed: bool| {
        let arrive = |warp| SharedEvent {
            op: if relaxed {
                Op::ClusterArriveRelaxed
            } else {
                Op::ClusterArrive
            },
            ..barrier(0, warp)
        };
        vec![
            access(0, 0, Op::Write, 70, 0, 32),
            arrive(0),
            arrive(1),
            cluster_barrier(0, 0, true),
            cluster_barrier(0, 1, true),
            access(0, 1, Op::Read, 71, 0, 32),
        ]
    };
    assert!(find_races(&handover(false)).is_empty());
    let races = find_races(&handover(true));
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(races[0].scope, RaceScope::Block);
    assert_eq!(
        (races[0].first_line, races[0].second_line),
        (Some(70), Some(71))
    );
    // A release arrive after the relaxed pair orders the write again.
    let mut again = handover(true);
    again.insert(5, cluster_barrier(0, 0, false));
    again.insert(6, cluster_barrier(0, 1, false));
    again.insert(7, cluster_barrier(0, 0, true));
    again.insert(8, cluster_barrier(0, 1, true));
    assert!(find_races(&again).is_empty(), "{:?}", find_races(&again));
}

fn meet(ev: &mut Vec<SharedEvent>, blocks: &[u32]) {
    blocks
        .iter()
        .for_each(|&b| ev.push(cluster_barrier(b, 0, false)));
    blocks
        .iter()
        .for_each(|&b| ev.push(cluster_barrier(b, 0, true)));
}

/// A remote read by `block` of its neighbour's (rank ^ 1) words 0..32 (line 61).
fn remote_read(block: u32, rank: u32) -> SharedEvent {
    let mut e = access(block, 0, Op::Read, 61, 0, 32);
    for a in e.addrs.iter_mut() {
        *a |= u64::from(rank ^ 1) << 32;
    }
    e.remote = true;
    e
}

/// Two clusters of two blocks (grid 4): each block writes its tile (line 60), the cluster
/// meets (or not), each reads its neighbour's tile, and meets again (or not) before exit.
fn neighbours(first: bool, last: bool) -> Vec<SharedEvent> {
    let mut ev = Vec::new();
    for b in 0..4 {
        ev.push(access(b, 0, Op::Write, 60, 0, 32));
    }
    if first {
        meet(&mut ev, &[0, 1, 2, 3]);
    }
    for b in 0..4 {
        ev.push(remote_read(b, b % 2));
    }
    if last {
        meet(&mut ev, &[0, 1, 2, 3]);
    }
    ev
}

fn geom() -> Option<ClusterGeom> {
    ClusterGeom::of([4, 1, 1], Some([2, 1, 1]))
}

#[test]
fn blocks_of_a_cluster_race_without_a_cluster_barrier_and_exit_hazards_are_named() {
    assert!(find_races_in(&neighbours(true, true), geom()).is_empty());
    // No barrier before the reads: each block reads what its neighbour wrote, unordered.
    let races = find_races_in(&neighbours(false, true), geom());
    assert_eq!(races.len(), 1, "{races:?}");
    let r = &races[0];
    assert_eq!((r.scope, r.kind), (RaceScope::Cluster, RaceKind::WriteRead));
    assert_eq!((r.first_line, r.second_line), (Some(60), Some(61)));
    assert_eq!(r.count, 4 * 32);
    assert!(race_why(r).contains("cluster barrier"), "{}", race_why(r));
    // No barrier after the reads: the owner may exit while its neighbour still reads.
    let races = find_races_in(&neighbours(true, false), geom());
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(races[0].scope, RaceScope::Exit);
    assert_eq!(races[0].first_line, Some(61));
    assert!(
        race_why(&races[0]).contains("may exit"),
        "{}",
        race_why(&races[0])
    );
    // Without the cluster's geometry, nothing is between blocks.
    assert!(find_races(&neighbours(false, false)).is_empty());
    // A block barrier orders nothing between blocks.
    let mut ev = neighbours(false, true);
    for b in 0..4 {
        ev.insert(4, barrier(b, 0));
    }
    assert_eq!(find_races_in(&ev, geom()).len(), 1);
}

#[test]
fn an_arrive_orders_only_what_came_before_it() {
    // Block 1 arrives, then writes its tile, then waits; block 0 arrives and waits, then
    // reads block 1's tile: block 1's write came after its arrive, so the wait orders
    // nothing, a race. Moved before the arrive, it is ordered.
    let write = access(1, 0, Op::Write, 60, 0, 32);
    let racy = vec![
        cluster_barrier(1, 0, false),
        write.clone(),
        cluster_barrier(0, 0, false),
        cluster_barrier(0, 0, true),
        remote_read(0, 0),
        cluster_barrier(1, 0, true),
    ];
    let g = ClusterGeom::of([2, 1, 1], Some([2, 1, 1]));
    let races: Vec<RaceScope> = find_races_in(&racy, g).iter().map(|r| r.scope).collect();
    assert!(races.contains(&RaceScope::Cluster), "{races:?}");
    let fine = vec![
        write,
        cluster_barrier(1, 0, false),
        cluster_barrier(0, 0, false),
        cluster_barrier(0, 0, true),
        remote_read(0, 0),
        cluster_barrier(0, 0, false),
        cluster_barrier(1, 0, true),
        cluster_barrier(1, 0, false),
        cluster_barrier(0, 0, true),
        cluster_barrier(1, 0, true),
    ];
    assert!(
        find_races_in(&fine, g).is_empty(),
        "{:?}",
        find_races_in(&fine, g)
    );
}

#[test]
fn a_cluster_geometry_places_blocks_and_ranks_both_ways() {
    let g = ClusterGeom::of([4, 6, 1], Some([2, 3, 1])).unwrap();
    for b in 0..24 {
        let (c, r) = g.place(b);
        assert!(r < 6 && c < 4, "{b}: {c} {r}");
        assert_eq!(g.block(c, r), b);
    }
    assert_eq!(ClusterGeom::of([4, 1, 1], Some([1, 1, 1])), None);
    assert_eq!(ClusterGeom::of([4, 1, 1], None), None);
}

#[test]
fn a_word_read_from_more_lines_than_are_kept_still_races_with_a_later_write() {
    // Warp 0 reads word 0 from 80 lines, then warp 1 writes it with no barrier between:
    // the lines past those kept apart must still be compared, whichever line names them.
    let mut ev: Vec<SharedEvent> = (0..80)
        .map(|k| access(0, 0, Op::Read, 100 + k, 0, 1))
        .collect();
    ev.push(access(0, 1, Op::Write, 300, 0, 1));
    let races = find_races(&ev);
    assert!(
        races.iter().any(|r| r.scope == RaceScope::Block),
        "{races:?}"
    );
    // Only the last 16 lines are warp 0's: warp 1's own reads before, from 64 lines, fill
    // the list. The write of warp 0's reads still races.
    let mut ev: Vec<SharedEvent> = (0..64)
        .map(|k| access(0, 1, Op::Read, 100 + k, 0, 1))
        .collect();
    ev.extend((0..16).map(|k| access(0, 0, Op::Read, 200 + k, 0, 1)));
    ev.push(access(0, 1, Op::Write, 300, 0, 1));
    let races = find_races(&ev);
    assert!(
        races.iter().any(|r| r.scope == RaceScope::Block),
        "{races:?}"
    );
}

/// The stencil's two warps with a `bar.sync id, threads` between write and read.
fn counted_stencil(threads: u32) -> Vec<SharedEvent> {
    stencil(true)
        .into_iter()
        .map(|mut e| {
            if e.op == Op::Barrier {
                e.op = Op::CountedBarrier(threads);
            }
            e
        })
        .collect()
}

#[test]
fn a_counted_barrier_orders_the_block_only_when_it_holds_every_warp() {
    let block = |races: &[Race]| {
        races
            .iter()
            .filter(|r| r.scope == RaceScope::Block)
            .cloned()
            .collect::<Vec<_>>()
    };
    // Two warps: 64 threads hold both (and more waits for both all the same).
    for threads in [64, 256] {
        assert!(
            block(&find_races(&counted_stencil(threads))).is_empty(),
            "{threads}"
        );
    }
    // 32 holds one warp at a time: the race stands, and the barrier is named beside it.
    let races = block(&find_races(&counted_stencil(32)));
    assert_eq!(races.len(), 1, "{races:?}");
    let p = races[0].partial_barrier.expect("the barrier named");
    assert_eq!((p.line, p.threads), (Some(12), 32));
    assert!(race_why(&races[0]).contains("`bar.sync id, 32`"));
    // Read as it is made, with the block's 4 warps known: 64 holds only half of them.
    let mut f = RaceFinder::new(Warps::All(4));
    counted_stencil(64).iter().for_each(|e| f.push(e));
    assert_eq!(block(&f.finish()).len(), 1);
    // Holding fewer warps than the block's, it still meets the lanes of the warp that
    // passes it (the whole warp executes `bar.sync`): lanes that exchange words across it
    // do not race, and without it they do.
    let exchanged = |with: Option<u32>| {
        let mut f = RaceFinder::new(Warps::All(4));
        let mut ev = exchange(None);
        if let Some(threads) = with {
            ev.insert(
                1,
                SharedEvent {
                    op: Op::CountedBarrier(threads),
                    ..barrier(0, 0)
                },
            );
        }
        ev.iter().for_each(|e| f.push(e));
        f.finish()
    };
    assert!(exchanged(Some(64)).is_empty(), "{:?}", exchanged(Some(64)));
    assert_eq!(exchanged(None).len(), 1);
}

/// `access` of the memory model's strength `opcode` names.
fn strong(block: u32, warp: u32, op: Op, line: u32, opcode: &str) -> SharedEvent {
    SharedEvent {
        order: Order::of(opcode),
        ..access(block, warp, op, line, 0, 1)
    }
}

#[test]
fn the_strength_an_opcode_names() {
    let o = Order::of("ld.acquire.cluster.shared::cta.b64");
    assert_eq!(
        (o.strong, o.acquire, o.release),
        (Some(Scope::Cluster), true, false)
    );
    let o = Order::of("st.release.cluster.shared::cluster.b64");
    assert_eq!(
        (o.strong, o.acquire, o.release),
        (Some(Scope::Cluster), false, true)
    );
    assert!(o.spans_cluster());
    assert!(!Order::of("st.relaxed.cta.shared.u32").spans_cluster());
    // An atomic with no semantics is relaxed at `.gpu` scope.
    assert_eq!(Order::of("atom.shared.add.u32").strong, Some(Scope::Gpu));
    // `shared::cluster` is a state space, not a scope; `volatile` stays plain.
    assert_eq!(Order::of("ld.shared::cluster.u32"), Order::default());
    assert_eq!(Order::of("ld.volatile.shared.u32"), Order::default());
}

#[test]
fn strong_accesses_of_two_warps_are_no_race_but_a_plain_one_beside_them_is() {
    // Warp 0 raises a flag with a release store (line 70), warp 1 polls it with acquire
    // loads (line 72), in one barrier interval.
    let flag = vec![
        strong(0, 1, Op::Read, 72, "ld.acquire.cta.shared.u32"),
        strong(0, 0, Op::Write, 70, "st.release.cta.shared.u32"),
        strong(0, 1, Op::Read, 72, "ld.acquire.cta.shared.u32"),
    ];
    assert!(find_races(&flag).is_empty(), "{:?}", find_races(&flag));
    // Polled with a plain load, the flag races both ways.
    let mut plain = flag.clone();
    plain[0].order = Order::default();
    plain[2].order = Order::default();
    let kinds: Vec<RaceKind> = find_races(&plain).iter().map(|r| r.kind).collect();
    assert!(kinds.contains(&RaceKind::ReadWrite), "{kinds:?}");
    assert!(kinds.contains(&RaceKind::WriteRead), "{kinds:?}");
    // A plain store over a strong load races too.
    let over = vec![
        strong(0, 1, Op::Read, 72, "ld.relaxed.cta.shared.u32"),
        access(0, 0, Op::Write, 70, 0, 1),
    ];
    assert_eq!(find_races(&over)[0].kind, RaceKind::ReadWrite);
    // Lanes of one warp: a release store read by acquire loads with no `__syncwarp()` is
    // a hazard, as plain ones are (nothing makes the load see the store); with the
    // `__syncwarp()`, none.
    let mut lanes = exchange(None);
    lanes[0].order = Order::of("st.release.cta.shared.u32");
    lanes[1].order = Order::of("ld.acquire.cta.shared.u32");
    let races = find_races(&lanes);
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(races[0].scope, RaceScope::Warp);
    assert!(!find_races(&exchange(None)).is_empty());
    let mut synced = exchange(Some(u32::MAX));
    synced[0].order = Order::of("st.release.cta.shared.u32");
    synced[2].order = Order::of("ld.acquire.cta.shared.u32");
    assert!(find_races(&synced).is_empty(), "{:?}", find_races(&synced));
    // A word another lane left by an atomic with no release semantics (atomicExch), read
    // relaxed: nothing orders the read after it, a hazard; raised by `atom.release` and
    // read by `ld.acquire`, a flag: none.
    let mut counter = exchange(None);
    counter[0].op = Op::Atomic;
    counter[0].order = Order::of("atom.shared.exch.b32");
    counter[1].order = Order::of("ld.relaxed.cta.shared.u32");
    assert_eq!(find_races(&counter).len(), 1, "{:?}", find_races(&counter));
    counter[0].order = Order::of("atom.release.cta.shared.exch.b32");
    counter[1].order = Order::of("ld.acquire.cta.shared.u32");
    assert!(
        find_races(&counter).is_empty(),
        "{:?}",
        find_races(&counter)
    );
}

#[test]
fn relaxed_loads_and_stores_are_nothing_ordered_between_warps_or_lanes() {
    // Warp 0 stages a word with a relaxed store (line 70), warp 1 reads it with a relaxed
    // load (line 72), no barrier: which value it sees is the schedule's choice.
    let tile = vec![
        strong(0, 0, Op::Write, 70, "st.relaxed.cta.shared.u32"),
        strong(0, 1, Op::Read, 72, "ld.relaxed.cta.shared.u32"),
    ];
    let races = find_races(&tile);
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(races[0].kind, RaceKind::WriteRead);
    // ... and the other way, a relaxed store over a relaxed load.
    let over = vec![tile[1].clone(), tile[0].clone()];
    assert_eq!(find_races(&over)[0].kind, RaceKind::ReadWrite);
    // A word left by an atomic with no release semantics and read relaxed (or with an
    // acquire) by another warp: nothing orders the load after it, a hazard. Raised by
    // `atom.release` and read by `ld.acquire`: a flag, none. Two atomics: a counter, none.
    for load in ["ld.relaxed.cta.shared.u32", "ld.acquire.cta.shared.u32"] {
        let left = vec![
            strong(0, 0, Op::Atomic, 70, "atom.shared.exch.b32"),
            strong(0, 1, Op::Read, 72, load),
        ];
        let races = find_races(&left);
        assert_eq!(races.len(), 1, "{load}: {races:?}");
        assert_eq!(races[0].kind, RaceKind::WriteRead);
    }
    let flag = vec![
        strong(0, 0, Op::Atomic, 70, "atom.release.cta.shared.exch.b32"),
        strong(0, 1, Op::Read, 72, "ld.acquire.cta.shared.u32"),
    ];
    assert!(find_races(&flag).is_empty(), "{:?}", find_races(&flag));
    let counter = vec![
        strong(0, 0, Op::Atomic, 70, "atom.shared.add.u32"),
        strong(0, 1, Op::Atomic, 72, "atom.shared.add.u32"),
    ];
    assert!(
        find_races(&counter).is_empty(),
        "{:?}",
        find_races(&counter)
    );
    // Lanes of one warp swapping words by relaxed stores and loads, no `__syncwarp()`.
    let mut lanes = exchange(None);
    lanes[0].order = Order::of("st.relaxed.cta.shared.u32");
    lanes[1].order = Order::of("ld.relaxed.cta.shared.u32");
    let races = find_races(&lanes);
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(races[0].scope, RaceScope::Warp);
    // With the `__syncwarp()`, none.
    let mut synced = exchange(Some(u32::MAX));
    synced[0].order = Order::of("st.relaxed.cta.shared.u32");
    synced[2].order = Order::of("ld.relaxed.cta.shared.u32");
    assert!(find_races(&synced).is_empty(), "{:?}", find_races(&synced));
}

/// Blocks 0 and 1 of a cluster of two hand each other a value: each writes a word of data
/// into its neighbour's memory (line 80, plain), raises the neighbour's flag (word 1, line
/// 81) with `flag_op`, then polls its own flag (line 83) with `poll_op` and reads the data
/// its neighbour left (line 84), and exits with no cluster barrier.
fn handover(flag_op: &str, poll_op: &str) -> Vec<SharedEvent> {
    let remote = |block: u32, op: Op, line: u32, word: u64, opcode: &str| {
        let mut e = strong(block, 0, op, line, opcode);
        e.addrs[0] = (u64::from(block ^ 1) << 32) | (4 * word);
        e.remote = true;
        e
    };
    let own = |block: u32, op: Op, line: u32, word: u64, opcode: &str| {
        let mut e = strong(block, 0, op, line, opcode);
        e.addrs[0] = 4 * word;
        e
    };
    let mut ev = Vec::new();
    meet(&mut ev, &[0, 1]);
    for b in 0..2 {
        ev.push(remote(b, Op::Write, 80, 0, "st.shared::cluster.u32"));
        ev.push(remote(b, Op::Write, 81, 1, flag_op));
    }
    for b in 0..2 {
        ev.push(own(b, Op::Read, 83, 1, poll_op));
        ev.push(own(b, Op::Read, 84, 0, "ld.shared.u32"));
    }
    ev
}

/// The races found as (scope, first line, second line).
fn pairs(ev: &[SharedEvent], g: Option<ClusterGeom>) -> Vec<(RaceScope, Option<u32>, Option<u32>)> {
    find_races_in(ev, g)
        .iter()
        .map(|r| (r.scope, r.first_line, r.second_line))
        .collect()
}

#[test]
fn a_release_store_read_by_an_acquire_load_orders_a_handover_between_blocks() {
    let g = ClusterGeom::of([2, 1, 1], Some([2, 1, 1]));
    let fine = handover(
        "st.release.cluster.shared::cluster.u32",
        "ld.acquire.cluster.shared.u32",
    );
    let races = find_races_in(&fine, g);
    assert!(races.is_empty(), "{races:?}");
    // A relaxed poll synchronises nothing: the data is read unordered, though the flag
    // itself is no race.
    let relaxed = handover(
        "st.release.cluster.shared::cluster.u32",
        "ld.relaxed.cluster.shared.u32",
    );
    let found = pairs(&relaxed, g);
    assert!(
        found.contains(&(RaceScope::Cluster, Some(80), Some(84))),
        "{found:?}"
    );
    assert!(!found.iter().any(|f| f.2 == Some(83)), "{found:?}");
    // And the owner may exit before the neighbour's stores land.
    assert!(found.iter().any(|f| f.0 == RaceScope::Exit), "{found:?}");
    // Scoped to the block, the flag's accesses are not strong with another block's.
    let cta = handover(
        "st.release.cta.shared::cluster.u32",
        "ld.acquire.cta.shared.u32",
    );
    let found = pairs(&cta, g);
    assert!(
        found.contains(&(RaceScope::Cluster, Some(81), Some(83))),
        "{found:?}"
    );
}

#[test]
fn relaxed_loads_and_stores_are_nothing_ordered_between_blocks_of_a_cluster() {
    let g = ClusterGeom::of([2, 1, 1], Some([2, 1, 1]));
    // Each block stores its word of data into its neighbour's memory and raises the
    // neighbour's flag, both relaxed at cluster scope, then polls its own flag and reads the
    // data, relaxed too: no barrier and no release orders anything.
    let relaxed = handover(
        "st.relaxed.cluster.shared::cluster.u32",
        "ld.relaxed.cluster.shared.u32",
    );
    let mut all = relaxed.clone();
    for e in all
        .iter_mut()
        .filter(|e| e.line == Some(80) || e.line == Some(84))
    {
        e.order = Order::of(if e.op == Op::Write {
            "st.relaxed.cluster.shared::cluster.u32"
        } else {
            "ld.relaxed.cluster.shared.u32"
        });
    }
    let found = pairs(&all, g);
    // The data and the flag both race: relaxed against relaxed is a hazard.
    assert!(
        found.contains(&(RaceScope::Cluster, Some(80), Some(84))),
        "{found:?}"
    );
    assert!(
        found.contains(&(RaceScope::Cluster, Some(81), Some(83))),
        "{found:?}"
    );
    // The data left by an atomic with no release semantics (atomicExch into the
    // neighbour's memory) and read relaxed: a hazard as well; an exchange with release
    // semantics read by an acquire is the flag handover, none.
    let mut atomic = all.clone();
    for e in atomic.iter_mut().filter(|e| e.line == Some(80)) {
        e.op = Op::Atomic;
        e.order = Order::of("atom.shared::cluster.exch.b32");
    }
    let found = pairs(&atomic, g);
    assert!(
        found.contains(&(RaceScope::Cluster, Some(80), Some(84))),
        "{found:?}"
    );
    let mut flagged = handover(
        "atom.release.cluster.shared::cluster.exch.b32",
        "ld.acquire.cluster.shared.u32",
    );
    for e in flagged.iter_mut().filter(|e| e.line == Some(81)) {
        e.op = Op::Atomic;
    }
    let found = pairs(&flagged, g);
    assert!(!found.iter().any(|f| f.2 == Some(83)), "{found:?}");
    // A release store of the flag, polled relaxed, is no race on the flag itself.
    let released = handover(
        "st.release.cluster.shared::cluster.u32",
        "ld.relaxed.cluster.shared.u32",
    );
    let found = pairs(&released, g);
    assert!(!found.iter().any(|f| f.2 == Some(83)), "{found:?}");
}

/// The stencil's two warps handing the tile over with an mbarrier of `count` arrivals a
/// phase, each warp doing `meet(warp)` where the stencil has its barrier.
fn mbarrier_stencil_by(count: u32, meet: impl Fn(u32) -> Vec<SharedEvent>) -> Vec<SharedEvent> {
    let mut init = event(0, Op::MbarInit);
    init.mask = 1;
    init.addrs[0] = u64::from(count) << 32 | 4096;
    let mut ev = vec![init];
    for e in stencil(true) {
        match e.op {
            Op::Barrier => ev.extend(meet(e.warp)),
            _ => ev.push(e),
        }
    }
    ev
}

/// An event of `warp` on the mbarrier at 4096, by the lanes of `mask`.
fn on_mbarrier(warp: u32, op: Op, mask: u32) -> SharedEvent {
    SharedEvent {
        addrs: [4096; 32],
        mask,
        ..event(warp, op)
    }
}

/// The stencil's two warps handing the tile over with an mbarrier of `count` arrivals a
/// phase: each warp arrives, then waits (`arrive` says whether they arrive at all).
fn mbarrier_stencil(count: u32, arrive: bool) -> Vec<SharedEvent> {
    mbarrier_stencil_by(count, |w| {
        let wait = on_mbarrier(w, Op::MbarWait { relaxed: false }, u32::MAX);
        match arrive {
            true => vec![
                on_mbarrier(w, Op::MbarArrive { relaxed: false }, u32::MAX),
                wait,
            ],
            false => vec![wait],
        }
    })
}

#[test]
fn an_mbarrier_that_every_thread_arrives_on_and_waits_on_orders_the_block() {
    let block = |races: Vec<Race>| -> Vec<Race> {
        races
            .into_iter()
            .filter(|r| r.scope == RaceScope::Block)
            .collect()
    };
    // Two warps, 64 arrivals a phase: each warp's wait finds every write of the other.
    assert!(block(find_races(&mbarrier_stencil(64, true))).is_empty());
    // Read as it is made too.
    let mut f = RaceFinder::new(Warps::All(2));
    mbarrier_stencil(64, true).iter().for_each(|e| f.push(e));
    assert!(block(f.finish()).is_empty());
    // 32 arrivals a phase complete it with one warp's: the race stands, and the mbarrier
    // is named beside it.
    let races = block(find_races(&mbarrier_stencil(32, true)));
    assert_eq!(races.len(), 1, "{races:?}");
    let p = races[0].partial_barrier.expect("the mbarrier named");
    assert!(p.mbarrier && p.threads == 32, "{p:?}");
    assert!(race_why(&races[0]).contains("awaits 32 arrivals"));
    // Waits by warps that never arrived order nothing: a consumer's wait is no barrier.
    assert_eq!(block(find_races(&mbarrier_stencil(64, false))).len(), 1);
    // A relaxed arrival releases nothing.
    let relaxed: Vec<SharedEvent> = (mbarrier_stencil(64, true).into_iter())
        .map(|mut e| {
            if let Op::MbarArrive { .. } = e.op {
                e.op = Op::MbarArrive { relaxed: true };
            }
            e
        })
        .collect();
    assert_eq!(block(find_races(&relaxed)).len(), 1);
}

#[test]
fn an_mbarrier_arrival_before_the_tiles_stores_releases_none_of_them() {
    // Each warp arrives first, then stores its part of the tile, then waits: the phase may
    // complete before the stores, so the reads after the wait race with them.
    let mut init = event(0, Op::MbarInit);
    init.mask = 1;
    init.addrs[0] = 64 << 32 | 4096;
    let at = |warp, op| {
        let mut x = event(warp, op);
        x.addrs = [4096; 32];
        x
    };
    let mut early = vec![init];
    let mut armed = [false; 2];
    for e in stencil(true) {
        if !armed[e.warp as usize] {
            armed[e.warp as usize] = true;
            early.push(at(e.warp, Op::MbarArrive { relaxed: false }));
        }
        match e.op {
            Op::Barrier => early.push(at(e.warp, Op::MbarWait { relaxed: false })),
            _ => early.push(e),
        }
    }
    let block = |races: Vec<Race>| races.iter().filter(|r| r.scope == RaceScope::Block).count();
    assert_eq!(block(find_races(&early)), 1);
    // Arriving after the stores, as `mbarrier_stencil` does, orders them.
    assert_eq!(block(find_races(&mbarrier_stencil(64, true))), 0);
}

/// The stencil's two warps handing the tile over with an mbarrier of `count` arrivals a
/// phase, one lane arriving for its warp after the warp meets at a `__syncwarp()` (where
/// `synced`), every lane waiting.
fn aggregated_stencil(count: u32, synced: bool) -> Vec<SharedEvent> {
    mbarrier_stencil_by(count, |w| {
        let mut ev = Vec::new();
        if synced {
            ev.push(on_mbarrier(w, Op::WarpSync, u32::MAX));
        }
        ev.push(on_mbarrier(w, Op::MbarArrive { relaxed: false }, 1));
        ev.push(on_mbarrier(w, Op::MbarWait { relaxed: false }, u32::MAX));
        ev
    })
}

#[test]
fn one_lane_arriving_for_its_warp_after_a_syncwarp_releases_the_warp() {
    let block = |r: Vec<Race>| block_scope(&r);
    // Two warps, an arrival each: every lane's wait finds the other warp's tile.
    assert!(block(find_races(&aggregated_stencil(2, true))).is_empty());
    // Without the meeting, lane 0's arrival releases its own store only.
    assert_eq!(block(find_races(&aggregated_stencil(2, false))).len(), 1);
    // One arrival a phase completes it with either warp's: the race stands, named.
    let races = block(find_races(&aggregated_stencil(1, true)));
    assert_eq!(races.len(), 1, "{races:?}");
    assert!(
        race_why(&races[0]).contains("awaits 1 arrivals"),
        "{}",
        race_why(&races[0])
    );
    // An arrival of two (`arrive state, [addr], 2`) stands for two warps: a phase of two
    // completes with it alone, so the warp that made it is not held with the other.
    let mut double = aggregated_stencil(2, true);
    for e in double.iter_mut().filter(|e| e.warp == 0) {
        if let Op::MbarArrive { .. } = e.op {
            e.addrs[0] |= 2 << 32;
        }
    }
    assert_eq!(block(find_races(&double)).len(), 1);
    // Lanes that store after the meeting are not released by lane 0's arrival, nor is
    // their wait then ordered: warp 0's last lane reads warp 1's first word unordered.
    let mut late = aggregated_stencil(2, true);
    let sync = late
        .iter()
        .position(|e| e.op == Op::WarpSync && e.warp == 0)
        .unwrap();
    let store = late
        .iter()
        .position(|e| e.op == Op::Write && e.warp == 0)
        .unwrap();
    let met = late.remove(sync);
    late.insert(store, met);
    assert_eq!(block(find_races(&late)).len(), 1);
}

/// The stencil's two warps handing the tile over with an mbarrier of two arrivals a
/// phase, lane 0 arriving and waiting for its warp, each warp doing `after(warp)` when
/// lane 0's wait is logged.
fn lane0_waits_by(after: impl Fn(u32) -> Vec<SharedEvent>) -> Vec<SharedEvent> {
    mbarrier_stencil_by(2, |w| {
        let mut ev = vec![
            on_mbarrier(w, Op::WarpSync, u32::MAX),
            on_mbarrier(w, Op::MbarArrive { relaxed: false }, 1),
            on_mbarrier(w, Op::MbarWait { relaxed: false }, 1),
        ];
        ev.extend(after(w));
        ev
    })
}

/// A `__syncwarp()` of every lane reached by the lanes of `mask` (its member mask logged).
fn syncwarp_by(warp: u32, mask: u32) -> SharedEvent {
    SharedEvent {
        addrs: [u64::from(u32::MAX); 32],
        ..on_mbarrier(warp, Op::WarpSync, mask)
    }
}

#[test]
fn one_lane_waiting_for_its_warp_hands_the_phase_on_at_a_syncwarp() {
    let block = |ev: &[SharedEvent]| block_scope(&find_races(ev)).len();
    // Lane 0 waits, then the warp meets: its acquire is every lane's.
    assert_eq!(
        block(&lane0_waits_by(|w| vec![syncwarp_by(w, u32::MAX)])),
        0
    );
    // Read as it is made too.
    let mut f = RaceFinder::new(Warps::All(2));
    lane0_waits_by(|w| vec![syncwarp_by(w, u32::MAX)])
        .iter()
        .for_each(|e| f.push(e));
    assert!(block_scope(&f.finish()).is_empty());
    // With no meeting after the wait, lanes 1-31 read the other warp's tile unordered.
    assert_eq!(block(&lane0_waits_by(|_| Vec::new())), 1);
    // Nor does a meeting before the wait hand on what the wait acquires after it.
    let before: Vec<SharedEvent> = mbarrier_stencil_by(2, |w| {
        vec![
            on_mbarrier(w, Op::WarpSync, u32::MAX),
            on_mbarrier(w, Op::MbarArrive { relaxed: false }, 1),
            syncwarp_by(w, u32::MAX),
            on_mbarrier(w, Op::MbarWait { relaxed: false }, 1),
        ]
    });
    assert_eq!(block(&before), 1);
    // On a GPU lanes 1-31 reach the sync while lane 0 still arrives and spins on its wait:
    // their record comes first, lane 0's after its wait, and the two are one meeting.
    let gpu: Vec<SharedEvent> = mbarrier_stencil_by(2, |w| {
        vec![
            on_mbarrier(w, Op::WarpSync, u32::MAX),
            syncwarp_by(w, !1),
            on_mbarrier(w, Op::MbarArrive { relaxed: false }, 1),
            on_mbarrier(w, Op::MbarWait { relaxed: false }, 1),
            syncwarp_by(w, 1),
        ]
    });
    assert_eq!(block(&gpu), 0);
    // Lanes that never arrived (none met lane 0 before its arrival) are handed nothing.
    let unarmed: Vec<SharedEvent> = mbarrier_stencil_by(2, |w| {
        vec![
            on_mbarrier(w, Op::MbarArrive { relaxed: false }, 1),
            on_mbarrier(w, Op::MbarWait { relaxed: false }, 1),
            syncwarp_by(w, u32::MAX),
        ]
    });
    assert_eq!(block(&unarmed), 1);
}

/// `bar.sync id, threads` passed by warp `warp`, its number logged by every lane.
fn numbered(block: u32, warp: u32, id: u64, threads: u32) -> SharedEvent {
    SharedEvent {
        op: Op::CountedBarrier(threads),
        addrs: [id; 32],
        ..barrier(block, warp)
    }
}

/// A halo stencil's block of four warps, each lane storing its word (line 20) and then
/// reading the word of the same lane in each neighbouring warp (line 30), the warps meeting
/// in pairs: barrier w joins warps w - 1 and w (`bar.sync w, 64`), lower pair first, in the
/// order a GPU runs them. `skip` leaves out the meeting of one pair.
fn pair_stencil(skip: Option<u64>) -> Vec<SharedEvent> {
    let mut ev: Vec<SharedEvent> = (0..4)
        .map(|w| access(0, w, Op::Write, 20, 128 * u64::from(w), 32))
        .collect();
    for id in 1..4u64 {
        if Some(id) != skip {
            ev.push(numbered(0, id as u32 - 1, id, 64));
            ev.push(numbered(0, id as u32, id, 64));
        }
    }
    for w in 0..4u32 {
        for n in [w.wrapping_sub(1), w + 1].into_iter().filter(|&n| n < 4) {
            ev.push(access(0, w, Op::Read, 30, 128 * u64::from(n), 32));
        }
    }
    ev
}

fn block_scope(races: &[Race]) -> Vec<Race> {
    (races.iter())
        .filter(|r| r.scope == RaceScope::Block)
        .cloned()
        .collect()
}

#[test]
fn warps_that_meet_in_pairs_at_barriers_of_their_own_are_ordered_pair_by_pair() {
    // Every pair meets: each warp reads only words its partners wrote before they met.
    assert!(find_races(&pair_stencil(None)).is_empty());
    // Warps 1 and 2 never meet: each reads the other's words with nothing between.
    let races = block_scope(&find_races(&pair_stencil(Some(2))));
    assert_eq!(races.len(), 1, "{races:?}");
    let r = &races[0];
    assert_eq!(
        (r.kind, r.first_line, r.second_line),
        (RaceKind::WriteRead, Some(20), Some(30))
    );
    let warps = [(r.first_warp, r.second_warp)];
    assert!(warps == [(2, 1)] || warps == [(1, 2)], "{r:?}");
    // 32 lanes of warp 1 read warp 2's words, and 32 of warp 2 warp 1's.
    assert_eq!(r.count, 64);
    // Read as made, with the block's four warps known and the kernel's barriers said.
    for (skip, races) in [(None, 0), (Some(2), 1)] {
        let mut f = RaceFinder::new(Warps::All(4)).named(true);
        pair_stencil(skip).iter().for_each(|e| f.push(e));
        assert_eq!(block_scope(&f.finish()).len(), races, "{skip:?}");
    }
}

#[test]
fn a_barrier_that_holds_some_warps_lets_them_through_in_groups_of_its_count() {
    // Four warps at `bar.sync 1, 64`: the first two to arrive go on together, then the
    // next two. Warp 1 reads warp 2's word, which it never met: a race; warp 0 reads warp
    // 1's and warp 3 warp 2's, which they met: none.
    let mut ev: Vec<SharedEvent> = (0..4)
        .map(|w| access(0, w, Op::Write, 20, 128 * u64::from(w), 32))
        .collect();
    ev.extend((0..4).map(|w| numbered(0, w, 1, 64)));
    ev.push(access(0, 0, Op::Read, 30, 128, 32));
    ev.push(access(0, 3, Op::Read, 31, 256, 32));
    ev.push(access(0, 1, Op::Read, 32, 256, 32));
    let races = block_scope(&find_races(&ev));
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!((races[0].second_line, races[0].second_warp), (Some(32), 1));
    // The barrier is named beside the race, with its count.
    let p = races[0].partial_barrier.expect("the barrier named");
    assert_eq!(p.threads, 64);
    // A later `__syncthreads()` orders the whole block again: warp 2's write after it of
    // warp 0's words meets nothing.
    ev.extend((0..4).map(|w| barrier(0, w)));
    ev.push(access(0, 2, Op::Write, 40, 0, 32));
    let after = block_scope(&find_races(&ev));
    assert!(after.iter().all(|r| r.second_line != Some(40)), "{after:?}");
    // Without it, warp 2 overwrites warp 0's words, which nothing ordered.
    let n = ev.len();
    ev.drain(n - 5..n - 1);
    let without = block_scope(&find_races(&ev));
    assert!(
        without
            .iter()
            .any(|r| (r.kind, r.second_line) == (RaceKind::WriteWrite, Some(40))),
        "{without:?}"
    );
}

/// Lane 0 of warp 0 bulk-copies 256 bytes (line 20) into shared byte 0, completing on the
/// mbarrier at 4096; then `before` (what each warp does between), and each warp reads its
/// 32 words of the copy (line 30).
fn bulk_copied(before: &[SharedEvent]) -> Vec<RaceScope> {
    let mut copy = access(0, 0, Op::BulkWrite, 20, 0, 1);
    copy.addrs[0] = 4096 << 32;
    copy.width = 256;
    let mut ev = vec![copy];
    ev.extend_from_slice(before);
    ev.push(access(0, 0, Op::Read, 30, 0, 32));
    ev.push(access(0, 1, Op::Read, 30, 128, 32));
    let mut scopes: Vec<RaceScope> = find_races(&ev).iter().map(|r| r.scope).collect();
    scopes.dedup();
    scopes
}

#[test]
fn a_bulk_copy_issued_over_bytes_another_warp_still_reads_races_with_that_read() {
    let copy = || {
        let mut c = access(0, 0, Op::BulkWrite, 20, 0, 1);
        c.addrs[0] = 4096 << 32;
        c.width = 256;
        c
    };
    // Warp 1 reads the destination before the copy is issued, in the same interval: the
    // copy may land over the words while it reads them (a GPU logs this order where the
    // reader does not wait and the issuer is slow).
    let early = vec![access(0, 1, Op::Read, 30, 128, 32), copy()];
    let races = find_races(&early);
    assert_eq!(races.len(), 1, "{races:?}");
    let r = &races[0];
    assert_eq!(
        (r.scope, r.kind, r.first_line, r.second_line),
        (RaceScope::Copy, RaceKind::ReadWrite, Some(20), Some(30))
    );
    assert_eq!((r.first_warp, r.second_warp, r.count), (0, 1, 32));
    assert!(race_why(r).contains("before the copy"), "{}", race_why(r));
    // A write there too, read as it is made.
    let mut f = RaceFinder::new(Warps::All(2));
    [access(0, 1, Op::Write, 30, 128, 32), copy()]
        .iter()
        .for_each(|e| f.push(e));
    let found = f.finish();
    assert_eq!(
        found.iter().map(|r| (r.scope, r.kind)).collect::<Vec<_>>(),
        [(RaceScope::Copy, RaceKind::WriteWrite)]
    );
    // A block barrier between the read and the issue orders them; so does the read being
    // the issuing warp's own.
    let ordered = vec![
        access(0, 1, Op::Read, 30, 128, 32),
        barrier(0, 1),
        barrier(0, 0),
        copy(),
    ];
    assert!(find_races(&ordered).is_empty());
    assert!(find_races(&[access(0, 0, Op::Read, 30, 128, 32), copy()]).is_empty());
    // Bytes past the copy's are not its.
    assert!(find_races(&[access(0, 1, Op::Read, 30, 256, 32), copy()]).is_empty());
}

/// A wait on the mbarrier at 4096 that found its phase complete for the lanes of `mask`.
fn bulk_wait(warp: u32, mask: u32) -> SharedEvent {
    SharedEvent {
        addrs: [4096; 32],
        mask,
        ..event(warp, Op::MbarWait { relaxed: false })
    }
}

#[test]
fn a_bulk_copys_bytes_are_ordered_only_for_threads_that_waited_on_its_barrier() {
    // Every lane of both warps waits: nothing races.
    let all = [bulk_wait(0, u32::MAX), bulk_wait(1, u32::MAX)];
    assert!(bulk_copied(&all).is_empty());
    // Warp 1 never waits: its reads race with the copy, the issuing warp's do not.
    assert_eq!(bulk_copied(&all[..1]), [RaceScope::Copy]);
    let mut r = find_races(&{
        let mut copy = access(0, 0, Op::BulkWrite, 20, 0, 1);
        copy.addrs[0] = 4096 << 32;
        copy.width = 256;
        vec![copy, access(0, 1, Op::Read, 30, 128, 32)]
    });
    let r = r.remove(0);
    assert_eq!(
        (r.first_line, r.second_line, r.count),
        (Some(20), Some(30), 32)
    );
    assert!(
        race_words(&r).contains("the bulk copy at line 20"),
        "{}",
        race_words(&r)
    );
    // Half of warp 1 waits: the other half races, until a `__syncwarp()` meets them.
    let half = [bulk_wait(0, u32::MAX), bulk_wait(1, 0xffff)];
    assert_eq!(bulk_copied(&half), [RaceScope::Copy]);
    let met = SharedEvent {
        mask: u32::MAX,
        ..event(1, Op::WarpSync)
    };
    assert!(bulk_copied(&[half[0].clone(), half[1].clone(), met]).is_empty());
    // One lane waits, then the block's barrier orders every warp after it.
    let one = [bulk_wait(0, 1), barrier(0, 0), barrier(0, 1)];
    assert!(bulk_copied(&one).is_empty());
    // A barrier before the wait orders nothing: the bytes had not landed.
    let early = [barrier(0, 0), barrier(0, 1), bulk_wait(0, 1)];
    assert_eq!(bulk_copied(&early), [RaceScope::Copy]);
    // A relaxed wait acquires nothing.
    let relaxed = SharedEvent {
        op: Op::MbarWait { relaxed: true },
        ..bulk_wait(0, u32::MAX)
    };
    assert_eq!(
        bulk_copied(&[relaxed, bulk_wait(1, u32::MAX)]),
        [RaceScope::Copy]
    );
    // A wait on another barrier orders nothing for this copy.
    let other = SharedEvent {
        addrs: [4104; 32],
        ..bulk_wait(0, u32::MAX)
    };
    assert_eq!(
        bulk_copied(&[other, bulk_wait(1, u32::MAX)]),
        [RaceScope::Copy]
    );
}

/// Two warps meet at an mbarrier of 64 arrivals; warp 0 reads a word of its own tile
/// (line 14), before its arrival or after it (`late`), and warp 1 overwrites that word
/// (line 16) after its wait.
fn read_then_overwritten(late: bool) -> Vec<SharedEvent> {
    let mut init = event(0, Op::MbarInit);
    init.mask = 1;
    init.addrs[0] = 64 << 32 | 4096;
    let at = |warp, op| SharedEvent {
        addrs: [4096; 32],
        ..event(warp, op)
    };
    let read = access(0, 0, Op::Read, 14, 40, 1);
    let mut ev = vec![init, access(0, 0, Op::Write, 11, 0, 32)];
    if !late {
        ev.push(read.clone());
    }
    ev.push(at(0, Op::MbarArrive { relaxed: false }));
    if late {
        ev.push(read);
    }
    ev.push(at(0, Op::MbarWait { relaxed: false }));
    ev.push(access(0, 1, Op::Write, 11, 128, 32));
    ev.push(at(1, Op::MbarArrive { relaxed: false }));
    ev.push(at(1, Op::MbarWait { relaxed: false }));
    ev.push(access(0, 1, Op::Write, 16, 40, 1));
    ev
}

#[test]
fn a_read_between_an_arrival_and_its_wait_races_with_what_the_others_write_after_theirs() {
    let block = |ev: &[SharedEvent]| block_scope(&find_races(ev));
    // Before its arrival, the read is released to warp 1's wait: no race.
    assert!(block(&read_then_overwritten(false)).is_empty());
    // After it, warp 1 may write the word while warp 0 still reads it.
    let races = block(&read_then_overwritten(true));
    assert_eq!(races.len(), 1, "{races:?}");
    assert_eq!(races[0].kind, RaceKind::ReadWrite);
    assert_eq!(
        (races[0].first_line, races[0].second_line),
        (Some(14), Some(16))
    );
    // Read as it is made too.
    let mut f = RaceFinder::new(Warps::All(2));
    read_then_overwritten(true).iter().for_each(|e| f.push(e));
    assert_eq!(
        f.finish()
            .iter()
            .filter(|r| r.scope == RaceScope::Block)
            .count(),
        1
    );
}

#[test]
fn a_thread_the_copy_landed_for_hands_it_on_through_another_barrier() {
    // Lane 0 of warp 0 waits for the copy, then arrives on the barrier at 4104, which warp 1
    // waits on without arriving: the bytes have landed for warp 1 too.
    let on = |warp, op, mask| SharedEvent {
        addrs: [4104; 32],
        mask,
        ..event(warp, op)
    };
    let relay = [
        bulk_wait(0, u32::MAX),
        on(0, Op::MbarArrive { relaxed: false }, 1),
        on(1, Op::MbarWait { relaxed: false }, u32::MAX),
    ];
    assert!(bulk_copied(&relay).is_empty());
    // An arrival before the wait carries nothing: the bytes had not landed for it.
    let early = [
        on(0, Op::MbarArrive { relaxed: false }, 1),
        bulk_wait(0, u32::MAX),
        on(1, Op::MbarWait { relaxed: false }, u32::MAX),
    ];
    assert_eq!(bulk_copied(&early), [RaceScope::Copy]);
    // Nor does a relaxed one.
    let relaxed = [
        bulk_wait(0, u32::MAX),
        on(0, Op::MbarArrive { relaxed: true }, 1),
        on(1, Op::MbarWait { relaxed: false }, u32::MAX),
    ];
    assert_eq!(bulk_copied(&relaxed), [RaceScope::Copy]);
}

#[test]
fn a_parity_wait_orders_the_copies_of_the_phase_it_found_complete_not_a_later_ones() {
    use crate::model::access::MBAR_FLAG;
    // The barrier at 4096 awaits 2 arrivals a phase; `before_copy` happens before lane 0 of
    // warp 0 arms it with 256 bytes and issues the copy (`bulk_copied`'s), and every lane
    // then waits on the parity `parity`.
    let run = |before_copy: Vec<SharedEvent>, arrivals: u64, parity: u64| {
        let mut init = event(0, Op::MbarInit);
        init.mask = 1;
        init.addrs[0] = 2 << 32 | 4096;
        let mut tx = on_mbarrier(0, Op::MbarArrive { relaxed: false }, 1);
        tx.addrs[0] = MBAR_FLAG | 256 << 32 | 4096;
        let mut plain = on_mbarrier(0, Op::MbarArrive { relaxed: false }, 1);
        plain.addrs[0] = arrivals << 32 | 4096;
        let wait = |warp| {
            let mut w = bulk_wait(warp, u32::MAX);
            if parity != NO_PARITY {
                w.addrs = [MBAR_FLAG | parity << 32 | 4096; 32];
            }
            w
        };
        let mut copy = access(0, 0, Op::BulkWrite, 20, 0, 1);
        copy.addrs[0] = 4096 << 32;
        copy.width = 256;
        let mut ev = vec![init];
        ev.extend(before_copy);
        ev.extend([tx, copy, plain, wait(0), wait(1)]);
        ev.push(access(0, 0, Op::Read, 30, 0, 32));
        ev.push(access(0, 1, Op::Read, 30, 128, 32));
        let mut scopes: Vec<RaceScope> = find_races(&ev).iter().map(|r| r.scope).collect();
        scopes.dedup();
        scopes
    };
    // The copy's own phase (0: its expect_tx and one plain arrival complete it): ordered.
    assert!(run(Vec::new(), 1, 0).is_empty());
    // Phase 0 completed by two arrivals before the copy was armed: the copy is phase 1's,
    // and a wait on parity 0 returns at once, before it lands.
    assert_eq!(run(vec![early_arrival()], 1, 0), [RaceScope::Copy]);
    // Waiting on parity 1, phase 1's: ordered.
    assert!(run(vec![early_arrival()], 1, 1).is_empty());
    // A wait that names no parity (the state-token form) is taken as ordering every phase.
    assert!(run(vec![early_arrival()], 1, NO_PARITY).is_empty());
}

/// `run`'s parity for a wait logged without one.
const NO_PARITY: u64 = u64::MAX;

fn early_arrival() -> SharedEvent {
    let mut early = on_mbarrier(0, Op::MbarArrive { relaxed: false }, 1);
    early.addrs[0] = 2 << 32 | 4096;
    early
}

#[test]
fn lanes_that_reach_a_syncwarp_apart_are_one_meeting_of_its_member_mask() {
    // Lane 0 of warp 0 waits for the copy while lanes 1-31 go on to `__syncwarp()`; lane 0
    // reaches it after its wait (on a GPU, two records). Both log the full member mask:
    // one meeting, so the bytes have landed for every lane of warp 0. Warp 1 waits itself.
    let sync = |mask: u32, members: u64| SharedEvent {
        mask,
        addrs: [members; 32],
        ..event(0, Op::WarpSync)
    };
    let apart = |members: u64| {
        bulk_copied(&[
            sync(!1, members),
            bulk_wait(0, 1),
            sync(1, members),
            bulk_wait(1, u32::MAX),
        ])
    };
    assert!(apart(u64::from(u32::MAX)).is_empty());
    // Without a member mask (a recording's), each record meets its own lanes only: lanes
    // 1-31 met before the bytes landed for lane 0, and race.
    assert_eq!(apart(0), [RaceScope::Copy]);
    // A sync whose mask leaves lane 0 out does not wait for it either.
    assert_eq!(apart(u64::from(!1u32)), [RaceScope::Copy]);
    // Lanes 0-15 sync with the full mask, the others having exited, and go on: lanes 0-7
    // write and sync, and lanes 8-15 read lane 0's word before they reach that sync. The
    // first sync is over (lanes 0-7 went on), so it holds no one for the second: a race.
    let full = u64::from(u32::MAX);
    let ev = [
        sync(0xffff, full),
        access(0, 0, Op::Write, 10, 0, 8),
        sync(0xff, full),
        SharedEvent {
            mask: 1 << 8,
            addrs: [0; 32],
            ..access(0, 0, Op::Read, 12, 0, 0)
        },
        sync(0xff00, full),
    ];
    let races = find_races(&ev);
    assert!(
        races
            .iter()
            .any(|r| r.scope == RaceScope::Warp && r.second_line == Some(12)),
        "{races:?}"
    );
}
