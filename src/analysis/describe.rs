//! Short words for a result, shared by the text report and the screen so both say the same.

use crate::analysis::race_words::race_words;
use crate::model::results::{Failure, LessonResult, Race, Source, VariantResult};

/// "live on NVIDIA H100 80GB HBM3" or "recorded on NVIDIA H100 80GB HBM3, 2026-11-21", with
/// the cuBLAS yardstick where the lesson is measured against it.
pub fn source_label(r: &LessonResult) -> String {
    let label = where_from(r);
    match r.peak.cublas_gflops {
        Some(g) => format!(
            "{label} · cuBLAS SGEMM (FP32) {:.1} TFLOP/s = 100%",
            g / 1000.0
        ),
        None => label,
    }
}

fn where_from(r: &LessonResult) -> String {
    let name = r
        .device
        .as_ref()
        .map(|d| d.name.as_str())
        .unwrap_or("no GPU");
    match r.source {
        Source::Live => format!("live on {name}"),
        Source::Recorded => match r.device.as_ref().and_then(|d| d.recorded_at.as_deref()) {
            Some(at) => format!("recorded on {name}, {}", at.get(..10).unwrap_or(at)),
            None => "no recording".to_string(),
        },
        Source::None => "no recording".to_string(),
        Source::Interpreted => "run on the CPU interpreter (no GPU: no times)".to_string(),
    }
}

pub fn per_request(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// The short status of a variant: what a learner must know first.
pub fn status(v: &VariantResult) -> String {
    if v.unrecorded {
        return "not recorded (added since the recording)".into();
    }
    if v.stale {
        return "stale (kernel changed since recording)".into();
    }
    // A missing capability is not an error: the lesson needs a GPU this machine lacks.
    if let Some(why) = &v.unmet {
        return format!("not run: {why}");
    }
    // Before "correct": output that matched on one run says nothing about a race.
    if let Some(r) = first_race(v) {
        // A barrier with a thread count that holds only some warps stood there: it is no
        // barrier of the whole block, not none at all.
        let between = match r.partial_barrier {
            Some(p) if p.mbarrier => format!(
                "only an mbarrier awaiting {} arrivals between, fewer than the block's threads",
                p.threads
            ),
            Some(p) => format!("only a `bar.sync id, {}` between", p.threads),
            None => "no barrier between".to_string(),
        };
        let race = format!("race: {}, {between}", race_words(r));
        return match v.correct {
            Some(false) => format!("{race}; output WRONG"),
            _ => race,
        };
    }
    // Out of the CPU interpreter's reach (a texture fetch, say): not an error of the kernel.
    if let (Some(Failure::NotInterpreted), Some(e)) = (&v.failure, &v.error) {
        return format!("needs a GPU: {e}");
    }
    match (v.correct, &v.error) {
        // A lost variant never gave an answer to call wrong: it faulted, hung or crashed.
        (Some(false), Some(e)) if v.failure.is_some() => format!("{}: {e}", failure_word(v)),
        (Some(false), Some(e)) => format!("WRONG: {e}"),
        (Some(false), None) => "WRONG".into(),
        (None, Some(e)) => format!("error: {e}"),
        (Some(true), _) => match &v.noise {
            Some(n) => format!("correct · {n}"),
            None => "correct".into(),
        },
        // Ran, with nothing to compare its output against: not wrong, and timed.
        (None, None) if v.check.is_some() => {
            format!("checked: {}", v.check.as_deref().unwrap_or(""))
        }
        (None, None) => "not run".into(),
    }
}

/// The variant's most frequent race, when its trace found any: its time is not valid.
pub fn first_race(v: &VariantResult) -> Option<&Race> {
    v.memory.as_ref()?.races.first()
}

/// A wrong output that fails a run or a recording: one the trace explains by a race is the
/// lesson's point (a racy variant is shown as such, never as a speed), not a failure.
pub fn wrong_without_race(v: &VariantResult) -> bool {
    v.correct == Some(false) && first_race(v).is_none()
}

/// FAULT for an error the GPU raised, FAILED for a hang, a crash or a refused start.
fn failure_word(v: &VariantResult) -> &'static str {
    match &v.failure {
        Some(f) if f.is_fault() => "FAULT",
        _ => "FAILED",
    }
}

