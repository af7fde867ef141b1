//! Shared-memory cost of one warp request: 32 banks of 4-byte words, bank = (addr >> 2) & 31.
//!
//! A request is served in phases of at most 128 bytes: accesses of up to 4 bytes in one phase
//! of 32 lanes, 8-byte ones in two (lanes 0–15, 16–31), 16-byte ones in four (lanes 0–7, …).
//! Within a phase each bank delivers one word per wavefront, and lanes asking for the same
//! word share it (broadcast), so a phase costs the largest number of distinct words any one
//! bank is asked for. The ideal is one wavefront per phase that has an active lane.
//!
//! Wider accesses whose lanes come in pairs (lane i names the address lane i^1 names, or
//! i^2, or its partner is idle) are served in phases of twice as many lanes: measured on an
//! H100 with Nsight Compute (shared-load wavefronts per instruction), a 16-byte load whose
//! lanes share addresses four by four took 2 wavefronts, one address for the whole warp 2,
//! and an 8-byte load shared two by two 1, where the per-phase rule gives 4, 4 and 2; loads
//! sharing addresses only across phases (lane i with i^8) kept the per-phase count.

pub const BANKS: usize = 32;

/// One phase of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseCost {
    /// The phase's lanes that took part.
    pub mask: u32,
    /// 0 when no lane of the phase took part.
    pub wavefronts: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedCost {
    pub wavefronts: u32,
    pub ideal: u32,
    /// Per bank: distinct words asked of it, summed over the phases.
    pub per_bank_words: [u32; BANKS],
    /// Every phase of the width, in lane order, the empty ones included.
    pub phases: Vec<PhaseCost>,
}

/// Lanes served together: as many as fit in 128 bytes, 32 at most.
pub fn lanes_per_phase(width: u32) -> u32 {
    (128 / width.max(4)).clamp(1, 32)
}

/// Lanes served together in this request: `lanes_per_phase`, doubled for 8- and 16-byte
/// accesses whose active lanes pair up on one address (see the module's note).
pub fn request_phase_lanes(mask: u32, width: u32, addrs: &[u64; 32]) -> u32 {
    let lanes = lanes_per_phase(width);
    if lanes == 32 {
        return lanes;
    }
    let paired = |d: usize| {
        (0..32).all(|i| {
            let j = i ^ d;
            let (ai, aj) = (mask >> i & 1 == 1, mask >> j & 1 == 1);
            !ai || !aj || addrs[i] == addrs[j]
        })
    };
    if paired(1) || paired(2) {
        (lanes * 2).min(32)
    } else {
        lanes
    }
}

/// 32-bit words one lane touches.
pub fn words_per_lane(width: u32) -> u32 {
    (width / 4).max(1)
}

/// The cost of one shared-memory request; `addrs` are shared-window offsets, one per lane.
pub fn shared_request(mask: u32, width: u32, addrs: &[u64; 32]) -> SharedCost {
    let mut cost = SharedCost {
        wavefronts: 0,
        ideal: 0,
        per_bank_words: [0; BANKS],
        phases: Vec::with_capacity((32 / lanes_per_phase(width)) as usize),
    };
    for_each_phase(mask, width, addrs, |pmask, per_bank| {
        let wavefronts = per_bank.iter().copied().max().unwrap_or(0);
        cost.phases.push(PhaseCost {
            mask: pmask,
            wavefronts,
        });
        cost.wavefronts += wavefronts;
        cost.ideal += u32::from(pmask != 0);
        for (total, n) in cost.per_bank_words.iter_mut().zip(per_bank) {
            *total += n;
        }
    });
    cost
}

/// `shared_request` without the per-phase detail, for summing many requests; adds the
/// request's distinct words per bank into `bank_words` and returns (wavefronts, ideal).
pub fn shared_totals(
    mask: u32,
    width: u32,
    addrs: &[u64; 32],
    bank_words: &mut [u64; BANKS],
) -> (u32, u32) {
    let (mut wavefronts, mut ideal) = (0, 0);
    for_each_phase(mask, width, addrs, |pmask, per_bank| {
        wavefronts += per_bank.iter().copied().max().unwrap_or(0);
        ideal += u32::from(pmask != 0);
        for (total, &n) in bank_words.iter_mut().zip(per_bank) {
            *total += u64::from(n);
        }
    });
    (wavefronts, ideal)
}

