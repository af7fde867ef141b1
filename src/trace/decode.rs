//! Decoding the trace buffer the logger (src/trace/logger.ptx) fills.
//!
//! One record per warp request, `RECORD_BYTES` = 288 bytes, little-endian:
//!
//! | offset | field | meaning |
//! | --- | --- | --- |
//! | 0 | `site: u32` | instrumentation site id (`Site::id`) |
//! | 4 | `block: u32` | linear block id: x + nx·(y + ny·z) |
//! | 8 | `warp: u32` | linear thread index / 32 within the block |
//! | 12 | `mask: u32` | lanes that took part (and resolved to the same space) |
//! | 16 | `space: u32` | resolved space: 0 shared, 1 global, 2 local, 3 constant, 5 cluster, 6 texture, 7 barrier |
//! | 20 | `width: u32` | bytes per lane |
//! | 24 | `rank: u32` | cluster: the logging block's `%cluster_ctarank`; else zero |
//! | 28 | 4 bytes | zero |
//! | 32 | `addrs: [u64; 32]` | per lane: the address in its space's window (shared: offset) |
//!
//! A cluster lane's entry is the target block's rank << 32 | the offset in its shared memory;
//! a texture lane's is its coordinates' bits, y << 32 | x.
//!
//! Entries of inactive lanes are left as they were in the buffer; decoding zeroes them.
//!
//! A barrier record (code 7, from a barrier site) is an event, not an access: it decodes with
//! `Space::Shared`, the space whose accesses it orders, and width 0, and `Site::is_barrier`
//! tells it apart (its site's `Event::Barrier`); its entries are 0, but an mbarrier's events
//! log the barrier's shared offset (`init`: its count << 32 over it). A `cp.async` group's
//! commit and wait are events too, logged under the same code (`Site::is_event`). A warp's records sit in the buffer in the order the
//! warp made them, so its barriers split its accesses into intervals.

use crate::model::access::Space;
use crate::trace::instrument::{BARRIER_CODE, Site, space_code};

pub const RECORD_BYTES: usize = 288;
const HEADER_BYTES: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub site: u32,
    pub block: u32,
    pub warp: u32,
    pub mask: u32,
    pub space: Space,
    pub width: u32,
    /// Cluster records: the rank of the block that made the request.
    pub rank: u32,
    pub addrs: [u64; 32],
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("trace buffer of {0} bytes is not a whole number of {RECORD_BYTES}-byte records")]
    Length(usize),
    #[error("record {index}: site {site} is not one of the {sites} instrumented sites")]
    UnknownSite {
        index: usize,
        site: u32,
        sites: usize,
    },
    #[error("record {index}: space code {code} is not a resolved space")]
    BadSpace { index: usize, code: u32 },
    #[error("record {index}: width {found} differs from site {site}'s width {expected}")]
    Width {
        index: usize,
        site: u32,
        found: u32,
        expected: u32,
    },
    #[error("record {index}: no lane is active")]
    EmptyMask { index: usize },
}

/// Records per site of `bytes` (whole records, as logged), of `sites` sites: what a census
/// compares with the requests every block made. A site past `sites` counts nowhere
/// (`decode` names it).
pub fn site_counts(bytes: &[u8], sites: usize) -> Vec<u64> {
    let mut out = vec![0u64; sites];
    for r in bytes.chunks_exact(RECORD_BYTES) {
        let site = u32::from_le_bytes([r[0], r[1], r[2], r[3]]) as usize;
        if let Some(n) = out.get_mut(site) {
            *n += 1;
        }
    }
    out
}

/// How many records to copy back and how many were lost, from the logger's counter and the
/// buffer's capacity (the counter keeps counting past the capacity).
pub fn records_to_read(count: u32, cap: u32) -> (usize, u64) {
    let kept = count.min(cap);
    (kept as usize, u64::from(count - kept))
}

/// The resolved space a record's code names; the codes are `instrument::space_code`'s, all
/// but generic's.
fn space_of(code: u32) -> Option<Space> {
    [
        Space::Shared,
        Space::Global,
        Space::Local,
        Space::Constant,
        Space::Cluster,
        Space::Texture,
    ]
    .into_iter()
    .find(|&s| space_code(s) == Some(code))
}

