//! From decoded records to per-instruction summaries and memory totals. Figures are for the
//! traced blocks only; the caller scales them to the grid and fills the block counts and
//! the overflow.
//!
//! Records are costed by the space they resolved to, so a generic instruction whose lanes
//! went to shared memory is costed in wavefronts. An instruction whose requests went to
//! several spaces is summarised under the space most of them went to, with every space's
//! figures in its own fields.

use crate::analysis::banks::{self, BANKS};
use crate::analysis::races::{self, Op, SharedEvent};
use crate::analysis::sass_map::Reshape;
use crate::analysis::{coalescing, spaces};
use crate::model::access::{
    AccessKind, InstructionSummary, SassShape, Space, WarpAccess, WarpTexels,
};
use crate::model::results::{
    ClusterStats, ConstantStats, GlobalStats, LocalStats, MemoryStats, SharedStats, TextureStats,
};
use crate::trace::decode::Record;
use crate::trace::instrument::Site;
use crate::trace::repeat::Recent;

const SPACES: [Space; 6] = [
    Space::Shared,
    Space::Global,
    Space::Local,
    Space::Constant,
    Space::Cluster,
    Space::Texture,
];

/// Warps of a texture site whose first request is kept for the footprint view.
pub const FOOTPRINT_WARPS: usize = 8;

pub(super) fn space_index(space: Space) -> usize {
    SPACES.iter().position(|&s| s == space).unwrap_or(0)
}

/// Running figures of one site.
#[derive(Default, Clone)]
pub(super) struct SiteAcc {
    requests: [u64; 6],
    wavefronts: u64,
    ideal: u64,
    bank_words: [u64; BANKS],
    sectors: u64,
    lines: u64,
    bytes_used: u64,
    distinct: u64,
    local_bytes: u64,
    cluster_sectors: u64,
    remote: u64,
    texels: u64,
    texel_rows: u64,
    footprint: Vec<WarpTexels>,
    /// Per space: (cost, record index) of the costliest request, the first among equals.
    pub(super) worst: [Option<(u64, usize)>; 6],
    /// A site the SASS makes in pieces: its requests, wavefronts and ideal as the PTX reads.
    ptx: (u64, u64, u64),
    /// Active lanes, summed over the requests of the PTX access.
    lanes: u64,
    /// The figures of this site's latest shared and global request patterns.
    recent: Recent<Figures>,
}

/// What one shared or global request adds to its site's figures.
#[derive(Clone, Copy, Default)]
struct Figures {
    wavefronts: u32,
    ideal: u32,
    bank_words: [u32; BANKS],
    global: coalescing::GlobalCost,
    /// A request the SASS makes in pieces: its wavefronts and ideal as the PTX reads.
    ptx: Option<(u32, u32)>,
}

impl Figures {
    fn of(r: &Record, shape: Shape) -> Figures {
        if r.space == Space::Global {
            return Figures {
                global: coalescing::global_request(r.mask, r.width, &r.addrs),
                ..Figures::default()
            };
        }
        let mut banks = [0; BANKS];
        let mut f = Figures::default();
        match shape {
            None => {
                (f.wavefronts, f.ideal) =
                    banks::shared_totals(r.mask, r.width, &r.addrs, &mut banks)
            }
            Some(shape) => {
                let mut unused = [0; BANKS];
                f.ptx = Some(banks::shared_totals(r.mask, r.width, &r.addrs, &mut unused));
                for p in &shape.pieces {
                    let addrs = r.addrs.map(|a| a + u64::from(p.offset));
                    let (pw, pi) = banks::shared_totals(r.mask, p.width, &addrs, &mut banks);
                    f.wavefronts += pw;
                    f.ideal += pi;
                }
            }
        }
        f.bank_words = banks.map(|n| n as u32);
        f
    }
}

