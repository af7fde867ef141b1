//! Instrument a module's PTX so that every traced load and store first runs the logger's
//! code (src/trace/logger.ptx, written out at each site), which writes one record per warp
//! request into a buffer the host reads back (layout in `decode`), and, where the host asks,
//! counts every block's requests into a census (`census`).
//!
//! Traced: `ld`, `ldu` and `st` on `.shared` (`::cta`), `.shared::cluster`, `.global`,
//! `.local`, `.const` and generic addresses, scalar or vector, with any ordering or cache
//! qualifier; the atomics `atom` and `red` on the same spaces (each lane logs the address it
//! updates; what the SASS makes of them is counted in `site_acc`); and `tex.1d`/`tex.2d`
//! fetches (`.base`, `.level`, `.grad`) and 2D gathers (`tld4`), whose lanes log their
//! coordinates instead of an address. Block barriers (`bar`/`barrier`, see `access::barrier`) log an event with no
//! address, in order with the warp's accesses, so the race analysis can tell which barrier
//! interval an access falls in. The asynchronous copy `cp.async` (global to shared, 4, 8 or
//! 16 bytes a lane) makes two sites, its global read and then its shared write, each
//! logging every lane's address in its space; `cp.async.commit_group` and
//! `cp.async.wait_group`/`wait_all` log events with no address, which the race analysis
//! completes the copies' shared writes at. `ldmatrix` (`m8n8`) is a 16-byte shared load of
//! the lanes that name its rows (8, 16 or 32), the others logged as idle. Not traced:
//! `.param`, other texture geometries and every other opcode (`red.async`, `stmatrix`, the
//! tensor copies), whose lanes do not each name one address the way `ld`/`st` do. Those of
//! them that move data (`access::moves_unseen`) are listed apart (`Instrumented::unseen`):
//! a check drawn from the counts cannot speak for what they did.

mod access;
mod dataflow;
mod emit;
mod logger;
mod registers;
mod relayed;
mod staged;
mod statements;
mod texture;
mod unused;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::analysis::races::Order;
use crate::analysis::sass_map::{PtxAccess, PtxAddr, PtxAtomic};
use crate::model::access::{AccessKind, Space, TexCoords, UnseenAccess};
pub use crate::model::access::{MBAR_FLAG, MBAR_HIGH_MASK};
use access::parse_access;
use emit::{Planned, emit_line, site_block};
use logger::header_end;
use registers::FuncState;
pub use statements::split_operands;
use statements::{Seg, module_variable, segment, split_label, starts_function, strip_comment};

/// The globals the host sets before a traced launch.
pub const SYM_BUF: &str = "__gpulab_trace_buf";
pub const SYM_CAP: &str = "__gpulab_trace_cap";
pub const SYM_COUNT: &str = "__gpulab_trace_count";
pub const SYM_BLOCK_STRIDE: &str = "__gpulab_trace_block_stride";
pub const SYM_BLOCK_LIMIT: &str = "__gpulab_trace_block_limit";
pub const SYM_BLOCK_SEED: &str = "__gpulab_trace_block_seed";
pub const SYM_BLOCK_BELOW: &str = "__gpulab_trace_block_below";
/// The census's counters (`trace::census`); 0: no census.
pub const SYM_CENSUS: &str = "__gpulab_trace_census";
/// The module's sites, for the census's layout.
pub const SYM_CENSUS_SITES: &str = "__gpulab_trace_census_sites";
/// The census's count of each cluster's events (`logger.ptx`; 0: none).
pub const SYM_CENSUS_EVENTS: &str = "__gpulab_trace_census_events";
/// Clusters traced besides the sample (8 u32s; `u32::MAX`: none).
pub const SYM_EXTRA: &str = "__gpulab_trace_extra";

/// The code the logger receives for a site's space, which is also the resolved space code a
/// record holds (all but generic's, 4, which the logger resolves lane by lane). None for
/// `.param`, which is never traced.
pub fn space_code(space: Space) -> Option<u32> {
    Some(match space {
        Space::Shared => 0,
        Space::Global => 1,
        Space::Local => 2,
        Space::Constant => 3,
        Space::Generic => 4,
        Space::Cluster => 5,
        Space::Texture => 6,
        Space::Param => return None,
    })
}

/// The code of a barrier site's records: an event, not a space.
pub const BARRIER_CODE: u32 = 7;