/// Decode `bytes` (whole records, as copied from the device) and check them against the
/// instrumented sites, so that a stale or corrupt buffer is an error, not a wrong heatmap.
pub fn decode(bytes: &[u8], sites: &[Site]) -> Result<Vec<Record>, DecodeError> {
    if !bytes.len().is_multiple_of(RECORD_BYTES) {
        return Err(DecodeError::Length(bytes.len()));
    }
    bytes
        .chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(index, chunk)| decode_one(index, chunk, sites))
        .collect()
}

fn decode_one(index: usize, chunk: &[u8], sites: &[Site]) -> Result<Record, DecodeError> {
    let word = |i: usize| u32::from_le_bytes(chunk[i * 4..i * 4 + 4].try_into().unwrap());
    let (site, block, warp, mask, code, width, rank) = (
        word(0),
        word(1),
        word(2),
        word(3),
        word(4),
        word(5),
        word(6),
    );
    let Some(declared) = sites.get(site as usize) else {
        return Err(DecodeError::UnknownSite {
            index,
            site,
            sites: sites.len(),
        });
    };
    // A bulk copy's record carries the bytes it moves; its site names no width.
    let bulk = declared.kind() == Some(crate::model::access::AccessKind::BulkCopy);
    if width != declared.width && !bulk {
        return Err(DecodeError::Width {
            index,
            site,
            found: width,
            expected: declared.width,
        });
    }
    if mask == 0 {
        return Err(DecodeError::EmptyMask { index });
    }
    let barrier = code == BARRIER_CODE;
    if barrier != declared.is_event() {
        return Err(DecodeError::BadSpace { index, code });
    }
    let space = if barrier {
        Space::Shared
    } else {
        space_of(code).ok_or(DecodeError::BadSpace { index, code })?
    };
    // An event's lanes log an address too: 0 for a barrier, an mbarrier's shared offset
    // (with `init`, its count over it).
    let mut addrs = [0u64; 32];
    for (lane, a) in addrs.iter_mut().enumerate() {
        if mask & (1 << lane) != 0 {
            let at = HEADER_BYTES + lane * 8;
            *a = u64::from_le_bytes(chunk[at..at + 8].try_into().unwrap());
        }
    }
    Ok(Record {
        site,
        block,
        warp,
        mask,
        space,
        width,
        rank,
        addrs,
    })
}

/// The bytes of `records` as the logger would have written them; for tests and for tools
/// that build traces by hand.
pub fn encode(records: &[Record]) -> Vec<u8> {
    encode_with_sites(records, &[])
}