impl SiteAcc {
    pub(super) fn add(
        &mut self,
        index: usize,
        r: &Record,
        site: &Site,
        kept: &[(u32, u32)],
        shape: Shape,
    ) {
        let shape = shape.filter(|_| r.space == Space::Shared);
        let cost = match r.space {
            Space::Shared | Space::Global => self.add_repeatable(r, shape),
            Space::Constant => {
                let d = u64::from(coalescing::constant_request(r.mask, &r.addrs));
                self.distinct += d;
                d
            }
            Space::Local => {
                let b = coalescing::local_bytes(r.mask, r.width);
                self.local_bytes += b;
                b
            }
            Space::Cluster => {
                let c = spaces::cluster_request(r.mask, r.width, &r.addrs, r.rank);
                self.cluster_sectors += u64::from(c.sectors);
                self.remote += u64::from(c.remote);
                u64::from(c.sectors)
            }
            Space::Texture => self.add_texture(r, site, kept),
        };
        self.lanes += u64::from(r.mask.count_ones());
        let s = space_index(r.space);
        // Each piece is a SASS instruction of its own: a request of its own.
        self.requests[s] += shape.map_or(1, |sh| sh.pieces.len() as u64);
        if self.worst[s].is_none_or(|(c, _)| cost > c) {
            self.worst[s] = Some((cost, index));
        }
    }

    /// A shared or global request, costed once per pattern (`repeat`); its cost.
    fn add_repeatable(&mut self, r: &Record, shape: Shape) -> u64 {
        let f = match self.recent.get(r) {
            Some(f) => f,
            None => {
                let f = Figures::of(r, shape);
                self.recent.put(r, f);
                f
            }
        };
        if r.space == Space::Global {
            let g = f.global;
            self.sectors += u64::from(g.sectors);
            self.lines += u64::from(g.lines);
            self.bytes_used += u64::from(g.bytes_used);
            return u64::from(g.sectors);
        }
        // A request the SASS makes in pieces: each piece costed at its offset and width
        // (the heatmap's banks too); the PTX's figures kept beside.
        if let Some((w, ideal)) = f.ptx {
            self.ptx.0 += 1;
            self.ptx.1 += u64::from(w);
            self.ptx.2 += u64::from(ideal);
        }
        for (total, &n) in self.bank_words.iter_mut().zip(&f.bank_words) {
            *total += u64::from(n);
        }
        self.wavefronts += u64::from(f.wavefronts);
        self.ideal += u64::from(f.ideal);
        u64::from(f.wavefronts)
    }

    /// Distinct texels of a fetch (its cost); the first request of each of the `kept` warps
    /// is kept for the footprint view.
    fn add_texture(&mut self, r: &Record, site: &Site, kept: &[(u32, u32)]) -> u64 {
        // A texture record comes only from a site the instrumenter gave coordinates.
        let Some(coords) = site.coords else { return 0 };
        let (texels, rows) = spaces::texture_request(r.mask, &r.addrs, coords);
        self.texels += u64::from(texels);
        self.texel_rows += u64::from(rows);
        let seen = self
            .footprint
            .iter()
            .any(|w| (w.block, w.warp) == (r.block, r.warp));
        if !seen && kept.contains(&(r.block, r.warp)) {
            self.footprint.push(WarpTexels {
                block: r.block,
                warp: r.warp,
                texels: spaces::texels(r.mask, &r.addrs, coords),
            });
        }
        u64::from(texels)
    }
}

/// The warps whose texture fetches the footprint view draws: the first `FOOTPRINT_WARPS`
/// to fetch, the same for every texture instruction, so that a warp's footprint holds all
/// of its fetches (the log's order across warps is the order they ran in).
fn footprint_warps(records: &[Record]) -> Vec<(u32, u32)> {
    let mut kept = Vec::with_capacity(FOOTPRINT_WARPS);
    for r in records.iter().filter(|r| r.space == Space::Texture) {
        if kept.len() == FOOTPRINT_WARPS {
            break;
        }
        if !kept.contains(&(r.block, r.warp)) {
            kept.push((r.block, r.warp));
        }
    }
    kept
}

