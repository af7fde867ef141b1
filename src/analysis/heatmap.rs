//! What the heatmaps show, as plain numbers: lanes × banks for a shared request (each cell the
//! conflict degree of the bank that lane used, phases split; for a shared atomic, the updates
//! that bank makes), lanes × sectors for a global one (atomics and reductions alike, labelled) (and for a `shared::cluster` one, a sector being a block's rank and 32 bytes of its
//! shared memory), lanes × distinct addresses for a constant one, and all shared
//! instructions × banks. The view only turns these into characters, so
//! the counting is tested here without a terminal.

use crate::analysis::atomics::{self, SameWord};
use crate::analysis::banks::{self, BANKS};
use crate::model::access::{AccessKind, AtomShape, InstructionSummary, Space, WarpAccess};
use crate::model::results::VariantResult;

/// A lane × column grid of small counts, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub title: String,
    pub columns: usize,
    /// 32 rows (lanes); 0 = not touched.
    pub cells: Vec<Vec<u32>>,
    pub active: u32,
    /// Lanes at which a new phase starts (8- and 16-byte shared accesses).
    pub phase_starts: Vec<usize>,
    pub legend: String,
}

/// One shared instruction in the aggregate, in the single view's terms.
#[derive(Debug, Clone, PartialEq)]
pub struct BankRow {
    pub source_line: Option<u32>,
    /// Distinct words asked of each bank, per request, rounded. Averaged over requests, so
    /// a conflict that moves from bank to bank reads smaller than it is: not drawn.
    pub words: [u32; BANKS],
    /// Each bank's conflict degree, as the single view's cells count it: the instruction's
    /// N-way (wavefronts over the ideal) on its busiest banks, less in proportion on a bank
    /// asked for fewer words, 0 on a bank it never used.
    pub degree: [u32; BANKS],
    /// Wavefronts per request, as the single view's title says them.
    pub wavefronts_per_request: f64,
}

/// Instructions of a variant, worst first (most wavefronts or sectors per request).
pub fn worst_first(v: &VariantResult) -> Vec<&InstructionSummary> {
    let Some(m) = &v.memory else {
        return Vec::new();
    };
    let mut list: Vec<&InstructionSummary> = m
        .instructions
        .iter()
        .filter(|i| i.space != Space::Local && i.space != Space::Texture && i.sample.is_some())
        .collect();
    // Worst first; among equals, the busiest (the hot loop before a one-off fill).
    list.sort_by(|a, b| {
        cost(b)
            .total_cmp(&cost(a))
            .then(b.requests.cmp(&a.requests))
            .then(a.id.cmp(&b.id))
    });
    list
}

/// Waste per request: wavefronts beyond the ideal, sectors beyond the bytes used, or
/// accesses beyond the one a broadcast needs; for a global atomic, also the updates that
/// wait behind another on the same address.
fn cost(i: &InstructionSummary) -> f64 {
    let r = i.requests.max(1) as f64;
    let queued = match (&i.atomic, i.space) {
        (Some(a), Space::Global) => a.lanes.saturating_sub(a.addresses) as f64 / r,
        _ => 0.0,
    };
    queued
        + match i.space {
            Space::Shared => (i.wavefronts as f64 - i.ideal_wavefronts as f64) / r,
            Space::Constant => (i.distinct as f64 - i.requests as f64) / r,
            Space::Cluster => (i.sectors as f64 - i.requests as f64) / r,
            _ => i.sectors as f64 / r - (i.bytes_used as f64 / 32.0) / r,
        }
}

/// An atomic's words in a title: what it is, what ptxas made of it, and its contention
/// ("reduction, warp-aggregated · 1.0 lanes/address"); empty for a load or store.
fn atomic_words(i: &InstructionSummary) -> String {
    let Some(a) = &i.atomic else {
        return String::new();
    };
    let what = match i.kind {
        AccessKind::Reduction => "reduction",
        _ => "atomic",
    };
    let how = match a.shape {
        AtomShape::AsWritten => "",
        AtomShape::WarpAggregated => ", warp-aggregated",
        AtomShape::AggregatedWhenFull => ", aggregated when the warp is full",
        AtomShape::CasLoop => ", a compare-and-swap loop",
    };
    let per = a.lanes as f64 / a.addresses.max(1) as f64;
    format!(" · {what}{how} · {per:.1} lanes/address")
}

