//! Shared-memory races, found in a trace with no profiler: a word of a block's shared memory
//! that one warp writes and another warp reads or writes within the same barrier interval.
//!
//! Each warp counts the barriers it has passed; its accesses between its k-th and (k+1)-th
//! barrier fall in interval k of its block. When every warp of a block passes the same
//! barriers (the `__syncthreads()` case), interval k is the same stretch of time for all of
//! them, so two accesses of one interval by two warps have no barrier between them, and
//! nothing orders them. Warps that take part in different named barriers would be compared
//! by count all the same; the lessons use block-wide ones.
//!
//! The trace's order across warps is the order the accesses ran in on this run, so the kind
//! (write then read, read then write, write then write) says which came first here; on
//! another run it may be the other way round, which is the race. Accesses by one warp are
//! never a hazard with each other. Atomics are not traced, so they take no part: an atomic
//! update is neither a read nor a write here.

use std::collections::{BTreeMap, HashMap};

use crate::model::results::{Race, RaceKind};

/// What one warp did, in its own order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    Barrier,
}

/// One warp's step: a shared-memory request of its active lanes, or a barrier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedEvent {
    pub block: u32,
    pub warp: u32,
    pub op: Op,
    /// The source line of the instruction.
    pub line: Option<u32>,
    pub mask: u32,
    /// Bytes per lane; 0 for a barrier.
    pub width: u32,
    /// Per lane: the byte offset in the block's shared memory.
    pub addrs: [u64; 32],
}

/// Earlier touches kept per word and per direction: enough for a word every warp of a
/// 1024-thread block reads from two lines, bounded for kernels that read one word a lot.
const KEEP: usize = 64;

/// An earlier access of a word: who, from which line, and which of its 4 bytes.
#[derive(Clone, Copy)]
struct Touch {
    warp: u32,
    line: Option<u32>,
    bytes: u8,
}

#[derive(Default)]
struct WordState {
    writes: Vec<Touch>,
    reads: Vec<Touch>,
}

type Key = (RaceKind, Option<u32>, Option<u32>);

/// Every hazard of the events, one per kind and pair of lines, the most frequent first.
pub fn find_races(events: &[SharedEvent]) -> Vec<Race> {
    let mut epochs: HashMap<(u32, u32), u32> = HashMap::new();
    let mut words: HashMap<(u32, u32, u64), WordState> = HashMap::new();
    let mut found: HashMap<Key, Race> = HashMap::new();
    for e in events {
        let epoch = epochs.entry((e.block, e.warp)).or_default();
        if e.op == Op::Barrier {
            *epoch += 1;
            continue;
        }
        let epoch = *epoch;
        for (word, bytes) in request_words(e) {
            let state = words.entry((e.block, epoch, word)).or_default();
            check(state, e, word, bytes, &mut found);
            remember(state, e, bytes);
        }
    }
    let mut races: Vec<Race> = found.into_values().collect();
    races.sort_by(|a, b| {
        let order = |r: &Race| (r.kind, r.first_line, r.second_line);
        b.count.cmp(&a.count).then(order(a).cmp(&order(b)))
    });
    races
}

/// The 4-byte words a request touches, each with a mask of its bytes; lanes of one request
/// asking for the same word count once.
fn request_words(e: &SharedEvent) -> BTreeMap<u64, u8> {
    let mut words = BTreeMap::new();
    for (lane, &a) in e.addrs.iter().enumerate() {
        if e.mask & (1 << lane) == 0 || e.width == 0 {
            continue;
        }
        for byte in a..a + u64::from(e.width) {
            *words.entry(byte / 4).or_insert(0u8) |= 1 << (byte % 4);
        }
    }
    words
}

/// Compare an access with the earlier ones of its word and interval by other warps.
fn check(
    state: &WordState,
    e: &SharedEvent,
    word: u64,
    bytes: u8,
    found: &mut HashMap<Key, Race>,
) {
    let against: &[(&[Touch], RaceKind)] = match e.op {
        Op::Read => &[(&state.writes, RaceKind::WriteRead)],
        Op::Write => &[
            (&state.writes, RaceKind::WriteWrite),
            (&state.reads, RaceKind::ReadWrite),
        ],
        Op::Barrier => &[],
    };
    // One access counts once per pair of lines, however many warps it met there.
    let mut seen: Vec<Key> = Vec::new();
    for &(touches, kind) in against {
        for t in touches
            .iter()
            .filter(|t| t.warp != e.warp && t.bytes & bytes != 0)
        {
            let key = (kind, t.line, e.line);
            if seen.contains(&key) {
                continue;
            }
            seen.push(key);
            found
                .entry(key)
                .or_insert_with(|| Race {
                    kind,
                    first_line: t.line,
                    second_line: e.line,
                    block: e.block,
                    offset: word * 4,
                    first_warp: t.warp,
                    second_warp: e.warp,
                    count: 0,
                })
                .count += 1;
        }
    }
}

fn remember(state: &mut WordState, e: &SharedEvent, bytes: u8) {
    let list = match e.op {
        Op::Read => &mut state.reads,
        Op::Write => &mut state.writes,
        Op::Barrier => return,
    };
    if let Some(t) = list
        .iter_mut()
        .find(|t| t.warp == e.warp && t.line == e.line)
    {
        t.bytes |= bytes;
    } else if list.len() < KEEP {
        list.push(Touch {
            warp: e.warp,
            line: e.line,
            bytes,
        });
    }
}

/// The race in words: "line 14 reads what line 11 writes".
pub fn race_words(r: &Race) -> String {
    let line = |l: Option<u32>| l.map_or("an unknown line".to_string(), |l| format!("line {l}"));
    let (a, b) = (line(r.first_line), line(r.second_line));
    match r.kind {
        RaceKind::WriteRead => format!("{b} reads what {a} writes"),
        RaceKind::ReadWrite => format!("{b} writes what {a} reads"),
        RaceKind::WriteWrite if r.first_line == r.second_line => {
            format!("{a} writes one word from two warps")
        }
        RaceKind::WriteWrite => format!("{a} and {b} write the same word"),
    }
}

#[cfg(test)]
#[path = "races_tests.rs"]
mod tests;
