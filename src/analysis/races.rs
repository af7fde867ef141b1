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

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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

/// Source lines kept per word and per direction; a word touched from more lines than this
/// in one interval is compared with the first ones only.
const KEEP: usize = 64;

/// The earlier accesses of a word from one source line: for each of its 4 bytes, the warps
/// that touched it (a block has at most 32 warps).
#[derive(Clone, Copy)]
struct Touch {
    line: Option<u32>,
    warps: [u32; 4],
}

fn warp_bit(warp: u32) -> u32 {
    1 << (warp % 32)
}

/// The touches of a word in one direction: nearly always one or two source lines, kept
/// inline (a GEMM interval makes thousands of these, and a heap list each was half the
/// analysis' time).
#[derive(Default)]
struct Touches {
    inline: [Option<Touch>; 2],
    more: Vec<Touch>,
}

impl Touches {
    fn iter(&self) -> impl Iterator<Item = &Touch> {
        self.inline.iter().flatten().chain(&self.more)
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut Touch> {
        self.inline.iter_mut().flatten().chain(&mut self.more)
    }

    fn len(&self) -> usize {
        self.inline.iter().flatten().count() + self.more.len()
    }

    fn push(&mut self, t: Touch) {
        match self.inline.iter_mut().find(|s| s.is_none()) {
            Some(slot) => *slot = Some(t),
            None => self.more.push(t),
        }
    }
}

#[derive(Default)]
struct WordState {
    writes: Touches,
    reads: Touches,
}

type Key = (RaceKind, Option<u32>, Option<u32>);

/// A multiplicative hash for the word map: its keys are small integers made here, not
/// input anyone chooses, and the default hasher made large traces slow.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// Words below this are found by index, not hashed: a block's shared memory is at most a
/// few hundred KiB, and a GEMM interval looks up a word for every lane of every request.
const DENSE_WORDS: u64 = 1 << 17;

/// The words of one block's barrier interval, each one's state in `states`, found through
/// `slots` (its index + 1; 0 for none yet) or, far up, the hash map.
#[derive(Default)]
struct WordMap {
    slots: Vec<u32>,
    states: Vec<WordState>,
    far: FastMap<u64, WordState>,
}

/// Reads an interval keeps aside before its first write, at most.
const UNWRITTEN: usize = 1 << 14;

/// One block's barrier interval: its words, and the reads that came before any write.
#[derive(Default)]
struct Interval {
    words: WordMap,
    written: bool,
    unwritten: Vec<SharedEvent>,
}

impl Interval {
    /// Remember the reads kept aside, in their order: with no write before them, checking
    /// them would have found nothing.
    fn remember_unwritten(&mut self, request: &mut Vec<(u64, u8, u32)>) {
        for e in self.unwritten.drain(..) {
            request_words(&e, request);
            for &(word, bytes, _) in request.iter() {
                remember(self.words.entry(word), &e, bytes);
            }
        }
    }
}

impl WordMap {
    fn entry(&mut self, word: u64) -> &mut WordState {
        if word >= DENSE_WORDS {
            return self.far.entry(word).or_default();
        }
        let w = word as usize;
        if w >= self.slots.len() {
            self.slots.resize((w + 1).next_power_of_two(), 0);
        }
        if self.slots[w] == 0 {
            self.states.push(WordState::default());
            self.slots[w] = self.states.len() as u32;
        }
        &mut self.states[self.slots[w] as usize - 1]
    }
}

/// Barriers each lane of a warp has passed, and the lanes seen at all. Counted per lane: a
/// warp that reaches a barrier diverged (lanes 8-31 straight on, lanes 0-7 after a branch
/// that stores a halo) logs it once per group, and only each group's own lanes pass it.
#[derive(Default, Clone, Copy)]
struct Lanes {
    passed: [u32; 32],
    seen: u32,
}

impl Lanes {
    /// The interval a request of `mask` falls in: its first active lane's.
    fn interval(&self, mask: u32) -> u32 {
        self.passed[mask.trailing_zeros().min(31) as usize]
    }

