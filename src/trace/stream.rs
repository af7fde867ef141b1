//! The analysis of `analyze`, fed one record at a time: a trace made on the host (the CPU
//! interpreter) is summarised as it is made, keeping only each site's costliest request,
//! not every record; the race analysis reads the shared-memory events on a thread of its
//! own as they come. Texture footprints are not kept (an interpreted kernel has no texture
//! fetches).

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::JoinHandle;

use super::analyze::{shape_of, shared_event, sum_totals, summaries};
use super::decode::Record;
use super::instrument::{Event, Site};
use super::site_acc::{SiteAcc, space_index};
use crate::analysis::races::{ClusterGeom, RaceFinder, SharedEvent, Warps};
use crate::analysis::sass::SassError;
use crate::analysis::sass_map::Reshape;
use crate::model::results::{MemoryStats, Race};

/// Events sent to the race analysis at a time.
const BATCH: usize = 4096;

/// The race analysis beside the interpreter: on a GEMM block it takes about as long as
/// the interpretation, so the two overlap on two cores.
struct RaceFeed {
    warps: u32,
    geom: Option<ClusterGeom>,
    /// The kernel has barriers that hold some of a block's warps (`bar.sync id, threads`).
    named: bool,
    batch: Vec<SharedEvent>,
    to: Option<Sender<Vec<SharedEvent>>>,
    finder: Option<JoinHandle<Vec<Race>>>,
}

impl RaceFeed {
    fn push(&mut self, e: SharedEvent) {
        self.batch.push(e);
        if self.batch.len() >= BATCH {
            self.send();
        }
    }

    fn send(&mut self) {
        if self.to.is_none() {
            let (to, from) = channel::<Vec<SharedEvent>>();
            let (warps, geom, named) = (self.warps, self.geom, self.named);
            self.finder = Some(std::thread::spawn(move || {
                let mut f = RaceFinder::new(Warps::All(warps))
                    .clustered(geom)
                    .named(named);
                for batch in from {
                    batch.iter().for_each(|e| f.push(e));
                }
                f.finish()
            }));
            self.to = Some(to);
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        if let Some(to) = &self.to {
            // A finder that died (a panic) is reported by `finish`.
            let _ = to.send(batch);
        }
    }

    fn finish(mut self) -> Vec<Race> {
        if self.batch.is_empty() && self.to.is_none() {
            return Vec::new();
        }
        self.send();
        drop(self.to.take());
        (self.finder.take())
            .map(|f| f.join().expect("the race analysis ended"))
            .unwrap_or_default()
    }
}

/// The SASS shapes of split shared accesses, known or still being read (nvdisasm takes a
/// quarter of a second, which the interpretation can use).
enum Shapes {
    Known(Vec<Reshape>),
    /// Records of accesses that may be split wait here until the shapes come.
    Coming {
        from: Receiver<Result<Vec<Reshape>, SassError>>,
        held: Vec<Record>,
    },
}

pub struct Streamed {
    sites: Vec<Site>,
    accs: Vec<SiteAcc>,
    /// The costliest requests so far; `SiteAcc::worst` indexes them.
    kept: Vec<Record>,
    races: RaceFeed,
    /// The copies' groups, and the waits that left copies in flight.
    groups: crate::analysis::copy_groups::CopyGroups,
    /// Whether each shared store is read (`analysis::store_use`).
    stores: crate::analysis::store_use::StoreUse,
    /// Lanes of the `call` records so far, by function (`MemoryStats::calls`).
    calls: super::analyze::Calls,
    /// The traced blocks' thread instructions, and those inside called functions, as the
    /// interpreter runs them (`MemoryStats::call_work`).
    pub work: crate::model::results::CallWork,
    /// Lanes of the shuffle records so far (`MemoryStats::shuffles`).
    shuffles: u64,
    /// Global words two blocks stored to (`GlobalStats::cross_block_words`).
    cross: crate::trace::cross_block::CrossBlockStores,
    /// Whether each word handed between blocks was ordered on both sides
    /// (`GlobalStats::unfenced_handover_words`).
    handover: crate::trace::handover::HandoverOrder,
    /// The shared accesses the SASS makes in pieces (`sass_map::reshape`).
    shapes: Shapes,
    /// Whether the SASS was read for them; the reason when it could not be.
    pub sass: Result<(), SassError>,
    /// Records taken in, and those past `cap`, only counted (as the GPU's buffer does).
    pub count: u64,
    pub overflow: u64,
    pub cap: u64,
}

impl Streamed {
    /// A trace of `sites` keeping `cap` records, of blocks of `warps` warps.
    pub fn new(sites: &[Site], cap: u64, warps: u32) -> Streamed {
        Streamed {
            sites: sites.to_vec(),
            accs: vec![SiteAcc::default(); sites.len()],
            kept: Vec::new(),
            races: RaceFeed {
                warps,
                geom: None,
                named: sites.iter().any(|s| match s.event {
                    Event::CountedBarrier { threads } => threads < 32 * warps,
                    _ => false,
                }),
                batch: Vec::with_capacity(BATCH),
                to: None,
                finder: None,
            },
            groups: Default::default(),
            stores: Default::default(),
            calls: Default::default(),
            work: Default::default(),
            shuffles: 0,
            cross: Default::default(),
            handover: Default::default(),
            shapes: Shapes::Known(Vec::new()),
            sass: Ok(()),
            count: 0,
            overflow: 0,
            cap,
        }
    }

