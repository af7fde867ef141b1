//! A loop's requests repeat one lane pattern at a moving base. Their figures do not change
//! when every lane moves by whole 128-byte lines: sectors, lines, bytes used and shared
//! banks all repeat every 128 bytes. So each site keeps the figures of its few latest
//! patterns, and a request that repeats one is costed without sorting its lanes again (a
//! GEMM block makes hundreds of thousands of requests from a dozen patterns).

use crate::trace::decode::Record;

/// Patterns a site keeps: a tile loop's requests cycle through a few line offsets.
const KEPT: usize = 8;

/// A request's lanes relative to the 128-byte line of its first active lane.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct Pattern {
    mask: u32,
    width: u32,
    /// Of the offsets, so that unequal patterns mostly differ at the first compare.
    hash: u64,
    offs: [u64; 32],
}

impl Pattern {
    pub(super) fn of(r: &Record) -> Pattern {
        let base = match r.mask {
            0 => 0,
            m => r.addrs[m.trailing_zeros() as usize] & !127,
        };
        let mut offs = [0u64; 32];
        let mut hash = 0u64;
        for (l, o) in offs.iter_mut().enumerate() {
            if r.mask >> l & 1 == 1 {
                *o = r.addrs[l].wrapping_sub(base);
                hash = (hash.rotate_left(7) ^ *o).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            }
        }
        Pattern {
            mask: r.mask,
            width: r.width,
            hash,
            offs,
        }
    }
}

/// The figures of a site's latest patterns, newest replacing oldest.
#[derive(Clone)]
pub(super) struct Recent<F> {
    kept: Vec<(Pattern, F)>,
    next: usize,
}

impl<F> Default for Recent<F> {
    fn default() -> Self {
        Recent {
            kept: Vec::new(),
            next: 0,
        }
    }
}

impl<F: Copy> Recent<F> {
    pub(super) fn get(&self, p: &Pattern) -> Option<F> {
        self.kept.iter().find(|(q, _)| q == p).map(|(_, f)| *f)
    }

    pub(super) fn put(&mut self, p: Pattern, f: F) {
        if self.kept.len() < KEPT {
            self.kept.push((p, f));
        } else {
            self.kept[self.next] = (p, f);
            self.next = (self.next + 1) % KEPT;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::access::Space;

    fn rec(mask: u32, base: u64, stride: u64) -> Record {
        Record {
            site: 0,
            block: 0,
            warp: 0,
            mask,
            space: Space::Global,
            width: 4,
            rank: 0,
            addrs: std::array::from_fn(|l| base + l as u64 * stride),
        }
    }

    #[test]
    fn a_pattern_moved_by_whole_lines_is_the_same_and_any_other_move_is_not() {
        let p = Pattern::of(&rec(u32::MAX, 4096 + 8, 4));
        assert!(p == Pattern::of(&rec(u32::MAX, 4096 + 8 + 3 * 128, 4)));
        assert!(p != Pattern::of(&rec(u32::MAX, 4096 + 8 + 32, 4)));
        assert!(p != Pattern::of(&rec(u32::MAX, 4096 + 8, 8)));
        assert!(p != Pattern::of(&rec(0xffff, 4096 + 8, 4)));
        // Inactive lanes' addresses are not part of it.
        let mut r = rec(0xffff, 4096, 4);
        let q = Pattern::of(&r);
        r.addrs[31] = 7;
        assert!(q == Pattern::of(&r));
    }

    #[test]
    fn the_oldest_pattern_goes_first() {
        let mut recent = Recent::default();
        for k in 0..=KEPT as u64 {
            recent.put(Pattern::of(&rec(u32::MAX, 0, 4 * (k + 1))), k);
        }
        assert_eq!(recent.get(&Pattern::of(&rec(u32::MAX, 0, 4))), None);
        assert_eq!(recent.get(&Pattern::of(&rec(u32::MAX, 0, 8))), Some(1));
        let newest = Pattern::of(&rec(u32::MAX, 0, 4 * (KEPT as u64 + 1)));
        assert_eq!(recent.get(&newest), Some(KEPT as u64));
    }
}
