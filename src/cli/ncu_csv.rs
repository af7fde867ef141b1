//! `--format ncu-csv`: the traced counters under the metric names Nsight Compute gives the
//! same quantities, in the layout `ncu --csv` prints, so they can be diffed against an ncu
//! report or read by tools written for ncu.
//!
//! Only counters the trace determines are written: warp-level global load and store
//! requests and their 32-byte sectors, shared load and store instructions, their
//! wavefronts, and the bank conflicts as the wavefronts beyond the ideal (one per phase).
//! Each is the sampled blocks' count scaled to the whole grid (blocks in the grid over
//! blocks traced, `trace::sample`), as the README's comparison with ncu is. Atomics,
//! asynchronous copies and `ldmatrix` loads are counted apart from loads and stores, as ncu
//! counts them, under their own names (below), written only where a kernel has them.
//!
//! One row per counter per variant in section `Command line profiler metrics` (what ncu
//! names the section of `--metrics`), each variant under its own ID; then the same
//! counters for each source line the trace placed, in sections `Source line N`. The
//! columns ncu fills from the process (its id, host, context, stream, device number) are
//! empty. Comment lines (`#`) before the header say where the figures come from.

use crate::model::Lesson;
use crate::model::access::{AccessKind, Space};
use crate::model::results::{LessonResult, MemoryStats, VariantResult};
use crate::model::target::{Gpus, target};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The section ncu puts metrics asked with `--metrics` in.
pub const SECTION: &str = "Command line profiler metrics";

/// The section of one source line's counters.
pub fn line_section(line: u32) -> String {
    format!("Source line {line}")
}

/// ncu's columns, in its order.
pub const COLUMNS: [&str; 15] = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
];

/// A counter: its ncu name and unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Metric {
    pub name: &'static str,
    pub unit: &'static str,
}

const fn m(name: &'static str, unit: &'static str) -> Metric {
    Metric { name, unit }
}