/// The trace's figures for distributed shared memory and texture fetches, short enough for
/// a narrow column, for the spaces the variant used (none for a recording made before they were traced).
pub fn space_lines(m: &crate::model::results::MemoryStats) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(x) = per_request(m.cluster.sectors, m.cluster.requests) {
        let remote = 100.0 * m.cluster.remote_requests as f64 / m.cluster.requests as f64;
        out.push(format!("cluster {x:.2} sectors/request"));
        out.push(format!("cluster {remote:.0}% of requests remote"));
    }
    if let Some(x) = per_request(m.texture.texels, m.texture.requests) {
        let rows = per_request(m.texture.rows, m.texture.requests).unwrap_or(0.0);
        out.push(format!("texture {x:.1} texels/request"));
        out.push(format!("texture {rows:.1} rows/request"));
    }
    let a = &m.atomics;
    if let Some(x) = per_request(a.shared.wavefronts, a.shared.requests) {
        out.push(format!("shared atomics {x:.2} wavefronts/request"));
    }
    let (g, sectors) = (
        a.global_atom.requests + a.global_red.requests,
        a.global_atom.sectors + a.global_red.sectors,
    );
    if let Some(x) = per_request(sectors, g) {
        out.push(format!("global atomics {x:.2} sectors/request"));
    }
    if let Some(x) = per_request(a.updates, a.addresses) {
        out.push(format!("atomics {x:.1} lanes/address"));
    }
    // Asynchronous copies read global memory and write shared memory in one request each,
    // counted apart from loads and stores: their two sides, and a bulk copy's size.
    let c = &m.copies;
    if let Some(x) = per_request(c.global.sectors, c.global.requests) {
        out.push(format!("cp.async {x:.2} sectors/request"));
    }
    if let Some(x) = per_request(c.shared.wavefronts, c.shared.requests) {
        out.push(format!("cp.async {x:.2} shared wavefronts/request"));
    }
    if let Some(x) = per_request(c.bulk_bytes, c.bulk_requests) {
        out.push(format!("bulk copies {x:.0} bytes each"));
    }
    out
}

/// What the census changed, in a few words, where there was one: blocks traced besides
/// the sample (they ran lines no block of it ran), and the global requests and shared
/// wavefronts of every block where the traced blocks, scaled, said otherwise (by more
/// than 2%). None without one.
pub fn census_note(m: &crate::model::results::MemoryStats) -> Option<String> {
    let c = m.census.as_ref()?;
    let mut parts = Vec::new();
    if c.added_blocks > 0 {
        let s = if c.added_blocks == 1 { "" } else { "s" };
        parts.push(format!(
            "{} block{s} added to the trace: {} ran lines the sample did not",
            c.added_blocks,
            if c.added_blocks == 1 { "it" } else { "they" }
        ));
    }
    let parted = |all: u64, sampled: u64| {
        let (all, sampled) = (all as f64, sampled as f64);
        (all - sampled).abs() > 0.02 * all.max(sampled)
    };
    if parted(m.global.requests, c.requests) {
        parts.push(format!(
            "every block's global requests counted: {}, where the sample stood for {}",
            m.global.requests, c.requests
        ));
    }
    // Results written before the census costed shared requests say 0 for the sample.
    if c.shared_wavefronts > 0 && parted(m.shared.wavefronts, c.shared_wavefronts) {
        parts.push(format!(
            "every block's shared wavefronts counted: {}, where the sample stood for {}",
            m.shared.wavefronts, c.shared_wavefronts
        ));
    }
    match parts.is_empty() {
        true => Some("global and shared requests counted in every block".into()),
        false => Some(parts.join("; ")),
    }
}

/// The instructions that move memory where the trace does not look, in a few words
/// ("not traced: `prefetch.global.L2` at line 72 and 1 more"); None when there are none.
/// What they move is in no count, so a figure beside them is short by that much.
pub fn unseen_note(m: &crate::model::results::MemoryStats) -> Option<String> {
    let which = unseen_at(&m.unseen.iter().collect::<Vec<_>>())?;
    Some(format!("not traced: {which}; what it moves is in no count"))
}

/// The first of `unseen` by its opcode and line (the source's, else the PTX's), and how
/// many more there are: "`prefetch.global.L2` at line 72 and 1 more". None for none.
pub fn unseen_at(unseen: &[&crate::model::access::UnseenAccess]) -> Option<String> {
    let first = unseen.first()?;
    let at = match first.source_line {
        Some(l) => format!("line {l}"),
        None => format!("PTX line {}", first.ptx_line),
    };
    let more = match unseen.len() {
        1 => String::new(),
        n => format!(" and {} more", n - 1),
    };
    Some(format!("`{}` at {at}{more}", first.op))
}

