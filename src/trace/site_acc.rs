//! One site's running figures, request by request: what each request costs in the space it
//! went to (wavefronts, sectors, distinct constants, local bytes, texels), summed, with its
//! costliest request remembered for the per-instruction sample. An atomic's shared or
//! global request is costed as the SASS makes it (`analysis::atomics`).

use super::analyze::Shape;
use crate::analysis::atomics::{self, AtomicCost, AtomicSass};
use crate::analysis::banks::{self, BANKS};
use crate::analysis::{coalescing, spaces};
use crate::model::access::{AccessKind, AtomShape, Space, WarpTexels};
use crate::trace::decode::Record;
use crate::trace::instrument::Site;
use crate::trace::repeat::Recent;

pub(super) const SPACES: [Space; 6] = [
    Space::Shared,
    Space::Global,
    Space::Local,
    Space::Constant,
    Space::Cluster,
    Space::Texture,
];

pub(super) fn space_index(space: Space) -> usize {
    SPACES.iter().position(|&s| s == space).unwrap_or(0)
}

/// Running figures of one site.
#[derive(Default, Clone)]
pub(super) struct SiteAcc {
    pub(super) requests: [u64; 6],
    pub(super) wavefronts: u64,
    pub(super) ideal: u64,
    pub(super) bank_words: [u64; BANKS],
    pub(super) sectors: u64,
    pub(super) lines: u64,
    pub(super) bytes_used: u64,
    pub(super) distinct: u64,
    pub(super) local_bytes: u64,
    pub(super) local_sectors: u64,
    pub(super) cluster_sectors: u64,
    /// Of those, another block's: the bytes that crossed the cluster.
    pub(super) remote_sectors: u64,
    pub(super) remote_words: u64,
    pub(super) remote: u64,
    /// The blocks whose requests here reached another block of the cluster.
    pub(super) remote_blocks: std::collections::BTreeSet<u32>,
    pub(super) texels: u64,
    pub(super) texel_rows: u64,
    pub(super) footprint: Vec<WarpTexels>,
    /// Per space: (cost, record index) of the costliest request, the first among equals.
    pub(super) worst: [Option<(u64, usize)>; 6],
    /// A site the SASS makes in pieces: its requests, wavefronts and ideal as the PTX reads.
    pub(super) ptx: (u64, u64, u64),
    /// Active lanes, summed over the requests of the PTX access.
    pub(super) lanes: u64,
    /// An atomic's figures (its shared or global requests), once one was traced.
    pub(super) atomic: Option<AtomicAcc>,
    /// An asynchronous copy's site (its read or its write): its figures go to the copies'
    /// totals, not the loads' and stores'.
    pub(super) copy: bool,
    /// A bulk copy's site: its figures go to the bulk copies' totals.
    pub(super) bulk: bool,
    /// A shared load on a line the kernel times (`Site::timed`): the distinct words its
    /// lanes read, each block's apart (a chase over the chain's nodes reads many, one
    /// that goes round a word pointing at itself reads one a lane), up to
    /// `TIMED_WORDS_MAX`.
    pub(super) timed_words: std::collections::HashSet<u64>,
    /// Its shared load requests, and those on a timed line.
    pub(super) shared_loads: u64,
    pub(super) timed_shared_loads: u64,
    /// Its local load requests, and those on a timed line.
    pub(super) local_loads: u64,
    pub(super) timed_local_loads: u64,
    /// Its shared requests with a lane in the KiB the GPU keeps for itself.
    pub(super) shared_reserved: u64,
    /// The same for timed local loads: each thread's own words (block, warp, lane and the
    /// word of its local window), as far as `TIMED_WORDS_MAX`.
    pub(super) timed_local_words: std::collections::HashSet<(u32, u32, u8, u64)>,
    /// The figures of this site's latest shared and global request patterns.
    recent: Recent<Figures>,
}

/// The running figures of an atomic site beyond those every site has.
#[derive(Clone, Debug)]
pub(super) struct AtomicAcc {
    /// As the SASS makes it (or the PTX, where no SASS was read).
    pub(super) kind: AccessKind,
    pub(super) shape: AtomShape,
    pub(super) opcode: String,
    pub(super) ptx_requests: u64,
    pub(super) ptx_lanes: u64,
    pub(super) lanes: u64,
    pub(super) addresses: u64,
    pub(super) loop_loads: u64,
    pub(super) loop_wavefronts: u64,
    pub(super) loop_ideal: u64,
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
    /// An atomic's request, as the SASS makes it.
    atomic: Option<AtomicCost>,
}

