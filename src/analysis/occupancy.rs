//! Occupancy from a ptxas report, with the rules CUDA's occupancy calculator applies, so a
//! machine without a GPU shows the same figure `cuOccupancyMaxActiveBlocksPerMultiprocessor`
//! gives on one (tests/occupancy_api.rs checks the rules against the driver on an H100).
//!
//! Sources: the per-SM totals are the CUDA C++ Programming Guide's "Technical Specifications
//! per Compute Capability" table; the allocation rules are those of `cuda_occupancy.h`, the
//! header implementation of the occupancy calculator shipped with the toolkit
//! (`cudaOccMaxBlocksPerSMWarpsLimit`, `...RegsLimit`, `...SmemLimit`,
//! `cudaOccRegAllocationGranularity`, `cudaOccSMemAllocationGranularity`,
//! `cudaOccSubPartitionsPerMultiprocessor`, `cudaOccMaxBlocksPerMultiprocessor`). Those
//! rules, for the default launch state (no carveout preference, so the whole shared memory of
//! the SM is available; partitioned global caching does not exist on these devices):
//!
//! - threads: warps per block = ceil(threads / 32); blocks = max warps per SM / that. A block
//!   larger than 1024 threads cannot launch.
//! - registers: a warp is given ceil(regs × 32 / 256) × 256 registers. The register file is
//!   split evenly over the 4 sub-partitions (warp schedulers) and a warp's registers live in
//!   one of them, so warps per SM = floor(regs per SM / 4 / regs per warp) × 4. The hardware
//!   also refuses a block whose warps, rounded up to a multiple of 4, would need more than
//!   the 64 Ki registers a block may have.
//! - shared memory: a block takes static + dynamic + the driver's reserved 1 KiB (CC ≥ 8.0),
//!   rounded up to the allocation unit (256 B before 8.0, 128 B since). More than the opt-in
//!   per-block maximum (plus the reserve) cannot launch.
//! - blocks: a fixed number of resident blocks per SM.
//!
//! A launch with a carve-out preference (`CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`,
//! a percentage of the largest shared memory) gets, by `cudaOccSMemPreferenceVoltaPlus` and
//! `cudaOccMaxBlocksPerSMSmemLimit`: that share of the SM's shared memory, rounded up to the
//! next size the SM can be configured with (`cudaOccAlignUpShmemSizeVoltaPlus`); where one
//! block needs more, the smallest size that holds the block. So a small carve-out can cut
//! the blocks that fit even when each uses only the driver's reserve.

use crate::model::results::Occupancy;

const WARP_SIZE: u32 = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    pub max_threads_per_block: u32,
    pub max_threads_per_sm: u32,
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub regs_per_sm: u32,
    /// Most registers one block may hold.
    pub regs_per_block: u32,
    /// Registers are handed to a warp in multiples of this.
    pub reg_alloc_unit: u32,
    pub max_regs_per_thread: u32,
    /// With the largest shared-memory carveout, which is what a launch gets by default.
    pub smem_per_sm: u32,
    /// The most a block may use after opting in with
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
    pub smem_per_block_optin: u32,
    /// Shared memory the driver keeps for itself in every resident block.
    pub smem_reserved_per_block: u32,
    pub smem_alloc_unit: u32,
    /// The shared-memory sizes (KiB) the SM can be split into, smallest first; the rest of
    /// the pool is L1.
    pub smem_configs_kib: &'static [u32],
    /// Sub-partitions of the SM: the register file is split between them, and the hardware's
    /// per-block register check rounds a block's warps up to a multiple of this.
    pub warp_alloc_granularity: u32,
}

