//! A claim, and what its judgement says, in words: `stride-32 measured.cycles_per_access <=
//! 10` is shown as `stride-32 cycles per access ≤ 10`. Lessons write claims in the format's
//! names (and results keep them so, for scripts); wherever one is printed for a person, the
//! CLI's report, `ex check` and the lab's cards, it goes through `words`.

use crate::model::claim::{CmpOp, Metric};

/// The words a metric is shown in.
pub fn metric_words(m: Metric) -> &'static str {
    match m {
        Metric::TimeMs => "time (ms)",
        Metric::Gbps => "GB/s",
        Metric::Gflops => "GFLOP/s",
        Metric::PctOfPeak => "% of peak",
        Metric::Registers => "registers",
        Metric::StackFrame => "stack frame (bytes)",
        Metric::SpillStores => "spill stores (bytes)",
        Metric::SpillLoads => "spill loads (bytes)",
        Metric::Smem => "shared memory (bytes)",
        Metric::Occupancy => "occupancy",
        Metric::SharedWavefrontsPerRequest => "shared wavefronts per request",
        Metric::SharedLoadWavefrontsPerRequest => "shared wavefronts per load request",
        Metric::SharedStoreWavefrontsPerRequest => "shared wavefronts per store request",
        Metric::SharedConflictsPerRequest => "bank conflicts per shared request",
        Metric::GlobalSectorsPerRequest => "global sectors per request",
        Metric::GlobalSectors => "global sectors",
        Metric::GlobalRequests => "global requests",
        Metric::ConstantDistinctPerRequest => "distinct constant addresses per request",
        Metric::LocalBytes => "local-memory bytes",
        Metric::LocalSectorsPerRequest => "local sectors per request",
        Metric::ClusterSectorsPerRequest => "cluster sectors per request",
        Metric::ClusterRemoteRequests => "remote cluster requests",
        Metric::ClusterRemoteSectors => "remote cluster sectors",
        Metric::ClusterRemoteWords => "words moved by remote cluster requests",
        Metric::ClusterRemoteBlocks => "blocks reaching another block's memory",
        Metric::TextureTexelsPerRequest => "texels per texture request",
        Metric::TextureRowsPerRequest => "texel rows per texture request",
        Metric::SharedRaces => "shared-memory races",
        Metric::SharedLoadWordsPerRequest => "words per shared load request",
        Metric::SharedLaneWords => "words shared loads bring their lanes",
        Metric::ConstantWords => "words read from constant memory",
        Metric::GlobalPctUsed => "% of global sector bytes used",
        Metric::SharedAtomicWavefrontsPerRequest => "shared wavefronts per atomic request",
        Metric::GlobalAtomicRequests => "global atomic requests",
        Metric::GlobalAtomicSectorsPerRequest => "global sectors per atomic request",
        Metric::AtomicLanesPerAddress => "atomic lanes per address",
        Metric::AtomicUpdates => "atomic updates",
        Metric::CopyGlobalRequests => "global requests of async copies",
        Metric::CopySharedWavefrontsPerRequest => "shared wavefronts per async copy request",
        Metric::CopyBulkRequests => "bulk copies",
        Metric::CopyBulkBytesPerRequest => "bytes per bulk copy",
        Metric::CopyPctOfReads => "% of global reads made by async copies",
        Metric::SharedRequests => "shared requests",
        Metric::SharedWavefronts => "shared wavefronts",
        Metric::ConstantRequests => "constant requests",
        Metric::TextureRequests => "texture requests",
        Metric::CopyWaitsInFlightPct => "% of copy waits with copies still in flight",
        Metric::CopyReadsInFlightPct => "% of shared reads made with copies in flight",
        Metric::CopyOverlappedPct => "% of copied bytes a shared read overlapped",
        Metric::LoadsUnusedPct => "% of load requests whose values nothing uses",
        Metric::GlobalStagedPct => "% of global load requests stored straight into shared memory",
        Metric::GlobalRelayedPct => "% of global store requests straight from shared memory",
        Metric::GlobalWideBytesPct => "% of global bytes moved 16 bytes a lane",
        Metric::SharedTimedWords => {
            "shared words read in the timed lines (distinct at each load, summed)"
        }
        Metric::SharedTimedReadsPct => "% of shared load requests made in the timed lines",
        Metric::GlobalLoadRequests => "global load requests",
        Metric::GlobalStoreRequests => "global store requests",
        Metric::TextureGatherRequests => "texture gather requests (four texels, unfiltered)",
        Metric::SharedMatrixReadsPct => "% of shared load requests made by ldmatrix",
        Metric::LocalTimedReadsPct => "% of local load requests made in the timed lines",
        Metric::SharedReservedRequests => "shared requests in the KiB the GPU keeps for itself",
        Metric::SharedStoresReadPct => "% of shared store requests whose words are read",
        Metric::LocalTimedWords => {
            "local words read in the timed lines (distinct at each load, summed)"
        }
        Metric::Calls => "out-of-line calls",
        Metric::CallsWorkPct => "% of thread instructions run inside out-of-line functions",
        Metric::CallsOutsideSteps => "thread instructions run outside out-of-line functions",
        Metric::Shuffles => "warp exchanges in registers: shuffles, votes, mma (a lane each)",
        Metric::GlobalCrossBlockWords => "global words stored by two or more blocks",
        Metric::GlobalHandoverWords => "global words one block loads after another stored them",
        Metric::GlobalRereadPct => "% of global load sectors a block had loaded before",
        Metric::GlobalUnfencedHandoverWords => "global words handed between blocks with no fence",
        Metric::SharedFeedsOutputPct => "% of shared reads that reach the output",
        Metric::ConstantFeedsOutputPct => "% of constant reads that reach the output",
        Metric::SharedTimedChasePct => "% of timed shared reads that chase what the inputs drew",
        Metric::LocalTimedChasePct => "% of timed local reads that chase what the inputs drew",
        Metric::SharedTimedSerialPct => "% of timed shared reads the next timed read waits on",
        Metric::LocalTimedSerialPct => "% of timed local reads the next timed read waits on",
        Metric::SharedTimedEndFeedsOutputPct => {
            "% of the last timed shared read's value that reaches the output"
        }
        Metric::CallsFeedOutputPct => "% of out-of-line calls whose own result reaches the output",
        Metric::SharedAtomicsFeedOutputPct => "% of shared atomic updates that reach the output",
        Metric::ClusterFeedsOutputPct => "% of cluster reads that reach the output",
    }
}

