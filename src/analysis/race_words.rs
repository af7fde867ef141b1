//! A race in the learner's words: which two lines met on a word, who made them, and what
//! is missing between them (a barrier, a `__syncwarp()`, a cluster barrier, or one that
//! holds every warp where a barrier with a thread count stood).

use crate::model::results::{Race, RaceKind, RaceScope};

/// The race in words: "line 14 reads what line 11 writes", and for a race that is not
/// between two warps of a block, between whom: "(two lanes of a warp)".
pub fn race_words(r: &Race) -> String {
    let line = |l: Option<u32>| l.map_or("an unknown line".to_string(), |l| format!("line {l}"));
    let (a, b) = (line(r.first_line), line(r.second_line));
    let between = match r.scope {
        RaceScope::Block => "",
        RaceScope::Warp => " (two lanes of a warp)",
        RaceScope::Cluster => " (two blocks of a cluster)",
        RaceScope::Copy => {
            let what = match r.kind {
                RaceKind::WriteWrite => "writes",
                _ => "reads",
            };
            return format!("{b} {what} what the bulk copy at {a} brings, before it landed");
        }
        RaceScope::Exit => {
            let what = match r.kind {
                RaceKind::WriteWrite => "writes",
                _ => "reads",
            };
            return format!("{a} {what} another block's shared memory, which may have exited");
        }
    };
    let words = match r.kind {
        RaceKind::WriteRead => format!("{b} reads what {a} writes"),
        RaceKind::ReadWrite => format!("{b} writes what {a} reads"),
        RaceKind::WriteWrite if r.first_line == r.second_line => {
            let by = match r.scope {
                RaceScope::Warp => "two lanes",
                RaceScope::Cluster => "two blocks",
                _ => "two warps",
            };
            return format!("{a} writes one word from {by}");
        }
        RaceKind::WriteWrite => format!("{a} and {b} write the same word"),
    };
    format!("{words}{between}")
}

/// The race as a learner's report names it: the two lines, who made them, and what is
/// missing. "line 25 reads what another warp writes at line 18, with no barrier between: a
/// barrier is missing (block 0: warp 1 read after warp 0 wrote)".
pub fn race_why(r: &Race) -> String {
    match r.scope {
        RaceScope::Block => block_why(r),
        RaceScope::Warp => warp_why(r),
        RaceScope::Cluster => cluster_why(r),
        RaceScope::Exit => exit_why(r),
        RaceScope::Copy => copy_why(r),
    }
}

fn copy_why(r: &Race) -> String {
    let (a, b) = (line_of(r.first_line), line_of(r.second_line));
    let what = match r.kind {
        RaceKind::WriteWrite => "writes",
        _ => "reads",
    };
    // An access logged before the issue (ReadWrite) is one the copy may land over; any
    // other came after it, unordered.
    let when = match r.kind {
        RaceKind::ReadWrite => "before",
        _ => "after",
    };
    format!(
        "{b} {what} bytes the bulk copy at {a} brings, in a thread it has not landed for:          its bytes land when the phase of the mbarrier it completes on completes, and only          a thread that waited on that phase, or met one that had (a `__syncwarp()` or a          block barrier after its wait), may touch them (block {}: warp {} {when} the copy          warp {} issued)",
        r.block, r.second_warp, r.first_warp
    )
}

fn line_of(l: Option<u32>) -> String {
    l.map_or("an unknown line".to_string(), |l| format!("line {l}"))
}

