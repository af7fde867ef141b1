//! Global words that two traced blocks both store to with plain stores. Blocks run in no
//! order the kernel can rely on, so such a word holds whichever store came last: a merge
//! into global memory made with a load and a store instead of an atomic loses updates on a
//! GPU (where blocks run at once), while the interpreter, running blocks one after another,
//! gets the right sum. An exchange (`atom.exch`) counts as a store: it writes what it is
//! given whatever the word held, so a plain load and an exchange of the sum lose updates
//! as a load and a store do. So does an atomic or a reduction scoped to the block
//! (`atom.cta`, `red.cta`: CUDA's atomicAdd_block): it is atomic only among the block's own
//! threads, so two blocks' updates of one global word may both read the same old value.
//! Other atomics and reductions are left out.
//!
//! The words a block loads plainly after another block stored them are counted too
//! (`handed`): a value handed between blocks through global memory. A handover's load
//! comes after its store in the trace's order (the loading block waits for it); a load
//! before the store is a race, counted by neither.
//!
//! A handover is safe only where the storing block released the value before it signalled
//! (`unfenced`): a fence of the GPU's scope (`__threadfence()`) after the store and before
//! the block's global atomic that the reader waits on (the last block's ticket), or that
//! atomic made with release semantics itself. Without it the GPU may make the atomic seen
//! before the store, and the last block sums a stale partial; the interpreter, running one
//! block after another, gets the right sum, so only the order of the events tells. The
//! order within a block is the warp's own and the block's barriers (a warp that has passed
//! more barriers than another had at an event comes after it); lanes of one warp are taken
//! as one. A cluster's arrive (which releases at the cluster's scope) counts as a release
//! too, so a handover between blocks of one cluster is not called unfenced.

use crate::analysis::FastMap;
use crate::model::access::{AccessKind, Space, words_of};
use crate::trace::decode::Record;
use crate::trace::instrument::{Event, Site};

/// Words followed at most: past it new words are not followed (a copy's traced blocks
/// store far fewer), so the count may miss some, never invent one.
const WORDS_MAX: usize = 1 << 22;

/// A word two blocks have stored to: counted, and not counted again.
const SHARED_BY_BLOCKS: u32 = u32::MAX;

#[derive(Default)]
pub struct CrossBlockStores {
    /// The block that stored each word first (or `SHARED_BY_BLOCKS`), and where its last
    /// store of it stands in the block's order (an index into `stamps`).
    owner: FastMap<u64, (u32, u32)>,
    /// Where each global store record stands in its block's order.
    stamps: Vec<Stamp>,
    /// Each traced block's barriers, fences and releases so far.
    blocks: FastMap<u32, Releases>,
    /// Records taken in: the trace's order.
    seen: u64,
    /// Words stored by two or more blocks.
    pub words: u64,
    /// Words loaded by a block after another stored them, each once.
    handed_words: crate::analysis::FastSet<u64>,
    pub handed: u64,
    /// Of those, the words whose store no fence released before its block signalled.
    pub unfenced: u64,
}

/// Where an event stands in its block: its warp, the block barriers the warp had passed,
/// and its place in the trace.
#[derive(Debug, Clone, Copy)]
struct Stamp {
    warp: u32,
    bars: u32,
    at: u64,
}

impl Stamp {
    /// Whether `self` comes before `later` in the block: earlier in one warp, or before a
    /// block barrier that `later`'s warp had passed.
    fn before(self, later: Stamp) -> bool {
        (self.warp == later.warp && later.at > self.at) || later.bars > self.bars
    }
}

/// One block's order: per warp, the barriers passed, its latest fence, and its latest
/// fence that a global atomic came after (a release the block signalled behind).
#[derive(Default)]
struct Releases {
    bars: Vec<u32>,
    fence: Vec<Option<Stamp>>,
    released: Vec<Option<Stamp>>,
}

impl Releases {
    fn warp(&mut self, w: u32) -> usize {
        let w = w as usize;
        if self.bars.len() <= w {
            self.bars.resize(w + 1, 0);
            self.fence.resize(w + 1, None);
            self.released.resize(w + 1, None);
        }
        w
    }

    /// A global atomic at `x`: every fence before it is a release the block signalled
    /// behind; one with release semantics is such a release itself.
    fn signal(&mut self, x: Stamp, releasing: bool) {
        for w in 0..self.fence.len() {
            if let Some(f) = self.fence[w].filter(|f| f.before(x)) {
                self.released[w] = Some(f);
            }
        }
        if releasing {
            let w = self.warp(x.warp);
            self.released[w] = Some(x);
        }
    }

    /// Whether a store at `s` was released before the block signalled. The latest release
    /// of each warp is enough: a warp's later events come after whatever its earlier ones
    /// come after.
    fn releases(&self, s: Stamp) -> bool {
        self.released.iter().flatten().any(|r| s.before(*r))
    }
}