    /// Look for races between the blocks of each cluster of `geom` too.
    pub fn clustered(mut self, geom: Option<ClusterGeom>) -> Streamed {
        self.races.geom = geom;
        self
    }

    /// Count the shared accesses the SASS makes in pieces as it makes them.
    pub fn shaped(mut self, shapes: Vec<Reshape>) -> Streamed {
        self.shapes = Shapes::Known(shapes);
        self
    }

    /// As `shaped`, with shapes that come later, from another thread.
    pub fn shaped_later(mut self, from: Receiver<Result<Vec<Reshape>, SassError>>) -> Streamed {
        self.shapes = Shapes::Coming {
            from,
            held: Vec::new(),
        };
        self
    }

    /// Take the shapes if they have come (or wait for them), and count what waited.
    fn settle(&mut self, wait: bool) {
        let Shapes::Coming { from, held } = &mut self.shapes else {
            return;
        };
        let got = match wait {
            true => from.recv().map_err(|_| TryRecvError::Disconnected),
            false => from.try_recv(),
        };
        let shapes = match got {
            Err(TryRecvError::Empty) => return,
            Ok(Ok(s)) => s,
            Ok(Err(why)) => {
                self.sass = Err(why);
                Vec::new()
            }
            Err(TryRecvError::Disconnected) => {
                self.sass = Err(SassError::ReaderGone);
                Vec::new()
            }
        };
        let held = std::mem::take(held);
        self.shapes = Shapes::Known(shapes);
        held.iter().for_each(|r| self.add(r));
    }

    /// The shapes this trace counted by (waiting for them if they are still coming), and
    /// whether the SASS was read for them: for a trace made again (`interp::lesson::trace`).
    pub fn shapes_known(&mut self) -> (Vec<Reshape>, Result<(), SassError>) {
        self.settle(true);
        match &self.shapes {
            Shapes::Known(s) => (s.clone(), self.sass.clone()),
            Shapes::Coming { .. } => (Vec::new(), self.sass.clone()),
        }
    }

    pub fn push(&mut self, r: &Record) {
        if self.count >= self.cap {
            self.overflow += 1;
            return;
        }
        self.count += 1;
        let Some(site) = self.sites.get(r.site as usize) else {
            return;
        };
        let (barrier, may_split) = (site.is_event(), site.may_split());
        self.calls.push(r, site);
        self.shuffles += super::analyze::shuffle_lanes(r, site);
        self.cross.push(r, site);
        self.handover.push(r, site);
        if let Some(bytes) = super::analyze::copy_read_bytes(r, &self.sites) {
            self.groups.copied(r.block, r.warp, bytes);
        }
        if let Some(e) = shared_event(r, &self.sites) {
            self.groups.push(&e);
            self.stores.push(&e);
            self.races.push(e);
        }
        if barrier {
            return;
        }
        if let Shapes::Coming { held, .. } = &mut self.shapes {
            if may_split {
                held.push(r.clone());
            }
            if self.count.is_multiple_of(1024) {
                self.settle(false);
            }
            if may_split {
                return;
            }
        }
        self.add(r);
    }

    fn add(&mut self, r: &Record) {
        let i = r.site as usize;
        let (Some(acc), Some(site)) = (self.accs.get_mut(i), self.sites.get(i)) else {
            return;
        };
        // Only accesses that may be split wait for the shapes; the others have none.
        let shapes = match &self.shapes {
            Shapes::Known(s) => s.as_slice(),
            Shapes::Coming { .. } => &[],
        };
        let s = space_index(r.space);
        acc.add(usize::MAX, r, site, &[], shape_of(shapes, r.site));
        if let Some((cost, usize::MAX)) = acc.worst[s] {
            // A new costliest request: keep it (the one it beat is no longer named).
            self.kept.push(r.clone());
            acc.worst[s] = Some((cost, self.kept.len() - 1));
        }
    }

