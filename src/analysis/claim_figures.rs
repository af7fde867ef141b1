//! The figure a claim's metric names in a variant's results: its time or rate, its compile
//! report, or a count from its memory trace (most of them per request); or why the variant
//! has none, which the claim then says instead of a yes or a no.

use super::Verdict;
use crate::model::access::{AccessKind, Space};
use crate::model::claim::Metric;
use crate::model::results::{GlobalStats, MemoryStats, PerturbOf, VariantResult};

/// The figure `m` of `v`, or why there is none.
pub(super) fn read(m: Metric, v: &VariantResult) -> Result<f64, Verdict> {
    let name = &v.name;
    let missing =
        |what: &str| Verdict::NotMeasured(format!("not measured (no {what} for `{name}`)"));
    let ptxas = || v.ptxas.as_ref().ok_or_else(|| missing("compile report"));
    match m {
        Metric::TimeMs => v
            .time_ms
            .as_ref()
            .map(|t| t.median)
            .ok_or_else(|| missing("time")),
        Metric::Gbps => v.gbps.ok_or_else(|| missing("GB/s")),
        Metric::Gflops => v.gflops.ok_or_else(|| missing("GFLOP/s")),
        Metric::PctOfPeak => v.pct_of_peak.ok_or_else(|| missing("% of peak")),
        Metric::Registers => Ok(ptxas()?.registers as f64),
        Metric::StackFrame => Ok(ptxas()?.stack_frame as f64),
        Metric::SpillStores => Ok(ptxas()?.spill_stores as f64),
        Metric::SpillLoads => Ok(ptxas()?.spill_loads as f64),
        Metric::Smem => Ok(ptxas()?.smem as f64),
        Metric::Occupancy => v
            .occupancy
            .as_ref()
            .map(|o| o.ratio)
            .ok_or_else(|| missing("occupancy")),
        Metric::SharedFeedsOutputPct
        | Metric::ConstantFeedsOutputPct
        | Metric::ClusterFeedsOutputPct
        | Metric::SharedAtomicsFeedOutputPct
        | Metric::CallsFeedOutputPct
        | Metric::SharedTimedChasePct
        | Metric::LocalTimedChasePct
        | Metric::SharedTimedSerialPct
        | Metric::LocalTimedSerialPct
        | Metric::SharedTimedEndFeedsOutputPct => {
            let asked = m.perturbing();
            let made = asked
                .and_then(|a| (v.perturbed.iter()).find(|p| p.space == a.space && p.of == a.of));
            match (made, asked) {
                // No timed load read a word the other run's did: nothing to compare, and
                // nothing timed that follows the inputs.
                (Some(p), Some(a)) if a.of == PerturbOf::Inputs && p.of == a.of && p.loads == 0 => {
                    Err(Verdict::Wrong(format!(
                        "`{name}` makes no timed load of {} at a word both runs over \
                         different inputs read: its timed loads follow nothing drawn",
                        a.space.memory_words()
                    )))
                }
                // No warp made a timed load after another: no step of a chase waited on.
                (Some(p), Some(a))
                    if a.of == PerturbOf::TimedNext && p.of == a.of && p.loads == 0 =>
                {
                    Err(Verdict::Wrong(format!(
                        "`{name}` makes no two timed loads of {} one after the other: no \
                         step of a chase waits on another",
                        a.space.memory_words()
                    )))
                }
                (Some(p), Some(_)) => Ok(p.pct()),
                _ => {
                    let words = asked.map_or("memory", |a| a.space.memory_words());
                    let how = match asked.map(|a| a.of) {
                        Some(PerturbOf::Atomics) => {
                            format!("with its atomics on {words} left out")
                        }
                        Some(PerturbOf::Returns) => {
                            "with what its calls return perturbed".to_string()
                        }
                        Some(PerturbOf::Inputs) => {
                            "twice over different inputs, its timed loads compared".to_string()
                        }
                        Some(PerturbOf::TimedEnd) => {
                            "with its last timed load's values perturbed".to_string()
                        }
                        Some(PerturbOf::TimedNext) => {
                            "with one timed load's values perturbed at a time".to_string()
                        }
                        _ => format!("with what it reads from {words} perturbed"),
                    };
                    Err(Verdict::NotMeasured(format!(
                        "not measured: only the CPU interpreter runs `{name}` {how}, once its \
                         output is right"
                    )))
                }
            }
        }
        Metric::SharedWavefrontsPerRequest
        | Metric::SharedLoadWavefrontsPerRequest
        | Metric::SharedStoreWavefrontsPerRequest
        | Metric::SharedConflictsPerRequest
        | Metric::GlobalSectorsPerRequest
        | Metric::GlobalSectors
        | Metric::GlobalRequests
        | Metric::ConstantDistinctPerRequest
        | Metric::LocalBytes
        | Metric::LocalSectorsPerRequest
        | Metric::ClusterSectorsPerRequest
        | Metric::ClusterRemoteRequests
        | Metric::ClusterRemoteSectors
        | Metric::ClusterRemoteWords
        | Metric::ClusterRemoteBlocks
        | Metric::TextureTexelsPerRequest
        | Metric::TextureRowsPerRequest
        | Metric::SharedRaces
        | Metric::SharedLoadWordsPerRequest
        | Metric::SharedLaneWords
        | Metric::ConstantWords
        | Metric::GlobalPctUsed
        | Metric::SharedAtomicWavefrontsPerRequest
        | Metric::GlobalAtomicRequests
        | Metric::GlobalAtomicSectorsPerRequest
        | Metric::AtomicLanesPerAddress
        | Metric::AtomicUpdates
        | Metric::CopyGlobalRequests
        | Metric::CopySharedWavefrontsPerRequest
        | Metric::CopyBulkRequests
        | Metric::CopyBulkBytesPerRequest
        | Metric::CopyPctOfReads
        | Metric::SharedRequests
        | Metric::SharedWavefronts
        | Metric::ConstantRequests
        | Metric::TextureRequests
        | Metric::TextureGatherRequests
        | Metric::CopyWaitsInFlightPct
        | Metric::CopyReadsInFlightPct
        | Metric::CopyOverlappedPct
        | Metric::LoadsUnusedPct
        | Metric::GlobalStagedPct
        | Metric::GlobalRelayedPct
        | Metric::GlobalWideBytesPct
        | Metric::SharedTimedWords
        | Metric::SharedTimedReadsPct
        | Metric::SharedMatrixReadsPct
        | Metric::GlobalLoadRequests
        | Metric::GlobalStoreRequests
        | Metric::LocalTimedReadsPct
        | Metric::SharedReservedRequests
        | Metric::SharedStoresReadPct
        | Metric::LocalTimedWords
        | Metric::Calls
        | Metric::CallsWorkPct
        | Metric::CallsOutsideSteps
        | Metric::Shuffles
        | Metric::GlobalCrossBlockWords
        | Metric::GlobalHandoverWords
        | Metric::GlobalRereadPct
        | Metric::GlobalUnfencedHandoverWords => read_traced(m, v),
    }
}

