//! From decoded records to per-instruction summaries and memory totals. Figures are for the
//! traced blocks only; the caller scales them to the grid and fills the block counts and
//! the overflow.
//!
//! Records are costed by the space they resolved to, so a generic instruction whose lanes
//! went to shared memory is costed in wavefronts. An instruction whose requests went to
//! several spaces is summarised under the space most of them went to, with every space's
//! figures in its own fields.

use crate::analysis::atomics;
use crate::analysis::races::{self, Op, Order, SharedEvent};
use crate::analysis::sass_map::Reshape;
use crate::model::access::{
    AccessKind, AtomShape, AtomicSummary, InstructionSummary, SassShape, Space, WarpAccess,
};
use crate::model::results::{
    ClusterStats, ConstantStats, GlobalStats, LocalStats, MemoryStats, SharedStats, TextureStats,
};
use crate::trace::decode::Record;
use crate::trace::instrument::{Event, Site};
use crate::trace::site_acc::{AtomicAcc, SPACES, SiteAcc};

/// Warps of a texture site whose first request is kept for the footprint view.
pub const FOOTPRINT_WARPS: usize = 8;

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
            && !site.is_event()
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
        // Barrier sites count no requests; only access sites are summarised.
        .filter_map(|(site, acc)| Some((site, site.kind()?, acc)))
        .map(|(site, kind, acc)| {
            // Most requests wins; ties go to the earlier space in SPACES.
            let main = (0..SPACES.len())
                .rev()
                .max_by_key(|&s| acc.requests[s])
                .unwrap_or(0);
            let shape = shape_of(shapes, site.id);
            let sample = acc.worst[main].map(|(_, i)| {
                let r = &records[i];
                WarpAccess {
                    // An atomic's first SASS request: one lane, where ptxas aggregated it.
                    mask: match &acc.atomic {
                        Some(a) => atomics::sass_requests(a.shape, r.mask, &r.addrs)
                            .first()
                            .copied()
                            .unwrap_or(r.mask),
                        None => r.mask,
                    },
                    width: r.width,
                    addrs: r.addrs.to_vec(),
                }
            });
            InstructionSummary {
                id: site.id,
                space: SPACES[main],
                kind: acc.atomic.as_ref().map_or(kind, |a| a.kind),
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
                local_sectors: acc.local_sectors,
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
                sass: sass_shape(shape, acc),
                atomic: acc.atomic.as_ref().map(|a| AtomicSummary {
                    shape: a.shape,
                    sass_op: a.opcode.clone(),
                    ptx_requests: a.ptx_requests,
                    ptx_lanes: a.ptx_lanes,
                    lanes: a.lanes,
                    addresses: a.addresses,
                    loop_loads: a.loop_loads,
                    loop_load_wavefronts: a.loop_wavefronts,
                    loop_load_ideal: a.loop_ideal,
                }),
                unused: site.unused,
                staged: site.staged,
                relayed: site.relayed,
            }
        })
        .collect()
}

/// How the SASS made a site, with its figures as the PTX reads, where it was made in pieces
/// or, for an atomic, other than as written.
fn sass_shape(shape: Shape, acc: &SiteAcc) -> Option<SassShape> {
    if let (Some(a), Some(sh)) = (&acc.atomic, shape) {
        return (a.shape != AtomShape::AsWritten).then(|| SassShape {
            note: sh.note.clone(),
            pieces: Vec::new(),
            ptx_requests: a.ptx_requests,
            ptx_wavefronts: 0,
            ptx_ideal_wavefronts: 0,
        });
    }
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
    let remote_blocks: std::collections::BTreeSet<u32> = (accs.iter())
        .flat_map(|a| a.remote_blocks.iter().copied())
        .collect();
    m.cluster.remote_blocks = remote_blocks.len() as u64;
    for a in accs {
        m.timed_shared_words += a.timed_words.len() as u64;
        m.timed_local_words += a.timed_local_words.len() as u64;
        m.shared_load_requests += a.shared_loads;
        m.timed_shared_load_requests += a.timed_shared_loads;
        m.local_load_requests += a.local_loads;
        m.timed_local_load_requests += a.timed_local_loads;
        m.shared_reserved_requests += a.shared_reserved;
        if let Some(at) = &a.atomic {
            add_atomic(&mut m, a, at);
            continue;
        }
        if a.bulk {
            let c = &mut m.copies;
            c.bulk_requests += a.requests[1];
            c.bulk_sectors += a.sectors;
            c.bulk_bytes += a.bytes_used;
            continue;
        }
        if a.copy {
            let c = &mut m.copies;
            c.global.requests += a.requests[1];
            c.global.sectors += a.sectors;
            c.global_bytes_used += a.bytes_used;
            c.shared.requests += a.requests[0];
            c.shared.wavefronts += a.wavefronts;
            c.shared.ideal_wavefronts += a.ideal;
            continue;
        }
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
            ..GlobalStats::default()
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
            remote_sectors: m.cluster.remote_sectors + a.remote_sectors,
            remote_words: m.cluster.remote_words + a.remote_words,
            remote_blocks: m.cluster.remote_blocks,
        };
        m.texture = TextureStats {
            requests: m.texture.requests + a.requests[5],
            texels: m.texture.texels + a.texels,
            rows: m.texture.rows + a.texel_rows,
        };
    }
    m
}