/// `encode`, with the barrier records (those of barrier sites) written as the logger writes
/// them, under code 7.
pub fn encode_with_sites(records: &[Record], sites: &[Site]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len() * RECORD_BYTES);
    for r in records {
        let barrier = sites.get(r.site as usize).is_some_and(Site::is_event);
        for w in [
            r.site,
            r.block,
            r.warp,
            r.mask,
            if barrier {
                BARRIER_CODE
            } else {
                // A record's space is resolved; a generic or param one (which no decoded
                // record has) is written as an unknown code, so decoding refuses it.
                space_code(r.space).unwrap_or(u32::MAX)
            },
            r.width,
            r.rank,
            0,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for a in r.addrs {
            out.extend_from_slice(&a.to_le_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::access::AccessKind;
    use crate::trace::instrument::Event;

    fn site(id: u32, width: u32) -> Site {
        let (space, kind) = (Space::Generic, AccessKind::Load);
        Site {
            id,
            width,
            ptx_line: 10,
            ..Site::for_test(Event::Access { space, kind }, "ld.f32")
        }
    }

    fn record(site: u32, mask: u32, space: Space) -> Record {
        let mut addrs = [0; 32];
        for (i, a) in addrs.iter_mut().enumerate() {
            if mask & (1 << i) != 0 {
                *a = 0x1000 + 4 * i as u64;
            }
        }
        Record {
            site,
            block: 7,
            warp: 3,
            mask,
            space,
            width: 4,
            rank: 0,
            addrs,
        }
    }

    #[test]
    fn round_trips_through_the_device_layout() {
        let sites = [site(0, 4), site(1, 4)];
        let recs = vec![
            record(0, u32::MAX, Space::Shared),
            record(1, 0x0000_FFFF, Space::Global),
        ];
        let bytes = encode(&recs);
        assert_eq!(bytes.len(), 2 * RECORD_BYTES);
        // Fields sit where the logger writes them.
        assert_eq!(
            &bytes[RECORD_BYTES + 12..RECORD_BYTES + 16],
            &0xFFFFu32.to_le_bytes()
        );
        assert_eq!(&bytes[32..40], &0x1000u64.to_le_bytes());
        assert_eq!(decode(&bytes, &sites).unwrap(), recs);
    }

    #[test]
    fn records_are_counted_by_the_site_that_logged_them() {
        let recs = [
            record(2, 1, Space::Global),
            record(0, 1, Space::Global),
            record(2, 3, Space::Shared),
            record(9, 1, Space::Global),
        ];
        assert_eq!(site_counts(&encode(&recs), 3), vec![1, 0, 2]);
    }

    #[test]
    fn inactive_lanes_come_back_zeroed() {
        let sites = [site(0, 4)];
        let mut bytes = encode(&[record(0, 0b1, Space::Local)]);
        // Garbage left in lane 5's slot by an earlier launch.
        bytes[32 + 5 * 8] = 0xAB;
        let rec = &decode(&bytes, &sites).unwrap()[0];
        assert_eq!(rec.addrs[5], 0);
        assert_eq!(rec.addrs[0], 0x1000);
        assert_eq!(rec.space, Space::Local);
    }

    #[test]
    fn rejects_what_the_logger_cannot_have_written() {
        let sites = [site(0, 4)];
        let good = encode(&[record(0, 1, Space::Shared)]);
        assert_eq!(decode(&good[..100], &sites), Err(DecodeError::Length(100)));
        let mut unknown = good.clone();
        unknown[0] = 9;
        assert!(matches!(
            decode(&unknown, &sites),
            Err(DecodeError::UnknownSite { site: 9, .. })
        ));
        let mut space = good.clone();
        space[16] = 4;
        assert_eq!(
            decode(&space, &sites),
            Err(DecodeError::BadSpace { index: 0, code: 4 })
        );
        let mut width = good.clone();
        width[20] = 16;
        assert!(matches!(
            decode(&width, &sites),
            Err(DecodeError::Width { found: 16, .. })
        ));
        let mut empty = good;
        empty[12] = 0;
        assert_eq!(
            decode(&empty, &sites),
            Err(DecodeError::EmptyMask { index: 0 })
        );
    }

    #[test]
    fn an_mbarrier_events_addresses_come_through_as_logged() {
        let mut init = site(0, 0);
        init.event = Event::MbarInit;
        let mut wait = site(1, 0);
        wait.event = Event::MbarWait { relaxed: false };
        let sites = [init, wait];
        let mut i = record(0, 1, Space::Shared);
        i.width = 0;
        i.addrs[0] = 256 << 32 | 4096;
        let mut w = record(1, 0b110, Space::Shared);
        w.width = 0;
        w.addrs = [0; 32];
        w.addrs[1] = 4096;
        w.addrs[2] = 4096;
        let recs = vec![i, w];
        assert_eq!(
            decode(&encode_with_sites(&recs, &sites), &sites).unwrap(),
            recs
        );
    }

    #[test]
    fn barrier_records_need_barrier_sites() {
        let mut bar = site(1, 0);
        bar.event = Event::Barrier;
        let sites = [site(0, 4), bar];
        let mut b = record(1, u32::MAX, Space::Shared);
        b.width = 0;
        b.addrs = [0; 32];
        let recs = vec![record(0, 1, Space::Shared), b];
        let bytes = encode_with_sites(&recs, &sites);
        assert_eq!(
            &bytes[RECORD_BYTES + 16..RECORD_BYTES + 20],
            &7u32.to_le_bytes()
        );
        assert_eq!(decode(&bytes, &sites).unwrap(), recs);
        // A barrier code from an access site, or an access code from a barrier site.
        let mut wrong = bytes.clone();
        wrong[16] = 7;
        assert!(matches!(
            decode(&wrong, &sites),
            Err(DecodeError::BadSpace { index: 0, code: 7 })
        ));
        let mut wrong = bytes;
        wrong[RECORD_BYTES + 16] = 0;
        assert!(matches!(
            decode(&wrong, &sites),
            Err(DecodeError::BadSpace { index: 1, code: 0 })
        ));
    }

    #[test]
    fn overflow_is_what_the_counter_saw_past_the_capacity() {
        assert_eq!(records_to_read(10, 100), (10, 0));
        assert_eq!(records_to_read(130, 100), (100, 30));
    }
}