/// One pass over the records; records naming no known site are left out.
/// How the SASS makes a site, where it differs from the PTX.
pub(super) type Shape<'a> = Option<&'a Reshape>;

pub(super) fn shape_of(shapes: &[Reshape], site: u32) -> Shape<'_> {
    shapes.iter().find(|s| s.id == site)
}

fn accumulate(records: &[Record], sites: &[Site], shapes: &[Reshape]) -> Vec<SiteAcc> {
    let kept = footprint_warps(records);
    let mut accs = vec![SiteAcc::default(); sites.len()];
    let by_site: Vec<Shape> = (0..sites.len() as u32)
        .map(|i| shape_of(shapes, i))
        .collect();
    for (i, r) in records.iter().enumerate() {
        let at = r.site as usize;
        if let (Some(acc), Some(site)) = (accs.get_mut(at), sites.get(at))
            && !site.is_barrier()
        {
            acc.add(i, r, site, &kept, by_site[at]);
        }
    }
    accs
}

pub(super) fn summaries(
    accs: &[SiteAcc],
    records: &[Record],
    sites: &[Site],
    shapes: &[Reshape],
) -> Vec<InstructionSummary> {
    sites
        .iter()
        .zip(accs)
        .filter(|(_, acc)| acc.requests.iter().any(|&n| n > 0))
        .map(|(site, acc)| {
            // Most requests wins; ties go to the earlier space in SPACES.
            let main = (0..SPACES.len())
                .rev()
                .max_by_key(|&s| acc.requests[s])
                .unwrap_or(0);
            let sample = acc.worst[main].map(|(_, i)| {
                let r = &records[i];
                WarpAccess {
                    mask: r.mask,
                    width: r.width,
                    addrs: r.addrs.to_vec(),
                }
            });
            InstructionSummary {
                id: site.id,
                space: SPACES[main],
                kind: site.kind,
                op: site.op.clone(),
                ptx_line: site.ptx_line,
                source_line: site.source_line,
                width: site.width,
                requests: acc.requests.iter().sum(),
                wavefronts: acc.wavefronts,
                ideal_wavefronts: acc.ideal,
                sectors: acc.sectors + acc.cluster_sectors,
                lines: acc.lines,
                bytes_used: acc.bytes_used,
                distinct: acc.distinct,
                local_bytes: acc.local_bytes,
                texels: acc.texels,
                texel_rows: acc.texel_rows,
                remote_requests: acc.remote,
                coords: site.coords,
                footprint: acc.footprint.clone(),
                bank_words: if acc.requests[0] > 0 {
                    acc.bank_words.to_vec()
                } else {
                    Vec::new()
                },
                sample,
                lanes: acc.lanes,
                sass: sass_shape(shape_of(shapes, site.id), acc),
            }
        })
        .collect()
}

/// How the SASS made a site, with its figures as the PTX reads, where it was made in pieces.
fn sass_shape(shape: Shape, acc: &SiteAcc) -> Option<SassShape> {
    let sh = shape.filter(|_| acc.ptx.0 > 0)?;
    Some(SassShape {
        note: sh.note.clone(),
        pieces: sh.pieces.clone(),
        ptx_requests: acc.ptx.0,
        ptx_wavefronts: acc.ptx.1,
        ptx_ideal_wavefronts: acc.ptx.2,
    })
}

pub(super) fn sum_totals(accs: &[SiteAcc]) -> MemoryStats {
    let mut m = MemoryStats::default();
    for a in accs {
        m.shared = SharedStats {
            requests: m.shared.requests + a.requests[0],
            wavefronts: m.shared.wavefronts + a.wavefronts,
            ideal_wavefronts: m.shared.ideal_wavefronts + a.ideal,
            ..SharedStats::default()
        };
        m.global = GlobalStats {
            requests: m.global.requests + a.requests[1],
            sectors: m.global.sectors + a.sectors,
            lines: m.global.lines + a.lines,
            bytes_used: m.global.bytes_used + a.bytes_used,
        };
        m.local = LocalStats {
            bytes: m.local.bytes + a.local_bytes,
        };
        m.constant = ConstantStats {
            requests: m.constant.requests + a.requests[3],
            distinct: m.constant.distinct + a.distinct,
        };
        m.cluster = ClusterStats {
            requests: m.cluster.requests + a.requests[4],
            sectors: m.cluster.sectors + a.cluster_sectors,
            remote_requests: m.cluster.remote_requests + a.remote,
        };
        m.texture = TextureStats {
            requests: m.texture.requests + a.requests[5],
            texels: m.texture.texels + a.texels,
            rows: m.texture.rows + a.texel_rows,
        };
    }
    m
}