pub fn instruction_title(v: &str, i: &InstructionSummary) -> String {
    let r = i.requests.max(1) as f64;
    let line = i
        .source_line
        .map(|l| format!("line {l}"))
        .unwrap_or_else(|| format!("ptx {}", i.ptx_line));
    match i.space {
        Space::Shared => {
            let wf = i.wavefronts as f64 / r;
            let ideal = i.ideal_wavefronts as f64 / r;
            let ways = if ideal > 0.0 { wf / ideal } else { 0.0 };
            let conflict = if ways > 1.01 {
                format!("{ways:.0}-way conflict")
            } else {
                "no conflict".into()
            };
            format!(
                "{v} · {line} · {}{} · {conflict} · {wf:.0} wavefronts",
                i.op,
                atomic_words(i)
            )
        }
        Space::Constant => format!(
            "{v} · {line} · {} · {:.1} distinct addresses/request",
            i.op,
            i.distinct as f64 / r
        ),
        Space::Cluster => format!(
            "{v} · {line} · {} · {:.1} sectors/request · {:.0}% of requests to another block",
            i.op,
            i.sectors as f64 / r,
            100.0 * i.remote_requests as f64 / r
        ),
        _ => format!(
            "{v} · {line} · {}{} · {:.1} sectors/request ({:.0}% of bytes used)",
            i.op,
            atomic_words(i),
            i.sectors as f64 / r,
            100.0 * i.bytes_used as f64 / (32.0 * i.sectors.max(1) as f64)
        ),
    }
}

/// Lane × bank: the conflict degree of each bank a lane used (distinct words that bank must
/// serve in the lane's phase). Same-word reads are one word (broadcast).
pub fn shared_grid(s: &WarpAccess) -> Vec<Vec<u32>> {
    let addrs: [u64; 32] = std::array::from_fn(|l| s.addrs.get(l).copied().unwrap_or(0));
    let per = banks::request_phase_lanes(s.mask, s.width, &addrs) as usize;
    let mut cells = vec![vec![0u32; BANKS]; 32];
    for phase in 0..32 / per {
        let pmask = s.mask & (((1u64 << per) - 1) << (phase * per)) as u32;
        // The cost of this phase alone: the per-bank distinct words are its degrees.
        let degree = banks::shared_request(pmask, s.width, &addrs).per_bank_words;
        for l in (0..32).filter(|l| pmask >> l & 1 == 1) {
            let first = addrs[l] >> 2;
            for w in first..first + banks::words_per_lane(s.width) as u64 {
                let b = (w & 31) as usize;
                cells[l][b] = degree[b];
            }
        }
    }
    cells
}

/// The 32-byte sectors an active lane's access covers, first and last.
fn lane_sectors(s: &WarpAccess, lane: usize) -> (u64, u64) {
    let first = s.addrs[lane] / 32;
    let last = (s.addrs[lane] + s.width.max(1) as u64 - 1) / 32;
    (first, last)
}

/// Lane × sector: which of the distinct 32-byte sectors (in address order) each lane touched.
pub fn global_grid(s: &WarpAccess) -> (Vec<Vec<u32>>, usize) {
    let is_active = |l: usize| s.mask >> l & 1 == 1;
    let mut sectors: Vec<u64> = Vec::new();
    for l in (0..32).filter(|&l| is_active(l)) {
        let (a, b) = lane_sectors(s, l);
        sectors.extend(a..=b);
    }
    sectors.sort_unstable();
    sectors.dedup();
    let mut cells = vec![vec![0u32; sectors.len()]; 32];
    for (l, row) in cells.iter_mut().enumerate().filter(|(l, _)| is_active(*l)) {
        let (a, b) = lane_sectors(s, l);
        for (c, sec) in sectors.iter().enumerate() {
            if (a..=b).contains(sec) {
                row[c] = 1;
            }
        }
    }
    (cells, sectors.len())
}

/// Lane × address: which of the distinct addresses (in address order) each lane named.
pub fn constant_grid(s: &WarpAccess) -> (Vec<Vec<u32>>, usize) {
    let is_active = |l: usize| s.mask >> l & 1 == 1;
    let mut addrs: Vec<u64> = (0..32)
        .filter(|&l| is_active(l))
        .map(|l| s.addrs[l])
        .collect();
    addrs.sort_unstable();
    addrs.dedup();
    let mut cells = vec![vec![0u32; addrs.len()]; 32];
    for (l, row) in cells.iter_mut().enumerate().filter(|(l, _)| is_active(*l)) {
        if let Ok(c) = addrs.binary_search(&s.addrs[l]) {
            row[c] = 1;
        }
    }
    (cells, addrs.len())
}

