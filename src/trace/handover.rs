//! Whether each value handed between blocks through global memory was ordered on both
//! sides (`unfenced`): the interpreter runs one block after another, so a last block that
//! sums the others' partials always finds them there; on a GPU it finds them only where the
//! memory model says it must.
//!
//! The writer's side: a word a block stores (or updates with an atomic) must be released
//! before the block's next global atomic, of whatever scope, or release store (a flag),
//! the one a reader may wait on (the last block's ticket): by a fence of the GPU's scope (`__threadfence()`) that comes
//! after the store in the storing thread's order and before the atomic in the atomic's
//! thread's, with the atomic of the GPU's scope, or by that atomic itself made with release
//! semantics at the GPU's scope. A fence after the ticket, another lane's fence, a block's
//! or a cluster's fence or atomic, or an atomic of another warp with no barrier after the
//! store (it may come first) releases nothing for another block. A store no atomic follows
//! is handed with nothing to wait on.
//!
//! The reader's side: a plain or asynchronous load (a `cp.async`, a bulk copy) of a handed
//! word must come after a global atomic or an acquire load of the GPU's scope in the
//! reading block (it learnt the word was ready), in the loading thread's order; a non-coherent load (`ld.global.nc`,
//! `__ldg`, `ldu`) of a word written during the launch may return what its cache held. An
//! atomic that reads a word another block last stored or exchanged is judged on the
//! writer's side alone; an add into a word others add into (a counter, a bin) is ordered by
//! the word itself. An exchange or a compare-and-swap that takes a word other blocks added
//! into (a histogram's bin the last block takes) takes every add in it: each must have been
//! released before its block's atomic on a ticket the taking block made before (an atomic
//! one lane made: a thread takes a ticket, a warp adding into bins takes none), or be on
//! that ticket itself (a counter whose adds tell the last block it is last).
//!
//! A thread's order is its warp's records whose lanes hold it; between warps, the block's
//! barriers (a warp that has passed more barriers than another had at an event comes after
//! it). A word polled until it holds a flag packed with its value needs no fence, and is
//! still counted: the analysis does not follow the loop that waits.

use crate::analysis::{FastMap, FastSet};
use crate::model::access::{AccessKind, Space, words_of};
use crate::trace::decode::Record;
use crate::trace::instrument::{Event, Site};

/// Words followed at most: past it new words are not followed, so the count may miss
/// some, never invent one.
const WORDS_MAX: usize = 1 << 22;

/// Fences kept per warp, the latest: a handful is what a reduction's finish makes.
const FENCES_KEPT: usize = 16;

/// Atomics kept per warp, the latest.
const ATOMICS_KEPT: usize = 4;

/// Words a block's tickets are followed on, at most (a block takes one or two).
const ON_WORD_MAX: usize = 1 << 16;

/// The first active lane's address and width in `r` (a ticket's, taken by one lane).
fn first_lane(r: &Record) -> (u64, u32) {
    let lane = r.mask.trailing_zeros().min(31) as usize;
    (r.addrs[lane], r.width)
}

/// Other blocks' adds kept per word beneath its last writer's (a histogram's bin that
/// every block adds into before the last block takes it), and in all: past either, adds
/// are not kept, so the count may miss some, never invent one.
const ADDERS_KEPT: usize = 64;
const ADDERS_MAX: usize = 1 << 22;

#[derive(Default)]
pub struct HandoverOrder {
    /// The block that last wrote each word, its write (an index into `stamps`), and how.
    writer: FastMap<u64, (u32, u32, Write)>,
    /// The earlier adds of other blocks into a word whose last write is an add too (the
    /// block and the write): a word many blocks add into holds every add's value, and a
    /// block that takes it (an exchange) takes each of theirs, though it added last itself.
    adders: FastMap<u64, Vec<(u32, u32)>>,
    adders_kept: usize,
    /// Where each global write record stands in its block's order.
    stamps: Vec<Stamp>,
    /// Per write: not yet followed by an atomic, released before it, or not.
    released: Vec<Release>,
    /// Each traced block's barriers, fences, atomics and writes waiting for an atomic.
    blocks: FastMap<u32, Block>,
    /// Records taken in: the trace's order.
    seen: u64,
    unfenced_words: FastSet<u64>,
    /// Words handed between blocks with an order missing on either side, each once.
    pub unfenced: u64,
}

