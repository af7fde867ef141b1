//! Atomics as the SASS makes them: what one warp's PTX atomic (`atom`, `red`) costs once
//! ptxas has made it into SASS, counted the way Nsight Compute counts atomics, apart from
//! loads and stores.
//!
//! The PTX says what each lane updates; the SASS decides how (read from nvdisasm's listing
//! by `sass_map`):
//!
//! - as written: one SASS atomic, every active lane taking part;
//! - warp-aggregated: where ptxas can prove the address the same for the whole warp
//!   (a constant, or a value every lane loads alike), one lane makes the warp's update,
//!   with the lanes' operands combined first (`REDUX.SUM`, `POPC`): one lane a request;
//! - aggregated when full: an atomic whose result is used, on such an address, is
//!   aggregated (a scan with `SHFL.UP`, lane 31's atomic) only when `VOTE.ANY` finds every
//!   lane active; else lane by lane;
//! - a compare-and-swap loop: a shared-memory float addition on sm_90 is `LDS`, `FADD`,
//!   `ATOMS.CAST.SPIN`, again for the lanes whose swap failed. Of the lanes on one word one
//!   succeeds a round, so a request takes as many rounds as the most lanes on one word,
//!   each round one shared load and one atomic, of the lanes still trying.
//!
//! Each SASS atomic request then costs, in shared memory, wavefronts: lanes on distinct
//! words of one bank are served one after another as loads are (one bank delivers one word
//! a wavefront), and lanes on the same word are too (each is a read-modify-write of its
//! own), except for `ATOMS.POPC.INC`, the increment by the number of lanes on a word, which
//! counts a word once as a load's broadcast does. In global memory, requests, and each
//! 32-byte sector the lanes name as many times as the most lanes on one of its words.
//! Nsight Compute checked these rules on the H100 (tests/ncu.rs, scripts/ncu_atomics.sh)
//! for integer atomics. A compare-and-swap loop's count is a floor: the rounds one warp's
//! own lanes force; other warps on the same words make swaps fail again, which no address
//! shows (the H100 counted 5 to 40 times more).

use super::banks::{self, BANKS};
use super::coalescing;
use crate::model::access::{AccessKind, AtomShape};

/// What lanes of one request that update the same shared word cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SameWord {
    /// Each lane is an update of its own: a bank serves as many as it has lanes.
    Serialise,
    /// The word is updated once for all of them (`ATOMS.POPC.INC`): a bank serves as many
    /// as it has distinct words, as for a load.
    Merge,
}

impl SameWord {
    /// The rule for a SASS atomic opcode; `Serialise` where there is none to read.
    pub fn of(opcode: &str) -> SameWord {
        if opcode.split(['.', ' ']).any(|m| m == "POPC") {
            SameWord::Merge
        } else {
            SameWord::Serialise
        }
    }
}

/// What the SASS made of one PTX atomic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomicSass {
    pub shape: AtomShape,
    /// `Atomic` (the SASS keeps the old value: `ATOMS`, `ATOMG`) or `Reduction` (`REDG`).
    pub kind: AccessKind,
    /// The SASS atomic opcode(s) that make it, `ATOMS.POPC.INC.32`; empty: no SASS read.
    pub opcode: String,
    pub same_word: SameWord,
}

impl AtomicSass {
    /// A PTX atomic taken as written, where no SASS says otherwise.
    pub fn as_written(kind: AccessKind) -> AtomicSass {
        AtomicSass {
            shape: AtomShape::AsWritten,
            kind,
            opcode: String::new(),
            same_word: SameWord::Serialise,
        }
    }
}

/// What one PTX warp request of an atomic costs as the SASS makes it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AtomicCost {
    /// SASS atomic requests (a compare-and-swap loop makes one a round).
    pub requests: u32,
    /// Shared: wavefronts and the ideal (one per non-empty phase) of those requests.
    pub wavefronts: u32,
    pub ideal: u32,
    /// Shared: per bank, the updates (or words, `SameWord::Merge`) it served, summed over
    /// the requests.
    pub bank_updates: [u32; BANKS],
    /// Global: 32-byte sectors, 128-byte lines and bytes the lanes named.
    pub sectors: u32,
    pub lines: u32,
    pub bytes_used: u32,
    /// Lanes taking part in the SASS requests and the distinct addresses they named.
    pub lanes: u32,
    pub addresses: u32,
    /// A compare-and-swap loop's loads: requests, wavefronts, ideal.
    pub loop_loads: u32,
    pub loop_wavefronts: u32,
    pub loop_ideal: u32,
    /// The lanes of the first SASS request: what the heatmap draws.
    pub first_mask: u32,
}