/// An atomic site's figures: its atomics apart from loads and stores (as Nsight Compute
/// counts them), the loads of a compare-and-swap loop with the shared loads, and any
/// requests of other spaces (a cluster's) where they go for every site.
fn add_atomic(m: &mut MemoryStats, a: &SiteAcc, at: &AtomicAcc) {
    let t = &mut m.atomics;
    t.shared.requests += a.requests[0];
    t.shared.wavefronts += a.wavefronts;
    t.shared.ideal_wavefronts += a.ideal;
    let g = match at.kind {
        AccessKind::Reduction => &mut t.global_red,
        _ => &mut t.global_atom,
    };
    g.requests += a.requests[1];
    g.sectors += a.sectors;
    t.updates += at.lanes;
    t.addresses += at.addresses;
    m.shared.requests += at.loop_loads;
    m.shared.wavefronts += at.loop_wavefronts;
    m.shared.ideal_wavefronts += at.loop_ideal;
    m.cluster.requests += a.requests[4];
    m.cluster.sectors += a.cluster_sectors;
    m.cluster.remote_requests += a.remote;
    m.cluster.remote_sectors += a.remote_sectors;
    m.cluster.remote_words += a.remote_words;
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
    analyze_launch(records, sites, shapes, None)
}

/// Where `GPULAB_RACE_EVENTS` names a file, the shared events of the block the first race
/// names, one a line, appended to it: a verdict a GPU's trace gives and the interpreter's
/// does not is read there (the order a GPU's lanes logged in is the GPU's alone). A
/// developer's aid; nothing of the lab reads the file.
fn dump_raced_block(events: &[races::SharedEvent], found: &[crate::model::results::Race]) {
    use std::io::Write;
    let (Some(path), Some(r)) = (std::env::var_os("GPULAB_RACE_EVENTS"), found.first()) else {
        return;
    };
    let Ok(mut f) = (std::fs::OpenOptions::new().create(true).append(true)).open(path) else {
        return;
    };
    let _ = writeln!(f, "# {r:?}");
    for e in events.iter().filter(|e| e.block == r.block) {
        let lanes: Vec<String> = (0..32)
            .filter(|l| e.mask >> l & 1 == 1)
            .map(|l| format!("{l}:{:#x}", e.addrs[l]))
            .collect();
        let _ = writeln!(
            f,
            "w{} {:?} line {:?} mask {:#010x} width {} {}",
            e.warp,
            e.op,
            e.line,
            e.mask,
            e.width,
            lanes.join(" ")
        );
    }
}

/// `analyze_shaped` of a launch whose blocks form clusters of `geom` (None: single blocks),
/// whose races between a cluster's blocks are looked for too.
pub fn analyze_launch(
    records: &[Record],
    sites: &[Site],
    shapes: &[Reshape],
    geom: Option<races::ClusterGeom>,
) -> MemoryStats {
    let accs = accumulate(records, sites, shapes);
    let mut groups = crate::analysis::copy_groups::CopyGroups::default();
    let mut stores = crate::analysis::store_use::StoreUse::default();
    let mut events = Vec::new();
    for r in records {
        if let Some(bytes) = copy_read_bytes(r, sites) {
            groups.copied(r.block, r.warp, bytes);
        }
        if let Some(e) = shared_event(r, sites) {
            groups.push(&e);
            stores.push(&e);
            events.push(e);
        }
    }
    let mut m = MemoryStats {
        instructions: summaries(&accs, records, sites, shapes),
        races_checked: true,
        races_in_warps_and_clusters: true,
        unused_loads_followed: true,
        races: races::find_races_in(&events, geom),
        ..sum_totals(&accs)
    };
    dump_raced_block(&events, &m.races);
    m.copies.waits = groups.waits;
    m.copies.waits_in_flight = groups.waits_in_flight;
    m.copies.reads = groups.reads;
    m.copies.reads_in_flight = groups.reads_in_flight;
    m.copies.completed_bytes = groups.completed_bytes;
    m.copies.overlapped_bytes = groups.overlapped_bytes;
    (m.shared_stores, m.shared_stores_read) = stores.counts();
    let mut cross = crate::trace::cross_block::CrossBlockStores::default();
    let mut calls = Calls::default();
    for r in records {
        if let Some(site) = sites.get(r.site as usize) {
            calls.push(r, site);
            m.shuffles += shuffle_lanes(r, site);
            cross.push(r, site);
        }
    }
    m.calls = calls.most();
    m.global.cross_block_words = cross.words;
    m.global.handover_words = cross.handed;
    (m.global.load_sectors, m.global.reread_sectors) = (cross.load_sectors, cross.reread_sectors);
    m
}