impl CrossBlockStores {
    pub fn push(&mut self, r: &Record, site: &Site) {
        self.seen += 1;
        let at = self.seen;
        let rel = self.blocks.entry(r.block).or_default();
        let w = rel.warp(r.warp);
        let stamp = Stamp {
            warp: r.warp,
            bars: rel.bars[w],
            at,
        };
        match site.event {
            // A block barrier; a cluster's wait is one too (its arrive comes first).
            Event::Barrier | Event::ClusterWait => {
                rel.bars[w] += 1;
                return;
            }
            Event::Fence => {
                rel.fence[w] = Some(stamp);
                return;
            }
            // It releases at the cluster's scope what the warp did before it.
            Event::ClusterArrive => {
                rel.released[w] = Some(stamp);
                return;
            }
            _ => {}
        }
        if r.space == Space::Global && site.kind() == Some(AccessKind::Load) {
            return self.load(r);
        }
        let block_scoped = site.is_atomic() && site.op.split('.').any(|q| q == "cta");
        if r.space == Space::Global && site.is_atomic() && !block_scoped {
            let releasing = site.op.split('.').any(|q| q == "release" || q == "acq_rel");
            rel.signal(stamp, releasing);
        }
        if r.space != Space::Global
            || !(site.kind() == Some(AccessKind::Store) || site.is_exchange() || block_scoped)
        {
            return;
        }
        let k = self.stamps.len() as u32;
        self.stamps.push(stamp);
        for lane in (0..32).filter(|l| r.mask >> l & 1 == 1) {
            for w in words_of(r.addrs[lane], r.width) {
                let full = self.owner.len() >= WORDS_MAX;
                match self.owner.get_mut(&w) {
                    Some((o, _)) if *o != r.block && *o != SHARED_BY_BLOCKS => {
                        *o = SHARED_BY_BLOCKS;
                        self.words += 1;
                    }
                    // The owner's store again: the handover's is its last.
                    Some((o, last)) if *o == r.block => *last = k,
                    Some(_) => {}
                    None if !full => {
                        self.owner.insert(w, (r.block, k));
                    }
                    None => {}
                }
            }
        }
    }