/// The races the trace found, a line each (the first three), or that it found none where
/// warps shared memory; each with whether it is a fault.
pub fn race_lines(m: &crate::model::results::MemoryStats) -> Vec<(String, bool)> {
    if !m.races_checked || m.shared.requests == 0 {
        return Vec::new();
    }
    if m.races.is_empty() {
        return vec![("shared: no race between warps".into(), false)];
    }
    let mut out: Vec<(String, bool)> = m
        .races
        .iter()
        .take(3)
        .map(|r| {
            let w = (r.first_warp, r.second_warp);
            let words = race_words(r);
            (
                format!("race ×{}: {words} (warps {} and {})", r.count, w.0, w.1),
                true,
            )
        })
        .collect();
    if m.races.len() > 3 {
        out.push((format!("and {} more races", m.races.len() - 3), true));
    }
    out
}

/// Shared-memory wavefronts per request, loads and stores apart when the trace split them.
pub fn shared_text(s: &crate::model::results::SharedStats) -> Option<String> {
    let (ld, st) = (&s.ld, &s.st);
    if ld.requests + st.requests > 0 {
        // Loads and stores apart: a fill that is conflict-free would hide the reads' cost.
        let part = |name: &str, c: &crate::model::results::SharedCounts| {
            per_request(c.wavefronts, c.requests).map(|x| format!("{name} {x:.2}"))
        };
        let parts: Vec<String> = [part("ld", ld), part("st", st)]
            .into_iter()
            .flatten()
            .collect();
        Some(format!("shared {} wavefronts/req", parts.join(" · ")))
    } else {
        per_request(s.wavefronts, s.requests).map(|x| format!("shared {x:.2} wavefronts/request"))
    }
}

#[cfg(test)]
mod tests {
    use super::{census_note, space_lines, unseen_note};
    use crate::model::access::UnseenAccess;
    use crate::model::results::{
        AtomicCounts, CopyStats, MemoryStats, SampledGlobal, SharedCounts,
    };

    #[test]
    fn a_census_says_what_it_added_and_where_the_sample_was_wrong() {
        let mut m = MemoryStats::default();
        assert_eq!(census_note(&m), None, "no census, nothing to say");
        m.global.requests = 1000;
        m.shared.wavefronts = 4100;
        m.census = Some(SampledGlobal {
            requests: 990,
            sectors: 0,
            added_blocks: 0,
            shared_wavefronts: 4096,
        });
        assert_eq!(
            census_note(&m).as_deref(),
            Some("global and shared requests counted in every block")
        );
        m.census = Some(SampledGlobal {
            requests: 840,
            sectors: 0,
            added_blocks: 1,
            shared_wavefronts: 4096,
        });
        assert_eq!(
            census_note(&m).as_deref(),
            Some(
                "1 block added to the trace: it ran lines the sample did not; every block's \
                 global requests counted: 1000, where the sample stood for 840"
            )
        );
        // A pitch that conflicts in one block of 256: the sample saw none of it.
        m.global.requests = 840;
        m.shared.wavefronts = 4096 + 31 * 16;
        m.census = Some(SampledGlobal {
            requests: 840,
            sectors: 0,
            added_blocks: 0,
            shared_wavefronts: 4096,
        });
        assert_eq!(
            census_note(&m).as_deref(),
            Some("every block's shared wavefronts counted: 4592, where the sample stood for 4096")
        );
    }

    #[test]
    fn asynchronous_copies_show_both_sides_and_a_bulk_copy_its_size() {
        let m = MemoryStats {
            copies: CopyStats {
                global: AtomicCounts {
                    requests: 8,
                    sectors: 32,
                },
                shared: SharedCounts {
                    requests: 8,
                    wavefronts: 16,
                    ideal_wavefronts: 8,
                },
                bulk_requests: 2,
                bulk_sectors: 512,
                bulk_bytes: 16384,
                global_bytes_used: 1024,
                ..CopyStats::default()
            },
            ..MemoryStats::default()
        };
        assert_eq!(
            space_lines(&m),
            [
                "cp.async 4.00 sectors/request",
                "cp.async 2.00 shared wavefronts/request",
                "bulk copies 8192 bytes each",
            ]
        );
        // A kernel that copies nothing says nothing of copies.
        assert!(space_lines(&MemoryStats::default()).is_empty());
    }

    #[test]
    fn memory_moved_where_the_trace_does_not_look_is_said_with_its_line() {
        let mut m = MemoryStats::default();
        assert_eq!(unseen_note(&m), None);
        let at = |ptx_line, source_line| UnseenAccess {
            op: "prefetch.global.L2".into(),
            ptx_line,
            source_line,
            entry: None,
        };
        m.unseen = vec![at(90, Some(72)), at(95, None)];
        assert_eq!(
            unseen_note(&m).as_deref(),
            Some(
                "not traced: `prefetch.global.L2` at line 72 and 1 more; what it moves is in no count"
            )
        );
    }
}
