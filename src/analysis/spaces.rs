//! The cost of one warp request in the spaces whose lanes do not name plain addresses:
//! distributed shared memory (a block's rank and an offset in its shared memory) and texture
//! fetches (texel coordinates).
//!
//! Cluster: Hopper moves distributed shared memory in 32-byte sectors, so a request costs the
//! distinct (rank, offset / 32) sectors its lanes touch. Texture: the texture cache reads
//! texels close together in 2D; a request is described by the distinct texels it names and
//! the distinct rows (y) they lie on.

use crate::model::access::TexCoords;

const SECTOR_BYTES: u64 = 32;

fn active(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |lane| mask & (1 << lane) != 0)
}

/// A cluster lane's entry as logged: (target rank, byte offset in its shared memory).
pub fn cluster_target(entry: u64) -> (u32, u32) {
    ((entry >> 32) as u32, entry as u32)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClusterCost {
    pub sectors: u32,
    /// Whether any lane named another block than `own`.
    pub remote: bool,
    /// The sectors of another block than `own`: the bytes that crossed the cluster.
    pub remote_sectors: u32,
    /// The distinct 4-byte words of another block than `own` the lanes name: what crossed
    /// the cluster, however it fills its sectors (eight partial sums in one sector are
    /// eight words, a total one).
    pub remote_words: u32,
}

/// One `shared::cluster` request of `width` bytes a lane, made by block `own` of the cluster.
pub fn cluster_request(mask: u32, width: u32, entries: &[u64; 32], own: u32) -> ClusterCost {
    let width = u64::from(width.max(1));
    let mut sectors = Vec::with_capacity(32);
    let mut words = Vec::with_capacity(32);
    let mut remote = false;
    for lane in active(mask) {
        let (rank, offset) = cluster_target(entries[lane]);
        remote |= rank != own;
        let first = u64::from(offset) / SECTOR_BYTES;
        let last = (u64::from(offset) + width - 1) / SECTOR_BYTES;
        sectors.extend((first..=last).map(|s| (rank, s)));
        if rank != own {
            let (w0, w1) = (u64::from(offset) / 4, (u64::from(offset) + width - 1) / 4);
            words.extend((w0..=w1).map(|w| (rank, w)));
        }
    }
    sectors.sort_unstable();
    sectors.dedup();
    words.sort_unstable();
    words.dedup();
    ClusterCost {
        sectors: sectors.len() as u32,
        remote,
        remote_sectors: sectors.iter().filter(|(rank, _)| *rank != own).count() as u32,
        remote_words: words.len() as u32,
    }
}

/// The texels (x, y) of a texture request's active lanes, lane by lane.
pub fn texels(mask: u32, entries: &[u64; 32], coords: TexCoords) -> Vec<(u32, i64, i64)> {
    active(mask)
        .map(|lane| {
            let (x, y) = coords.texel(entries[lane]);
            (lane as u32, x, y)
        })
        .collect()
}

/// Distinct texels and distinct rows of one texture request.
pub fn texture_request(mask: u32, entries: &[u64; 32], coords: TexCoords) -> (u32, u32) {
    let mut t: Vec<(i64, i64)> = texels(mask, entries, coords)
        .into_iter()
        .map(|(_, x, y)| (y, x))
        .collect();
    t.sort_unstable();
    t.dedup();
    let mut rows: Vec<i64> = t.iter().map(|p| p.0).collect();
    rows.dedup();
    (t.len() as u32, rows.len() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::access::CoordType;

    fn entry(rank: u32, offset: u32) -> u64 {
        u64::from(rank) << 32 | u64::from(offset)
    }

    #[test]
    fn a_neighbours_words_in_a_row_are_four_sectors_of_one_rank() {
        let e: [u64; 32] = std::array::from_fn(|l| entry(1, 4 * l as u32));
        let c = cluster_request(u32::MAX, 4, &e, 0);
        assert_eq!(
            c,
            ClusterCost {
                sectors: 4,
                remote: true,
                remote_sectors: 4,
                remote_words: 32,
            }
        );
        // Eight neighbouring words read by eight lanes fill one sector, as one word does,
        // in eight times the words; lanes that read the same word read it once.
        let eight = cluster_request(0xFF, 4, &e, 0);
        assert_eq!((eight.remote_sectors, eight.remote_words), (1, 8));
        let same = [entry(1, 64); 32];
        assert_eq!(cluster_request(u32::MAX, 4, &same, 0).remote_words, 1);
        // The same offsets in the own block are not remote, and two ranks are two sets.
        let own = cluster_request(u32::MAX, 4, &e, 1);
        assert!(!own.remote && own.remote_sectors == 0);
        let two: [u64; 32] = std::array::from_fn(|l| entry(l as u32 % 2, 4 * (l as u32 / 2)));
        let c = cluster_request(u32::MAX, 4, &two, 0);
        // Half the lanes read their own block's memory: 2 sectors of each rank, 2 remote.
        assert_eq!((c.sectors, c.remote_sectors), (4, 2));
        let strided: [u64; 32] = std::array::from_fn(|l| entry(1, 128 * l as u32));
        assert_eq!(cluster_request(0xFF, 4, &strided, 0).sectors, 8);
    }

    fn f32_coords(x: f32, y: f32) -> u64 {
        u64::from(y.to_bits()) << 32 | u64::from(x.to_bits())
    }

    #[test]
    fn float_coordinates_name_the_texel_below_them() {
        let c = TexCoords {
            ty: CoordType::F32,
            dims: 2,
            normalized: None,
        };
        assert_eq!(c.texel(f32_coords(3.5, 7.999)), (3, 7));
        assert_eq!(c.texel(f32_coords(-1.5, 0.0)), (-2, 0));
        // A column: one texel per lane, each on its own row.
        let col: [u64; 32] = std::array::from_fn(|l| f32_coords(5.5, l as f32 + 1.8));
        assert_eq!(texture_request(u32::MAX, &col, c), (32, 32));
        // Two lanes a texel along a row.
        let row: [u64; 32] = std::array::from_fn(|l| f32_coords((l / 2) as f32 + 0.5, 9.5));
        assert_eq!(texture_request(u32::MAX, &row, c), (16, 1));
        assert_eq!(texture_request(0b11, &row, c), (1, 1));
    }

    #[test]
    fn normalized_coordinates_are_scaled_by_the_size() {
        let c = TexCoords {
            ty: CoordType::F32,
            dims: 2,
            normalized: Some((4096, 256)),
        };
        assert_eq!(c.texel(f32_coords(0.5, 0.25)), (2048, 64));
        assert_eq!(c.texel(f32_coords(1.0 / 4096.0 - 1e-7, -0.001)), (0, -1));
    }

    #[test]
    fn integer_coordinates_are_the_texel_and_1d_has_row_zero() {
        let c = TexCoords {
            ty: CoordType::S32,
            dims: 1,
            normalized: None,
        };
        assert_eq!(
            c.texel(u64::from((-3i32) as u32) | 0xFFFF_0000_0000),
            (-3, 0)
        );
        let e: [u64; 32] = std::array::from_fn(|l| l as u64 / 4);
        assert_eq!(texture_request(u32::MAX, &e, c), (8, 1));
    }
}