    fn load(&mut self, r: &Record) {
        for lane in (0..32).filter(|l| r.mask >> l & 1 == 1) {
            for w in words_of(r.addrs[lane], r.width) {
                let Some(&(o, k)) = self.owner.get(&w).filter(|(o, _)| *o != r.block) else {
                    continue;
                };
                if self.handed_words.len() < WORDS_MAX && self.handed_words.insert(w) {
                    self.handed += 1;
                    let store = self.stamps[k as usize];
                    let released = (self.blocks.get(&o)).is_some_and(|b| b.releases(store));
                    if o != SHARED_BY_BLOCKS && !released {
                        self.unfenced += 1;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(kind: AccessKind) -> Site {
        Site {
            id: 0,
            event: Event::Access {
                space: Space::Global,
                kind,
            },
            op: String::new(),
            width: 4,
            ptx_line: 1,
            source_line: None,
            source_file: None,
            coords: None,
            unused: false,
            addr: String::new(),
            timed: false,
            called_at: None,
        }
    }

    fn rec(block: u32, first: u64) -> Record {
        let mut addrs = [0; 32];
        (0..32).for_each(|l| addrs[l] = first + 4 * l as u64);
        Record {
            site: 0,
            block,
            warp: 0,
            mask: u32::MAX,
            space: Space::Global,
            width: 4,
            rank: 0,
            addrs,
        }
    }

    #[test]
    fn words_two_blocks_store_are_counted_once_and_atomics_and_own_words_not() {
        let store = site(AccessKind::Store);
        let mut c = CrossBlockStores::default();
        // Each block its own 32 words, stored twice over: nothing shared.
        for b in 0..4 {
            c.push(&rec(b, 4096 * u64::from(b)), &store);
            c.push(&rec(b, 4096 * u64::from(b)), &store);
        }
        assert_eq!(c.words, 0);
        // Three blocks merge into the same 32 counters with plain stores: 32 words, once.
        for b in 0..3 {
            c.push(&rec(b, 1 << 20), &store);
        }
        assert_eq!(c.words, 32);
        assert_eq!(c.handed, 0, "no loads yet");
        // Block 5 loads the 32 words block 0 stored, then 16 of them again with 16 no block
        // stored: 32 handed over, once each. Block 0 loading its own words hands nothing.
        let load = site(AccessKind::Load);
        c.push(&rec(5, 0), &load);
        c.push(&rec(5, 64), &load);
        c.push(&rec(0, 0), &load);
        assert_eq!(c.handed, 32);
        // The same merge with atomics is no plain store.
        let mut a = CrossBlockStores::default();
        for b in 0..3 {
            a.push(&rec(b, 1 << 20), &site(AccessKind::Atomic));
        }
        assert_eq!(a.words, 0);
        // ... but an exchange of a sum read plainly is a store: blocks merging at once
        // lose each other's counts.
        let exch = Site {
            op: "atom.global.exch.b32".into(),
            ..site(AccessKind::Atomic)
        };
        let mut x = CrossBlockStores::default();
        for b in 0..3 {
            x.push(&rec(b, 1 << 20), &exch);
        }
        assert_eq!(x.words, 32);
        // One block's exchanges (the last block taking the counts) are its own.
        let mut one = CrossBlockStores::default();
        one.push(&rec(7, 1 << 20), &exch);
        one.push(&rec(7, 1 << 20), &exch);
        assert_eq!(one.words, 0);
        // An add scoped to the block (atomicAdd_block, and its reduction) is atomic among
        // the block's threads only: blocks adding into one counter lose updates.
        for op in ["atom.cta.global.add.u32", "red.relaxed.cta.global.add.u32"] {
            let cta = Site {
                op: op.into(),
                ..site(AccessKind::Atomic)
            };
            let mut c = CrossBlockStores::default();
            for b in 0..2 {
                c.push(&rec(b, 1 << 20), &cta);
            }
            assert_eq!(c.words, 32, "{op}");
        }
    }

    fn event(event: Event) -> Site {
        Site {
            event,
            ..site(AccessKind::Load)
        }
    }

    /// Block `b`'s warp `warp`, lane 0 only, at `addr`.
    fn lane0(b: u32, warp: u32, addr: u64) -> Record {
        Record {
            mask: 1,
            warp,
            ..rec(b, addr)
        }
    }

    /// Blocks 0 to 2 each store a partial, then (`fenced`) fence and take a ticket in
    /// warp `signal_warp`; block 2 then reads blocks 0 and 1's partials. Returns the
    /// handed and the unfenced words.
    fn last_block(fenced: &[Site], signal_warp: u32, signal: &Site) -> (u64, u64) {
        let mut c = CrossBlockStores::default();
        for b in 0..3 {
            c.push(&lane0(b, 0, 4 * u64::from(b)), &site(AccessKind::Store));
            for f in fenced {
                // Every warp of the block meets at a barrier.
                let warps = if f.event == Event::Barrier {
                    0..2
                } else {
                    0..1
                };
                for w in warps {
                    c.push(&lane0(b, w, 0), f);
                }
            }
            c.push(&lane0(b, signal_warp, 1 << 20), signal);
        }
        for b in 0..2u32 {
            c.push(&lane0(2, 0, 4 * u64::from(b)), &site(AccessKind::Load));
        }
        (c.handed, c.unfenced)
    }

    #[test]
    fn a_partial_handed_to_the_last_block_is_unfenced_unless_a_fence_comes_between_its_store_and_the_ticket()
     {
        let atomic = site(AccessKind::Atomic);
        let (fence, bar) = (event(Event::Fence), event(Event::Barrier));
        // No fence: both partials handed, neither released.
        assert_eq!(last_block(&[], 0, &atomic), (2, 2));
        // `__threadfence()` between the store and the ticket, in the storing warp.
        assert_eq!(last_block(std::slice::from_ref(&fence), 0, &atomic), (2, 0));
        // The fence before a barrier, the ticket taken by another warp after it.
        assert_eq!(
            last_block(&[fence.clone(), bar.clone()], 1, &atomic),
            (2, 0)
        );
        // Another warp's ticket with no barrier between: nothing orders the fence first.
        assert_eq!(last_block(std::slice::from_ref(&fence), 1, &atomic), (2, 2));
        // A ticket taken with release semantics needs no fence; a block-scoped fence (no
        // site) or a block-scoped atomic is no release to other blocks.
        let release = Site {
            op: "atom.acq_rel.gpu.global.add.u32".into(),
            ..site(AccessKind::Atomic)
        };
        assert_eq!(last_block(&[], 0, &release), (2, 0));
        let cta = Site {
            op: "atom.cta.global.add.u32".into(),
            ..site(AccessKind::Atomic)
        };
        assert_eq!(last_block(std::slice::from_ref(&fence), 0, &cta), (2, 2));
        // A fence before the store releases nothing of it.
        let mut c = CrossBlockStores::default();
        c.push(&lane0(0, 0, 0), &fence);
        c.push(&lane0(0, 0, 0), &site(AccessKind::Store));
        c.push(&lane0(0, 0, 1 << 20), &atomic);
        c.push(&lane0(1, 0, 0), &site(AccessKind::Load));
        assert_eq!((c.handed, c.unfenced), (1, 1));
        // The store made again after the fence is the one handed: unreleased.
        let mut c = CrossBlockStores::default();
        c.push(&lane0(0, 0, 0), &site(AccessKind::Store));
        c.push(&lane0(0, 0, 0), &fence);
        c.push(&lane0(0, 0, 1 << 20), &atomic);
        c.push(&lane0(0, 0, 0), &site(AccessKind::Store));
        c.push(&lane0(1, 0, 0), &site(AccessKind::Load));
        assert_eq!((c.handed, c.unfenced), (1, 1));
    }
}