impl Limits {
    /// The limits of compute capability `major.minor`; None for one not in the table.
    pub fn for_cc(major: u32, minor: u32) -> Option<Limits> {
        const KIB: u32 = 1024;
        // (threads/SM, blocks/SM, smem/SM KiB, opt-in KiB, reserved B, smem unit B)
        let (threads, blocks, smem_kib, optin_kib, reserved, smem_unit) = match (major, minor) {
            (7, 0) => (2048, 32, 96, 96, 0, 256),
            (7, 5) => (1024, 16, 64, 64, 0, 256),
            (8, 0) => (2048, 32, 164, 163, KIB, 128),
            (8, 6) => (1536, 16, 100, 99, KIB, 128),
            (8, 9) => (1536, 24, 100, 99, KIB, 128),
            (9, 0) => (2048, 32, 228, 227, KIB, 128),
            _ => return None,
        };
        let smem_configs_kib: &[u32] = match (major, minor) {
            (7, 0) => &[0, 8, 16, 32, 64, 96],
            (7, 5) => &[32, 64],
            (8, 0) => &[0, 8, 16, 32, 64, 100, 132, 164],
            (9, 0) => &[0, 8, 16, 32, 64, 100, 132, 164, 196, 228],
            _ => &[0, 8, 16, 32, 64, 100],
        };
        Some(Limits {
            max_threads_per_block: 1024,
            max_threads_per_sm: threads,
            max_warps_per_sm: threads / WARP_SIZE,
            max_blocks_per_sm: blocks,
            regs_per_sm: 64 * KIB,
            regs_per_block: 64 * KIB,
            reg_alloc_unit: 256,
            max_regs_per_thread: 255,
            smem_per_sm: smem_kib * KIB,
            smem_per_block_optin: optin_kib * KIB,
            smem_reserved_per_block: reserved,
            smem_alloc_unit: smem_unit,
            smem_configs_kib,
            warp_alloc_granularity: 4,
        })
    }
}

/// Resident blocks and warps per SM for a block of `threads_per_block` threads using
/// `regs_per_thread` registers and `smem_per_block` bytes of shared memory (static + dynamic).
///
/// The limiter is the rule giving the fewest blocks; on a tie the hardware ceilings
/// ("threads", then "blocks") are named before the resources ("registers", then "shared
/// memory"), because using fewer resources would not raise a figure a ceiling already holds.
pub fn occupancy(
    limits: &Limits,
    threads_per_block: u32,
    regs_per_thread: u32,
    smem_per_block: u32,
) -> Occupancy {
    occupancy_with_carveout(
        limits,
        threads_per_block,
        regs_per_thread,
        smem_per_block,
        None,
    )
}

/// `occupancy` for a launch with the carve-out preference `carveout` (percent of the
/// largest shared memory; None: no preference, the largest).
pub fn occupancy_with_carveout(
    limits: &Limits,
    threads_per_block: u32,
    regs_per_thread: u32,
    smem_per_block: u32,
    carveout: Option<u8>,
) -> Occupancy {
    let warps_per_block = threads_per_block.div_ceil(WARP_SIZE);
    let candidates = [
        (
            "threads",
            threads_limit(limits, threads_per_block, warps_per_block),
        ),
        ("blocks", limits.max_blocks_per_sm),
        (
            "registers",
            regs_limit(limits, warps_per_block, regs_per_thread),
        ),
        (
            "shared memory",
            smem_limit(limits, smem_per_block, carveout),
        ),
    ];
    let (limiter, blocks) = candidates
        .into_iter()
        .fold(candidates[0], |best, c| if c.1 < best.1 { c } else { best });
    let active_warps = blocks * warps_per_block;
    Occupancy {
        blocks_per_sm: blocks,
        active_warps,
        max_warps: limits.max_warps_per_sm,
        ratio: f64::from(active_warps) / f64::from(limits.max_warps_per_sm),
        limiter: limiter.to_string(),
        from: "report".to_string(),
    }
}

fn threads_limit(limits: &Limits, threads_per_block: u32, warps_per_block: u32) -> u32 {
    if threads_per_block == 0 || threads_per_block > limits.max_threads_per_block {
        return 0;
    }
    limits.max_warps_per_sm / warps_per_block
}