/// What a traced site logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Event {
    /// A load or store in the space its instruction names; a generic one is resolved per
    /// lane at run time.
    Access { space: Space, kind: AccessKind },
    /// A block barrier (`bar.sync`, `bar.arrive`, `bar.red`, ...): no address, an event that
    /// splits the warp's shared accesses into barrier intervals.
    Barrier,
    /// `bar.sync id, threads` (`barrier.sync`) with a written thread count: the block's
    /// barrier where the count holds each of its warps, else a barrier of some of them,
    /// which orders nothing the analysis follows. No address.
    #[serde(rename = "counted-barrier")]
    CountedBarrier { threads: u32 },
    /// `bar.warp.sync` (`__syncwarp()`): the lanes that run it meet, which orders their
    /// shared accesses with each other. The record's mask is the lanes, and each logs the
    /// member mask (the lanes the sync waits for) as its address.
    #[serde(rename = "warp-sync")]
    WarpSync,
    /// `barrier.cluster.arrive`: the warp's accesses before it are ordered before every
    /// access of the cluster after the matching wait. A block barrier too (the cluster's
    /// threads include the block's). No address.
    #[serde(rename = "cluster-arrive")]
    ClusterArrive,
    /// `barrier.cluster.arrive.relaxed`: an arrive that orders no memory.
    #[serde(rename = "cluster-arrive-relaxed")]
    ClusterArriveRelaxed,
    /// `barrier.cluster.wait`: the warp waits until every thread of the cluster has arrived.
    /// A block barrier too. No address.
    #[serde(rename = "cluster-wait")]
    ClusterWait,
    /// `mbarrier.init` on the block's shared memory: the record's address per lane is the
    /// count of arrivals a phase awaits << 32 | the barrier's shared offset.
    #[serde(rename = "mbarrier-init")]
    MbarInit,
    /// An arrival on an `mbarrier` of the block's shared memory (`relaxed`: one that
    /// releases nothing). The address is the barrier's shared offset, with the count of
    /// arrivals written (`arrive state, [addr], 2`) << 32 over it, or, for an `expect_tx`
    /// arrival, `MBAR_FLAG` and the bytes it announces << 32.
    #[serde(rename = "mbarrier-arrive")]
    MbarArrive { relaxed: bool },
    /// A wait (`try_wait`, `test_wait`) on an `mbarrier` of the block's shared memory,
    /// logged by the lanes it found the phase complete for, so that a wait retried in a
    /// loop is one record where it succeeds (`relaxed`: one that acquires nothing). The
    /// address is the barrier's shared offset, with `MBAR_FLAG` and the parity << 32 over
    /// it for a `.parity` wait.
    #[serde(rename = "mbarrier-wait")]
    MbarWait { relaxed: bool },
    /// `cp.async.commit_group`: the thread's asynchronous copies issued since its last commit
    /// become one group. No address.
    #[serde(rename = "copy-commit")]
    CopyCommit,
    /// `cp.async.wait_group N` (`all`: `cp.async.wait_all`, which commits first and waits for
    /// every group): the thread waits until at most `groups` of its groups are pending, and
    /// the shared writes of the others are done. No address.
    #[serde(rename = "copy-wait")]
    CopyWait { groups: u32, all: bool },
    /// `call`: the lanes that run it call a function out of line (one that neither NVVM
    /// nor the PTX inlined), so that a check can count the calls a kernel makes, not only
    /// that its code has one. No address; the record's mask is the calling lanes.
    Call,
    /// `shfl.sync`, `redux.sync`, `vote.sync` or `match.sync`: the lanes that run it exchange
    /// values in registers, not through memory, so that a check can tell a tree kept in
    /// shared memory from one that is not. A vote is an exchange too: 32 ballots hand every
    /// lane every other lane's word, a bit plane each. No address; the record's mask is the
    /// lanes that take part.
    Shuffle,
    /// A fence of the GPU's scope or wider (`__threadfence()`: `fence.sc.gpu`,
    /// `fence.acq_rel.gpu`, the old `membar.gl`, and their `sys` forms): the thread's
    /// stores before it are seen by every block before its accesses after it, so that a
    /// value handed to another block behind an atomic (the last block's sum) is there when
    /// the atomic is. No address; the record's mask is the lanes that run it.
    Fence,
}