/// Figures from the memory trace, most of them per request.
fn read_traced(m: Metric, v: &VariantResult) -> Result<f64, Verdict> {
    let name = &v.name;
    let mem = v
        .memory
        .as_ref()
        .ok_or_else(|| Verdict::NotMeasured(format!("not measured (no trace of `{name}`)")))?;
    let blocks = mem.traced_blocks;
    // A count from part of a trace could pass a kernel its lost part would fail (a race, an
    // atomic, a re-read hidden behind a full buffer): never judged.
    if mem.overflow > 0 {
        return Err(Verdict::NotMeasured(format!(
            "not judged: the trace of `{name}` was cut short ({} records past what it could \
             keep, even with {blocks} block{} traced), and a count from part of a trace \
             says nothing of the rest",
            mem.overflow,
            if blocks == 1 { "" } else { "s" }
        )));
    }
    // A total of a space the kernel never touches is 0 (fewer than a solution's, more than
    // none); a figure per request of one does not exist: the claim
    // is about that space, so the kernel misses its point (a task that wants a shared tile,
    // met by a kernel with none).
    let per = |num: f64, requests: u64, space: &str| {
        if requests == 0 {
            Err(Verdict::Wrong(format!(
                "`{name}` makes no {space} requests (none in the {blocks} traced block{}): \
                 this check is about them",
                if blocks == 1 { "" } else { "s" }
            )))
        } else {
            Ok(num / requests as f64)
        }
    };
    let (s, c) = (&mem.shared, &mem.constant);
    // Global traffic is every request that moves global memory: loads and stores, and the
    // asynchronous and bulk copies' reads (a tile re-read through `cp.async` is re-read all
    // the same). Atomics have their own figures.
    let all = all_global(mem);
    let g = &all;
    let (cl, t) = (&mem.cluster, &mem.texture);
    match m {
        Metric::SharedWavefrontsPerRequest => per(s.wavefronts as f64, s.requests, "shared"),
        Metric::SharedLoadWavefrontsPerRequest => {
            per(s.ld.wavefronts as f64, s.ld.requests, "shared load")
        }
        Metric::SharedStoreWavefrontsPerRequest => {
            per(s.st.wavefronts as f64, s.st.requests, "shared store")
        }
        Metric::SharedConflictsPerRequest => {
            let extra = s.wavefronts.saturating_sub(s.ideal_wavefronts);
            per(extra as f64, s.requests, "shared")
        }
        Metric::GlobalSectorsPerRequest => per(g.sectors as f64, g.requests, "global"),
        Metric::GlobalSectors => Ok(g.sectors as f64),
        Metric::GlobalRequests => Ok(g.requests as f64),
        Metric::ConstantDistinctPerRequest => per(c.distinct as f64, c.requests, "constant"),
        Metric::LocalBytes => Ok(mem.local.bytes as f64),
        Metric::LocalSectorsPerRequest => {
            let local = (mem.instructions.iter()).filter(|i| i.space == Space::Local);
            let (sectors, requests) =
                local.fold((0, 0), |(s, r), i| (s + i.local_sectors, r + i.requests));
            // A recording made before local sectors were counted has local requests and
            // no sectors: not measured, rather than a figure of 0.
            if requests > 0 && sectors == 0 {
                return Err(Verdict::NotMeasured(format!(
                    "not measured (the trace of `{name}` did not count local sectors)"
                )));
            }
            per(sectors as f64, requests, "local")
        }
        Metric::ClusterSectorsPerRequest => per(cl.sectors as f64, cl.requests, "shared::cluster"),
        Metric::ClusterRemoteRequests => Ok(cl.remote_requests as f64),
        Metric::ClusterRemoteSectors => Ok(cl.remote_sectors as f64),
        Metric::ClusterRemoteWords => Ok(cl.remote_words as f64),
        Metric::ClusterRemoteBlocks => Ok(cl.remote_blocks as f64),
        Metric::TextureTexelsPerRequest => per(t.texels as f64, t.requests, "texture"),
        Metric::TextureRowsPerRequest => per(t.rows as f64, t.requests, "texture"),
        Metric::SharedRaces if !mem.races_checked => Err(Verdict::NotMeasured(format!(
            "not measured (the trace of `{name}` did not follow barriers)"
        ))),
        Metric::SharedRaces => Ok(mem.races.iter().map(|r| r.count).sum::<u64>() as f64),
        Metric::SharedLoadWordsPerRequest => {
            let loads = (mem.instructions.iter())
                .filter(|i| i.space == Space::Shared && i.kind == AccessKind::Load);
            let (words, requests) = loads.fold((0, 0), |(w, r), i| {
                (w + i.bank_words.iter().sum::<u64>(), r + i.requests)
            });
            per_instruction(mem, name, s.ld.requests > 0)?;
            per(words as f64, requests, "shared load")
        }
        Metric::SharedLaneWords => {
            let loads = (mem.instructions.iter())
                .filter(|i| i.space == Space::Shared && i.kind == AccessKind::Load);
            let (words, requests) = loads.fold((0, 0), |(w, r), i| {
                (w + i.lanes * u64::from(i.width.div_ceil(4)), r + i.requests)
            });
            per_instruction(mem, name, s.ld.requests > 0)?;
            // The traced instructions' lane words a request, times the grid's load requests.
            per(words as f64, requests, "shared load").map(|w| w * s.ld.requests as f64)
        }
        Metric::ConstantWords => {
            let reads = (mem.instructions.iter()).filter(|i| i.space == Space::Constant);
            let (words, distinct) = reads.fold((0, 0), |(w, d), i| {
                (
                    w + i.distinct * u64::from(i.width.div_ceil(4)),
                    d + i.distinct,
                )
            });
            per_instruction(mem, name, c.requests > 0)?;
            // Each distinct address is as many words as its load is wide: the traced
            // instructions' words an address, times the grid's distinct addresses.
            per(words as f64, distinct, "constant").map(|w| w * c.distinct as f64)
        }
        Metric::CopyPctOfReads => {
            per_instruction(mem, name, g.requests > 0)?;
            let global = (mem.instructions.iter()).filter(|i| i.space == Space::Global);
            let (mut copied, mut loaded) = (0, 0);
            for i in global {
                match i.kind {
                    AccessKind::AsyncCopy | AccessKind::BulkCopy => copied += i.sectors,
                    AccessKind::Load => loaded += i.sectors,
                    _ => {}
                }
            }
            let read = copied + loaded;
            per(100.0 * copied as f64, 1.min(read), "global read").map(|x| x / read.max(1) as f64)
        }
        Metric::SharedRequests => Ok(s.requests as f64),
        Metric::SharedWavefronts => Ok(s.wavefronts as f64),
        Metric::ConstantRequests => Ok(c.requests as f64),
        Metric::TextureRequests => Ok(t.requests as f64),
        Metric::TextureGatherRequests => {
            per_instruction(mem, name, t.requests > 0)?;
            let gathers = (mem.instructions.iter()).filter(|i| i.op.starts_with("tld4"));
            Ok(gathers.map(|i| i.requests).sum::<u64>() as f64)
        }
        Metric::CopyWaitsInFlightPct => {
            let w = &mem.copies;
            if w.waits == 0 {
                return Err(Verdict::Wrong(format!(
                    "`{name}` never waits for an asynchronous copy (none in the {blocks} \
                     traced block{}): this check is about its waits",
                    if blocks == 1 { "" } else { "s" }
                )));
            }
            Ok(100.0 * w.waits_in_flight as f64 / w.waits as f64)
        }
        Metric::CopyReadsInFlightPct => {
            let c = &mem.copies;
            per(100.0 * c.reads_in_flight as f64, c.reads, "shared read")
        }
        Metric::CopyOverlappedPct => {
            let c = &mem.copies;
            per(
                100.0 * c.overlapped_bytes as f64,
                c.completed_bytes,
                "completed asynchronous copy",
            )
        }
        // None is a count like any other: a kernel that makes no call has 0 of them.
        Metric::Calls => Ok(mem.calls as f64),
        Metric::CallsWorkPct => mem.call_work.map(|w| w.pct()).ok_or_else(|| {
            Verdict::NotMeasured(format!(
                "not measured: only the CPU interpreter counts the instructions `{name}` \
                 runs inside its functions"
            ))
        }),
        Metric::CallsOutsideSteps => (mem.call_work)
            .map(|w| w.thread_steps.saturating_sub(w.in_calls) as f64)
            .ok_or_else(|| {
                Verdict::NotMeasured(format!(
                    "not measured: only the CPU interpreter counts the instructions `{name}` \
                     runs outside its functions"
                ))
            }),
        Metric::Shuffles => Ok(mem.shuffles as f64),
        Metric::GlobalCrossBlockWords => Ok(mem.global.cross_block_words as f64),
        Metric::GlobalHandoverWords => Ok(mem.global.handover_words as f64),
        Metric::GlobalRereadPct => match mem.global.load_sectors {
            0 => Err(Verdict::NotMeasured(format!(
                "not measured (`{name}` loads nothing from global memory in the traced blocks)"
            ))),
            n => Ok(100.0 * mem.global.reread_sectors as f64 / n as f64),
        },
        Metric::GlobalUnfencedHandoverWords => (mem.global.unfenced_handover_words)
            .map(|w| w as f64)
            .ok_or_else(|| {
                Verdict::NotMeasured(format!(
                    "not measured: only the CPU interpreter, which traces every block at its \
                     sizes, follows what `{name}` hands between blocks"
                ))
            }),
        Metric::SharedTimedWords => match mem.timed_shared_words {
            0 => Err(Verdict::Wrong(format!(
                "`{name}` reads no shared memory on the lines it times between two clock \
                 reads (none in the {blocks} traced block{})",
                if blocks == 1 { "" } else { "s" }
            ))),
            words => Ok(words as f64),
        },
        Metric::SharedTimedReadsPct => per(
            100.0 * mem.timed_shared_load_requests as f64,
            mem.shared_load_requests,
            "shared load",
        ),
        Metric::GlobalLoadRequests | Metric::GlobalStoreRequests => {
            per_instruction(mem, name, g.requests > 0)?;
            let kind = match m {
                Metric::GlobalLoadRequests => AccessKind::Load,
                _ => AccessKind::Store,
            };
            let of_kind =
                (mem.instructions.iter()).filter(|i| i.space == Space::Global && i.kind == kind);
            // The instructions' counts are the traced blocks'; every other total is scaled
            // to the grid (`sample::scale_to_grid`), and so is this one: a variant whose
            // blocks make more records has fewer of them traced, which is no fewer requests.
            let traced = of_kind.map(|i| i.requests).sum::<u64>() as f64;
            Ok(traced * mem.total_blocks.max(blocks) as f64 / blocks.max(1) as f64)
        }
        Metric::SharedMatrixReadsPct => {
            per_instruction(mem, name, s.ld.requests > 0)?;
            let loads = (mem.instructions.iter()).filter(|i| i.space == Space::Shared);
            let (mut matrix, mut all) = (0, 0);
            for i in loads {
                match i.kind {
                    AccessKind::Matrix => (matrix, all) = (matrix + i.requests, all + i.requests),
                    AccessKind::Load => all += i.requests,
                    _ => {}
                }
            }
            per(100.0 * matrix as f64, all, "shared load")
        }
        Metric::LocalTimedReadsPct => per(
            100.0 * mem.timed_local_load_requests as f64,
            mem.local_load_requests,
            "local load",
        ),
        Metric::SharedReservedRequests => Ok(mem.shared_reserved_requests as f64),
        Metric::SharedStoresReadPct => per(
            100.0 * mem.shared_stores_read as f64,
            mem.shared_stores,
            "shared store",
        ),
        Metric::LocalTimedWords => match mem.timed_local_words {
            0 => Err(Verdict::Wrong(format!(
                "`{name}` reads no local memory on the lines it times between two clock                  reads (none in the {blocks} traced block{})",
                if blocks == 1 { "" } else { "s" }
            ))),
            words => Ok(words as f64),
        },
        Metric::LoadsUnusedPct => {
            if !mem.unused_loads_followed {
                return Err(Verdict::NotMeasured(format!(
                    "not measured (the trace of `{name}` did not follow what its loads' \
                     values are used for)"
                )));
            }
            let (unused, all) = unused_loads(mem);
            // A kernel that loads nothing wastes no load.
            Ok(100.0 * unused as f64 / all.max(1) as f64)
        }
        Metric::GlobalStagedPct => {
            per_instruction(mem, name, g.requests > 0)?;
            // A copy into shared memory (`cp.async`, the TMA's) is staged by what it is.
            let copy = |i: &&crate::model::access::InstructionSummary| {
                matches!(i.kind, AccessKind::AsyncCopy | AccessKind::BulkCopy)
            };
            let loads = (mem.instructions.iter())
                .filter(|i| i.space == Space::Global && (i.kind == AccessKind::Load || copy(i)));
            let (staged, all) = loads.fold((0, 0), |(s, a), i| {
                (
                    s + if i.staged || copy(&i) { i.requests } else { 0 },
                    a + i.requests,
                )
            });
            per(100.0 * staged as f64, all, "global load")
        }
        Metric::GlobalRelayedPct => {
            per_instruction(mem, name, g.requests > 0)?;
            let stores = (mem.instructions.iter())
                .filter(|i| i.space == Space::Global && i.kind == AccessKind::Store);
            let (relayed, all) = stores.fold((0, 0), |(r, a), i| {
                (r + if i.relayed { i.requests } else { 0 }, a + i.requests)
            });
            per(100.0 * relayed as f64, all, "global store")
        }
        Metric::GlobalWideBytesPct => {
            per_instruction(mem, name, g.requests > 0)?;
            let moves = (mem.instructions.iter()).filter(|i| {
                i.space == Space::Global && matches!(i.kind, AccessKind::Load | AccessKind::Store)
            });
            let (wide, all, requests) = moves.fold((0, 0, 0), |(w, a, r), i| {
                let w = w + if i.width >= 16 { i.bytes_used } else { 0 };
                (w, a + i.bytes_used, r + i.requests)
            });
            // Over the bytes, not the requests: a request's share is its bytes.
            per(0.0, requests, "global load or store")?;
            Ok(if all > 0 {
                100.0 * wide as f64 / all as f64
            } else {
                0.0
            })
        }
        Metric::GlobalPctUsed => {
            let moved = g.sectors as f64 * crate::analysis::coalescing::SECTOR_BYTES as f64;
            per(100.0 * g.bytes_used as f64, 1.min(g.requests), "global")
                .map(|used| if moved > 0.0 { used / moved } else { 0.0 })
        }
        Metric::SharedAtomicWavefrontsPerRequest => {
            let a = &mem.atomics.shared;
            per(a.wavefronts as f64, a.requests, "shared atomic")
        }
        Metric::GlobalAtomicRequests | Metric::GlobalAtomicSectorsPerRequest => {
            let a = &mem.atomics;
            let requests = a.global_atom.requests + a.global_red.requests;
            let sectors = a.global_atom.sectors + a.global_red.sectors;
            match m {
                Metric::GlobalAtomicRequests => Ok(requests as f64),
                _ => per(sectors as f64, requests, "global atomic"),
            }
        }
        Metric::AtomicLanesPerAddress => {
            let a = &mem.atomics;
            per(a.updates as f64, a.addresses, "atomic")
        }
        Metric::AtomicUpdates => {
            let a = &mem.atomics;
            Ok(a.updates as f64)
        }
        Metric::CopyGlobalRequests => {
            let g = &mem.copies.global;
            Ok(g.requests as f64)
        }
        Metric::CopySharedWavefrontsPerRequest => {
            let c = &mem.copies.shared;
            per(c.wavefronts as f64, c.requests, "async copy")
        }
        Metric::CopyBulkRequests => {
            let c = &mem.copies;
            Ok(c.bulk_requests as f64)
        }
        Metric::CopyBulkBytesPerRequest => {
            let c = &mem.copies;
            per(c.bulk_bytes as f64, c.bulk_requests, "bulk copy")
        }
        _ => unreachable!("`read` takes the figures that are not traced"),
    }
}

