//! The words the lessons lean on, each said once in a sentence or two, and the page of the
//! course that first uses each, so that page can point to it. Matching is by whole word:
//! a term's forms are listed (plural, verb), never guessed.

use crate::model::Lesson;

/// One word of the course and what it means here.
pub struct Term {
    /// As the glossary lists it.
    pub term: &'static str,
    /// The forms a page may use, matched as whole words; lowercase forms match any case,
    /// the others (SM, L2) only as written.
    pub forms: &'static [&'static str],
    pub means: &'static str,
}

/// The glossary, in the order a learner meets the ideas.
pub const TERMS: &[Term] = &[
    Term {
        term: "warp",
        forms: &["warp", "warps"],
        means: "32 threads that the SM issues together: one instruction, 32 lanes. Memory \
                is judged per warp, not per thread.",
    },
    Term {
        term: "SM",
        forms: &["SM", "SMs"],
        means: "A streaming multiprocessor: one of the GPU's cores, with its own registers, \
                shared memory and L1. A block runs on one SM.",
    },
    Term {
        term: "register",
        forms: &["register", "registers"],
        means: "A thread's own fastest storage, inside the SM. The more each thread uses, \
                the fewer threads fit on the SM at once.",
    },
    Term {
        term: "request",
        forms: &["request", "requests"],
        means: "One memory instruction of one warp: the 32 lanes' addresses handled as one \
                piece of work. Figures such as sectors or wavefronts are counted per request.",
    },
    Term {
        term: "sector",
        forms: &["sector", "sectors"],
        means: "The 32-byte piece in which global memory moves between HBM, L2 and L1. A \
                request costs one sector for each different 32-byte piece its lanes touch: \
                4 is the least for 32 floats.",
    },
    Term {
        term: "coalescing",
        forms: &["coalescing", "coalesced", "coalesce", "uncoalesced"],
        means: "Neighbouring lanes reading neighbouring words, so a warp's request touches \
                as few sectors as its bytes need. Strided or scattered lanes touch more \
                sectors for the same bytes.",
    },
    Term {
        term: "bank",
        forms: &["bank", "banks"],
        means: "Shared memory is split into 32 banks of 4-byte words (word i sits in bank \
                i mod 32); each bank serves one word per pass.",
    },
    Term {
        term: "bank conflict",
        forms: &["conflict", "conflicts", "conflicted"],
        means: "Lanes of one request needing different words of the same bank: the bank \
                serves them one pass after another. Lanes reading the same word share it \
                (a broadcast) and do not conflict.",
    },
    Term {
        term: "wavefront",
        forms: &["wavefront", "wavefronts"],
        means: "One pass of a request through shared memory (or L1). A request without \
                conflicts takes one; an n-way bank conflict takes n.",
    },
    Term {
        term: "shared memory",
        forms: &["shared memory"],
        means: "Memory on the SM that a block's threads share and manage themselves: as \
                fast as L1, gone when the block ends.",
    },
    Term {
        term: "L1",
        forms: &["L1"],
        means: "The cache of one SM, in the same storage as its shared memory; it keeps \
                recently read global and local data near the threads.",
    },
    Term {
        term: "L2",
        forms: &["L2"],
        means: "The cache every SM shares, between the SMs and HBM: tens of MB, several \
                times faster to reach than HBM.",
    },
    Term {
        term: "HBM",
        forms: &["HBM", "DRAM"],
        means: "The GPU's main memory (high-bandwidth DRAM stacked beside the chip): large, \
                and the slowest rung a load can reach.",
    },
    Term {
        term: "local memory",
        forms: &["local memory"],
        means: "A thread's private memory that does not fit in registers. Despite the name \
                it lives in global memory, cached by L1 and L2.",
    },
    Term {
        term: "spill",
        forms: &["spill", "spills", "spilled", "spilling"],
        means: "Values the compiler moves from registers to local memory because too few \
                registers are left; ptxas reports the bytes stored and loaded.",
    },
    Term {
        term: "occupancy",
        forms: &["occupancy"],
        means: "How many warps an SM keeps resident, as a share of the most it can hold. \
                Registers, shared memory or the block size limit it; more warps hide more \
                waiting.",
    },
    Term {
        term: "constant cache",
        forms: &["constant cache", "__constant__"],
        means: "A small cache for __constant__ data: one address read by a whole warp is \
                sent to all lanes at once; different addresses are served one at a time.",
    },
    Term {
        term: "broadcast",
        forms: &["broadcast", "broadcasts"],
        means: "One value delivered to many lanes by a single read, as when lanes of a warp \
                read the same shared or constant word.",
    },
    Term {
        term: "texture",
        forms: &["texture", "textures", "texel", "texels"],
        means: "Reads through the texture unit, which fetches texels (image elements) by 2-D \
                position and caches them with 2-D locality.",
    },
    Term {
        term: "cluster",
        forms: &["cluster", "clusters", "DSMEM"],
        means: "Blocks launched together on neighbouring SMs (Hopper on); each can read the \
                others' shared memory (distributed shared memory, DSMEM).",
    },
    Term {
        term: "bandwidth",
        forms: &["bandwidth"],
        means: "Bytes moved per second. A kernel that waits on memory is judged by how close \
                it comes to the bandwidth of the level it reads.",
    },
    Term {
        term: "latency",
        forms: &["latency"],
        means: "The time one access takes from issue to data, in cycles; enough warps in \
                flight hide it.",
    },
    Term {
        term: "atomic",
        forms: &["atomic", "atomics"],
        means: "A read, change and write of one word that no other thread can split \
                (atomicAdd and its kin), in global or shared memory. Lanes that update the \
                same word are served one after another.",
    },
    Term {
        term: "contention",
        forms: &["contention"],
        means: "Many threads updating the same word at once: their atomics wait for each \
                other, so the time grows with the lanes per address, not with the bytes.",
    },
    Term {
        term: "cp.async",
        forms: &["cp.async"],
        means: "A copy from global straight into shared memory (sm_80 and later), with no \
                register between; the thread goes on, and its bytes are there only after a \
                cp.async.wait_group that covers them.",
    },
    Term {
        term: "TMA",
        forms: &["TMA"],
        means: "Hopper's tensor memory accelerator: one thread hands it a whole tile to \
                copy (a bulk copy), and a transaction barrier in shared memory says when \
                the bytes have landed.",
    },
    Term {
        term: "mbarrier",
        forms: &["mbarrier"],
        means: "A barrier object in shared memory that counts arrivals and, on Hopper, \
                bytes still to come: its phase completes when both are in, and threads wait \
                on that phase.",
    },
];