/// The SASS atomic requests that one PTX request of `mask` makes, in order.
pub fn sass_requests(shape: AtomShape, mask: u32, addrs: &[u64; 32]) -> Vec<u32> {
    if mask == 0 {
        return Vec::new();
    }
    let uniform = {
        let first = addrs[mask.trailing_zeros() as usize];
        lanes(mask).all(|l| addrs[l] == first)
    };
    // The leader ptxas picks: the highest active lane (`UFLO`, `FLO`, lane 31 of a scan).
    let leader = 1u32 << (31 - mask.leading_zeros());
    match shape {
        AtomShape::AsWritten => vec![mask],
        // ptxas aggregates only an address it proved uniform; a request whose lanes
        // disagree (which that proof rules out) is counted as written.
        AtomShape::WarpAggregated if uniform => vec![leader],
        AtomShape::AggregatedWhenFull if uniform && mask == u32::MAX => vec![leader],
        AtomShape::WarpAggregated | AtomShape::AggregatedWhenFull => vec![mask],
        AtomShape::CasLoop => cas_rounds(mask, addrs),
    }
}

/// The lanes still trying in each round of a compare-and-swap loop: of the lanes on one
/// address one succeeds a round (the lowest, here; which one does not change a count).
fn cas_rounds(mask: u32, addrs: &[u64; 32]) -> Vec<u32> {
    let mut left = mask;
    let mut rounds = Vec::new();
    while left != 0 {
        rounds.push(left);
        let mut won = 0u32;
        let mut seen: Vec<u64> = Vec::with_capacity(32);
        for l in lanes(left) {
            if !seen.contains(&addrs[l]) {
                seen.push(addrs[l]);
                won |= 1 << l;
            }
        }
        left &= !won;
    }
    rounds
}

fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| mask >> l & 1 == 1)
}

/// The cost of one PTX warp request of an atomic, in shared memory (`shared`) or global.
pub fn request(
    shared: bool,
    mask: u32,
    width: u32,
    addrs: &[u64; 32],
    sass: &AtomicSass,
) -> AtomicCost {
    let reqs = sass_requests(sass.shape, mask, addrs);
    let mut c = AtomicCost {
        first_mask: reqs.first().copied().unwrap_or(0),
        ..AtomicCost::default()
    };
    for &m in &reqs {
        c.requests += 1;
        c.lanes += m.count_ones();
        c.addresses += distinct(m, addrs);
        if shared {
            let (w, i) = shared_atomic(m, width, addrs, sass.same_word, &mut c.bank_updates);
            c.wavefronts += w;
            c.ideal += i;
            if sass.shape == AtomShape::CasLoop {
                let mut unused = [0u64; BANKS];
                let (lw, li) = banks::shared_totals(m, width, addrs, &mut unused);
                c.loop_loads += 1;
                c.loop_wavefronts += lw;
                c.loop_ideal += li;
            }
        } else {
            let g = coalescing::global_request(m, width, addrs);
            c.sectors += global_atomic_sectors(m, addrs);
            c.lines += g.lines;
            c.bytes_used += g.bytes_used;
        }
    }
    c
}

/// The sectors one global atomic request costs: each sector as many times as the most
/// lanes on one address in it. Lanes on one word are updates of their own, each a sector
/// access, where a load's lanes share the sector's one fetch: the H100's ncu counts 32
/// sectors for a warp's `RED` on one word and 4 for 32 lanes on consecutive words.
fn global_atomic_sectors(mask: u32, addrs: &[u64; 32]) -> u32 {
    let mut seen: Vec<u64> = lanes(mask).map(|l| addrs[l]).collect();
    seen.sort_unstable();
    let mut per_sector: Vec<(u64, u32)> = Vec::new();
    for run in seen.chunk_by(|a, b| a == b) {
        let (sector, n) = (run[0] / 32, run.len() as u32);
        match per_sector.last_mut() {
            Some((s, most)) if *s == sector => *most = (*most).max(n),
            _ => per_sector.push((sector, n)),
        }
    }
    per_sector.iter().map(|&(_, most)| most).sum()
}

