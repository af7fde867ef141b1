//! A loop's requests repeat one lane pattern at a moving base. Their figures do not change
//! when every lane moves by whole 128-byte lines: sectors, lines, bytes used and shared
//! banks all repeat every 128 bytes. So each site keeps the figures of its few latest
//! patterns, and a request that repeats one is costed without sorting its lanes again (a
//! GEMM block makes hundreds of thousands of requests from a dozen patterns).

use crate::model::access::Space;
use crate::trace::decode::Record;

/// Patterns a site keeps: a tile loop's requests cycle through a few line offsets.
const KEPT: usize = 8;

/// A request's lanes relative to the 128-byte line of its first active lane.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct Pattern {
    mask: u32,
    width: u32,
    /// A generic site's requests go to several spaces, each costed by its own rules.
    space: Space,
    offs: [u64; 32],
}

/// The line a request's pattern is taken relative to.
fn base(r: &Record) -> u64 {
    match r.mask {
        0 => 0,
        m => r.addrs[m.trailing_zeros() as usize] & !127,
    }
}

/// Lane `l`'s offset from `base`; 0 for an inactive lane.
#[inline(always)]
fn off(r: &Record, base: u64, l: usize) -> u64 {
    if r.mask >> l & 1 == 1 {
        r.addrs[l].wrapping_sub(base)
    } else {
        0
    }
}

impl Pattern {
    pub(super) fn of(r: &Record) -> Pattern {
        let base = base(r);
        let mut offs = [0u64; 32];
        for (l, o) in offs.iter_mut().enumerate() {
            *o = off(r, base, l);
        }
        Pattern {
            mask: r.mask,
            width: r.width,
            space: r.space,
            offs,
        }
    }

    /// Whether `r` repeats this pattern, compared in place (a request is compared with a
    /// few patterns, and building its own first was a large part of the cost).
    #[inline(always)]
    fn is(&self, r: &Record, base: u64) -> bool {
        if (self.mask, self.width, self.space) != (r.mask, r.width, r.space) {
            return false;
        }
        let mut differ = 0;
        for (l, &o) in self.offs.iter().enumerate() {
            differ |= o ^ off(r, base, l);
        }
        differ == 0
    }
}

/// The figures of a site's latest patterns, newest replacing oldest.
#[derive(Clone)]
pub(super) struct Recent<F> {
    kept: Vec<(Pattern, F)>,
    next: usize,
    /// The one found last: a loop's next request most often repeats it.
    last: usize,
}

impl<F> Default for Recent<F> {
    fn default() -> Self {
        Recent {
            kept: Vec::new(),
            next: 0,
            last: 0,
        }
    }
}

impl<F: Copy> Recent<F> {
    /// The figures of the pattern `r` repeats, if one is kept.
    pub(super) fn get(&mut self, r: &Record) -> Option<F> {
        let (n, base) = (self.kept.len(), base(r));
        let i = (0..n)
            .map(|k| (self.last + k) % n)
            .find(|&i| self.kept[i].0.is(r, base))?;
        self.last = i;
        Some(self.kept[i].1)
    }

    /// Keep `f` as the figures of `r`'s pattern.
    pub(super) fn put(&mut self, r: &Record, f: F) {
        let p = Pattern::of(r);
        if self.kept.len() < KEPT {
            self.kept.push((p, f));
            self.last = self.kept.len() - 1;
        } else {
            self.kept[self.next] = (p, f);
            self.last = self.next;
            self.next = (self.next + 1) % KEPT;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let is = |r: Record| p.is(&r, base(&r));
        assert!(is(rec(u32::MAX, 4096 + 8 + 3 * 128, 4)));
        assert!(!is(rec(u32::MAX, 4096 + 8 + 32, 4)));
        assert!(!is(rec(u32::MAX, 4096 + 8, 8)));
        assert!(!is(rec(0xffff, 4096 + 8, 4)));
        let mut wide = rec(u32::MAX, 4096 + 8, 4);
        wide.width = 8;
        assert!(!is(wide));
        // A generic site's request to another space is costed by that space's rules.
        let mut shared = rec(u32::MAX, 4096 + 8, 4);
        shared.space = Space::Shared;
        assert!(!is(shared));
        // Inactive lanes' addresses are not part of it.
        let mut r = rec(0xffff, 4096, 4);
        let q = Pattern::of(&r);
        r.addrs[31] = 7;
        assert!(q.is(&r, base(&r)));
        assert!(q == Pattern::of(&r));
    }

    #[test]
    fn the_oldest_pattern_goes_first() {
        let mut recent = Recent::default();
        for k in 0..=KEPT as u64 {
            recent.put(&rec(u32::MAX, 0, 4 * (k + 1)), k);
        }
        assert_eq!(recent.get(&rec(u32::MAX, 0, 4)), None);
        // Found again after another was found: each pattern keeps its own figures.
        assert_eq!(recent.get(&rec(u32::MAX, 0, 12)), Some(2));
        assert_eq!(recent.get(&rec(u32::MAX, 0, 8)), Some(1));
        let newest = rec(u32::MAX, 0, 4 * (KEPT as u64 + 1));
        assert_eq!(recent.get(&newest), Some(KEPT as u64));
    }
}
