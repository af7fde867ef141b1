//! The census: every block's global and shared requests, counted where they are made,
//! beside the trace of a sample of blocks (logger.ptx writes it). A sample scaled to the
//! grid stands for the blocks it did not trace only if they work alike; a kernel that
//! takes another path in some blocks (a check's sample is drawn afresh, but a large block
//! leaves room for one or two), or the same path at other addresses (a tile's pitch that
//! conflicts in one block of 256), would otherwise be judged by the blocks that behave.
//! With a census, the global totals and the shared loads' and stores' wavefronts are the
//! grid's own, and what the sample alone gave is kept beside them, so a report can say
//! when the two part.

use super::instrument::{Event, Site};
use crate::model::access::{AccessKind, Space};
use crate::model::results::{MemoryStats, SampledGlobal, SharedCounts};

/// Slots per site: a block adds to slot `linear index % SLOTS`, so that the blocks of a
/// grid spread their additions over as many words.
pub const SLOTS: usize = 16;

/// u64 counters per slot: requests (any space); global requests, sectors, lines, bytes;
/// shared requests, wavefronts, ideal wavefronts (a slot is 64 bytes, as logger.ptx's
/// `mul.wide ... 64` takes it).
const COUNTERS: usize = 8;

/// u64 words of the counters of a module with `sites` sites; the lowest cluster index of
/// each site, a u32 each, follows them (`u32::MAX`: no block ran it).
pub fn counter_words(sites: usize) -> usize {
    sites * SLOTS * COUNTERS
}

/// u64 words of the whole census buffer: the counters, then the lowest clusters, two a
/// word (the last one padded).
pub fn words(sites: usize) -> usize {
    counter_words(sites) + sites.div_ceil(2)
}

/// The census buffer as it starts: counters at 0, every site's lowest cluster at
/// `u32::MAX`.
pub fn initial(sites: usize) -> Vec<u64> {
    let mut w = vec![0u64; counter_words(sites)];
    w.resize(words(sites), u64::MAX);
    w
}

/// The clusters to trace besides a sample for their count of events (logger.ptx's
/// `__gpulab_trace_census_events`: the synchronisations each cluster's warps made, by
/// linear cluster index): for each count no traced cluster made, the lowest cluster that
/// made it, at most `most`. One block that skips a barrier its neighbours make runs no
/// site they do not run (`Census::untraced_paths` cannot see it), but its count differs.
pub fn unmatched_events(counts: &[u32], traced: impl Fn(u64) -> bool, most: usize) -> Vec<u32> {
    let seen: std::collections::HashSet<u32> = (counts.iter().enumerate())
        .filter(|&(c, _)| traced(c as u64))
        .map(|(_, &n)| n)
        .collect();
    let mut taken = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (c, &n) in counts.iter().enumerate() {
        if out.len() >= most {
            break;
        }
        if !seen.contains(&n) && taken.insert(n) {
            out.push(c as u32);
        }
    }
    out
}

/// One site's figures, over every block of the grid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    /// Warp requests, of any space (the records a trace of every block would hold).
    pub requests: u64,
    /// Of them, the global ones, with their sectors, lines and distinct bytes.
    pub global: u64,
    pub sectors: u64,
    pub lines: u64,
    pub bytes: u64,
    /// Of them, the shared ones, costed as `analysis::banks` costs a request the SASS
    /// makes as the PTX writes it.
    pub shared: u64,
    pub wavefronts: u64,
    pub ideal: u64,
    /// The lowest linear cluster index (a block's, without clusters) that ran the site.
    pub first_cluster: Option<u32>,
}

/// The census of one launch: each site's figures, in site order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    pub sites: Vec<Counted>,
}