impl Figures {
    fn of(r: &Record, shape: Shape, atomic: Option<&AtomicSass>) -> Figures {
        if let Some(sass) = atomic {
            let shared = r.space == Space::Shared;
            return Figures {
                atomic: Some(atomics::request(shared, r.mask, r.width, &r.addrs, sass)),
                ..Figures::default()
            };
        }
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

/// Whether a shared record has a lane below the first offset a kernel's shared memory has
/// (the GPU keeps the KiB before it; both tracers log a block's own offsets).
fn reserved(r: &Record) -> bool {
    let base = u64::from(crate::model::access::SHARED_RESERVED);
    (0..32).any(|l| r.mask >> l & 1 == 1 && r.addrs[l] < base)
}

/// The most distinct timed words a site keeps: past it the count says "at least".
pub(super) const TIMED_WORDS_MAX: usize = 1 << 22;

impl SiteAcc {
    pub(super) fn add(
        &mut self,
        index: usize,
        r: &Record,
        site: &Site,
        kept: &[(u32, u32)],
        shape: Shape,
    ) {
        let atomic_kind = site.kind().filter(|k| k.is_atomic());
        if let Some(kind) = atomic_kind
            && matches!(r.space, Space::Shared | Space::Global)
        {
            return self.add_atomic(index, r, kind, shape);
        }
        // A bulk copy's shared side is the TMA's write, which no pipe a count follows makes
        // (its record names its barrier too): only the race analysis reads it.
        if site.kind() == Some(AccessKind::BulkCopy) && r.space == Space::Shared {
            return;
        }
        if r.space == Space::Shared && reserved(r) {
            self.shared_reserved += 1;
        }
        if r.space == Space::Shared && site.kind() == Some(AccessKind::Load) {
            self.shared_loads += 1;
            if site.timed {
                self.timed_shared_loads += 1;
                self.add_timed_words(r);
            }
        }
        if r.space == Space::Local && site.kind() == Some(AccessKind::Load) {
            self.local_loads += 1;
            self.timed_local_loads += u64::from(site.timed);
        }
        if site.timed && r.space == Space::Local && site.kind() == Some(AccessKind::Load) {
            for (lane, &a) in r.addrs.iter().enumerate() {
                if self.timed_local_words.len() >= TIMED_WORDS_MAX {
                    break;
                }
                if r.mask & (1 << lane) != 0 {
                    for w in crate::model::access::words_of(a, r.width) {
                        self.timed_local_words
                            .insert((r.block, r.warp, lane as u8, w));
                    }
                }
            }
        }
        self.copy |= site.kind() == Some(AccessKind::AsyncCopy);
        self.bulk |= site.kind() == Some(AccessKind::BulkCopy);
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
                self.local_sectors += coalescing::local_sectors(r.mask, r.width, &r.addrs);
                b
            }
            Space::Cluster => {
                let c = spaces::cluster_request(r.mask, r.width, &r.addrs, r.rank);
                self.cluster_sectors += u64::from(c.sectors);
                self.remote_sectors += u64::from(c.remote_sectors);
                self.remote_words += u64::from(c.remote_words);
                if c.remote {
                    self.remote_blocks.insert(r.block);
                }
                self.remote += u64::from(c.remote);
                u64::from(c.sectors)
            }
            Space::Texture => self.add_texture(r, site, kept),
            // Decoding resolves every record's space; these are never a record's.
            Space::Generic | Space::Param => 0,
        };
        self.lanes += u64::from(r.mask.count_ones());
        let s = space_index(r.space);
        // Each piece is a SASS instruction of its own: a request of its own.
        self.requests[s] += shape.map_or(1, |sh| sh.pieces.len() as u64);
        if self.worst[s].is_none_or(|(c, _)| cost > c) {
            self.worst[s] = Some((cost, index));
        }
    }

    /// An atomic's shared or global request, as the SASS makes it (the PTX's where no
    /// SASS was read): its SASS requests, their wavefronts or sectors, the updates and the
    /// addresses they name.
    fn add_atomic(&mut self, index: usize, r: &Record, kind: AccessKind, shape: Shape) {
        let fallback;
        let sass = match shape.and_then(|s| s.atomic.as_ref()) {
            Some(a) => a,
            None => {
                fallback = AtomicSass::as_written(kind);
                &fallback
            }
        };
        let c = match self.recent.get(r) {
            Some(f) => f.atomic.unwrap_or_default(),
            None => {
                let f = Figures::of(r, None, Some(sass));
                self.recent.put(r, f);
                f.atomic.unwrap_or_default()
            }
        };
        let a = self.atomic.get_or_insert_with(|| AtomicAcc {
            kind: sass.kind,
            shape: sass.shape,
            opcode: sass.opcode.clone(),
            ptx_requests: 0,
            ptx_lanes: 0,
            lanes: 0,
            addresses: 0,
            loop_loads: 0,
            loop_wavefronts: 0,
            loop_ideal: 0,
        });
        a.ptx_requests += 1;
        a.ptx_lanes += u64::from(r.mask.count_ones());
        a.lanes += u64::from(c.lanes);
        a.addresses += u64::from(c.addresses);
        a.loop_loads += u64::from(c.loop_loads);
        a.loop_wavefronts += u64::from(c.loop_wavefronts);
        a.loop_ideal += u64::from(c.loop_ideal);
        let cost = if r.space == Space::Shared {
            self.wavefronts += u64::from(c.wavefronts);
            self.ideal += u64::from(c.ideal);
            for (t, &n) in self.bank_words.iter_mut().zip(&c.bank_updates) {
                *t += u64::from(n);
            }
            u64::from(c.wavefronts)
        } else {
            self.sectors += u64::from(c.sectors);
            self.lines += u64::from(c.lines);
            self.bytes_used += u64::from(c.bytes_used);
            // Updates queued behind another on one address cost too.
            u64::from(c.sectors + c.lanes - c.addresses)
        };
        self.lanes += u64::from(r.mask.count_ones());
        let s = space_index(r.space);
        self.requests[s] += u64::from(c.requests);
        if self.worst[s].is_none_or(|(w, _)| cost > w) {
            self.worst[s] = Some((cost, index));
        }
    }

    /// The words a timed shared load's active lanes read, keyed by block.
    fn add_timed_words(&mut self, r: &Record) {
        for (lane, &a) in r.addrs.iter().enumerate() {
            if self.timed_words.len() >= TIMED_WORDS_MAX {
                return;
            }
            if r.mask & (1 << lane) != 0 {
                for w in crate::model::access::words_of(a, r.width) {
                    self.timed_words.insert(u64::from(r.block) << 40 | w);
                }
            }
        }
    }

    /// A shared or global request, costed once per pattern (`repeat`); its cost.
    fn add_repeatable(&mut self, r: &Record, shape: Shape) -> u64 {
        let f = match self.recent.get(r) {
            Some(f) => f,
            None => {
                let f = Figures::of(r, shape, None);
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