fn block_why(r: &Race) -> String {
    let (a, b) = (line_of(r.first_line), line_of(r.second_line));
    let (w1, w2, blk) = (r.first_warp, r.second_warp, r.block);
    // A learner who wrote a barrier with a thread count is told why it does not count,
    // not that none is there.
    let (between, missing) = match r.partial_barrier {
        Some(p) if p.mbarrier => (
            "with no barrier of the whole block between",
            format!(
                "the mbarrier waited on at {} awaits {} arrivals a phase, fewer than the \
                 block's warps make, so a phase completes before every warp arrived and it \
                 orders nothing between warps",
                line_of(p.line),
                p.threads
            ),
        ),
        Some(p) => (
            "with no barrier of the whole block between",
            format!(
                "the barrier at {} (`bar.sync id, {}`) holds only that many threads at a \
                 time, not every warp of the block, and these two warps did not pass it \
                 together, so nothing orders them",
                line_of(p.line),
                p.threads
            ),
        ),
        None => (
            "with no barrier between",
            "a barrier is missing".to_string(),
        ),
    };
    // Two writes have no order to restore: which value stays is chance, and where a
    // counted barrier stood the learner is told why it did not order them.
    let chance = match r.partial_barrier {
        Some(_) => format!("which value stays is chance; {missing}"),
        None => "which value stays is chance".to_string(),
    };
    match r.kind {
        RaceKind::WriteRead => format!(
            "{b} reads what another warp writes at {a}, {between}: {missing} (block {blk}: \
             warp {w2} read after warp {w1} wrote)"
        ),
        RaceKind::ReadWrite => format!(
            "{b} overwrites what another warp reads at {a}, {between}: {missing} (block \
             {blk}: warp {w2} wrote after warp {w1} read)"
        ),
        RaceKind::WriteWrite if r.first_line == r.second_line => format!(
            "{a} writes the same word from two warps, {between} (block {blk}: warps {w1} \
             and {w2}): {chance}"
        ),
        RaceKind::WriteWrite => format!(
            "{b} writes a word another warp writes at {a}, {between} (block {blk}: warps \
             {w1} and {w2}): {chance}"
        ),
    }
}

fn warp_why(r: &Race) -> String {
    let (a, b) = (line_of(r.first_line), line_of(r.second_line));
    let (l1, l2) = r.lanes.unwrap_or_default();
    let at = format!("block {}, warp {}", r.block, r.second_warp);
    let missing = "a `__syncwarp()` is missing: a warp's lanes are not in lockstep";
    match r.kind {
        RaceKind::WriteRead => format!(
            "{b} reads what another lane of the warp writes at {a}, with no `__syncwarp()` \
             between: {missing} ({at}: lane {l2} read after lane {l1} wrote)"
        ),
        RaceKind::ReadWrite => format!(
            "{b} overwrites what another lane of the warp reads at {a}, with no \
             `__syncwarp()` between: {missing} ({at}: lane {l2} wrote after lane {l1} read)"
        ),
        RaceKind::WriteWrite => format!(
            "{b} writes a word another lane of the warp writes at {a}, with no \
             `__syncwarp()` between ({at}: lanes {l1} and {l2}): which value stays is chance"
        ),
    }
}

fn cluster_why(r: &Race) -> String {
    let (a, b) = (line_of(r.first_line), line_of(r.second_line));
    let first = r.first_block.unwrap_or(r.block);
    let at = format!("block {} after block {first}", r.block);
    let missing = "a cluster barrier (`barrier.cluster` arrive and wait, `cluster.sync()`) \
                   is missing, or a flag stored with `.release` and read with `.acquire` at \
                   cluster scope";
    match r.kind {
        RaceKind::WriteRead => format!(
            "{b} reads shared memory another block of the cluster writes at {a}, with no \
             cluster barrier between: {missing} ({at})"
        ),
        RaceKind::ReadWrite => format!(
            "{b} overwrites shared memory another block of the cluster reads at {a}, with \
             no cluster barrier between: {missing} ({at})"
        ),
        RaceKind::WriteWrite => format!(
            "{b} writes a shared word another block of the cluster writes at {a}, with no \
             cluster barrier between ({at}): which value stays is chance"
        ),
    }
}

fn exit_why(r: &Race) -> String {
    let a = line_of(r.first_line);
    let by = r.first_block.unwrap_or(r.block);
    let what = match r.kind {
        RaceKind::WriteWrite => "writes",
        _ => "reads",
    };
    format!(
        "{a} {what} the shared memory of block {}, which may exit before: no cluster barrier \
         after the access holds block {} back (block {by}); a block's shared memory ends \
         with it, so the cluster must meet before a block whose memory others use exits",
        r.block, r.block
    )
}