/// The sign a comparison is shown with.
pub fn op_words(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "≠",
        CmpOp::Lt => "<",
        CmpOp::Le => "≤",
        CmpOp::Gt => ">",
        CmpOp::Ge => "≥",
    }
}

/// A claim as written in a lesson (`A <metric> <op> <number>` and the other forms) in words:
/// metric names and `measured.NAME` as words, comparisons as signs (≤ ≥ ≠), factors with ×.
/// Variant names stay as written: the claim's first word and the word after `than` or `of`.
pub fn words(claim: &str) -> String {
    in_words(claim, true)
}

/// The detail of a claim's judgement (`global.sectors: 1600 vs 100 = 16.0x (needs >= 15x)`)
/// in the words `words` uses; what it names in backquotes (a variant) stays as written.
pub fn detail_words(detail: &str) -> String {
    in_words(detail, false)
}

fn in_words(text: &str, claim: bool) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut variant_next = claim;
    let mut bound = false;
    for token in text.split_whitespace() {
        let shown = if variant_next || token.starts_with('`') {
            token.to_string()
        } else {
            word(token)
        };
        // The variant follows `than`, `of`, and the factor of `at most Kx` / `at least Kx`.
        variant_next = claim && (matches!(token, "than" | "of") || bound);
        bound = matches!(token, "most" | "least");
        out.push(shown);
    }
    out.join(" ")
}

/// One word of a claim or a detail, punctuation after it kept (`global.sectors:`).
fn word(token: &str) -> String {
    let core = token.trim_end_matches([':', ',', ';', ')']);
    let tail = &token[core.len()..];
    let lead = if core.starts_with('(') { "(" } else { "" };
    let core = &core[lead.len()..];
    let shown = if let Some((_, op)) = CmpOp::ALL.iter().find(|(s, _)| *s == core) {
        op_words(*op).to_string()
    } else if let Some((_, m)) = Metric::ALL.iter().find(|(n, _)| *n == core) {
        metric_words(*m).to_string()
    } else if let Some(name) = core.strip_prefix("measured.").filter(|n| !n.is_empty()) {
        name.replace('_', " ")
    } else if let Some(n) = core.strip_suffix('x').filter(|n| n.parse::<f64>().is_ok()) {
        format!("{n}×")
    } else {
        core.to_string()
    };
    format!("{lead}{shown}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_words_and_signs() {
        assert_eq!(
            words("stride-32 measured.cycles_per_access <= 10"),
            "stride-32 cycles per access ≤ 10"
        );
        assert_eq!(
            words("padded shared.conflicts_per_request == 0"),
            "padded bank conflicts per shared request = 0"
        );
        assert_eq!(
            words("stride-2 slower than coalesced by >= 1.5x"),
            "stride-2 slower than coalesced by ≥ 1.5×"
        );
        assert_eq!(
            words("yours global.sectors_per_request != 4"),
            "yours global sectors per request ≠ 4"
        );
        assert_eq!(words("a within 10% of b"), "a within 10% of b");
        assert_eq!(
            words("yours global.sectors at most 1.1x gbps"),
            "yours global sectors at most 1.1× gbps"
        );
        assert_eq!(words("a makes shared loads"), "a makes shared loads");
    }

    #[test]
    fn variant_names_stay_as_written() {
        // Variants may be named like anything, a metric included.
        assert_eq!(
            words("gbps time_ms less than registers by >= 2x"),
            "gbps time (ms) less than registers by ≥ 2×"
        );
        assert_eq!(
            words("fast within 5% of occupancy"),
            "fast within 5% of occupancy"
        );
    }

    #[test]
    fn details_read_in_words_too() {
        assert_eq!(
            detail_words("global.sectors: 1600 vs 100 = 16.0x (needs >= 15x)"),
            "global sectors: 1600 vs 100 = 16.0× (needs ≥ 15×)"
        );
        assert_eq!(
            detail_words("measured.cycles_per_access = 7.2 (needs <= 10)"),
            "cycles per access = 7.2 (needs ≤ 10)"
        );
        assert_eq!(
            detail_words("not measured (no trace of `global.sectors`)"),
            "not measured (no trace of `global.sectors`)"
        );
    }

    #[test]
    fn every_metric_has_words_of_its_own() {
        let mut seen = std::collections::HashSet::new();
        for (name, m) in Metric::ALL {
            let w = metric_words(m);
            assert!(!w.contains('_') && !w.contains('.'), "{name}: {w}");
            assert!(seen.insert(w), "{w} twice");
        }
    }
}
