//! Global, constant and local memory cost of one warp request.
//!
//! Global: the memory system moves 32-byte sectors of 128-byte lines, so a request costs the
//! distinct sectors its active lanes touch; efficiency = bytes used / (32 × sectors).
//! Constant: a request is served one distinct address at a time.
//! Local: per-thread memory, interleaved by lane; its traffic is the bytes the lanes move.

pub const SECTOR_BYTES: u64 = 32;
pub const LINE_BYTES: u64 = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GlobalCost {
    pub sectors: u32,
    pub lines: u32,
    /// Distinct bytes the active lanes asked for (lanes reading the same bytes count once,
    /// so efficiency never exceeds 1).
    pub bytes_used: u32,
}

impl GlobalCost {
    /// Share of the moved sector bytes the lanes asked for.
    pub fn efficiency(&self) -> f64 {
        if self.sectors == 0 {
            return 0.0;
        }
        f64::from(self.bytes_used) / (f64::from(self.sectors) * SECTOR_BYTES as f64)
    }
}

fn active(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |lane| mask & (1 << lane) != 0)
}

/// Sort and count distinct values.
fn distinct(values: &mut [u64]) -> usize {
    values.sort_unstable();
    let mut n = 0;
    let mut prev = None;
    for &v in values.iter() {
        if prev != Some(v) {
            n += 1;
            prev = Some(v);
        }
    }
    n
}

/// The cost of one global request: each active lane reads or writes [addr, addr + width).
pub fn global_request(mask: u32, width: u32, addrs: &[u64; 32]) -> GlobalCost {
    if mask == 0 {
        return GlobalCost::default();
    }
    let width = u64::from(width.max(1));
    // A range that would pass 2^64 (a negative index, logged before the access faults)
    // ends at the top of the address space.
    let span = |a: u64| (a / SECTOR_BYTES, a.saturating_add(width - 1) / SECTOR_BYTES);
    let need: usize = active(mask)
        .map(|l| {
            let (first, last) = span(addrs[l]);
            (last - first + 1) as usize
        })
        .sum();
    // Naturally aligned accesses of up to 32 bytes touch one sector each.
    let mut stack = [0u64; 64];
    let mut heap = Vec::new();
    let sectors: &mut [u64] = if need <= stack.len() {
        &mut stack[..need]
    } else {
        heap.resize(need, 0);
        &mut heap
    };
    let mut n = 0;
    for lane in active(mask) {
        let (first, last) = span(addrs[lane]);
        for s in first..=last {
            sectors[n] = s;
            n += 1;
        }
    }
    let n_sectors = distinct(sectors);
    // Sorted sectors give lines in order, so a change of line is a new line.
    let mut lines = 0;
    let mut prev_line = None;
    for &s in sectors.iter() {
        let line = s * SECTOR_BYTES / LINE_BYTES;
        if prev_line != Some(line) {
            lines += 1;
            prev_line = Some(line);
        }
    }
    GlobalCost {
        sectors: n_sectors as u32,
        lines,
        bytes_used: union_bytes(mask, width, addrs) as u32,
    }
}

/// Bytes covered by the lanes' equal-width ranges, overlaps counted once.
fn union_bytes(mask: u32, width: u64, addrs: &[u64; 32]) -> u64 {
    let mut starts = [0u64; 32];
    let mut n = 0;
    for lane in active(mask) {
        starts[n] = addrs[lane];
        n += 1;
    }
    let starts = &mut starts[..n];
    starts.sort_unstable();
    let mut total = 0;
    for pair in starts.windows(2) {
        total += (pair[1] - pair[0]).min(width);
    }
    total + if n > 0 { width } else { 0 }
}

/// Distinct addresses of a constant-memory request: the accesses it is serialized into.
pub fn constant_request(mask: u32, addrs: &[u64; 32]) -> u32 {
    let mut vals = [0u64; 32];
    let mut n = 0;
    for lane in active(mask) {
        vals[n] = addrs[lane];
        n += 1;
    }
    distinct(&mut vals[..n]) as u32
}

/// Bytes a local-memory request moves.
pub fn local_bytes(mask: u32, width: u32) -> u64 {
    u64::from(mask.count_ones()) * u64::from(width)
}