/// Calls `f(phase mask, distinct words per bank)` for every phase in lane order.
fn for_each_phase(mask: u32, width: u32, addrs: &[u64; 32], mut f: impl FnMut(u32, &[u32; BANKS])) {
    let lanes = request_phase_lanes(mask, width, addrs);
    let wpl = words_per_lane(width) as u64;
    let phase_bits = if lanes == 32 {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    };
    // lanes × words per lane is 32 for every width up to 128 bytes; the heap only serves
    // widths no PTX instruction has.
    let need = (u64::from(lanes) * wpl) as usize;
    let mut stack = [0u64; 128];
    let mut heap = Vec::new();
    let words: &mut [u64] = if need <= stack.len() {
        &mut stack[..need]
    } else {
        heap.resize(need, 0);
        &mut heap
    };
    for phase in 0..32 / lanes {
        let pmask = mask & (phase_bits << (phase * lanes));
        let mut per_bank = [0u32; BANKS];
        if pmask != 0 {
            let mut n = 0;
            for lane in phase * lanes..(phase + 1) * lanes {
                if pmask & (1 << lane) != 0 {
                    let first = addrs[lane as usize] >> 2;
                    for k in 0..wpl {
                        words[n] = first + k;
                        n += 1;
                    }
                }
            }
            let words = &mut words[..n];
            words.sort_unstable();
            let mut prev = None;
            for &w in words.iter() {
                if prev != Some(w) {
                    per_bank[(w & 31) as usize] += 1;
                    prev = Some(w);
                }
            }
        }
        f(pmask, &per_bank);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lane i at byte offset base + i × stride_bytes.
    fn strided(stride_bytes: u64) -> [u64; 32] {
        std::array::from_fn(|i| 4096 + i as u64 * stride_bytes)
    }

    /// The shapes measured on the H100 (ncu, shared-load wavefronts per instruction), lane i
    /// naming element f(i) of an array of `width`-byte elements.
    #[test]
    fn wide_loads_match_the_h100_measurements() {
        let cost = |width: u32, f: fn(u64) -> u64| {
            let addrs: [u64; 32] = std::array::from_fn(|i| f(i as u64) * u64::from(width));
            shared_request(u32::MAX, width, &addrs).wavefronts
        };
        // 16-byte: contiguous 4, each quarter the same 8 elements 4, four lanes on one 2, all
        // lanes on one 2.
        assert_eq!(cost(16, |i| i), 4);
        assert_eq!(cost(16, |i| i % 8), 4);
        assert_eq!(cost(16, |i| i / 4), 2);
        assert_eq!(cost(16, |_| 5), 2);
        // 8-byte: contiguous 2, each half the same 16 elements 2, two lanes on one 1.
        assert_eq!(cost(8, |i| i), 2);
        assert_eq!(cost(8, |i| i % 16), 2);
        assert_eq!(cost(8, |i| i / 2), 1);
        // 16-byte, 32 bytes apart within a quarter (2-way conflict): 8, as measured.
        assert_eq!(cost(16, |i| (i % 16) * 2), 8);
    }

    #[test]
    fn an_idle_partner_still_pairs_and_a_lone_lane_does_not_break_the_rule() {
        let addrs: [u64; 32] = std::array::from_fn(|i| i as u64 * 16);
        // Even lanes only: every active lane's partner is idle, so 16 lanes a phase.
        assert_eq!(request_phase_lanes(0x5555_5555, 16, &addrs), 16);
        assert_eq!(request_phase_lanes(u32::MAX, 16, &addrs), 8);
        assert_eq!(request_phase_lanes(u32::MAX, 4, &addrs), 32);
    }

    #[test]
    fn word_stride_32_puts_every_lane_in_one_bank() {
        let cost = shared_request(u32::MAX, 4, &strided(32 * 4));
        assert_eq!(
            (cost.wavefronts, cost.ideal, cost.wavefronts - cost.ideal),
            (32, 1, 31)
        );
        assert_eq!(cost.per_bank_words[0], 32);
        assert_eq!(cost.per_bank_words.iter().sum::<u32>(), 32);
    }

    #[test]
    fn word_strides_1_and_33_are_conflict_free() {
        for stride in [1, 33] {
            let cost = shared_request(u32::MAX, 4, &strided(stride * 4));
            assert_eq!((cost.wavefronts, cost.ideal), (1, 1), "stride {stride}");
            assert!(cost.per_bank_words.iter().all(|&n| n == 1));
        }
    }

    #[test]
    fn even_stride_2_is_a_two_way_conflict() {
        let cost = shared_request(u32::MAX, 4, &strided(8));
        assert_eq!(cost.wavefronts, 2);
    }

    #[test]
    fn one_word_for_all_lanes_is_a_broadcast() {
        let cost = shared_request(u32::MAX, 4, &[128; 32]);
        assert_eq!((cost.wavefronts, cost.ideal), (1, 1));
        assert_eq!(cost.per_bank_words[0], 1);
        // Bytes within one word are the same word too.
        let bytes: [u64; 32] = std::array::from_fn(|i| 256 + (i as u64 % 4));
        assert_eq!(shared_request(u32::MAX, 1, &bytes).wavefronts, 1);
    }

    #[test]
    fn sixteen_byte_linear_loads_take_four_phases() {
        let cost = shared_request(u32::MAX, 16, &strided(16));
        assert_eq!((cost.wavefronts, cost.ideal), (4, 4));
        assert_eq!(cost.phases.len(), 4);
        assert_eq!(cost.phases[1].mask, 0x0000_FF00);
        assert!(cost.phases.iter().all(|p| p.wavefronts == 1));
        assert!(cost.per_bank_words.iter().all(|&n| n == 4));
    }

    #[test]
    fn eight_byte_linear_loads_take_two_phases() {
        let cost = shared_request(u32::MAX, 8, &strided(8));
        assert_eq!((cost.wavefronts, cost.ideal), (2, 2));
        assert_eq!(cost.phases[1].mask, 0xFFFF_0000);
    }

    #[test]
    fn eight_byte_stride_conflicts_within_a_half_warp() {
        // Lanes 16 bytes apart: in each half-warp, lanes i and i+8 share banks.
        let cost = shared_request(u32::MAX, 8, &strided(16));
        assert_eq!((cost.wavefronts, cost.ideal), (4, 2));
    }

    #[test]
    fn half_active_warp() {
        let stride32 = shared_request(0x0000_FFFF, 4, &strided(128));
        assert_eq!((stride32.wavefronts, stride32.ideal), (16, 1));
        // With 16-byte accesses the two upper phases are empty and not counted as ideal.
        let vec4 = shared_request(0x0000_FFFF, 16, &strided(16));
        assert_eq!((vec4.wavefronts, vec4.ideal), (2, 2));
        assert_eq!(
            vec4.phases[2],
            PhaseCost {
                mask: 0,
                wavefronts: 0
            }
        );
        // An inactive lane's stale address costs nothing.
        let mut addrs = strided(4);
        addrs[31] = addrs[0] + 128;
        assert_eq!(shared_request(0x7FFF_FFFF, 4, &addrs).wavefronts, 1);
    }

    #[test]
    fn totals_agree_with_the_detailed_cost() {
        let mut banks = [0u64; BANKS];
        for (mask, width, stride) in [(u32::MAX, 4, 128), (0xF0F0_F0F0, 16, 48), (3, 8, 8)] {
            let addrs = strided(stride);
            let full = shared_request(mask, width, &addrs);
            let mut one = [0u64; BANKS];
            assert_eq!(
                shared_totals(mask, width, &addrs, &mut one),
                (full.wavefronts, full.ideal)
            );
            assert!(
                one.iter()
                    .zip(full.per_bank_words)
                    .all(|(&a, b)| a == u64::from(b))
            );
            shared_totals(mask, width, &addrs, &mut banks);
        }
        // Bank 0: 32 words from the column, none from the sparse float4s, one from the pair.
        assert_eq!(banks[0], 32 + 1);
    }
}