/// One traced instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    pub id: u32,
    pub event: Event,
    /// The opcode as written, e.g. "ld.shared.v4.f32".
    pub op: String,
    /// Bytes per lane: vector count × element size.
    pub width: u32,
    /// 1-based line in the original PTX.
    pub ptx_line: u32,
    pub source_line: Option<u32>,
    /// The `.file` index of the `.loc` the line came from.
    pub source_file: Option<u32>,
    /// Texture sites: how the logged coordinates read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coords: Option<TexCoords>,
    /// A load whose value nothing with an effect uses (`unused`): counted as the hardware
    /// counts it, and apart as work the kernel did not need.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unused: bool,
    /// A load whose value goes into shared memory and nowhere else (`staged`): a tile
    /// being filled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub staged: bool,
    /// A global store whose values come straight from shared memory (`relayed`): an
    /// output turned around through a tile.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub relayed: bool,
    /// The address operand as written (`%rd42+8`): two loads of one base register, one
    /// inside the other's bytes, are one read that ptxas may make once
    /// (`sass_map::reshape`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub addr: String,
    /// On a line the kernel times, between two clock reads (`mark_timed`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed: bool,
    /// The kernel file's lines of the calls this site's function was inlined through,
    /// innermost first (PTX `.loc ... inlined_at 1 LINE`, each call's own `.loc` naming the
    /// call further out): a helper's copy inlined between two clock reads is timed, its copy
    /// inlined elsewhere (a warm-up lap) is not, however many helpers deep it lies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub called_at: Vec<u32>,
    /// A `call` site: the function it calls as the PTX names it (`_Z10stir_group5uint4`;
    /// a register for a call through a pointer), so that calls are counted by function.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub callee: String,
}