/// How a word was written: a store, an exchange (which writes what it is given, as a
/// store does), or an atomic that accumulates (an add, a max: a counter, a bin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Write {
    Store,
    Exchange,
    Accumulate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Release {
    Pending,
    Released,
    Unreleased,
}

/// Where an event stands in its block: its warp and lanes, the block barriers the warp had
/// passed, and its place in the trace.
#[derive(Debug, Clone, Copy)]
struct Stamp {
    warp: u32,
    mask: u32,
    bars: u32,
    at: u64,
}

impl Stamp {
    /// `self`'s threads each order it before `later`: each of them is in `later` (a later
    /// record of the warp), or `later`'s warp had passed a block barrier more.
    fn before_all(self, later: Stamp) -> bool {
        (self.warp == later.warp && later.at > self.at && self.mask & !later.mask == 0)
            || later.bars > self.bars
    }

    /// Each of `later`'s threads had `self` before it: each of them is in `self`.
    fn before_each(self, later: Stamp) -> bool {
        (self.warp == later.warp && later.at > self.at && later.mask & !self.mask == 0)
            || later.bars > self.bars
    }

    /// Some thread of `later`'s warp came after `self` (or a barrier between).
    fn before_any(self, later: Stamp) -> bool {
        (self.warp == later.warp && later.at > self.at) || later.bars > self.bars
    }
}

#[derive(Default)]
struct Block {
    bars: Vec<u32>,
    fences: Vec<Vec<Stamp>>,
    /// Each warp's latest global atomics of the GPU's scope (`ATOMICS_KEPT`), each with
    /// its first lane's address and width: a ticket stays known past the exchanges made
    /// after it.
    atomic: Vec<Vec<(Stamp, u64, u32)>>,
    /// The block's latest one-lane atomic of the GPU's scope on each word it made one on
    /// (its tickets), and whether it released: where a block reads a word others added
    /// into after a ticket, the adders' release is judged at their own atomic on it.
    on_word: FastMap<u64, (Stamp, bool)>,
    /// Writes (indices into `stamps`) no atomic has followed yet.
    pending: Vec<u32>,
}

impl Block {
    fn warp(&mut self, w: u32) -> usize {
        let w = w as usize;
        if self.bars.len() <= w {
            self.bars.resize(w + 1, 0);
            self.fences.resize(w + 1, Vec::new());
            self.atomic.resize(w + 1, Vec::new());
        }
        w
    }

    /// Whether a fence comes after `store` in each storing thread and before `signal` in
    /// each signalling one.
    fn fenced(&self, store: Stamp, signal: Stamp) -> bool {
        (self.fences.iter().flatten()).any(|f| store.before_all(*f) && f.before_each(signal))
    }

    /// Whether some atomic of the block comes before `load` in each loading thread.
    fn waited(&self, load: Stamp) -> bool {
        (self.atomic.iter().flatten()).any(|(a, _, _)| a.before_each(load))
    }

    /// Warp `w` made an atomic (or an acquire load) at `x`, its first lane at `(addr, width)`.
    fn atomic_at(&mut self, w: usize, x: Stamp, (addr, width): (u64, u32)) {
        let kept = &mut self.atomic[w];
        if kept.len() == ATOMICS_KEPT {
            kept.remove(0);
        }
        kept.push((x, addr, width));
    }

    /// The words of the block's atomics before `read` in each reading thread made by one
    /// lane: the tickets it may have learnt the others were done by (a thread takes a
    /// ticket; a warp's lanes adding into bins take none).
    fn tickets(&self, read: Stamp) -> Vec<u64> {
        (self.atomic.iter().flatten())
            .filter(|(a, _, _)| a.mask.count_ones() == 1)
            .filter(|(a, _, _)| a.at < read.at && a.before_each(read))
            .flat_map(|&(_, addr, width)| words_of(addr, width))
            .collect()
    }

    /// Whether the write at `s` was released before the block's atomic on `ticket`: by a
    /// fence between, or by that atomic's release. False where the block made no atomic on
    /// it after the write.
    fn released_on(&self, s: Stamp, ticket: u64) -> bool {
        self.on_word.get(&ticket).is_some_and(|&(a, releasing)| {
            (releasing && s.before_all(a)) || (s.before_any(a) && self.fenced(s, a))
        })
    }
}