/// Every global request and sector of a trace: loads and stores, and the copies' global
/// reads (`cp.async`'s lanes and bulk copies' sources, a bulk copy using every byte it
/// moves).
/// How a kernel's global traffic went: by atomics and by bulk copies (the TMA), against all
/// of it. A check that counts loads and stores learns nothing of a kernel that moves its data
/// by atomics (`atomicOr(p, 0)` is a read) or by one bulk copy a block: the exercise check
/// asks these shares of a kernel whose solution takes neither path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlobalPaths {
    /// Global atomic requests (`atom` and `red`).
    pub atomic_requests: u64,
    /// Every global request: loads, stores, copies and atomics.
    pub requests: u64,
    /// Bytes moved by bulk copies.
    pub bulk_bytes: u64,
    /// Bytes the kernel's global loads, stores and copies asked for.
    pub bytes: u64,
}

impl GlobalPaths {
    pub fn of(mem: &MemoryStats) -> GlobalPaths {
        let g = all_global(mem);
        let a = &mem.atomics;
        let atomic_requests = a.global_atom.requests + a.global_red.requests;
        GlobalPaths {
            atomic_requests,
            requests: g.requests + atomic_requests,
            bulk_bytes: mem.copies.bulk_bytes,
            bytes: g.bytes_used,
        }
    }
}