impl Site {
    /// A site of `event` made by `op`, 4 bytes a lane, on PTX line 1, for the tests of the
    /// analyses that read sites.
    #[cfg(test)]
    pub fn for_test(event: Event, op: &str) -> Site {
        Site {
            id: 0,
            event,
            op: op.into(),
            width: 4,
            ptx_line: 1,
            source_line: None,
            source_file: None,
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

    /// A barrier of the block: `bar`/`barrier` and either half of the cluster's barrier,
    /// which holds the block too (not `bar.warp.sync`, which orders one warp's lanes).
    pub fn is_barrier(&self) -> bool {
        matches!(
            self.event,
            Event::Barrier
                | Event::ClusterArrive
                | Event::ClusterArriveRelaxed
                | Event::ClusterWait
        )
    }

    /// A site that logs an event with no address (a barrier, a copy group's commit or
    /// wait): its records are logged under the barrier code and count no request.
    pub fn is_event(&self) -> bool {
        !matches!(self.event, Event::Access { .. })
    }

    /// The space an access site's instruction names; None for a barrier.
    pub fn space(&self) -> Option<Space> {
        match self.event {
            Event::Access { space, .. } => Some(space),
            _ => None,
        }
    }

    /// Load or store; None for a barrier.
    pub fn kind(&self) -> Option<AccessKind> {
        match self.event {
            Event::Access { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// An atomic or a reduction (`atom`, `red`).
    pub fn is_atomic(&self) -> bool {
        self.kind().is_some_and(AccessKind::is_atomic)
    }

    /// An atomic exchange (`atom.exch`): it stores its operand whatever the word held.
    pub fn is_exchange(&self) -> bool {
        self.is_atomic() && self.op.split('.').any(|p| p == "exch")
    }

    /// A site whose counts wait for the SASS: a shared access wider than a word, which
    /// ptxas may make in narrower instructions, and every atomic, which it may aggregate
    /// over the warp, make a loop, or make a reduction.
    pub fn may_split(&self) -> bool {
        // A copy is one `LDGSTS`, an `ldmatrix` one `LDSM`, whatever their width.
        let copy = matches!(
            self.kind(),
            Some(AccessKind::AsyncCopy | AccessKind::Matrix)
        );
        (self.space() == Some(Space::Shared) && self.width > 4 && !copy) || self.is_atomic()
    }
}

/// Mark the sites on the lines `source` (the kernel's file) times between two clock reads
/// (`analysis::timed_region`), the lines `ptx` (its compiled module) reads a clock on
/// among them: what a latency lesson measures happens there.
pub fn mark_timed(sites: &mut [Site], source: &str, ptx: &str) {
    let ranges = crate::analysis::timed_region::timed_ranges_reading(source, &clock_lines(ptx));
    for s in sites {
        // Its own line, or the line of a call it was inlined through.
        s.timed = (s.source_line.iter().chain(&s.called_at))
            .any(|l| ranges.iter().any(|r| r.contains(l)));
    }
}

/// The kernel file's lines (`.loc 1 LINE`) an instruction of `ptx` reads the SM clock or
/// the global timer on. The text may not show it: `asm("mov.u64 %0, %%clo" "ck64;")`
/// reads the clock on a line no search of the source finds.
pub fn clock_lines(ptx: &str) -> Vec<u32> {
    const CLOCKS: [&str; 6] = [
        "%clock",
        "%clock_hi",
        "%clock64",
        "%globaltimer",
        "%globaltimer_lo",
        "%globaltimer_hi",
    ];
    let mut at = None;
    let mut out = Vec::new();
    for code in ptx.lines().map(strip_comment).map(str::trim) {
        if let Some(rest) = code.strip_prefix(".loc") {
            // Its own line in the kernel's file, or else (a header's function inlined in
            // the kernel) the line it was inlined at.
            let line_in_kernel = |text: &str| {
                let mut nums = (text.split([' ', '\t', ',']).filter(|t| !t.is_empty()))
                    .map(|t| t.parse::<u32>().ok());
                match (nums.next(), nums.next()) {
                    (Some(Some(1)), Some(Some(line))) if line > 0 => Some(line),
                    _ => None,
                }
            };
            at = line_in_kernel(rest).or_else(|| {
                let (_, inlined) = rest.split_once("inlined_at")?;
                line_in_kernel(inlined)
            });
        } else if starts_function(code) {
            at = None;
        } else if !code.starts_with('.')
            && (code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '%')))
                .any(|t| CLOCKS.contains(&t))
            && let Some(line) = at
            && !out.contains(&line)
        {
            out.push(line);
        }
    }
    out
}

/// The variables a module defines in global memory (`__device__` ones), by name: what a
/// kernel may keep from one launch to the next. `.extern` ones are defined elsewhere.
pub fn module_globals(ptx: &str) -> Vec<String> {
    (ptx.lines())
        .map(strip_comment)
        .filter(|code| !code.split_whitespace().any(|t| t == ".extern"))
        .filter_map(module_variable)
        .filter(|(_, space)| *space == Space::Global)
        .map(|(name, _)| name)
        .collect()
}

/// The traced accesses the SASS is read for (`sass_map::reshape`): shared loads and stores,
/// and atomics of any space, each with its source line (those without one cannot be found
/// in the SASS).
pub fn sass_accesses(sites: &[Site]) -> Vec<PtxAccess> {
    (sites.iter())
        .filter(|s| s.space() == Some(Space::Shared) || s.is_atomic())
        // An asynchronous copy is one `LDGSTS` whatever its width: nothing to look up.
        .filter(|s| !matches!(s.kind(), Some(AccessKind::AsyncCopy | AccessKind::Matrix)))
        .filter_map(|s| {
            let kind = s.kind()?;
            Some(PtxAccess {
                id: s.id,
                line: s.source_line?,
                store: kind == AccessKind::Store,
                width: s.width,
                addr: PtxAddr::of(&s.addr),
                atomic: kind.is_atomic().then(|| PtxAtomic {
                    kind,
                    cas: s.op.split('.').any(|q| q == "cas"),
                }),
            })
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instrumented {
    pub ptx: String,
    pub sites: Vec<Site>,
    /// The statements that move memory in ways no site follows, in PTX order.
    pub unseen: Vec<UnseenAccess>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstrumentError {
    #[error("the PTX has no .target directive")]
    NoTarget,
    #[error("target {0} is older than sm_70: the trace logger needs match.any.sync")]
    OldTarget(String),
    #[error("the PTX is already instrumented")]
    AlreadyInstrumented,
    /// A kernel that could name the tracer's globals or registers could read which blocks
    /// are traced, and take the taught path only there.
    #[error(
        "PTX line {line}: `{name}` begins with __gpulab, which the tracer keeps for its own names: rename it"
    )]
    ReservedName { line: u32, name: String },
    #[error("PTX line {line}: cannot read the access `{text}`")]
    BadAccess { line: u32, text: String },
    #[error("PTX line {line}: register {reg} has no .reg declaration in this function")]
    UnknownRegister { line: u32, reg: String },
}

/// Instrument every traced access of `ptx`; see the module comment for what is traced.
pub fn instrument(ptx: &str) -> Result<Instrumented, InstrumentError> {
    if ptx.contains(&format!(".visible .global .align 8 .u64 {SYM_BUF};")) {
        return Err(InstrumentError::AlreadyInstrumented);
    }
    if let Some((i, line)) = ptx
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("__gpulab"))
    {
        let at = line.find("__gpulab").unwrap_or(0);
        let name: String = (line[at..].chars())
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        return Err(InstrumentError::ReservedName {
            line: i as u32 + 1,
            name,
        });
    }
    let (header_end, features) = header_end(ptx)?;
    let mut out = String::with_capacity(ptx.len() * 2 + 8192);
    let mut state = FuncState::default();
    let mut symbols: HashMap<String, Space> = HashMap::new();
    let mut sites = Vec::new();
    let mut unseen = Vec::new();
    // The kernel whose body this is; None in a `.func`.
    let mut entry: Option<String> = None;
    // `__syncwarp()` sites are numbered after every other site, calls after those, then
    // shuffles, mbarrier events and fences last, so that the ids of the accesses and block
    // barriers stay what they were before warp barriers, calls, shuffles, mbarriers and
    // fences were followed, which recordings made since key their figures by.
    let mut next = 0;
    let (main_sites, warp_sites, call_sites, shuffle_sites, mbar_sites) = count_sites(ptx)?;
    let mut next_warp = main_sites;
    let mut next_call = main_sites + warp_sites;
    let mut next_shuffle = next_call + call_sites;
    let mut next_mbar = next_shuffle + shuffle_sites;
    let mut next_fence = next_mbar + mbar_sites;
    // Whether the statement just before was a fence of the cluster's scope or wider: one
    // directly before `barrier.cluster.arrive.relaxed` gives it the release a plain arrive
    // has (PTX's memory model), so the pair orders what the warp did before it.
    let mut fenced = false;
    // What each loaded or stored value is for, read from the PTX once for all three.
    let functions = dataflow::functions(ptx);
    let unused = unused::unused_loads(&functions);
    let staged = staged::staged_loads(&functions);
    let relayed = relayed::relayed_stores(&functions);

    // A call's operands follow it over the next lines (`statements::callee`).
    let lines: Vec<&str> = ptx.lines().collect();
    for (idx, raw) in lines.iter().enumerate() {
        let line_no = idx as u32 + 1;
        let code = strip_comment(raw);
        if starts_function(code) {
            state = FuncState::default();
            entry = entry_name(code);
        }
        if let Some((name, space)) = module_variable(code) {
            symbols.insert(name, space);
        }
        let segments = segment(code);
        let mut planned: Vec<Planned<'_>> = Vec::new();
        let mut first = false;
        for (seg_idx, seg) in segments.iter().enumerate() {
            let stmt = match seg {
                Seg::Open | Seg::Close => {
                    state.scope(seg);
                    continue;
                }
                Seg::Stmt(stmt) => stmt,
            };
            first |= state.first_instruction(stmt);
            state.observe(stmt);
            let (label, body) = split_label(stmt);
            // One statement may make several sites (a `cp.async`: its read, then its
            // write); their logging blocks go before it in site order.
            let mut blocks = String::new();
            let mut inside = false;
            let after_fence = std::mem::replace(&mut fenced, releasing_fence(body));
            let accesses = parse_access(body, line_no)?;
            if accesses.is_empty()
                && let Some(op) = access::moves_unseen(body)
            {
                unseen.push(UnseenAccess {
                    op: op.to_string(),
                    ptx_line: line_no,
                    // File 1 is the kernel's own source; a header's line would name
                    // another file's.
                    source_line: state.loc.filter(|l| l.0 == 1).map(|l| l.1),
                    entry: entry.clone(),
                });
            }
            for mut access in accesses {
                // A label before the arrive is a way in that may not pass the fence.
                if access.event == Event::ClusterArriveRelaxed && after_fence && label.is_none() {
                    access.event = Event::ClusterArrive;
                }
                let counter = match access.event {
                    Event::WarpSync => &mut next_warp,
                    Event::Call => &mut next_call,
                    Event::Shuffle => &mut next_shuffle,
                    Event::MbarInit | Event::MbarArrive { .. } | Event::MbarWait { .. } => {
                        &mut next_mbar
                    }
                    Event::Fence => &mut next_fence,
                    _ => &mut next,
                };
                let id = *counter;
                *counter += 1;
                let site = Site {
                    id,
                    event: access.event,
                    op: access.op.to_string(),
                    width: access.width,
                    ptx_line: line_no,
                    source_line: state.loc.map(|l| l.1),
                    source_file: state.loc.map(|l| l.0),
                    called_at: (state.called_at.iter())
                        .filter(|l| l.0 == 1)
                        .map(|l| l.1)
                        .collect(),
                    coords: access.coords,
                    unused: matches!(
                        access.event,
                        Event::Access {
                            kind: AccessKind::Load | AccessKind::Matrix,
                            ..
                        }
                    ) && unused.contains(&(line_no, seg_idx)),
                    staged: matches!(
                        access.event,
                        Event::Access {
                            kind: AccessKind::Load,
                            ..
                        }
                    ) && staged.contains(&(line_no, seg_idx)),
                    relayed: matches!(
                        access.event,
                        Event::Access {
                            space: Space::Global,
                            kind: AccessKind::Store,
                        }
                    ) && relayed.contains(&(line_no, seg_idx)),
                    addr: access.addr.to_string(),
                    timed: false,
                    callee: match access.event {
                        Event::Call => statements::callee(&lines[idx..]),
                        _ => String::new(),
                    },
                };
                let known = (&symbols, features);
                // An acquire load is logged after it reads (`site_block`), and an mbarrier
                // wait after it finds whether its phase is complete.
                let after = matches!(
                    access.event,
                    Event::Access {
                        kind: AccessKind::Load,
                        ..
                    }
                ) && Order::of(access.op).acquire
                    || matches!(access.event, Event::MbarWait { .. });
                let stmt = after.then_some(body);
                inside |= after;
                blocks.push_str(&site_block(
                    &site,
                    &access,
                    &state.regs,
                    known,
                    line_no,
                    stmt,
                )?);
                sites.push(site);
            }
            if !blocks.is_empty() {
                planned.push((seg_idx, label, if inside { "" } else { body }, blocks));
            }
        }
        if first {
            // Before the line, its label too: a branch back to that label need not test
            // the sample again.
            out.push_str(&logger::prologue(features));
        }
        emit_line(&mut out, raw, &segments, &planned);
        if idx + 1 == header_end {
            out.push_str(logger::text());
        }
    }
    sites.sort_by_key(|s| s.id);
    Ok(Instrumented {
        ptx: out,
        sites,
        unseen,
    })
}

/// The kernel's name on the line that opens an `.entry` (`.visible .entry k(`); None for
/// a `.func`.
fn entry_name(code: &str) -> Option<String> {
    let (_, rest) = code.split_once(".entry")?;
    let name = rest.trim_start().split(['(', ' ', '\t']).next()?;
    (!name.is_empty()).then(|| name.to_string())
}

/// A fence that orders the thread's earlier memory accesses before its later ones for the
/// whole cluster or more: `fence.acq_rel`/`fence.sc` at cluster, GPU or system scope (and
/// the old `membar.gl`/`membar.sys`); not a CTA's, nor the proxy fences.
fn releasing_fence(body: &str) -> bool {
    let op = body
        .trim_end_matches(';')
        .split_whitespace()
        .next()
        .unwrap_or("");
    let quals: Vec<&str> = op.split('.').collect();
    match quals.first() {
        Some(&"fence") => {
            (quals.contains(&"acq_rel") || quals.contains(&"sc") || quals.len() == 2)
                && ["cluster", "gpu", "sys"].iter().any(|s| quals.contains(s))
                && !quals
                    .iter()
                    .any(|q| q.starts_with("proxy") || *q == "mbarrier_init")
        }
        Some(&"membar") => quals.contains(&"gl") || quals.contains(&"sys"),
        _ => false,
    }
}

/// The sites of `ptx` other than `__syncwarp()`'s, calls, shuffles, mbarrier events and
/// fences, the `__syncwarp()` sites, the calls, the shuffles and the mbarrier events:
/// those are numbered after the others, calls after them, then shuffles, mbarrier events,
/// and fences last.
fn count_sites(ptx: &str) -> Result<(u32, u32, u32, u32, u32), InstrumentError> {
    let (mut main, mut warp, mut calls, mut shuffles, mut mbars) = (0, 0, 0, 0, 0);
    for (idx, raw) in ptx.lines().enumerate() {
        for seg in segment(strip_comment(raw)) {
            if let Seg::Stmt(stmt) = seg {
                let (_, body) = split_label(stmt);
                for a in parse_access(body, idx as u32 + 1)? {
                    match a.event {
                        Event::WarpSync => warp += 1,
                        Event::Call => calls += 1,
                        Event::Shuffle => shuffles += 1,
                        Event::MbarInit | Event::MbarArrive { .. } | Event::MbarWait { .. } => {
                            mbars += 1
                        }
                        Event::Fence => {}
                        _ => main += 1,
                    }
                }
            }
        }
    }
    Ok((main, warp, calls, shuffles, mbars))
}

#[cfg(test)]
#[path = "instrument_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "instrument_space_tests.rs"]
mod space_tests;