/// 32-byte sectors of device memory a local-memory request touches, as the CUDA C++
/// Programming Guide describes local memory's layout: consecutive 32-bit words of the local
/// space belong to consecutive lanes of a warp, so word w of lane l lies at
/// (w x 32 + l) x 4 bytes. A warp at one offset of its lanes' arrays then reads 32
/// neighbouring words (4 sectors for 4-byte accesses); lanes at different offsets land in
/// different 128-byte rows. `addrs` are the lanes' addresses in the local space (the same
/// for the same variable of every thread); a wider access covers its words one by one.
/// This is the layout's model: the trace sees the local space, not the device addresses.
pub fn local_sectors(mask: u32, width: u32, addrs: &[u64; 32]) -> u64 {
    // At most 32 lanes of at most 4 words (16 bytes) each.
    let mut sectors = [0u64; 32 * 4];
    let mut n = 0;
    let words = u64::from(width.div_ceil(4).clamp(1, 4));
    for lane in active(mask) {
        for k in 0..words {
            let word = (addrs[lane] / 4).wrapping_add(k);
            // Sector of byte (word * 32 + lane) * 4: 8 lanes' words to a sector.
            sectors[n] = word.wrapping_mul(4).wrapping_add(lane as u64 / 8);
            n += 1;
        }
    }
    distinct(&mut sectors[..n]) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strided(stride_bytes: u64) -> [u64; 32] {
        std::array::from_fn(|i| 0x7f00_0000_0000 + i as u64 * stride_bytes)
    }

    #[test]
    fn a_range_past_the_top_of_the_address_space_is_costed_not_wrapped() {
        // Lane 0 at a negative index (8 bytes from 2^64 - 4); the rest as usual.
        let mut addrs = strided(8);
        addrs[0] = u64::MAX - 3;
        let cost = global_request(u32::MAX, 8, &addrs);
        assert_eq!((cost.sectors, cost.lines), (9, 3));
    }

    #[test]
    fn consecutive_floats_fill_one_line() {
        let cost = global_request(u32::MAX, 4, &strided(4));
        assert_eq!((cost.sectors, cost.lines, cost.bytes_used), (4, 1, 128));
        assert_eq!(cost.efficiency(), 1.0);
    }

    #[test]
    fn stride_32_floats_touches_a_sector_per_lane() {
        let cost = global_request(u32::MAX, 4, &strided(128));
        assert_eq!((cost.sectors, cost.lines, cost.bytes_used), (32, 32, 128));
        assert_eq!(cost.efficiency(), 0.125);
    }

    #[test]
    fn linear_float4_spans_four_lines() {
        let cost = global_request(u32::MAX, 16, &strided(16));
        assert_eq!((cost.sectors, cost.lines, cost.bytes_used), (16, 4, 512));
    }

    #[test]
    fn misaligned_window_straddles_an_extra_sector() {
        let addrs: [u64; 32] = std::array::from_fn(|i| 4 + 4 * i as u64);
        let cost = global_request(u32::MAX, 4, &addrs);
        assert_eq!((cost.sectors, cost.lines), (5, 2));
    }

    #[test]
    fn same_address_is_one_sector_and_counted_once() {
        let cost = global_request(u32::MAX, 4, &[4096; 32]);
        assert_eq!((cost.sectors, cost.lines, cost.bytes_used), (1, 1, 4));
    }

    #[test]
    fn only_active_lanes_count() {
        let mut addrs = strided(4);
        addrs[31] = 1 << 20;
        let cost = global_request(0x0000_FFFF, 4, &addrs);
        assert_eq!((cost.sectors, cost.lines, cost.bytes_used), (2, 1, 64));
        assert_eq!(global_request(0, 4, &addrs), GlobalCost::default());
    }

    #[test]
    fn constant_requests_count_distinct_addresses() {
        assert_eq!(constant_request(u32::MAX, &[64; 32]), 1);
        assert_eq!(constant_request(u32::MAX, &strided(4)), 32);
        let halves: [u64; 32] = std::array::from_fn(|i| if i < 16 { 0 } else { 4 });
        assert_eq!(constant_request(u32::MAX, &halves), 2);
        assert_eq!(constant_request(0x0000_FFFF, &halves), 1);
    }

    #[test]
    fn local_sectors_follow_the_lane_interleaved_layout() {
        // Every lane at the same offset: 32 neighbouring words, 4 sectors.
        assert_eq!(local_sectors(u32::MAX, 4, &[64; 32]), 4);
        // 16-byte accesses at one offset: 4 words a lane, each row 4 sectors.
        assert_eq!(local_sectors(u32::MAX, 16, &[0; 32]), 16);
        // Lane l at word (j + l) % 32: every lane in a row of its own.
        let spread: [u64; 32] = std::array::from_fn(|l| ((7 + l as u64) % 32) * 4);
        assert_eq!(local_sectors(u32::MAX, 4, &spread), 32);
        // Eight lanes at one offset share one sector; inactive lanes count nothing.
        assert_eq!(local_sectors(0xff, 4, &[0; 32]), 1);
        assert_eq!(local_sectors(0, 4, &[0; 32]), 0);
    }

    #[test]
    fn local_bytes_count_active_lanes() {
        assert_eq!(local_bytes(u32::MAX, 16), 512);
        assert_eq!(local_bytes(0b101, 4), 8);
    }
}
