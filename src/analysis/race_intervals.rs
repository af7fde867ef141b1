//! What the race analysis keeps of one block's barrier interval: for each 4-byte word of
//! shared memory, the source lines and warps that read and wrote it so far, and the reads
//! that came before the interval's first write.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::race_events::{Op, SharedEvent};

/// Source lines kept apart per word and per direction; a word touched from more lines than
/// this in one interval has the later lines' warps folded into the last one kept, so that
/// they are still compared (a race is never lost behind many lines, though it may be named
/// by a line kept in their place).
const KEEP: usize = 64;

/// The earlier accesses of a word from one source line: for each of its 4 bytes, the warps
/// that touched it (a block has at most 32 warps).
#[derive(Clone, Copy)]
pub(super) struct Touch {
    pub(super) line: Option<u32>,
    pub(super) warps: [u32; 4],
}

/// Vector clocks of 32 threads (lanes of a warp, or warps of a block), each at its own
/// first step and having seen none of the others'.
pub(super) fn first_steps() -> Box<[[u32; 32]; 32]> {
    let mut clock = Box::new([[0u32; 32]; 32]);
    for (t, row) in clock.iter_mut().enumerate() {
        row[t] = 1;
    }
    clock
}

pub(super) fn warp_bit(warp: u32) -> u32 {
    1 << (warp % 32)
}

/// The touches of a word in one direction: nearly always one or two source lines, kept
/// inline (a GEMM interval makes thousands of these, and a heap list each was half the
/// analysis' time).
#[derive(Default)]
pub(super) struct Touches {
    inline: [Option<Touch>; 2],
    more: Vec<Touch>,
}

impl Touches {
    pub(super) fn iter(&self) -> impl Iterator<Item = &Touch> {
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
pub(super) struct WordState {
    pub(super) writes: Touches,
    pub(super) reads: Touches,
    /// Release stores and atomics with release semantics: no hazard with each other or
    /// with strong loads, a write to plain accesses.
    pub(super) atomics: Touches,
    /// Atomics with no release semantics (`atom`, `red` as CUDA's atomicAdd and
    /// atomicExch make them): no hazard with each other, but, as a relaxed store, nothing
    /// that orders a load of another warp after them: a hazard with plain and strong loads.
    pub(super) relaxed_atomics: Touches,
    /// Strong loads (`ld.acquire`): no hazard with the strong writes.
    pub(super) strong_reads: Touches,
    /// Relaxed loads and stores (`ld.relaxed`, `st.relaxed`: strong, with no acquire or
    /// release): no hazard with atomics, acquires or releases, but a hazard with each
    /// other (`Order::relaxed`).
    pub(super) relaxed_reads: Touches,
    pub(super) relaxed_writes: Touches,
}

/// A multiplicative hash for the word map: its keys are small integers made here, not
/// input anyone chooses, and the default hasher made large traces slow.
#[derive(Default)]
pub(crate) struct WordHasher(u64);

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

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;
pub(crate) type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<WordHasher>>;

/// Words below this are found by index, not hashed: a block's shared memory is at most a
/// few hundred KiB, and a GEMM interval looks up a word for every lane of every request.
const DENSE_WORDS: u64 = 1 << 17;

/// The words of one block's barrier interval, each one's state in `states`, found through
/// `slots` (its index + 1; 0 for none yet) or, far up, the hash map.
#[derive(Default)]
pub(super) struct WordMap {
    slots: Vec<u32>,
    states: Vec<WordState>,
    far: FastMap<u64, WordState>,
}

/// Reads an interval keeps aside before its first write, at most.
pub(super) const UNWRITTEN: usize = 1 << 14;

/// One block's barrier interval: its words, and the reads that came before any write.
#[derive(Default)]
pub(super) struct Interval {
    pub(super) words: WordMap,
    pub(super) written: bool,
    pub(super) unwritten: Vec<SharedEvent>,
}

impl Interval {
    /// Remember the reads kept aside, in their order: with no write before them, checking
    /// them would have found nothing.
    pub(super) fn remember_unwritten(&mut self, request: &mut Vec<(u64, u8, u32)>) {
        for e in self.unwritten.drain(..) {
            request_words(&e, request);
            for &(word, bytes, _) in request.iter() {
                remember(self.words.entry(word), &e, bytes);
            }
        }
    }
}

impl WordMap {
    pub(super) fn entry(&mut self, word: u64) -> &mut WordState {
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

/// The 4-byte words each lane of a request touches, each with a mask of its bytes and the
/// number of lanes in a row that ask for it, in `out`. Lanes asking for the same word are
/// each an access: a broadcast read of another warp's unsynchronised write is that many
/// hazards.
pub(super) fn request_words(e: &SharedEvent, out: &mut Vec<(u64, u8, u32)>) {
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

pub(super) fn remember(state: &mut WordState, e: &SharedEvent, bytes: u8) {
    let strong = e.order.strong.is_some();
    let relaxed = e.order.relaxed() && e.op != Op::Atomic;
    let list = match e.op {
        Op::Read if relaxed => &mut state.relaxed_reads,
        Op::Write if relaxed => &mut state.relaxed_writes,
        Op::Read if strong => &mut state.strong_reads,
        Op::Read => &mut state.reads,
        Op::Write if strong => &mut state.atomics,
        Op::Write => &mut state.writes,
        Op::Atomic if !e.order.release => &mut state.relaxed_atomics,
        Op::Atomic => &mut state.atomics,
        // A copy's write is pushed as a plain write (`RaceFinder::push`); the group events
        // touch no word.
        Op::CopyWrite => &mut state.writes,
        Op::Barrier
        | Op::CountedBarrier(_)
        | Op::CopyCommit
        | Op::CopyWait { .. }
        | Op::WarpSync
        | Op::ClusterArrive
        | Op::ClusterArriveRelaxed
        | Op::ClusterWait
        | Op::MbarInit
        | Op::MbarArrive { .. }
        | Op::MbarWait { .. }
        | Op::BulkWrite => return,
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
    } else if let Some(last) = list.iter_mut().last() {
        for (have, new) in last.warps.iter_mut().zip(warps) {
            *have |= new;
        }
    }
}