/// A global access's reach and order: whether it is of the GPU's scope (an atomic's
/// default) or wider, not a block's or a cluster's; and there, whether it releases its
/// thread's accesses before it, and acquires for those after it.
fn scope(site: &Site) -> (bool, bool, bool) {
    let quals: Vec<&str> = site.op.split('.').collect();
    let wide = !quals.iter().any(|q| *q == "cta" || *q == "cluster");
    let has = |q: &str| quals.contains(&q) || quals.contains(&"acq_rel");
    (wide, wide && has("release"), wide && has("acquire"))
}

impl HandoverOrder {
    pub fn push(&mut self, r: &Record, site: &Site) {
        self.seen += 1;
        let at = self.seen;
        let b = self.blocks.entry(r.block).or_default();
        let w = b.warp(r.warp);
        let stamp = Stamp {
            warp: r.warp,
            mask: r.mask,
            bars: b.bars[w],
            at,
        };
        match site.event {
            // A block barrier; a cluster's wait is one too (its arrive comes first).
            Event::Barrier | Event::ClusterWait => {
                b.bars[w] += 1;
                return;
            }
            Event::Fence => {
                let kept = &mut b.fences[w];
                if kept.len() == FENCES_KEPT {
                    kept.remove(0);
                }
                kept.push(stamp);
                return;
            }
            _ => {}
        }
        if r.space != Space::Global {
            return;
        }
        let (wide, release, acquire) = scope(site);
        match site.kind() {
            // An acquire load of the GPU's scope is a wait, as an atomic is: it reads its
            // word itself (a flag another block raised with a release store), and what the
            // thread loads after it is ordered after what it read.
            Some(AccessKind::Load) if acquire => {
                b.atomic_at(w, stamp, first_lane(r));
                self.read(r, stamp, true, Some(Write::Exchange));
            }
            Some(AccessKind::Load | AccessKind::AsyncCopy | AccessKind::BulkCopy) => {
                // `ldu` and `ld.global.nc` (`__ldg`) read through a path that is not
                // coherent with what the launch writes.
                let coherent =
                    !site.op.starts_with("ldu") && !site.op.split('.').any(|q| q == "nc");
                let waited = coherent && b.waited(stamp);
                self.read(r, stamp, waited, None);
            }
            // A release store of the GPU's scope is a signal, as an atomic is (a flag), and
            // its own word is released by it.
            Some(AccessKind::Store) if release => {
                self.signal(r, stamp, (wide, true));
                let k = self.write(r, stamp, Write::Store, false);
                self.released[k as usize] = Release::Released;
            }
            Some(AccessKind::Store) => {
                self.write(r, stamp, Write::Store, true);
            }
            Some(k) if k.is_atomic() => {
                self.signal(r, stamp, (wide, release));
                // An exchange or a compare-and-swap takes the word's value; an add, a max
                // accumulates into it.
                let how = match site.is_exchange() || site.op.split('.').any(|q| q == "cas") {
                    true => Write::Exchange,
                    false => Write::Accumulate,
                };
                self.read(r, stamp, true, Some(how));
                self.write(r, stamp, how, true);
            }
            _ => {}
        }
    }

    /// A global atomic at `x` (`wide`: of the GPU's scope; `releasing`: with release
    /// semantics there): a reader may wait on it, whatever its scope, so each write of the
    /// block not yet followed by one is released by now or never: by a fence between, in
    /// the writing and the signalling threads' order, or by `x` itself. A write `x` is not
    /// ordered after (another warp's, no barrier between) may come after it.
    fn signal(&mut self, r: &Record, x: Stamp, (wide, releasing): (bool, bool)) {
        let Some(b) = self.blocks.get_mut(&r.block) else {
            return;
        };
        let w = b.warp(x.warp);
        if wide {
            b.atomic_at(w, x, first_lane(r));
            // Only one lane's atomics can be tickets (`Block::tickets`), and only a
            // ticket's word is looked up: a warp adding into bins keeps nothing here.
            if r.mask.count_ones() == 1 {
                for word in words_of(first_lane(r).0, r.width) {
                    if b.on_word.len() < ON_WORD_MAX || b.on_word.contains_key(&word) {
                        b.on_word.insert(word, (x, releasing));
                    }
                }
            }
        }
        for k in std::mem::take(&mut b.pending) {
            let s = self.stamps[k as usize];
            let by_itself = releasing && s.before_all(x);
            let fenced = wide && s.before_any(x) && b.fenced(s, x);
            self.released[k as usize] = match by_itself || fenced {
                true => Release::Released,
                false => Release::Unreleased,
            };
        }
    }