// Units as the H100's ncu printed them: none for requests, wavefronts and conflicts.
pub const GLOBAL_LD_REQUESTS: Metric = m("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "");
pub const GLOBAL_ST_REQUESTS: Metric = m("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "");
pub const GLOBAL_LD_SECTORS: Metric = m("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector");
pub const GLOBAL_ST_SECTORS: Metric = m("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "sector");
pub const SHARED_LD_INST: Metric = m("smsp__sass_inst_executed_op_shared_ld.sum", "inst");
pub const SHARED_ST_INST: Metric = m("smsp__sass_inst_executed_op_shared_st.sum", "inst");
pub const SHARED_LD_WAVEFRONTS: Metric =
    m("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "");
pub const SHARED_ST_WAVEFRONTS: Metric =
    m("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "");
pub const SHARED_LD_CONFLICTS: Metric = m(
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "",
);
pub const SHARED_ST_CONFLICTS: Metric = m(
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "",
);

/// Atomics' counters, apart from loads and stores as Nsight Compute keeps them: global
/// atomics whose old value is used (`ATOMG`, `op_atom`) and reductions (`REDG`, `op_red`),
/// as the SASS makes them; shared atomics (`ATOMS`, shared memory has no reduction) by
/// instruction, wavefront and bank conflict. Written only where a kernel or line has
/// atomics, so the files of kernels with none stay as they were.
pub const GLOBAL_ATOM_REQUESTS: Metric = m("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "");
pub const GLOBAL_ATOM_SECTORS: Metric =
    m("l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "sector");
pub const GLOBAL_RED_REQUESTS: Metric = m("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", "");
pub const GLOBAL_RED_SECTORS: Metric =
    m("l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", "sector");
pub const SHARED_ATOM_INST: Metric = m("smsp__sass_inst_executed_op_shared_atom.sum", "inst");
pub const SHARED_ATOM_WAVEFRONTS: Metric =
    m("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", "");
pub const SHARED_ATOM_CONFLICTS: Metric = m(
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "",
);

/// The asynchronous copies' (`LDGSTS`) counters: their global reads and shared writes, under
/// the names the H100's ncu knows (`ncu --query-metrics`). It has no `op_ldgsts` total of
/// the L1's requests and sectors: the cached form (`cp.async.ca`) has `_cache_access`
/// counters, the bypassing one (`.cg`) only the SASS-level `_cache_bypass` ones. Its
/// `op_ld` counters count the copies' global reads too (the H100 gave `op_ld` = the copies'
/// `_cache_access` figures, request for request, for a kernel whose only global reads are
/// copies), so the copies' global side is in `op_ld` here as well. Written only where a
/// kernel or line has copies, so the files of kernels with none stay as they were.
pub const GLOBAL_LDGSTS_REQUESTS: Metric = m(
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
    "",
);
pub const GLOBAL_LDGSTS_SECTORS: Metric = m(
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",
    "sector",
);
pub const GLOBAL_LDGSTS_BYPASS_REQUESTS: Metric = m(
    "smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
    "",
);
pub const GLOBAL_LDGSTS_BYPASS_SECTORS: Metric = m(
    "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum",
    "sector",
);
pub const SHARED_LDGSTS_WAVEFRONTS: Metric = m(
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "",
);

/// The tensor cores' shared loads (`ldmatrix`, SASS `LDSM`): Nsight Compute keeps them
/// apart from `op_ld`, by instruction, wavefront and bank conflict, under SASS-level names
/// (`ncu --query-metrics` on an H200 lists no `l1tex__data_..._op_ldsm`). Written only
/// where a kernel or line has them.
pub const SHARED_LDSM_INST: Metric = m("smsp__sass_inst_executed_op_ldsm.sum", "inst");
pub const SHARED_LDSM_WAVEFRONTS: Metric = m(
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "",
);
pub const SHARED_LDSM_CONFLICTS: Metric = m(
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
    "",
);

/// Every counter written, in the order a kernel's rows list them.
pub const METRICS: [Metric; 10] = [
    GLOBAL_LD_REQUESTS,
    GLOBAL_ST_REQUESTS,
    GLOBAL_LD_SECTORS,
    GLOBAL_ST_SECTORS,
    SHARED_LD_INST,
    SHARED_ST_INST,
    SHARED_LD_WAVEFRONTS,
    SHARED_ST_WAVEFRONTS,
    SHARED_LD_CONFLICTS,
    SHARED_ST_CONFLICTS,
];

/// Traced counts of one kernel or one line, not yet scaled: by counter, and the ideal
/// wavefronts the conflicts are counted from.
#[derive(Debug, Clone, Default)]
struct Tally {
    counts: BTreeMap<Metric, u64>,
    ideal_ld: u64,
    ideal_st: u64,
    ideal_atom: u64,
    ideal_ldsm: u64,
}

impl Tally {
    fn add(&mut self, i: &crate::model::access::InstructionSummary) {
        let ld = i.kind == AccessKind::Load;
        let pick = |a: Metric, b: Metric| if ld { a } else { b };
        let mut put = |metric: Metric, n: u64| *self.counts.entry(metric).or_insert(0) += n;
        // The TMA's bulk copies go through no LSU pipe: no counter of the list is theirs.
        if i.kind == AccessKind::BulkCopy {
            return;
        }
        if i.kind == AccessKind::Matrix {
            put(SHARED_LDSM_INST, i.requests);
            put(SHARED_LDSM_WAVEFRONTS, i.wavefronts);
            self.ideal_ldsm += i.ideal_wavefronts;
            return;
        }
        if i.kind == AccessKind::AsyncCopy {
            match i.space {
                Space::Global => {
                    let (r, s) = match i.op.contains(".cg") {
                        true => (GLOBAL_LDGSTS_BYPASS_REQUESTS, GLOBAL_LDGSTS_BYPASS_SECTORS),
                        false => (GLOBAL_LDGSTS_REQUESTS, GLOBAL_LDGSTS_SECTORS),
                    };
                    put(r, i.requests);
                    put(s, i.sectors);
                    // ncu's `op_ld` counts the copies' global reads as well.
                    put(GLOBAL_LD_REQUESTS, i.requests);
                    put(GLOBAL_LD_SECTORS, i.sectors);
                }
                Space::Shared => put(SHARED_LDGSTS_WAVEFRONTS, i.wavefronts),
                _ => {}
            }
            return;
        }
        if matches!(i.kind, AccessKind::Atomic | AccessKind::Reduction) {
            match i.space {
                Space::Global => {
                    let (r, s) = match i.kind {
                        AccessKind::Reduction => (GLOBAL_RED_REQUESTS, GLOBAL_RED_SECTORS),
                        _ => (GLOBAL_ATOM_REQUESTS, GLOBAL_ATOM_SECTORS),
                    };
                    put(r, i.requests);
                    put(s, i.sectors);
                }
                Space::Shared => {
                    put(SHARED_ATOM_INST, i.requests);
                    put(SHARED_ATOM_WAVEFRONTS, i.wavefronts);
                    self.ideal_atom += i.ideal_wavefronts;
                    // A compare-and-swap loop's loads are the shared loads ncu counts.
                    if let Some(a) = &i.atomic {
                        put(SHARED_LD_INST, a.loop_loads);
                        put(SHARED_LD_WAVEFRONTS, a.loop_load_wavefronts);
                        self.ideal_ld += a.loop_load_ideal;
                    }
                }
                _ => {}
            }
            return;
        }
        match i.space {
            Space::Global => {
                put(pick(GLOBAL_LD_REQUESTS, GLOBAL_ST_REQUESTS), i.requests);
                put(pick(GLOBAL_LD_SECTORS, GLOBAL_ST_SECTORS), i.sectors);
            }
            Space::Shared => {
                put(pick(SHARED_LD_INST, SHARED_ST_INST), i.requests);
                put(
                    pick(SHARED_LD_WAVEFRONTS, SHARED_ST_WAVEFRONTS),
                    i.wavefronts,
                );
                match ld {
                    true => self.ideal_ld += i.ideal_wavefronts,
                    false => self.ideal_st += i.ideal_wavefronts,
                }
            }
            // No counter of the list is about them.
            _ => {}
        }
    }

    /// Scaled by `k` to the grid. The conflicts are the scaled wavefronts less the scaled
    /// ideal, so that wavefronts − conflicts is exactly the ideal in the file too. `all`:
    /// every counter (a kernel's rows), else those of the spaces and directions the
    /// line has.
    fn scaled(&self, k: f64, all: bool) -> Vec<(Metric, u64)> {
        let s = |n: u64| (n as f64 * k).round() as u64;
        let mut out: BTreeMap<Metric, u64> = BTreeMap::new();
        if all {
            out.extend(METRICS.iter().map(|&m| (m, 0)));
        }
        for (&metric, &n) in &self.counts {
            out.insert(metric, s(n));
        }
        for (wf, conflicts, ideal) in [
            (SHARED_LD_WAVEFRONTS, SHARED_LD_CONFLICTS, self.ideal_ld),
            (SHARED_ST_WAVEFRONTS, SHARED_ST_CONFLICTS, self.ideal_st),
            (
                SHARED_ATOM_WAVEFRONTS,
                SHARED_ATOM_CONFLICTS,
                self.ideal_atom,
            ),
            (
                SHARED_LDSM_WAVEFRONTS,
                SHARED_LDSM_CONFLICTS,
                self.ideal_ldsm,
            ),
        ] {
            if let Some(&w) = out.get(&wf) {
                out.insert(conflicts, w.saturating_sub(s(ideal)));
            }
        }
        let order = |m: &Metric| METRICS.iter().position(|x| x == m).unwrap_or(usize::MAX);
        let mut rows: Vec<(Metric, u64)> = out.into_iter().collect();
        rows.sort_by_key(|(m, _)| order(m));
        rows
    }
}

/// How the sampled blocks' counts stand for the grid.
fn grid_factor(m: &MemoryStats) -> f64 {
    m.total_blocks as f64 / m.traced_blocks.max(1) as f64
}

/// A kernel's counters scaled to the grid, in `METRICS` order (every one, 0 where none).
pub fn kernel_counters(m: &MemoryStats) -> Vec<(Metric, u64)> {
    let mut t = Tally::default();
    m.instructions.iter().for_each(|i| t.add(i));
    t.scaled(grid_factor(m), true)
}

/// Each source line's counters scaled to the grid, those of the spaces it touches.
/// Accesses the PTX placed on no line are in the kernel's figures only.
pub fn line_counters(m: &MemoryStats) -> BTreeMap<u32, Vec<(Metric, u64)>> {
    let mut lines: BTreeMap<u32, Tally> = BTreeMap::new();
    for i in &m.instructions {
        if let Some(l) = i.source_line {
            lines.entry(l).or_default().add(i);
        }
    }
    let k = grid_factor(m);
    (lines.into_iter())
        .map(|(l, t)| (l, t.scaled(k, false)))
        .filter(|(_, rows)| !rows.is_empty())
        .collect()
}

/// 1234567 as ncu prints it: "1,234,567".
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn quoted(fields: &[&str]) -> String {
    let q: Vec<String> = (fields.iter())
        .map(|f| format!("\"{}\"", f.replace('"', "\"\"")))
        .collect();
    q.join(",")
}

fn dims(d: [u32; 3]) -> String {
    format!("({}, {}, {})", d[0], d[1], d[2])
}

/// "9.0" for the GPU the figures come from, else the architecture the lesson is compiled
/// for with no GPU (the interpreter's).
fn compute_capability(lesson: Option<&Lesson>, r: &LessonResult) -> String {
    if let Some(d) = &r.device {
        return d.cc.clone();
    }
    let arch = lesson.map_or_else(String::new, |l| target(Some(l), &Gpus::default()).arch);
    match arch.strip_prefix("sm_").filter(|n| n.len() >= 2) {
        Some(n) => format!("{}.{}", &n[..n.len() - 1], &n[n.len() - 1..]),
        None => String::new(),
    }
}

/// Where the figures come from, for the comment lines.
fn origin(r: &LessonResult) -> String {
    crate::analysis::describe::source_label(r)
}

/// Write `r`'s traced counters as `ncu --csv` would print them (see the module's words).
/// `lesson` names each variant's kernel; without it the variant's name stands there.
pub fn write_ncu_csv(
    out: &mut dyn Write,
    lesson: Option<&Lesson>,
    r: &LessonResult,
) -> io::Result<()> {
    writeln!(
        out,
        "# gpulab {}: counters derived from traced addresses, not read from hardware \
         counters; each scaled from the traced blocks to the whole grid",
        r.lesson
    )?;
    writeln!(out, "# figures: {}", origin(r))?;
    writeln!(
        out,
        "# sections: \"{SECTION}\" holds a kernel's totals, \"Source line N\" each line's"
    )?;
    let cc = compute_capability(lesson, r);
    let mut rows: Vec<String> = Vec::new();
    for (id, v) in r.variants.iter().enumerate() {
        let kernel = kernel_name(lesson, v);
        let Some(m) = &v.memory else {
            let why = (v.trace_error.as_deref())
                .or(v.error.as_deref())
                .unwrap_or("not traced");
            writeln!(out, "# ID {id}: variant {}: no trace ({why})", v.name)?;
            continue;
        };
        writeln!(
            out,
            "# ID {id}: variant {}, kernel {kernel}, {} of {} blocks traced",
            v.name, m.traced_blocks, m.total_blocks
        )?;
        let (id, block, grid) = (id.to_string(), dims(v.block), dims(v.grid));
        let row = |section: &str, metric: &Metric, value: u64| {
            quoted(&[
                &id,
                "",
                "gpulab",
                "",
                &kernel,
                "",
                "",
                &block,
                &grid,
                "",
                &cc,
                section,
                metric.name,
                metric.unit,
                &grouped(value),
            ])
        };
        for (metric, value) in kernel_counters(m) {
            rows.push(row(SECTION, &metric, value));
        }
        for (line, counters) in line_counters(m) {
            let section = line_section(line);
            for (metric, value) in counters {
                rows.push(row(&section, &metric, value));
            }
        }
    }
    writeln!(out, "{}", quoted(&COLUMNS))?;
    for row in rows {
        writeln!(out, "{row}")?;
    }
    Ok(())
}

/// The same, as text.
pub fn ncu_csv(lesson: Option<&Lesson>, r: &LessonResult) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write_ncu_csv(&mut out, lesson, r);
    String::from_utf8_lossy(&out).into_owned()
}

fn kernel_name(lesson: Option<&Lesson>, v: &VariantResult) -> String {
    lesson
        .and_then(|l| l.variant(&v.name))
        .map_or_else(|| v.name.clone(), |lv| lv.kernel.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::access::InstructionSummary;

    fn instr(space: Space, kind: AccessKind, line: Option<u32>) -> InstructionSummary {
        InstructionSummary {
            id: 0,
            space,
            kind,
            op: String::new(),
            ptx_line: 1,
            source_line: line,
            width: 4,
            requests: 0,
            wavefronts: 0,
            ideal_wavefronts: 0,
            sectors: 0,
            lines: 0,
            bytes_used: 0,
            distinct: 0,
            local_bytes: 0,
            local_sectors: 0,
            texels: 0,
            texel_rows: 0,
            remote_requests: 0,
            coords: None,
            footprint: vec![],
            bank_words: vec![],
            sample: None,
            lanes: 0,
            sass: None,
            atomic: None,
            unused: false,
            staged: false,
            relayed: false,
        }
    }

    #[test]
    fn counts_are_scaled_and_conflicts_are_the_excess_over_the_ideal() {
        let mut ld = instr(Space::Shared, AccessKind::Load, Some(7));
        (ld.requests, ld.wavefronts, ld.ideal_wavefronts) = (3, 6, 3);
        let mut g = instr(Space::Global, AccessKind::Store, Some(9));
        (g.requests, g.sectors) = (2, 8);
        let unplaced = instr(Space::Global, AccessKind::Store, None);
        let m = MemoryStats {
            instructions: vec![ld, g, unplaced],
            traced_blocks: 2,
            total_blocks: 6,
            ..Default::default()
        };
        let k: BTreeMap<Metric, u64> = kernel_counters(&m).into_iter().collect();
        assert_eq!(k.len(), METRICS.len(), "every counter, 0 where none");
        assert_eq!(k[&SHARED_LD_INST], 9);
        assert_eq!(k[&SHARED_LD_WAVEFRONTS], 18);
        assert_eq!(k[&SHARED_LD_CONFLICTS], 9);
        assert_eq!(k[&GLOBAL_ST_SECTORS], 24);
        assert_eq!(k[&GLOBAL_ST_REQUESTS], 6);
        assert_eq!(k[&GLOBAL_LD_REQUESTS], 0);
        let lines = line_counters(&m);
        assert_eq!(lines.keys().copied().collect::<Vec<_>>(), vec![7, 9]);
        let names = |l: u32| lines[&l].iter().map(|(m, _)| m.name).collect::<Vec<_>>();
        assert_eq!(
            names(7),
            vec![
                SHARED_LD_INST.name,
                SHARED_LD_WAVEFRONTS.name,
                SHARED_LD_CONFLICTS.name
            ]
        );
        assert_eq!(
            names(9),
            vec![GLOBAL_ST_REQUESTS.name, GLOBAL_ST_SECTORS.name]
        );
    }

    #[test]
    fn copies_count_under_ldgsts_apart_from_loads_and_stores_and_bulk_copies_under_none() {
        let mut read = instr(Space::Global, AccessKind::AsyncCopy, Some(5));
        (read.requests, read.sectors) = (2, 8);
        let mut write = instr(Space::Shared, AccessKind::AsyncCopy, Some(5));
        (write.requests, write.wavefronts) = (2, 2);
        let mut bulk = instr(Space::Global, AccessKind::BulkCopy, Some(6));
        (bulk.requests, bulk.sectors) = (1, 36);
        let m = MemoryStats {
            instructions: vec![read, write, bulk],
            traced_blocks: 1,
            total_blocks: 3,
            ..Default::default()
        };
        let k: BTreeMap<Metric, u64> = kernel_counters(&m).into_iter().collect();
        assert_eq!(k[&GLOBAL_LDGSTS_REQUESTS], 6);
        assert_eq!(k[&GLOBAL_LDGSTS_SECTORS], 24);
        assert_eq!(k[&SHARED_LDGSTS_WAVEFRONTS], 6);
        assert!(
            !k.contains_key(&GLOBAL_LDGSTS_BYPASS_REQUESTS),
            "no .cg copy"
        );
        // ncu's op_ld holds the copies' global reads; the stores and shared loads none.
        assert_eq!((k[&GLOBAL_LD_REQUESTS], k[&GLOBAL_LD_SECTORS]), (6, 24));
        assert_eq!(k[&GLOBAL_ST_REQUESTS] + k[&SHARED_LD_WAVEFRONTS], 0);
        assert_eq!(k[&GLOBAL_ST_SECTORS] + k[&SHARED_ST_WAVEFRONTS], 0);
        assert!(
            !line_counters(&m).contains_key(&6),
            "no counter is a bulk copy's"
        );
    }

    #[test]
    fn atomics_count_under_nsight_computes_atomic_names_never_as_loads_or_stores() {
        let mut atom = instr(Space::Global, AccessKind::Atomic, Some(3));
        (atom.requests, atom.sectors) = (2, 4);
        let mut red = instr(Space::Global, AccessKind::Reduction, Some(4));
        (red.requests, red.sectors) = (1, 1);
        let mut shared = instr(Space::Shared, AccessKind::Atomic, Some(5));
        (shared.requests, shared.wavefronts, shared.ideal_wavefronts) = (2, 6, 2);
        let m = MemoryStats {
            instructions: vec![atom, red, shared],
            traced_blocks: 1,
            total_blocks: 2,
            ..Default::default()
        };
        let k: BTreeMap<Metric, u64> = kernel_counters(&m).into_iter().collect();
        assert_eq!((k[&GLOBAL_ATOM_REQUESTS], k[&GLOBAL_ATOM_SECTORS]), (4, 8));
        assert_eq!((k[&GLOBAL_RED_REQUESTS], k[&GLOBAL_RED_SECTORS]), (2, 2));
        assert_eq!(k[&SHARED_ATOM_INST], 4);
        assert_eq!(k[&SHARED_ATOM_WAVEFRONTS], 12);
        assert_eq!(k[&SHARED_ATOM_CONFLICTS], 8);
        // Nothing of them under loads or stores.
        for metric in METRICS {
            assert_eq!(k[&metric], 0, "{}", metric.name);
        }
        let lines = line_counters(&m);
        let names = |l: u32| lines[&l].iter().map(|(m, _)| m.name).collect::<Vec<_>>();
        assert_eq!(
            names(3),
            vec![GLOBAL_ATOM_REQUESTS.name, GLOBAL_ATOM_SECTORS.name]
        );
        assert_eq!(
            names(4),
            vec![GLOBAL_RED_REQUESTS.name, GLOBAL_RED_SECTORS.name]
        );
    }

    #[test]
    fn bypassing_copies_count_under_the_sass_cache_bypass_names() {
        let mut read = instr(Space::Global, AccessKind::AsyncCopy, Some(5));
        read.op = "cp.async.cg.shared.global".into();
        (read.requests, read.sectors) = (4, 16);
        let m = MemoryStats {
            instructions: vec![read],
            traced_blocks: 1,
            total_blocks: 2,
            ..Default::default()
        };
        let k: BTreeMap<Metric, u64> = kernel_counters(&m).into_iter().collect();
        assert_eq!(k[&GLOBAL_LDGSTS_BYPASS_REQUESTS], 8);
        assert_eq!(k[&GLOBAL_LDGSTS_BYPASS_SECTORS], 32);
        assert!(!k.contains_key(&GLOBAL_LDGSTS_REQUESTS));
        assert_eq!(k[&GLOBAL_LD_REQUESTS], 8);
    }

    #[test]
    fn numbers_are_grouped_as_ncu_prints_them() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(269484032), "269,484,032");
        assert_eq!(quoted(&["a\"b", ""]), "\"a\"\"b\",\"\"");
    }
}