/// The calls made, a lane each, counted by the function called (`Site::callee`).
#[derive(Debug, Default)]
pub(super) struct Calls(std::collections::HashMap<String, u64>);

impl Calls {
    /// A record of a `call` site: its lanes, each a call of the site's function.
    pub(super) fn push(&mut self, r: &Record, site: &Site) {
        if site.event == Event::Call {
            *self.0.entry(site.callee.clone()).or_default() += u64::from(r.mask.count_ones());
        }
    }

    /// The calls of the function called most (`MemoryStats::calls`): a function called for
    /// every piece of the work stays at the work's count, however many calls of another
    /// (an empty one, made to bring the count up) are made beside it.
    pub(super) fn most(&self) -> u64 {
        self.0.values().copied().max().unwrap_or(0)
    }
}

/// The lanes a record of a shuffle site names (each a value exchanged in registers), 0
/// for any other record.
pub(super) fn shuffle_lanes(r: &Record, site: &Site) -> u64 {
    match site.event {
        Event::Shuffle => u64::from(r.mask.count_ones()),
        _ => 0,
    }
}

/// The bytes an asynchronous copy's global side reads: its record's lanes, each the copy's
/// size (a lane of source size 0 reads nothing and is not in the record). None for any
/// other record.
pub fn copy_read_bytes(r: &Record, sites: &[Site]) -> Option<u64> {
    let site = sites.get(r.site as usize)?;
    (site.kind() == Some(AccessKind::AsyncCopy) && r.space == Space::Global)
        .then(|| u64::from(r.width) * u64::from(r.mask.count_ones()))
}

/// A record as the race analysis sees it: a shared access (of the block's own memory or,
/// through the cluster's window, of any block of its cluster), a barrier of the block, the
/// warp or the cluster, or a copy group's commit or wait; else nothing.
pub fn shared_event(r: &Record, sites: &[Site]) -> Option<SharedEvent> {
    let site = sites.get(r.site as usize)?;
    let op = match (site.event, site.kind()) {
        (Event::Barrier, _) => Op::Barrier,
        (Event::CountedBarrier { threads }, _) => Op::CountedBarrier(threads),
        (Event::WarpSync, _) => Op::WarpSync,
        (Event::ClusterArrive, _) => Op::ClusterArrive,
        (Event::ClusterArriveRelaxed, _) => Op::ClusterArriveRelaxed,
        (Event::ClusterWait, _) => Op::ClusterWait,
        (Event::CopyCommit, _) => Op::CopyCommit,
        (Event::CopyWait { groups, all }, _) => Op::CopyWait { groups, all },
        (Event::MbarInit, _) => Op::MbarInit,
        (Event::MbarArrive { relaxed }, _) => Op::MbarArrive { relaxed },
        (Event::MbarWait { relaxed }, _) => Op::MbarWait { relaxed },
        (Event::Call | Event::Shuffle | Event::Fence, _) => return None,
        _ if !matches!(r.space, Space::Shared | Space::Cluster) => return None,
        (_, Some(AccessKind::Load | AccessKind::Matrix)) => Op::Read,
        (_, Some(AccessKind::Store)) => Op::Write,
        (_, Some(AccessKind::Atomic | AccessKind::Reduction)) => Op::Atomic,
        (_, Some(AccessKind::AsyncCopy)) => Op::CopyWrite,
        // A bulk copy's shared side: its destination, under its barrier's offset << 32.
        (_, Some(AccessKind::BulkCopy)) => Op::BulkWrite,
        (Event::Access { .. }, None) => return None,
    };
    Some(SharedEvent {
        block: r.block,
        warp: r.warp,
        op,
        line: site.source_line,
        mask: r.mask,
        width: r.width,
        addrs: r.addrs,
        remote: r.space == Space::Cluster,
        order: Order::of(&site.op),
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