/// Distinct addresses the lanes of `mask` name.
fn distinct(mask: u32, addrs: &[u64; 32]) -> u32 {
    let mut seen: Vec<u64> = lanes(mask).map(|l| addrs[l]).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len() as u32
}

/// One SASS shared atomic request: its wavefronts and ideal, in phases of 128 bytes as a
/// load's (no pairing of wide lanes: atomics are not known to pair), each phase costing
/// its busiest bank's updates; each bank's updates added to `per_bank`.
pub fn shared_atomic(
    mask: u32,
    width: u32,
    addrs: &[u64; 32],
    same_word: SameWord,
    per_bank: &mut [u32; BANKS],
) -> (u32, u32) {
    let per = banks::lanes_per_phase(width);
    let phase_bits = if per == 32 {
        u32::MAX
    } else {
        (1u32 << per) - 1
    };
    let wpl = u64::from(banks::words_per_lane(width));
    let (mut wavefronts, mut ideal) = (0, 0);
    for phase in 0..32 / per {
        let pmask = mask & (phase_bits << (phase * per));
        if pmask == 0 {
            continue;
        }
        let mut words: Vec<u64> = Vec::with_capacity(32 * wpl as usize);
        for l in lanes(pmask) {
            let first = addrs[l] >> 2;
            words.extend(first..first + wpl);
        }
        if same_word == SameWord::Merge {
            words.sort_unstable();
            words.dedup();
        }
        let mut here = [0u32; BANKS];
        for w in words {
            here[(w & 31) as usize] += 1;
        }
        wavefronts += here.iter().copied().max().unwrap_or(0);
        ideal += 1;
        for (t, n) in per_bank.iter_mut().zip(here) {
            *t += n;
        }
    }
    (wavefronts, ideal)
}

