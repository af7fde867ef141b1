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

use crate::analysis::FastMap;
use crate::model::access::{AccessKind, Space, words_of};
use crate::trace::decode::Record;
use crate::trace::instrument::Site;

/// Words followed at most: past it new words are not followed (a copy's traced blocks
/// store far fewer), so the count may miss some, never invent one.
const WORDS_MAX: usize = 1 << 22;

/// A word two blocks have stored to: counted, and not counted again.
const SHARED_BY_BLOCKS: u32 = u32::MAX;

#[derive(Default)]
pub struct CrossBlockStores {
    /// The block that stored each word first, or `SHARED_BY_BLOCKS`.
    owner: FastMap<u64, u32>,
    /// Words stored by two or more blocks.
    pub words: u64,
    /// Words loaded by a block after another stored them, each once.
    handed_words: crate::analysis::FastSet<u64>,
    pub handed: u64,
    /// Each block's global sectors loaded so far: a sector its own block loads again is
    /// read twice (`GlobalStats::reread_sectors`).
    loaded: crate::analysis::FastSet<(u32, u64)>,
    pub load_sectors: u64,
    pub reread_sectors: u64,
}

impl CrossBlockStores {
    pub fn push(&mut self, r: &Record, site: &Site) {
        if r.space == Space::Global && site.kind() == Some(AccessKind::Load) {
            return self.load(r);
        }
        let block_scoped = site.is_atomic() && site.op.split('.').any(|q| q == "cta");
        if r.space != Space::Global
            || !(site.kind() == Some(AccessKind::Store) || site.is_exchange() || block_scoped)
        {
            return;
        }
        for lane in (0..32).filter(|l| r.mask >> l & 1 == 1) {
            for w in words_of(r.addrs[lane], r.width) {
                let full = self.owner.len() >= WORDS_MAX;
                match self.owner.get_mut(&w) {
                    Some(o) if *o != r.block && *o != SHARED_BY_BLOCKS => {
                        *o = SHARED_BY_BLOCKS;
                        self.words += 1;
                    }
                    Some(_) => {}
                    None if !full => {
                        self.owner.insert(w, r.block);
                    }
                    None => {}
                }
            }
        }
    }

    fn load(&mut self, r: &Record) {
        // The request's sectors, each once, as the hardware counts them.
        let mut sectors: Vec<u64> = (0..32)
            .filter(|l| r.mask >> l & 1 == 1)
            .flat_map(|l| {
                let a = r.addrs[l];
                // An address near the top (a negative index) must not wrap.
                a / 32..=a.saturating_add(u64::from(r.width.max(1)) - 1) / 32
            })
            .collect();
        sectors.sort_unstable();
        sectors.dedup();
        for s in sectors {
            self.load_sectors += 1;
            let again = match self.loaded.len() < WORDS_MAX {
                true => !self.loaded.insert((r.block, s)),
                false => self.loaded.contains(&(r.block, s)),
            };
            self.reread_sectors += u64::from(again);
        }
        for lane in (0..32).filter(|l| r.mask >> l & 1 == 1) {
            for w in words_of(r.addrs[lane], r.width) {
                let other = self.owner.get(&w).is_some_and(|&o| o != r.block);
                if other && self.handed_words.len() < WORDS_MAX && self.handed_words.insert(w) {
                    self.handed += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::instrument::Event;

    fn site(kind: AccessKind) -> Site {
        let space = Space::Global;
        Site::for_test(Event::Access { space, kind }, "")
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
    fn a_sector_its_own_block_loads_again_is_read_twice() {
        let load = site(AccessKind::Load);
        let mut c = CrossBlockStores::default();
        // Block 0 loads 128 bytes (4 sectors), then half of them again; block 1 the same
        // 128 bytes once: its first load of them is no re-read.
        c.push(&rec(0, 0), &load);
        c.push(&rec(0, 64), &load);
        c.push(&rec(1, 0), &load);
        assert_eq!((c.load_sectors, c.reread_sectors), (4 + 4 + 4, 2));
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
}