    /// The interval every seen lane of the warp is past.
    fn all_past(&self) -> u32 {
        (0..32)
            .filter(|l| self.seen >> l & 1 == 1)
            .map(|l| self.passed[l])
            .min()
            .unwrap_or(0)
    }
}

/// Every hazard of the events, one per kind and pair of lines, the most frequent first.
pub fn find_races(events: &[SharedEvent]) -> Vec<Race> {
    let mut f = RaceFinder::new(Warps::Touched(warps_of_blocks(events)));
    events.iter().for_each(|e| f.push(e));
    f.finish()
}

/// The warps an interval waits for before it is dropped (no access can join it then).
pub enum Warps {
    /// Those of each block that touch shared memory, known beforehand (a whole trace).
    Touched(HashMap<u32, Vec<u32>>),
    /// All of a block's warps, `0..n` (a trace read as it is made). A warp that ends early
    /// keeps its intervals alive: more memory, the same races.
    All(u32),
}

/// The race analysis, fed one event at a time in the trace's order.
pub struct RaceFinder {
    warps: Warps,
    epochs: FastMap<(u32, u32), Lanes>,
    intervals: FastMap<(u32, u32), Interval>,
    found: HashMap<Key, Race>,
    request: Vec<(u64, u8, u32)>,
    met: Vec<Race>,
}

impl RaceFinder {
    pub fn new(warps: Warps) -> RaceFinder {
        RaceFinder {
            warps,
            epochs: FastMap::default(),
            intervals: FastMap::default(),
            found: HashMap::new(),
            request: Vec::with_capacity(128),
            met: Vec::new(),
        }
    }

    fn racing(&self, block: u32) -> bool {
        match &self.warps {
            Warps::Touched(w) => w.get(&block).is_some_and(|w| w.len() > 1),
            Warps::All(n) => *n > 1,
        }
    }

    pub fn push(&mut self, e: &SharedEvent) {
        if !self.racing(e.block) {
            return;
        }
        let lanes = self.epochs.entry((e.block, e.warp)).or_default();
        lanes.seen |= e.mask;
        if e.op == Op::Barrier {
            let before = lanes.all_past();
            for l in (0..32).filter(|l| e.mask >> l & 1 == 1) {
                lanes.passed[l] += 1;
            }
            if lanes.all_past() == before {
                return;
            }
            let past =
                |w: u32| (self.epochs.get(&(e.block, w))).is_some_and(|k| k.all_past() > before);
            let done = match &self.warps {
                Warps::Touched(w) => w.get(&e.block).is_some_and(|w| w.iter().all(|&w| past(w))),
                Warps::All(n) => (0..*n).all(past),
            };
            if done {
                self.intervals.remove(&(e.block, before));
            }
            return;
        }
        let epoch = lanes.interval(e.mask);
        let iv = self.intervals.entry((e.block, epoch)).or_default();
        if e.op == Op::Read && !iv.written {
            // Nothing written yet, so nothing for it to race with: kept aside until a write
            // comes, which it may race with (most intervals of a tiled kernel only read).
            iv.unwritten.push(e.clone());
            if iv.unwritten.len() >= UNWRITTEN {
                iv.remember_unwritten(&mut self.request);
            }
            return;
        }
        if !iv.written {
            iv.written = true;
            iv.remember_unwritten(&mut self.request);
        }
        request_words(e, &mut self.request);
        for &(word, bytes, times) in &self.request {
            let state = iv.words.entry(word);
            check(state, e, word, bytes, times, &mut self.met);
            remember(state, e, bytes);
        }
        merge(&mut self.found, &mut self.met);
    }