/// Each lane's share of a shared atomic request for the heatmap: the updates the bank of
/// the lane's word serves in its phase (1: no conflict).
pub fn shared_atomic_grid(
    mask: u32,
    width: u32,
    addrs: &[u64; 32],
    same_word: SameWord,
) -> Vec<Vec<u32>> {
    let per = banks::lanes_per_phase(width);
    let phase_bits = if per == 32 {
        u32::MAX
    } else {
        (1u32 << per) - 1
    };
    let mut cells = vec![vec![0u32; BANKS]; 32];
    for phase in 0..32 / per {
        let pmask = mask & (phase_bits << (phase * per));
        let mut degree = [0u32; BANKS];
        shared_atomic(pmask, width, addrs, same_word, &mut degree);
        for l in lanes(pmask) {
            let first = addrs[l] >> 2;
            for w in first..first + u64::from(banks::words_per_lane(width)) {
                let b = (w & 31) as usize;
                cells[l][b] = degree[b];
            }
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(f: impl Fn(u64) -> u64) -> [u64; 32] {
        std::array::from_fn(|i| 4 * f(i as u64))
    }

    fn cost(shape: AtomShape, same: SameWord, addrs: [u64; 32]) -> AtomicCost {
        let sass = AtomicSass {
            shape,
            kind: AccessKind::Atomic,
            opcode: String::new(),
            same_word: same,
        };
        request(true, u32::MAX, 4, &addrs, &sass)
    }

    #[test]
    fn shared_atomics_serialise_on_a_bank_like_loads() {
        let plain = |f: fn(u64) -> u64| cost(AtomShape::AsWritten, SameWord::Serialise, at(f));
        // Consecutive words: one bank each.
        assert_eq!(plain(|i| i).wavefronts, 1);
        // 32 words apart: one bank, 32 words.
        assert_eq!(plain(|i| 32 * i).wavefronts, 32);
        // Two words a bank.
        assert_eq!(plain(|i| 2 * i).wavefronts, 2);
        // Two lanes a word: serialised per lane, merged for POPC.INC.
        assert_eq!(plain(|i| i / 2).wavefronts, 2);
        let merged = cost(AtomShape::AsWritten, SameWord::Merge, at(|i| i / 2));
        assert_eq!(merged.wavefronts, 1);
        let one_word = cost(AtomShape::AsWritten, SameWord::Merge, at(|_| 7));
        assert_eq!(
            (one_word.wavefronts, one_word.lanes, one_word.addresses),
            (1, 32, 1)
        );
        assert_eq!(plain(|_| 7).wavefronts, 32);
        assert_eq!(plain(|i| i).ideal, 1);
    }

    #[test]
    fn an_aggregated_atomic_is_one_lane_and_a_partial_warp_is_not_aggregated_when_full() {
        let uniform = at(|_| 3);
        let agg = cost(AtomShape::WarpAggregated, SameWord::Serialise, uniform);
        assert_eq!(
            (agg.requests, agg.lanes, agg.wavefronts, agg.first_mask),
            (1, 1, 1, 1 << 31)
        );
        assert_eq!(
            sass_requests(AtomShape::AggregatedWhenFull, u32::MAX, &uniform),
            [1 << 31]
        );
        assert_eq!(
            sass_requests(AtomShape::AggregatedWhenFull, 0xFFFF, &uniform),
            [0xFFFF]
        );
        assert_eq!(
            sass_requests(AtomShape::WarpAggregated, 0xFF, &uniform),
            [0x80]
        );
        // Lanes that disagree were never aggregated.
        assert_eq!(
            sass_requests(AtomShape::WarpAggregated, 0b11, &at(|i| i)),
            [0b11]
        );
    }

    #[test]
    fn a_cas_loop_takes_a_round_per_lane_on_the_busiest_word() {
        let own = cost(AtomShape::CasLoop, SameWord::Serialise, at(|i| i));
        assert_eq!((own.requests, own.loop_loads, own.wavefronts), (1, 1, 1));
        let pairs = cost(AtomShape::CasLoop, SameWord::Serialise, at(|i| i / 2));
        // Round 1: 32 lanes, two a word (2 wavefronts; the load broadcasts, 1); round 2:
        // the 16 that lost, one a word.
        assert_eq!(
            sass_requests(AtomShape::CasLoop, u32::MAX, &at(|i| i / 2)).len(),
            2
        );
        assert_eq!(
            (pairs.requests, pairs.wavefronts, pairs.loop_wavefronts),
            (2, 3, 2)
        );
        assert_eq!(pairs.lanes, 48);
        let one = cost(AtomShape::CasLoop, SameWord::Serialise, at(|_| 0));
        assert_eq!(one.requests, 32);
        // Rounds of 32, 31, ... 1 lanes, each on one word: as many wavefronts as lanes.
        assert_eq!(one.wavefronts, (1..=32).sum::<u32>());
        assert_eq!(one.loop_wavefronts, 32);
    }

    #[test]
    fn global_atomics_count_sectors_as_loads_do() {
        let sass = AtomicSass::as_written(AccessKind::Reduction);
        let spread = request(false, u32::MAX, 4, &at(|i| i), &sass);
        assert_eq!((spread.requests, spread.sectors), (1, 4));
        // 32 lanes on one word: 32 updates of one sector, as the H100 counts them.
        let one = request(false, u32::MAX, 4, &at(|_| 0), &sass);
        assert_eq!((one.sectors, one.lanes, one.addresses), (32, 32, 1));
        // Pairs of lanes on each of 16 consecutive words: two sectors, each twice.
        let pairs = request(false, u32::MAX, 4, &at(|i| i / 2), &sass);
        assert_eq!(pairs.sectors, 4);
        let apart = request(false, u32::MAX, 4, &at(|i| 8 * i), &sass);
        assert_eq!(apart.sectors, 32);
    }

    #[test]
    fn popc_opcodes_merge_and_others_serialise() {
        assert_eq!(SameWord::of("ATOMS.POPC.INC.32"), SameWord::Merge);
        assert_eq!(SameWord::of("ATOMS.ADD"), SameWord::Serialise);
        assert_eq!(SameWord::of(""), SameWord::Serialise);
    }
}