/// One summary per site that logged anything, in site order.
pub fn summarize(records: &[Record], sites: &[Site]) -> Vec<InstructionSummary> {
    summaries(&accumulate(records, sites, &[]), records, sites, &[])
}

/// The memory totals of the records, without per-instruction detail.
pub fn totals(records: &[Record], sites: &[Site]) -> MemoryStats {
    sum_totals(&accumulate(records, sites, &[]))
}

/// Totals and per-instruction summaries from one pass over the records, and the races
/// between warps in shared memory.
pub fn analyze(records: &[Record], sites: &[Site]) -> MemoryStats {
    analyze_shaped(records, sites, &[])
}

/// `analyze`, with the shared accesses the SASS makes in pieces (`sass_map::reshape`)
/// counted as the SASS makes them.
pub fn analyze_shaped(records: &[Record], sites: &[Site], shapes: &[Reshape]) -> MemoryStats {
    let accs = accumulate(records, sites, shapes);
    MemoryStats {
        instructions: summaries(&accs, records, sites, shapes),
        races_checked: true,
        races: races::find_races(&shared_events(records, sites)),
        ..sum_totals(&accs)
    }
}

/// The barriers and the shared-memory (`::cta`) requests of the records, in log order, for
/// the race analysis. Another block's memory through the cluster window is left out.
pub fn shared_events(records: &[Record], sites: &[Site]) -> Vec<SharedEvent> {
    records
        .iter()
        .filter_map(|r| shared_event(r, sites))
        .collect()
}

/// A record as the race analysis sees it: a shared access or a barrier, else nothing.
pub fn shared_event(r: &Record, sites: &[Site]) -> Option<SharedEvent> {
    let site = sites.get(r.site as usize)?;
    let op = match site.kind {
        _ if site.is_barrier() => Op::Barrier,
        _ if r.space != Space::Shared => return None,
        AccessKind::Load => Op::Read,
        AccessKind::Store => Op::Write,
    };
    Some(SharedEvent {
        block: r.block,
        warp: r.warp,
        op,
        line: site.source_line,
        mask: r.mask,
        width: r.width,
        addrs: r.addrs,
    })
}

#[cfg(test)]
#[path = "analyze_tests.rs"]
mod tests;

/// The size texture sites are scaled by: that of the textures `v` is passed, when every one
/// of them reads normalized coordinates and all have one size. The PTX does not say which
/// texture a fetch reads, so with any other mix the coordinates are taken as unnormalised.
pub fn normalized_size(
    lesson: &crate::model::Lesson,
    v: &crate::model::Variant,
) -> Option<(u64, u64)> {
    let textures: Vec<&crate::model::texture::Texture> = v
        .args
        .iter()
        .filter_map(|a| match a {
            crate::model::lesson::Arg::Texture(i) => lesson.textures.get(*i),
            _ => None,
        })
        .collect();
    let first = textures.first()?;
    let size = (first.width, first.height);
    textures
        .iter()
        .all(|t| t.normalized && (t.width, t.height) == size)
        .then_some(size)
}

/// Give every texture site the normalized size, if there is one (`normalized_size`).
pub fn set_normalized(sites: &mut [Site], size: Option<(u64, u64)>) {
    for c in sites.iter_mut().filter_map(|s| s.coords.as_mut()) {
        c.normalized = size;
    }
}