fn regs_limit(limits: &Limits, warps_per_block: u32, regs_per_thread: u32) -> u32 {
    if regs_per_thread > limits.max_regs_per_thread {
        return 0;
    }
    let regs_per_warp = (regs_per_thread * WARP_SIZE).next_multiple_of(limits.reg_alloc_unit);
    if regs_per_warp == 0 || warps_per_block == 0 {
        return u32::MAX;
    }
    let parts = limits.warp_alloc_granularity;
    let hardware_check = regs_per_warp * warps_per_block.next_multiple_of(parts);
    if hardware_check > limits.regs_per_block {
        return 0;
    }
    let warps_per_sm = (limits.regs_per_sm / parts / regs_per_warp) * parts;
    warps_per_sm / warps_per_block
}

fn smem_limit(limits: &Limits, smem_per_block: u32, carveout: Option<u8>) -> u32 {
    let allocated = smem_per_block
        .saturating_add(limits.smem_reserved_per_block)
        .checked_next_multiple_of(limits.smem_alloc_unit)
        .unwrap_or(u32::MAX);
    if allocated > limits.smem_per_block_optin + limits.smem_reserved_per_block {
        return 0;
    }
    if allocated == 0 {
        return u32::MAX;
    }
    let per_sm = match carveout {
        None => limits.smem_per_sm,
        Some(percent) => {
            let wanted = u64::from(limits.smem_per_sm) * u64::from(percent.min(100)) / 100;
            let preferred = config_at_least(limits, wanted);
            if preferred >= allocated {
                preferred
            } else {
                config_at_least(limits, u64::from(allocated))
            }
        }
    };
    per_sm / allocated
}