    /// A write of `r`'s words (`pending`: released or not by the block's next atomic);
    /// its index in `stamps`.
    fn write(&mut self, r: &Record, stamp: Stamp, how: Write, pending: bool) -> u32 {
        let k = self.stamps.len() as u32;
        self.stamps.push(stamp);
        self.released.push(Release::Pending);
        if let (Some(b), true) = (self.blocks.get_mut(&r.block), pending) {
            b.pending.push(k);
        }
        for lane in (0..32).filter(|l| r.mask >> l & 1 == 1) {
            for word in words_of(r.addrs[lane], r.width) {
                if self.writer.len() < WORDS_MAX || self.writer.contains_key(&word) {
                    let before = self.writer.insert(word, (r.block, k, how));
                    match (how, before) {
                        (Write::Accumulate, Some((from, j, Write::Accumulate)))
                            if from != r.block =>
                        {
                            let list = self.adders.entry(word).or_default();
                            if list.len() < ADDERS_KEPT && self.adders_kept < ADDERS_MAX {
                                list.push((from, j));
                                self.adders_kept += 1;
                            }
                        }
                        (Write::Accumulate, _) => {}
                        // A store or an exchange replaces what the adds left.
                        _ => {
                            let gone = self.adders.remove(&word).map_or(0, |l| l.len());
                            self.adders_kept -= gone;
                        }
                    }
                }
            }
        }
        k
    }

    fn count_unfenced(&mut self, word: u64) {
        if self.unfenced_words.len() < WORDS_MAX && self.unfenced_words.insert(word) {
            self.unfenced += 1;
        }
    }

    /// A read of `r`'s words at `stamp` (`waited`: after an atomic of its block,
    /// coherently; `atomic`: by an atomic, which reads the word itself, and how). An add's
    /// read of a word others add into (a counter, a bin) is the accumulation's own order,
    /// not a handover. A word other blocks added into holds every add in it (a histogram's
    /// bin the last block takes): where the reading block took tickets before (atomics one
    /// lane made), each add must have been released before its block's atomic on one of
    /// them, or be on a ticket itself (a counter whose adds tell the last block it is last:
    /// their own order); without a ticket, as each write's release was judged when the
    /// block's next atomic came.
    fn read(&mut self, r: &Record, stamp: Stamp, waited: bool, atomic: Option<Write>) {
        let tickets = (self.blocks.get(&r.block)).map_or_else(Vec::new, |b| b.tickets(stamp));
        for lane in (0..32).filter(|l| r.mask >> l & 1 == 1) {
            for word in words_of(r.addrs[lane], r.width) {
                let Some(&(from, k, how)) = self.writer.get(&word) else {
                    continue;
                };
                if atomic == Some(Write::Accumulate) && how == Write::Accumulate {
                    continue;
                }
                // The last write, and beneath an add the other blocks' adds before it.
                let earlier = self.adders.get(&word).map_or(&[][..], Vec::as_slice);
                let mut writes = std::iter::once((from, k))
                    .chain(earlier.iter().copied())
                    .filter(|&(from, _)| from != r.block);
                let coherent = atomic.is_some() || waited;
                let unordered = match how == Write::Accumulate && !tickets.is_empty() {
                    true if tickets.contains(&word) => false,
                    true => writes.any(|(from, k)| {
                        let s = self.stamps[k as usize];
                        let b = self.blocks.get(&from);
                        let released = |t: &u64| b.is_some_and(|b| b.released_on(s, *t));
                        !coherent || !tickets.iter().any(released)
                    }),
                    false => writes.any(|(_, k)| match self.released[k as usize] {
                        Release::Released => !coherent,
                        Release::Unreleased => true,
                        // Nothing followed it: an atomic's word holds its own value,
                        // whoever reads it (a counter polled); a store's was handed with
                        // nothing for the reader to wait on.
                        Release::Pending => how == Write::Store,
                    }),
                };
                if unordered {
                    self.count_unfenced(word);
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "handover_tests.rs"]
mod tests;