/// The glossary's entry for `term` (as listed).
pub fn find(term: &str) -> Option<&'static Term> {
    TERMS.iter().find(|t| t.term == term)
}

/// Whether `text` uses `t` in one of its forms, as a whole word.
pub fn uses(text: &str, t: &Term) -> bool {
    let lower = text.to_lowercase();
    t.forms.iter().any(|f| find_in(text, &lower, f).is_some())
}

/// Where `form` first stands in `text` as a whole word: its byte range.
pub fn find_form(text: &str, form: &str) -> Option<std::ops::Range<usize>> {
    find_in(text, &text.to_lowercase(), form)
}

/// As `find_form`, with the text lowercased once by the caller.
fn find_in(text: &str, lower: &str, form: &str) -> Option<std::ops::Range<usize>> {
    let any_case = form.chars().all(|c| !c.is_uppercase());
    // Lowercasing keeps byte offsets only where it keeps lengths; else matched as written.
    let hay = match any_case && lower.len() == text.len() {
        true => lower,
        false => text,
    };
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut from = 0;
    while let Some(i) = hay[from..].find(form) {
        let (s, e) = (from + i, from + i + form.len());
        if !word(hay[..s].chars().next_back()) && !word(hay[e..].chars().next()) {
            return Some(s..e);
        }
        from = e;
    }
    None
}

/// The terms each page of the course uses first, in course order: (lesson index, page)
/// and the terms, glossary order.
pub fn first_uses(lessons: &[Lesson]) -> Vec<((usize, usize), Vec<&'static Term>)> {
    let mut order: Vec<usize> = (0..lessons.len()).collect();
    order.sort_by_key(|&i| lessons[i].order);
    let mut met = vec![false; TERMS.len()];
    let mut out = Vec::new();
    for li in order {
        for (pi, page) in lessons[li].pages.iter().enumerate() {
            let text = format!("{}\n{}", page.title, page.text);
            let lower = text.to_lowercase();
            let used = |t: &Term| t.forms.iter().any(|f| find_in(&text, &lower, f).is_some());
            let mut new: Vec<&Term> = Vec::new();
            for (ti, t) in TERMS.iter().enumerate() {
                if !met[ti] && used(t) {
                    met[ti] = true;
                    new.push(t);
                }
            }
            if !new.is_empty() {
                out.push(((li, pi), new));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_match_whole_words_only() {
        let t = find("sector").unwrap();
        assert!(uses("Each Sector is 32 bytes", t));
        assert!(!uses("the sectorial view", t));
        let l2 = find("L2").unwrap();
        assert!(uses("hits in L2.", l2));
        assert!(!uses("an l2 norm", l2), "upper-case forms match as written");
        assert_eq!(find_form("a bank, banks", "banks"), Some(8..13));
    }

    #[test]
    fn every_term_is_first_used_once_at_most() {
        let (lessons, errors) =
            crate::course::load_course(&crate::course::bundle::CourseRoot::Bundled);
        assert!(errors.is_empty(), "{errors:?}");
        let firsts = first_uses(&lessons);
        let mut seen: Vec<&str> = firsts
            .iter()
            .flat_map(|(_, ts)| ts.iter().map(|t| t.term))
            .collect();
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), n, "a term is linked from one page only");
        // The words the issue names are all used, so all have a first page.
        for w in [
            "wavefront",
            "sector",
            "occupancy",
            "bank",
            "request",
            "coalescing",
            "spill",
            "L2",
        ] {
            assert!(seen.contains(&w), "{w} has no first page");
        }
    }
}