impl Census {
    /// The census from its buffer as downloaded (`words(sites)` of them), the slots
    /// of each site summed.
    pub fn from_words(words: &[u64], sites: usize) -> Census {
        let firsts = |s: usize| {
            let w = words.get(counter_words(sites) + s / 2)?;
            let v = if s.is_multiple_of(2) {
                *w as u32
            } else {
                (*w >> 32) as u32
            };
            (v != u32::MAX).then_some(v)
        };
        let sites = (0..sites)
            .map(|s| {
                let mut c = Counted {
                    first_cluster: firsts(s),
                    ..Counted::default()
                };
                for slot in 0..SLOTS {
                    let at = (s * SLOTS + slot) * COUNTERS;
                    let Some(w) = words.get(at..at + COUNTERS) else {
                        break;
                    };
                    c.requests += w[0];
                    c.global += w[1];
                    c.sectors += w[2];
                    c.lines += w[3];
                    c.bytes += w[4];
                    c.shared += w[5];
                    c.wavefronts += w[6];
                    c.ideal += w[7];
                }
                c
            })
            .collect();
        Census { sites }
    }

    /// The clusters to trace besides a sample, so that every site some block ran is run
    /// by a traced block: for each site the census saw run and the trace did not
    /// (`traced[site]` requests logged), the lowest cluster that ran it, at most `most`.
    pub fn untraced_paths(&self, traced: &[u64], most: usize) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        for (s, c) in self.sites.iter().enumerate() {
            let seen = traced.get(s).copied().unwrap_or(0) > 0;
            if let (false, true, Some(first)) = (seen, c.requests > 0, c.first_cluster)
                && !out.contains(&first)
                && out.len() < most
            {
                out.push(first);
            }
        }
        out
    }

    /// Put the grid's own figures in `m` (already scaled from the sample), in place of the
    /// sample's: global plain loads and stores in `global`, the reads of `cp.async` in the
    /// copies' totals, the texture fetches' requests, and the shared plain loads' and
    /// stores' requests and wavefronts.
    /// Atomics (whose figures follow the SASS), bulk copies, and a shared access the SASS
    /// makes otherwise than the PTX writes it (`reshaped`: in pieces, or read in another
    /// load's instruction; the census costs the PTX's access) keep the sample's. What the
    /// sample gave is kept in `m.census`.
    pub fn apply(&self, sites: &[Site], reshaped: &[u32], m: &mut MemoryStats) {
        let mut plain = Counted::default();
        let mut copies = Counted::default();
        for (site, c) in sites.iter().zip(&self.sites) {
            let into = match site.event {
                Event::Access {
                    kind: AccessKind::Load | AccessKind::Store,
                    ..
                } => &mut plain,
                Event::Access {
                    kind: AccessKind::AsyncCopy,
                    ..
                } => &mut copies,
                _ => continue,
            };
            into.global += c.global;
            into.sectors += c.sectors;
            into.lines += c.lines;
            into.bytes += c.bytes;
        }
        m.census = Some(SampledGlobal {
            requests: m.global.requests,
            sectors: m.global.sectors,
            added_blocks: 0,
            shared_wavefronts: m.shared.wavefronts,
        });
        m.global.requests = plain.global;
        m.global.sectors = plain.sectors;
        m.global.lines = plain.lines;
        m.global.bytes_used = plain.bytes;
        m.copies.global.requests = copies.global;
        m.copies.global.sectors = copies.sectors;
        m.copies.global_bytes_used = copies.bytes;
        self.apply_texture(sites, m);
        self.apply_shared(sites, reshaped, m);
    }

    /// The grid's texture requests in place of the sample's, and the texels and rows
    /// scaled with them (per request, the sample's): a kernel whose blocks fetch unevenly
    /// (half of them return at once) is otherwise judged by how many of the busy ones the
    /// sample happened to draw. Where the census counted none, the sample's stand.
    fn apply_texture(&self, sites: &[Site], m: &mut MemoryStats) {
        let grid: u64 = (sites.iter().zip(&self.sites))
            .filter(|(s, _)| {
                matches!(
                    s.event,
                    Event::Access {
                        space: Space::Texture,
                        ..
                    }
                )
            })
            .map(|(_, c)| c.requests)
            .sum();
        let t = &mut m.texture;
        if grid == 0 || t.requests == 0 {
            return;
        }
        let k = grid as f64 / t.requests as f64;
        let s = |x: u64| (x as f64 * k).round() as u64;
        t.texels = s(t.texels);
        t.rows = s(t.rows);
        t.requests = grid;
    }

    /// The shared half of `apply`: a shared load or store site's figures of the sample,
    /// scaled as `m`'s were, give way to the census's, by direction and in all. Where
    /// every shared request is such a site's, the totals are the census's exactly.
    fn apply_shared(&self, sites: &[Site], reshaped: &[u32], m: &mut MemoryStats) {
        // [loads, stores]: what the sample's instructions gave, and the grid's.
        let mut sampled = [SharedCounts::default(), SharedCounts::default()];
        let mut grid = sampled.clone();
        for (site, c) in sites.iter().zip(&self.sites) {
            let dir = match site.event {
                Event::Access {
                    space: Space::Shared,
                    kind: AccessKind::Load,
                } => 0,
                Event::Access {
                    space: Space::Shared,
                    kind: AccessKind::Store,
                } => 1,
                _ => continue,
            };
            if reshaped.contains(&site.id) {
                continue;
            }
            add(&mut grid[dir], c.shared, c.wavefronts, c.ideal);
            if let Some(i) = m.instructions.iter().find(|i| i.id == site.id) {
                add(
                    &mut sampled[dir],
                    i.requests,
                    i.wavefronts,
                    i.ideal_wavefronts,
                );
            }
        }
        let k = m.total_blocks as f64 / m.traced_blocks.max(1) as f64;
        let swap = |t: &mut SharedCounts, was: &SharedCounts, now: &SharedCounts| {
            let s = |x: u64| (x as f64 * k).round() as u64;
            t.requests = t.requests.saturating_sub(s(was.requests)) + now.requests;
            t.wavefronts = t.wavefronts.saturating_sub(s(was.wavefronts)) + now.wavefronts;
            t.ideal_wavefronts =
                t.ideal_wavefronts.saturating_sub(s(was.ideal_wavefronts)) + now.ideal_wavefronts;
        };
        swap(&mut m.shared.ld, &sampled[0], &grid[0]);
        swap(&mut m.shared.st, &sampled[1], &grid[1]);
        let both = |x: &[SharedCounts; 2]| {
            let mut b = x[0].clone();
            add(
                &mut b,
                x[1].requests,
                x[1].wavefronts,
                x[1].ideal_wavefronts,
            );
            b
        };
        let mut all = SharedCounts {
            requests: m.shared.requests,
            wavefronts: m.shared.wavefronts,
            ideal_wavefronts: m.shared.ideal_wavefronts,
        };
        swap(&mut all, &both(&sampled), &both(&grid));
        m.shared.requests = all.requests;
        m.shared.wavefronts = all.wavefronts;
        m.shared.ideal_wavefronts = all.ideal_wavefronts;
    }
}

