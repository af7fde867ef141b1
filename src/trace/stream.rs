//! The analysis of `analyze`, fed one record at a time: a trace made on the host (the CPU
//! interpreter) is summarised as it is made, keeping only each site's costliest request and
//! the shared-memory events the race analysis needs, not every record. Texture footprints
//! are not kept (an interpreted kernel has no texture fetches).

use super::analyze::{SiteAcc, shape_of, space_index, sum_totals, summaries};
use super::decode::Record;
use super::instrument::Site;
use crate::analysis::races::{self, SharedEvent};
use crate::analysis::sass_map::Reshape;
use crate::model::results::MemoryStats;

pub struct Streamed {
    sites: Vec<Site>,
    accs: Vec<SiteAcc>,
    /// The costliest requests so far; `SiteAcc::worst` indexes them.
    kept: Vec<Record>,
    events: Vec<SharedEvent>,
    /// The shared accesses the SASS makes in pieces (`sass_map::reshape`).
    shapes: Vec<Reshape>,
    /// Records taken in, and those past `cap`, only counted (as the GPU's buffer does).
    pub count: u64,
    pub overflow: u64,
    pub cap: u64,
}

impl Streamed {
    pub fn new(sites: &[Site], cap: u64) -> Streamed {
        Streamed {
            sites: sites.to_vec(),
            accs: vec![SiteAcc::default(); sites.len()],
            kept: Vec::new(),
            events: Vec::new(),
            shapes: Vec::new(),
            count: 0,
            overflow: 0,
            cap,
        }
    }

    /// Count the shared accesses the SASS makes in pieces as it makes them.
    pub fn shaped(mut self, shapes: Vec<Reshape>) -> Streamed {
        self.shapes = shapes;
        self
    }

    pub fn push(&mut self, r: &Record) {
        if self.count >= self.cap {
            self.overflow += 1;
            return;
        }
        self.count += 1;
        let i = r.site as usize;
        let (Some(acc), Some(site)) = (self.accs.get_mut(i), self.sites.get(i)) else {
            return;
        };
        let one = std::slice::from_ref(r);
        self.events
            .extend(super::analyze::shared_events(one, &self.sites));
        if site.is_barrier() {
            return;
        }
        let s = space_index(r.space);
        acc.add(usize::MAX, r, site, &[], shape_of(&self.shapes, r.site));
        if let Some((cost, usize::MAX)) = acc.worst[s] {
            // A new costliest request: keep it (the one it beat is no longer named).
            self.kept.push(r.clone());
            acc.worst[s] = Some((cost, self.kept.len() - 1));
        }
    }

    /// Totals, per-instruction summaries and races, as `analyze` gives them.
    pub fn finish(self) -> MemoryStats {
        MemoryStats {
            instructions: summaries(&self.accs, &self.kept, &self.sites, &self.shapes),
            races_checked: true,
            races: races::find_races(&self.events),
            ..sum_totals(&self.accs)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::access::{AccessKind, Space};
    use crate::trace::instrument::DeclaredSpace;

    fn site(id: u32, space: DeclaredSpace, kind: AccessKind) -> Site {
        Site {
            id,
            space,
            kind,
            op: "ld.test".into(),
            width: if space == DeclaredSpace::Barrier {
                0
            } else {
                4
            },
            ptx_line: 100 + id,
            source_line: Some(10 + id),
            source_file: Some(1),
            coords: None,
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
            site(0, DeclaredSpace::Shared, AccessKind::Store),
            site(1, DeclaredSpace::Generic, AccessKind::Load),
            site(2, DeclaredSpace::Barrier, AccessKind::Load),
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
        let mut s = Streamed::new(&sites, 1 << 20);
        records.iter().for_each(|r| s.push(r));
        let whole = crate::trace::analyze::analyze(&records, &sites);
        let streamed = s.finish();
        assert_eq!(streamed, whole);
        assert!(!whole.races.is_empty(), "two warps store to one word");
        let mut capped = Streamed::new(&sites, 3);
        records.iter().for_each(|r| capped.push(r));
        assert_eq!(
            (capped.count, capped.overflow),
            (3, records.len() as u64 - 3)
        );
    }
}
