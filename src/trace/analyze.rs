//! From decoded records to per-instruction summaries and memory totals. Figures are for the
//! traced blocks only; the caller scales them to the grid and fills the block counts and
//! the overflow.
//!
//! Records are costed by the space they resolved to, so a generic instruction whose lanes
//! went to shared memory is costed in wavefronts. An instruction whose requests went to
//! several spaces is summarised under the space most of them went to, with every space's
//! figures in its own fields.

use crate::analysis::banks::{self, BANKS};
use crate::analysis::coalescing;
use crate::model::access::{InstructionSummary, Space, WarpAccess};
use crate::model::results::{ConstantStats, GlobalStats, LocalStats, MemoryStats, SharedStats};
use crate::trace::decode::Record;
use crate::trace::instrument::Site;

const SPACES: [Space; 4] = [Space::Shared, Space::Global, Space::Local, Space::Constant];

fn space_index(space: Space) -> usize {
    match space {
        Space::Shared => 0,
        Space::Global => 1,
        Space::Local => 2,
        Space::Constant => 3,
    }
}

/// Running figures of one site.
#[derive(Default, Clone)]
struct SiteAcc {
    requests: [u64; 4],
    wavefronts: u64,
    ideal: u64,
    bank_words: [u64; BANKS],
    sectors: u64,
    lines: u64,
    bytes_used: u64,
    distinct: u64,
    local_bytes: u64,
    /// Per space: (cost, record index) of the costliest request, the first among equals.
    worst: [Option<(u64, usize)>; 4],
}

impl SiteAcc {
    fn add(&mut self, index: usize, r: &Record) {
        let cost = match r.space {
            Space::Shared => {
                let (w, ideal) =
                    banks::shared_totals(r.mask, r.width, &r.addrs, &mut self.bank_words);
                self.wavefronts += u64::from(w);
                self.ideal += u64::from(ideal);
                u64::from(w)
            }
            Space::Global => {
                let g = coalescing::global_request(r.mask, r.width, &r.addrs);
                self.sectors += u64::from(g.sectors);
                self.lines += u64::from(g.lines);
                self.bytes_used += u64::from(g.bytes_used);
                u64::from(g.sectors)
            }
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
        };
        let s = space_index(r.space);
        self.requests[s] += 1;
        if self.worst[s].is_none_or(|(c, _)| cost > c) {
            self.worst[s] = Some((cost, index));
        }
    }
}

/// One pass over the records; records naming no known site are left out.
fn accumulate(records: &[Record], sites: &[Site]) -> Vec<SiteAcc> {
    let mut accs = vec![SiteAcc::default(); sites.len()];
    for (i, r) in records.iter().enumerate() {
        if let Some(acc) = accs.get_mut(r.site as usize) {
            acc.add(i, r);
        }
    }
    accs
}

fn summaries(accs: &[SiteAcc], records: &[Record], sites: &[Site]) -> Vec<InstructionSummary> {
    sites
        .iter()
        .zip(accs)
        .filter(|(_, acc)| acc.requests.iter().any(|&n| n > 0))
        .map(|(site, acc)| {
            // Most requests wins; ties go to the earlier space in SPACES.
            let main = (0..4).rev().max_by_key(|&s| acc.requests[s]).unwrap_or(0);
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
                sectors: acc.sectors,
                lines: acc.lines,
                bytes_used: acc.bytes_used,
                distinct: acc.distinct,
                local_bytes: acc.local_bytes,
                bank_words: if acc.requests[0] > 0 {
                    acc.bank_words.to_vec()
                } else {
                    Vec::new()
                },
                sample,
            }
        })
        .collect()
}

fn sum_totals(accs: &[SiteAcc]) -> MemoryStats {
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
    }
    m
}

/// One summary per site that logged anything, in site order.
pub fn summarize(records: &[Record], sites: &[Site]) -> Vec<InstructionSummary> {
    summaries(&accumulate(records, sites), records, sites)
}

/// The memory totals of the records, without per-instruction detail.
pub fn totals(records: &[Record], sites: &[Site]) -> MemoryStats {
    sum_totals(&accumulate(records, sites))
}

/// Totals and per-instruction summaries from one pass over the records.
pub fn analyze(records: &[Record], sites: &[Site]) -> MemoryStats {
    let accs = accumulate(records, sites);
    MemoryStats {
        instructions: summaries(&accs, records, sites),
        ..sum_totals(&accs)
    }
}

#[cfg(test)]
#[path = "analyze_tests.rs"]
mod tests;