/// The grid of an instruction's sample request; None when it has no sample.
pub fn grid_for(v: &str, i: &InstructionSummary) -> Option<Grid> {
    let s = i.sample.as_ref()?;
    let title = instruction_title(v, i);
    Some(match i.space {
        Space::Shared if i.atomic.is_some() => {
            let addrs: [u64; 32] = std::array::from_fn(|l| s.addrs.get(l).copied().unwrap_or(0));
            let same = SameWord::of(i.atomic.as_ref().map_or("", |a| a.sass_op.as_str()));
            let per = banks::lanes_per_phase(s.width) as usize;
            Grid {
                title,
                columns: BANKS,
                cells: atomics::shared_atomic_grid(s.mask, s.width, &addrs, same),
                active: s.mask,
                phase_starts: (per..32).step_by(per).collect(),
                legend: format!(
                    "rows: lanes (2 a row) · columns: banks 0–31 · cell: updates that bank \
                     makes in the lane's phase, one after another ({}; 1 = no conflict, + = \
                     10 or more)",
                    match same {
                        SameWord::Merge => "lanes on one word count once",
                        SameWord::Serialise => "lanes on one word count each",
                    }
                ),
            }
        }
        Space::Shared => {
            let addrs: [u64; 32] = std::array::from_fn(|l| s.addrs.get(l).copied().unwrap_or(0));
            let per = banks::request_phase_lanes(s.mask, s.width, &addrs) as usize;
            Grid {
                title,
                columns: BANKS,
                cells: shared_grid(s),
                active: s.mask,
                phase_starts: (per..32).step_by(per).collect(),
                legend: "rows: lanes (2 a row) · columns: banks 0–31 · cell: words that bank \
                         serves in the lane's phase (1 = no conflict, + = 10 or more)"
                    .into(),
            }
        }
        Space::Constant => {
            let (cells, n) = constant_grid(s);
            Grid {
                title,
                columns: n,
                cells,
                active: s.mask,
                phase_starts: Vec::new(),
                legend: format!(
                    "rows: lanes (2 a row) · columns: the {n} distinct addresses named, in \
                     address order · the constant cache serves one column at a time"
                ),
            }
        }
        _ => {
            let (cells, n) = global_grid(s);
            Grid {
                title,
                columns: n,
                cells,
                active: s.mask,
                phase_starts: Vec::new(),
                legend: format!(
                    "rows: lanes (2 a row) · columns: the {n} distinct 32-byte sectors touched, {}{}",
                    if i.space == Space::Cluster {
                        "block rank, then offset in its shared memory"
                    } else {
                        "in address order"
                    },
                    if i.atomic.is_some() {
                        " · lanes on one address update it one after another"
                    } else {
                        ""
                    }
                ),
            }
        }
    })
}

/// All traced shared instructions × banks, worst first.
pub fn aggregate(v: &VariantResult) -> Vec<BankRow> {
    worst_first(v)
        .into_iter()
        .filter(|i| i.space == Space::Shared)
        .map(bank_row)
        .collect()
}

fn bank_row(i: &InstructionSummary) -> BankRow {
    let r = i.requests.max(1) as f64;
    let words_of = |b: usize| i.bank_words.get(b).copied().unwrap_or(0);
    let busiest = (0..BANKS).map(words_of).max().unwrap_or(0).max(1) as f64;
    let ways = if i.ideal_wavefronts > 0 {
        i.wavefronts as f64 / i.ideal_wavefronts as f64
    } else {
        0.0
    };
    BankRow {
        source_line: i.source_line,
        words: std::array::from_fn(|b| (words_of(b) as f64 / r).round() as u32),
        degree: std::array::from_fn(|b| match words_of(b) {
            0 => 0,
            w => ((ways * w as f64 / busiest).round() as u32).max(1),
        }),
        wavefronts_per_request: i.wavefronts as f64 / r,
    }
}

#[cfg(test)]
#[path = "heatmap_tests.rs"]
mod tests;