    /// Totals, per-instruction summaries and races, as `analyze` gives them.
    pub fn finish(mut self) -> MemoryStats {
        self.settle(true);
        let Shapes::Known(shapes) = &self.shapes else {
            unreachable!("settled")
        };
        let mut m = MemoryStats {
            instructions: summaries(&self.accs, &self.kept, &self.sites, shapes),
            races_checked: true,
            races_in_warps_and_clusters: true,
            unused_loads_followed: true,
            races: self.races.finish(),
            ..sum_totals(&self.accs)
        };
        m.copies.waits = self.groups.waits;
        m.copies.waits_in_flight = self.groups.waits_in_flight;
        m.copies.reads = self.groups.reads;
        m.copies.reads_in_flight = self.groups.reads_in_flight;
        m.copies.completed_bytes = self.groups.completed_bytes;
        m.copies.overlapped_bytes = self.groups.overlapped_bytes;
        (m.shared_stores, m.shared_stores_read) = self.stores.counts();
        m.calls = self.calls.most();
        // Counted only where the interpreter ran the traced blocks (records alone say none).
        m.call_work = (self.work.thread_steps > 0).then_some(self.work);
        m.shuffles = self.shuffles;
        m.global.cross_block_words = self.cross.words;
        m.global.handover_words = self.cross.handed;
        m.global.load_sectors = self.cross.load_sectors;
        m.global.reread_sectors = self.cross.reread_sectors;
        // Made where the interpreter ran the blocks it streams (it counts their steps). A
        // GPU's trace, analysed whole (`analyze::analyze_launch`), leaves it None, its
        // sample may leave out the block that reads what the others hand it; so does a
        // stream fed records alone, which must equal that analysis.
        m.global.unfenced_handover_words =
            (self.work.thread_steps > 0).then_some(self.handover.unfenced);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::access::{AccessKind, Space};
    use crate::trace::instrument::Event;

    fn site(id: u32, event: Event) -> Site {
        Site {
            id,
            event,
            op: "ld.test".into(),
            width: if event == Event::Barrier { 0 } else { 4 },
            ptx_line: 100 + id,
            source_line: Some(10 + id),
            source_file: Some(1),
            coords: None,
            unused: false,
            staged: false,
            relayed: false,
            addr: String::new(),
            timed: false,
            called_at: Vec::new(),
            callee: String::new(),
        }
    }

    fn rec(site: u32, warp: u32, space: Space, stride: u64) -> Record {
        Record {
            site,
            block: 0,
            warp,
            mask: u32::MAX,
            space,
            width: 4,
            rank: 0,
            addrs: std::array::from_fn(|i| 1024 + i as u64 * stride),
        }
    }

    #[test]
    fn streamed_figures_equal_the_whole_trace_analysis() {
        let sites = [
            site(
                0,
                Event::Access {
                    space: Space::Shared,
                    kind: AccessKind::Store,
                },
            ),
            site(
                1,
                Event::Access {
                    space: Space::Generic,
                    kind: AccessKind::Load,
                },
            ),
            site(2, Event::Barrier),
        ];
        let mut records = Vec::new();
        for (k, stride) in [1u64, 8, 32, 2, 33].into_iter().enumerate() {
            records.push(rec(0, k as u32 % 2, Space::Shared, 4 * stride));
            records.push(rec(1, 0, Space::Global, 4 * stride));
            records.push(rec(1, 1, Space::Shared, 4 * stride));
        }
        let mut b = rec(2, 0, Space::Shared, 0);
        b.width = 0;
        records.push(b);
        let mut s = Streamed::new(&sites, 1 << 20, 2);
        records.iter().for_each(|r| s.push(r));
        let whole = crate::trace::analyze::analyze(&records, &sites);
        let streamed = s.finish();
        assert_eq!(streamed, whole);
        assert!(!whole.races.is_empty(), "two warps store to one word");
        let mut capped = Streamed::new(&sites, 3, 2);
        records.iter().for_each(|r| capped.push(r));
        assert_eq!(
            (capped.count, capped.overflow),
            (3, records.len() as u64 - 3)
        );
    }
}