/// The smallest shared-memory size the SM can be configured with that holds `bytes`
/// (the largest where none does: a block that large was refused above).
fn config_at_least(limits: &Limits, bytes: u64) -> u32 {
    let kib = |k: u32| k * 1024;
    let largest = limits
        .smem_configs_kib
        .last()
        .map_or(limits.smem_per_sm, |&k| kib(k));
    (limits.smem_configs_kib.iter())
        .map(|&k| kib(k))
        .find(|&b| u64::from(b) >= bytes)
        .unwrap_or(largest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> Limits {
        Limits::for_cc(9, 0).unwrap()
    }

    fn check(o: &Occupancy, blocks: u32, warps: u32, limiter: &str) {
        assert_eq!(
            (o.blocks_per_sm, o.active_warps, o.limiter.as_str()),
            (blocks, warps, limiter),
            "{o:?}"
        );
        assert_eq!(o.ratio, f64::from(warps) / f64::from(o.max_warps));
        assert_eq!(o.from, "report");
    }

    #[test]
    fn table_figures() {
        let l = h100();
        assert_eq!((l.smem_per_sm, l.smem_per_block_optin), (233_472, 232_448));
        assert_eq!((l.max_warps_per_sm, l.max_blocks_per_sm), (64, 32));
        assert_eq!(Limits::for_cc(8, 9).unwrap().max_blocks_per_sm, 24);
        assert_eq!(Limits::for_cc(7, 5).unwrap().max_warps_per_sm, 32);
        assert_eq!(Limits::for_cc(7, 0).unwrap().smem_reserved_per_block, 0);
        assert_eq!(Limits::for_cc(6, 1), None);
    }

    #[test]
    fn a_carveout_sets_the_shared_memory_an_sm_is_split_into() {
        let l = h100();
        let at = |smem, carveout| occupancy_with_carveout(&l, 32, 32, smem, carveout);
        // No preference, or the largest: 228 KiB, and the 32-block ceiling rules a block of
        // one warp that uses only the driver's 1 KiB.
        assert_eq!(at(0, None), occupancy(&l, 32, 32, 0));
        check(&at(0, Some(100)), 32, 32, "blocks");
        // The largest L1: no shared memory is preferred, so the SM takes the smallest size
        // that holds one block (8 KiB), and 8 blocks of 1 KiB fit.
        check(&at(0, Some(0)), 8, 8, "shared memory");
        // 10% of 228 KiB is 22.8 KiB, rounded up to 32 KiB: 32 blocks of 1 KiB fit again.
        check(&at(0, Some(10)), 32, 32, "blocks");
        // A block of 40 KiB (+1) under max_l1: the smallest size holding it, 64 KiB, one block.
        check(&at(40 * 1024, Some(0)), 1, 1, "shared memory");
        // The same block with no preference: 228 / 41 = 5 blocks.
        check(&at(40 * 1024, None), 5, 5, "shared memory");
        // 50%: 114 KiB, rounded up to 132 KiB: 3 blocks of 41 KiB.
        check(&at(40 * 1024, Some(50)), 3, 3, "shared memory");
        // Turing's smallest size is 32 KiB: max_l1 still holds 32 blocks of no shared memory.
        let turing = Limits::for_cc(7, 5).unwrap();
        let t = occupancy_with_carveout(&turing, 32, 32, 2048, Some(0));
        assert_eq!(t.blocks_per_sm, 16, "{t:?}");
    }

    #[test]
    fn full_occupancy_names_the_thread_ceiling() {
        // 8 warps of 1024 registers: 16 warps fit each quarter of the register file, 64 in
        // all, exactly the thread ceiling; the tie goes to "threads".
        let o = occupancy(&h100(), 256, 32, 0);
        check(&o, 8, 64, "threads");
        assert_eq!(o.ratio, 1.0);
    }

    #[test]
    fn many_registers_limit_to_one_block() {
        // 255 × 32 = 8160 → 8192 per warp; 2 warps per quarter → 8 warps → 1 block of 8.
        check(&occupancy(&h100(), 256, 255, 0), 1, 8, "registers");
        // 64 registers, 1024 threads: 2048 per warp, 8 per quarter → 32 warps → 1 block.
        check(&occupancy(&h100(), 1024, 64, 0), 1, 32, "registers");
    }

    #[test]
    fn registers_fill_each_sub_partition_separately() {
        // 40 × 32 = 1280 per warp: 12 warps per quarter (12.8 floored) → 48 warps → 16
        // blocks of 3 warps. Dividing the whole file (65536 / 3840) would say 17.
        check(&occupancy(&h100(), 96, 40, 0), 16, 48, "registers");
    }

    #[test]
    fn block_over_the_per_block_register_file_cannot_launch() {
        // 72 × 32 = 2304 per warp × 32 warps = 73728 > 65536.
        check(&occupancy(&h100(), 1024, 72, 0), 0, 0, "registers");
    }

    #[test]
    fn shared_memory_limits_blocks() {
        // 100 KiB + 1 KiB reserved = 103424 B per block: 233472 / 103424 → 2 blocks.
        check(
            &occupancy(&h100(), 256, 32, 100 * 1024),
            2,
            16,
            "shared memory",
        );
    }

    #[test]
    fn shared_memory_reserve_and_rounding_count() {
        // 45666 + 1024 = 46690, rounded to 46720 (128-byte unit): 233472 / 46720 = 4.997.
        // Without the rounding it would be 5.0004, without the reserve 5.1.
        check(&occupancy(&h100(), 128, 32, 45_666), 4, 16, "shared memory");
    }

    #[test]
    fn shared_memory_over_the_opt_in_cannot_launch() {
        check(
            &occupancy(&h100(), 256, 32, 227 * 1024),
            1,
            8,
            "shared memory",
        );
        check(
            &occupancy(&h100(), 256, 32, 227 * 1024 + 1),
            0,
            0,
            "shared memory",
        );
    }

    #[test]
    fn small_blocks_hit_the_block_ceiling() {
        check(&occupancy(&h100(), 32, 16, 0), 32, 32, "blocks");
        let ada = Limits::for_cc(8, 9).unwrap();
        let o = occupancy(&ada, 32, 16, 0);
        check(&o, 24, 24, "blocks");
        assert_eq!(o.ratio, 0.5);
    }

    #[test]
    fn turing_has_half_the_warps() {
        let o = occupancy(&Limits::for_cc(7, 5).unwrap(), 256, 32, 0);
        check(&o, 4, 32, "threads");
        assert_eq!(o.max_warps, 32);
    }

    #[test]
    fn oversized_block_cannot_launch() {
        check(&occupancy(&h100(), 1056, 16, 0), 0, 0, "threads");
        check(&occupancy(&h100(), 0, 16, 0), 0, 0, "threads");
    }
}