fn add(c: &mut SharedCounts, requests: u64, wavefronts: u64, ideal: u64) {
    c.requests += requests;
    c.wavefronts += wavefronts;
    c.ideal_wavefronts += ideal;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_whose_count_of_events_no_traced_cluster_made_is_traced_once_a_count() {
        // 12 clusters of 8 events each; cluster 9 skips one barrier in each of 4 turns,
        // clusters 10 and 11 (past the end of the data) make none. The sample: 0, 4, 8.
        let mut counts = vec![8u32; 12];
        counts[9] = 4;
        counts[10] = 0;
        counts[11] = 0;
        let traced = |c: u64| c.is_multiple_of(4);
        assert_eq!(unmatched_events(&counts, traced, 8), vec![9, 10]);
        assert_eq!(
            unmatched_events(&counts, traced, 1),
            vec![9],
            "at most `most`"
        );
        // Traced once found, the count is seen and nothing more is added.
        let wider = |c: u64| c.is_multiple_of(4) || c == 9 || c == 10;
        assert!(unmatched_events(&counts, wider, 8).is_empty());
        // A grid whose clusters all behave alike adds nothing.
        assert!(unmatched_events(&[8; 12], traced, 8).is_empty());
    }
    use crate::model::access::InstructionSummary;

    fn site(id: u32, kind: AccessKind) -> Site {
        let space = Space::Global;
        Site {
            id,
            ..Site::for_test(Event::Access { space, kind }, "ld.global.f32")
        }
    }

    #[test]
    fn the_slots_of_a_site_are_summed_and_the_grid_replaces_the_sample() {
        let sites = [
            site(0, AccessKind::Load),
            site(1, AccessKind::Store),
            site(2, AccessKind::AsyncCopy),
            site(3, AccessKind::Atomic),
        ];
        let mut words = initial(sites.len());
        assert_eq!(words.len(), counter_words(4) + 2);
        assert_eq!(words.len(), super::words(4));
        // Site 0: two slots; site 1: one; site 2 (a copy's read): one; site 3 (an atomic):
        // left to the sample.
        let slot = |s: usize, k: usize| (s * SLOTS + k) * COUNTERS;
        words[slot(0, 0)..slot(0, 0) + 5].copy_from_slice(&[10, 10, 40, 10, 1280]);
        words[slot(0, 5)..slot(0, 5) + 5].copy_from_slice(&[2, 2, 64, 16, 256]);
        words[slot(1, 0)..slot(1, 0) + 5].copy_from_slice(&[3, 3, 12, 3, 384]);
        words[slot(2, 0)..slot(2, 0) + 5].copy_from_slice(&[5, 5, 20, 5, 640]);
        words[slot(3, 0)..slot(3, 0) + 5].copy_from_slice(&[99, 99, 99, 99, 99]);
        // Site 0 first ran in cluster 7, site 3 in cluster 2; sites 1 and 2 keep u32::MAX.
        words[counter_words(4)] = u64::MAX << 32 | 7;
        words[counter_words(4) + 1] = 2 << 32 | 0xFFFF_FFFF;
        let c = Census::from_words(&words, sites.len());
        assert_eq!(
            c.sites[0],
            Counted {
                requests: 12,
                global: 12,
                sectors: 104,
                lines: 26,
                bytes: 1536,
                first_cluster: Some(7),
                ..Counted::default()
            }
        );
        assert_eq!(c.sites[2].first_cluster, None);
        assert_eq!(c.sites[3].first_cluster, Some(2));
        let mut m = MemoryStats::default();
        m.global.requests = 8;
        m.global.sectors = 32;
        m.atomics.global_atom.requests = 7;
        c.apply(&sites, &[], &mut m);
        assert_eq!((m.global.requests, m.global.sectors), (15, 116));
        assert_eq!((m.global.lines, m.global.bytes_used), (29, 1920));
        assert_eq!((m.copies.global.requests, m.copies.global.sectors), (5, 20));
        assert_eq!(m.copies.global_bytes_used, 640);
        assert_eq!(
            m.atomics.global_atom.requests, 7,
            "atomics keep the sample's"
        );
        let was = m.census.expect("the sample's figures are kept");
        assert_eq!((was.requests, was.sectors), (8, 32));
    }

    fn shared_site(id: u32, kind: AccessKind) -> Site {
        let mut s = site(id, kind);
        s.event = Event::Access {
            space: Space::Shared,
            kind,
        };
        s
    }

    fn traced(
        id: u32,
        kind: &str,
        (requests, wavefronts, ideal): (u64, u64, u64),
    ) -> InstructionSummary {
        serde_json::from_value(serde_json::json!({
            "id": id, "space": "shared", "kind": kind, "op": "ld.shared.f32",
            "ptx_line": 1, "source_line": null, "width": 4, "requests": requests,
            "wavefronts": wavefronts, "ideal_wavefronts": ideal, "sectors": 0,
            "lines": 0, "bytes_used": 0, "distinct": 0, "local_bytes": 0, "sample": null
        }))
        .unwrap()
    }

    #[test]
    fn the_grid_s_texture_requests_replace_the_sample_s_with_the_texels_per_request_kept() {
        // A sample that drew more of the busy blocks: 120 requests scaled to the grid, where
        // the grid made 100; its texels per request (4) stay.
        let tex = Site {
            id: 0,
            ..Site::for_test(
                Event::Access {
                    space: Space::Texture,
                    kind: AccessKind::Load,
                },
                "tex.2d.v4.f32.f32",
            )
        };
        let sites = [tex, site(1, AccessKind::Load)];
        let mut words = initial(sites.len());
        words[0] = 100;
        let c = Census::from_words(&words, sites.len());
        let mut m = MemoryStats::default();
        m.texture.requests = 120;
        m.texture.texels = 480;
        m.texture.rows = 240;
        c.apply(&sites, &[], &mut m);
        assert_eq!(
            (m.texture.requests, m.texture.texels, m.texture.rows),
            (100, 400, 200)
        );
        // A census that counted no fetch leaves the sample's figures.
        let mut m = MemoryStats::default();
        m.texture.requests = 120;
        Census::from_words(&initial(2), 2).apply(&sites, &[], &mut m);
        assert_eq!(m.texture.requests, 120);
    }

    #[test]
    fn the_grid_s_shared_wavefronts_replace_the_sample_s_but_where_the_sass_splits_an_access() {
        // A load the sample saw conflict-free and one block conflicted in (31 wavefronts
        // more in each of 4 requests), a store, and a load the SASS makes in two pieces.
        let sites = [
            shared_site(0, AccessKind::Load),
            shared_site(1, AccessKind::Store),
            shared_site(2, AccessKind::Load),
            site(3, AccessKind::Load),
        ];
        let mut words = initial(sites.len());
        let slot = |s: usize| s * SLOTS * COUNTERS;
        words[slot(0)..slot(0) + 8].copy_from_slice(&[40, 0, 0, 0, 0, 40, 40 + 31 * 4, 40]);
        words[slot(1)..slot(1) + 8].copy_from_slice(&[16, 0, 0, 0, 0, 16, 16, 16]);
        words[slot(2)..slot(2) + 8].copy_from_slice(&[24, 0, 0, 0, 0, 24, 24, 24]);
        let c = Census::from_words(&words, sites.len());
        assert_eq!((c.sites[0].shared, c.sites[0].wavefronts), (40, 164));
        // Two blocks of eight traced: each figure scaled by 4, as scale_to_grid leaves it.
        let mut m = MemoryStats {
            traced_blocks: 2,
            total_blocks: 8,
            instructions: vec![
                traced(0, "load", (10, 10, 10)),
                traced(1, "store", (4, 4, 4)),
                traced(2, "load", (6, 12, 6)),
            ],
            ..MemoryStats::default()
        };
        m.shared.ld = SharedCounts {
            requests: 64,
            wavefronts: 88,
            ideal_wavefronts: 64,
        };
        m.shared.st = SharedCounts {
            requests: 16,
            wavefronts: 16,
            ideal_wavefronts: 16,
        };
        (
            m.shared.requests,
            m.shared.wavefronts,
            m.shared.ideal_wavefronts,
        ) = (80, 104, 80);
        c.apply(&sites, &[2], &mut m);
        let ld = &m.shared.ld;
        assert_eq!(
            (ld.requests, ld.wavefronts, ld.ideal_wavefronts),
            (64, 212, 64)
        );
        let st = &m.shared.st;
        assert_eq!(
            (st.requests, st.wavefronts, st.ideal_wavefronts),
            (16, 16, 16)
        );
        let all = (
            m.shared.requests,
            m.shared.wavefronts,
            m.shared.ideal_wavefronts,
        );
        assert_eq!(all, (80, 228, 80), "the split load keeps the sample's 48");
        let was = m.census.expect("the sample's figures are kept");
        assert_eq!(was.shared_wavefronts, 104);
    }

    #[test]
    fn a_site_only_untraced_blocks_ran_names_the_first_cluster_that_ran_it() {
        let ran = |requests, first| Counted {
            requests,
            first_cluster: first,
            ..Counted::default()
        };
        let c = Census {
            sites: vec![
                ran(40, Some(0)),
                ran(5, Some(9)),
                ran(0, None),
                ran(3, Some(9)),
                ran(8, Some(4)),
            ],
        };
        // The sample ran sites 0 and 4: sites 1 and 3 ran only elsewhere, first in 9.
        assert_eq!(c.untraced_paths(&[12, 0, 0, 0, 2], 8), vec![9]);
        assert_eq!(c.untraced_paths(&[0, 0, 0, 0, 0], 8), vec![0, 9, 4]);
        assert_eq!(c.untraced_paths(&[0, 0, 0, 0, 0], 2), vec![0, 9]);
        assert!(c.untraced_paths(&[1, 1, 0, 1, 1], 8).is_empty());
    }
}