fn all_global(mem: &MemoryStats) -> GlobalStats {
    let (g, c) = (&mem.global, &mem.copies);
    GlobalStats {
        requests: g.requests + c.global.requests + c.bulk_requests,
        sectors: g.sectors + c.global.sectors + c.bulk_sectors,
        lines: g.lines,
        bytes_used: g.bytes_used + c.global_bytes_used + c.bulk_bytes,
        cross_block_words: g.cross_block_words,
        handover_words: g.handover_words,
        load_sectors: g.load_sectors,
        reread_sectors: g.reread_sectors,
        unfenced_handover_words: g.unfenced_handover_words,
    }
}

/// A figure read from the trace's instructions needs them: a trace with `any` requests and
/// no figures per instruction (one made from records alone) cannot say it.
fn per_instruction(mem: &MemoryStats, name: &str, any: bool) -> Result<(), Verdict> {
    if mem.instructions.is_empty() && any {
        return Err(Verdict::NotMeasured(format!(
            "not measured (the trace of `{name}` has no figures per instruction)"
        )));
    }
    Ok(())
}

/// Load requests (of every space, `ldmatrix` included) at sites whose values nothing uses,
/// and all load requests, over the traced blocks.
pub(super) fn unused_loads(mem: &MemoryStats) -> (u64, u64) {
    let loads = (mem.instructions.iter())
        .filter(|i| matches!(i.kind, AccessKind::Load | AccessKind::Matrix));
    loads.fold((0, 0), |(u, a), i| {
        (u + if i.unused { i.requests } else { 0 }, a + i.requests)
    })
}

/// Where the unused loads are, for a learner to find: `: unused, line 19's 992 of 1024
/// load requests` (the source lines with the most unused requests, at most three), or
/// nothing when every load is used.
pub(super) fn unused_lines(mem: &MemoryStats) -> String {
    let (unused, all) = unused_loads(mem);
    if unused == 0 {
        return String::new();
    }
    let mut by_line: Vec<(Option<u32>, u64)> = Vec::new();
    for i in mem.instructions.iter().filter(|i| i.unused) {
        match by_line.iter_mut().find(|(l, _)| *l == i.source_line) {
            Some((_, n)) => *n += i.requests,
            None => by_line.push((i.source_line, i.requests)),
        }
    }
    by_line.sort_by_key(|&(l, n)| (std::cmp::Reverse(n), l));
    let lines: Vec<String> = (by_line.iter().take(3))
        .map(|(l, n)| match l {
            Some(l) => format!("line {l}'s {n}"),
            None => format!("{n} (no source line)"),
        })
        .collect();
    format!(
        ": {} of {all} traced load requests bring values nothing uses ({})",
        unused,
        lines.join(", ")
    )
}