    pub fn finish(self) -> Vec<Race> {
        let mut races: Vec<Race> = self.found.into_values().collect();
        races.sort_by(|a, b| b.count.cmp(&a.count).then(key_of(a).cmp(&key_of(b))));
        races
    }
}

/// The warps of each block that touched shared memory; only where there are two or more
/// can warps race.
fn warps_of_blocks(events: &[SharedEvent]) -> HashMap<u32, Vec<u32>> {
    let mut warps: HashMap<u32, Vec<u32>> = HashMap::new();
    for e in events.iter().filter(|e| e.op != Op::Barrier) {
        let w = warps.entry(e.block).or_default();
        if !w.contains(&e.warp) {
            w.push(e.warp);
        }
    }
    warps
}

/// The 4-byte words each lane of a request touches, each with a mask of its bytes and the
/// number of lanes in a row that ask for it, in `out`. Lanes asking for the same word are
/// each an access: a broadcast read of another warp's unsynchronised write is that many
/// hazards.
fn request_words(e: &SharedEvent, out: &mut Vec<(u64, u8, u32)>) {
    out.clear();
    for (lane, &a) in e.addrs.iter().enumerate() {
        if e.mask & (1 << lane) == 0 {
            continue;
        }
        let end = a + u64::from(e.width);
        for word in a / 4..end.div_ceil(4) {
            // The bytes of this word inside [a, end).
            let lo = a.max(word * 4) - word * 4;
            let hi = end.min(word * 4 + 4) - word * 4;
            let bytes = ((1u8 << hi) - 1) & !((1u8 << lo) - 1);
            // Neighbouring lanes often read one word (a broadcast): compared once, counted
            // for each.
            match out.last_mut() {
                Some((w, b, n)) if *w == word && *b == bytes => *n += 1,
                _ => out.push((word, bytes, 1)),
            }
        }
    }
}

/// Compare an access with the earlier ones of its word and interval by other warps; what
/// it meets goes to `met`, the request's own tally, merged into the whole once a request.
fn check(
    state: &WordState,
    e: &SharedEvent,
    word: u64,
    bytes: u8,
    times: u32,
    met: &mut Vec<Race>,
) {
    let against: &[(&Touches, RaceKind)] = match e.op {
        Op::Read => &[(&state.writes, RaceKind::WriteRead)],
        Op::Write => &[
            (&state.writes, RaceKind::WriteWrite),
            (&state.reads, RaceKind::ReadWrite),
        ],
        Op::Barrier => &[],
    };
    // One access counts once per pair of lines, however many warps it met there.
    let me = warp_bit(e.warp);
    for &(touches, kind) in against {
        for t in touches.iter() {
            let others = (0..4)
                .filter(|b| bytes & (1 << b) != 0)
                .fold(0, |acc, b| acc | (t.warps[b] & !me));
            if others == 0 {
                continue;
            }
            let key = (kind, t.line, e.line);
            match met.iter_mut().find(|r| key_of(r) == key) {
                Some(r) => r.count += u64::from(times),
                None => met.push(Race {
                    kind,
                    first_line: t.line,
                    second_line: e.line,
                    block: e.block,
                    offset: word * 4,
                    first_warp: others.trailing_zeros(),
                    second_warp: e.warp,
                    count: u64::from(times),
                }),
            }
        }
    }
}

fn key_of(r: &Race) -> Key {
    (r.kind, r.first_line, r.second_line)
}

/// Add a request's tally to the races found so far; the first example of each stays.
fn merge(found: &mut HashMap<Key, Race>, met: &mut Vec<Race>) {
    for r in met.drain(..) {
        found
            .entry(key_of(&r))
            .and_modify(|f| f.count += r.count)
            .or_insert(r);
    }
}

fn remember(state: &mut WordState, e: &SharedEvent, bytes: u8) {
    let list = match e.op {
        Op::Read => &mut state.reads,
        Op::Write => &mut state.writes,
        Op::Barrier => return,
    };
    let mut warps = [0; 4];
    for (b, w) in warps.iter_mut().enumerate() {
        if bytes & (1 << b) != 0 {
            *w = warp_bit(e.warp);
        }
    }
    if let Some(t) = list.iter_mut().find(|t| t.line == e.line) {
        for (have, new) in t.warps.iter_mut().zip(warps) {
            *have |= new;
        }
    } else if list.len() < KEEP {
        list.push(Touch {
            line: e.line,
            warps,
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
