//! The logger's text for one module and for each site, and the header facts that decide
//! it: the target (sm_70 at least, for `match.any.sync`) and whether the cluster
//! instructions the logger uses to name a `shared::cluster` address's block (sm_90, PTX
//! 7.8) may be written.

use super::InstrumentError;
use super::statements::strip_comment;
use crate::model::access::Space;

const LOGGER_PTX: &str = include_str!("../logger.ptx");
const TAGS: &str = "\t//@";
const PROLOGUE: &str = "// gpulab trace: function prologue\n";
const SITE_CODE: &str = "// gpulab trace: site code\n";
const SITE_ID: &str = "@SITE";

/// What the module's header allows the logger to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Features {
    pub(super) cluster: bool,
}

/// The tagged sections a text keeps (see logger.ptx).
#[derive(Clone, Copy)]
struct Keep {
    generic: bool,
    cluster: bool,
    /// The census's lines (`@census`), or else the lines written in their place
    /// (`@!census`): an access's, not an event's.
    census: bool,
    /// The census's global figures (`@global`).
    global: bool,
    /// The census's shared figures (`@shared`).
    shared: bool,
}

/// `text` with each tagged line kept (untagged) or left out. Left out, the code still
/// flows: a section is one that only an address of its kind enters.
fn with(keep: Keep, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let (code, tags) = match line.find(TAGS) {
            Some(at) => (&line[..at], &line[at..]),
            None => (line, ""),
        };
        if (tags.contains("@generic") && !keep.generic)
            || (tags.contains("@cluster") && !keep.cluster)
            || (tags.contains("@census") && !keep.census)
            || (tags.contains("@!census") && keep.census)
            || (tags.contains("@global") && !keep.global)
            || (tags.contains("@shared") && !keep.shared)
        {
            continue;
        }
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// logger.ptx's three parts: the globals, a function's prologue, a site's code.
fn parts() -> (&'static str, &'static str, &'static str) {
    let p = LOGGER_PTX
        .find(PROLOGUE)
        .expect("logger.ptx marks its prologue");
    let s = LOGGER_PTX
        .find(SITE_CODE)
        .expect("logger.ptx marks its site code");
    (&LOGGER_PTX[..p], &LOGGER_PTX[p..s], &LOGGER_PTX[s..])
}

/// The module part: the globals the host sets.
pub(super) fn text() -> &'static str {
    parts().0
}

/// What every function runs first: whether its block is in the sample (by its cluster,
/// where the target has clusters).
pub(super) fn prologue(features: Features) -> String {
    let keep = Keep {
        generic: false,
        cluster: features.cluster,
        census: false,
        global: false,
        shared: false,
    };
    with(keep, parts().1)
}

/// The code a site runs before its access, its labels made its own, with the sections an
/// access logged as `space` can need (None: a barrier, which needs neither): a generic
/// address is resolved, only a generic or cluster address may name another block's
/// shared memory, and an access (not an event) is counted by the census, with the global
/// figures where it may be global and the shared ones where it may be shared. A bulk
/// copy's shared side (`census` false) is not counted: the TMA writes it, through no pipe
/// the census follows, and its record's address is not one a lane requests.
pub(super) fn site_code(
    features: Features,
    site: u32,
    space: Option<Space>,
    census: bool,
) -> String {
    let generic = space == Some(Space::Generic);
    let keep = Keep {
        generic,
        cluster: features.cluster && (generic || space == Some(Space::Cluster)),
        census: census && space.is_some(),
        // The global and shared figures are the census's: an access it does not count
        // runs none of their code (which reads the census's slot).
        global: census && (generic || space == Some(Space::Global)),
        shared: census && (generic || space == Some(Space::Shared)),
    };
    // Its comments are said once, in logger.ptx, not at every site.
    let code: String = (parts().2.lines())
        .filter(|l| l.starts_with("// gpulab trace") || !l.trim_start().starts_with("//"))
        .flat_map(|l| [l, "\n"])
        .collect();
    with(keep, &code).replace(SITE_ID, &site.to_string())
}

fn sm_number(arch: &str) -> Option<u32> {
    let digits: String = arch
        .trim_start_matches("sm_")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

fn version(rest: &str) -> Option<(u32, u32)> {
    let (major, minor) = rest.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.trim().parse().ok()?))
}

/// The 1-based line after which the logger goes (the last of `.version`, `.target` and
/// `.address_size`, which must precede every other directive), and what the header allows.
pub(super) fn header_end(ptx: &str) -> Result<(usize, Features), InstrumentError> {
    let mut end = None;
    let mut ptx_version = None;
    let mut sm = None;
    for (idx, line) in ptx.lines().enumerate() {
        let code = strip_comment(line).trim();
        if let Some(rest) = code.strip_prefix(".target") {
            let arch = rest
                .trim()
                .split([',', ' '])
                .next()
                .unwrap_or("")
                .to_string();
            sm = sm_number(&arch);
            if sm.is_some_and(|sm| sm < 70) {
                return Err(InstrumentError::OldTarget(arch));
            }
            end = Some(idx + 1);
        } else if let Some(rest) = code.strip_prefix(".version") {
            ptx_version = version(rest);
            end = end.map(|_| idx + 1).or(end);
        } else if code.starts_with(".address_size") {
            end = end.map(|_| idx + 1).or(end);
        } else if !code.is_empty() && end.is_some() {
            break;
        }
    }
    let end = end.ok_or(InstrumentError::NoTarget)?;
    let cluster = sm.is_some_and(|s| s >= 90) && ptx_version.is_some_and(|v| v >= (7, 8));
    Ok((end, Features { cluster }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_lines_need_sm_90_and_ptx_7_8() {
        let h = |v: &str, t: &str| {
            header_end(&format!(
                ".version {v}\n.target {t}\n.address_size 64\n\n.visible"
            ))
            .unwrap()
        };
        assert_eq!(h("9.0", "sm_90"), (3, Features { cluster: true }));
        assert_eq!(h("9.0", "sm_90a").1, Features { cluster: true });
        assert_eq!(h("7.7", "sm_90").1, Features { cluster: false });
        assert_eq!(h("9.0", "sm_80").1, Features { cluster: false });
        let on = Features { cluster: true };
        let off = Features { cluster: false };
        let with = site_code(on, 7, Some(Space::Generic), true);
        let without = site_code(off, 7, Some(Space::Generic), true);
        assert!(with.contains("getctarank.u64") && !with.contains("//@"));
        assert!(with.contains("isspacep.shared::cluster"));
        assert!(!without.contains("getctarank.") && !without.contains("%cluster_ctarank"));
        assert!(
            without.contains("isspacep.local") && !without.contains("isspacep.shared::cluster")
        );
        assert!(without.contains("$__gpulab_ranked_7:") && !without.contains("@SITE"));
        assert!(!text().contains("activemask") && !text().contains("%ctaid"));
        for f in [on, off] {
            let p = prologue(f);
            assert!(p.contains("%__gpulab_on") && !p.contains("@SITE"));
            assert_eq!(p.contains("%clusterid"), f.cluster, "{p}");
            assert!(!p.contains("//@"), "no tag is left: {p}");
        }
        // A site writes only the sections its access can need.
        let global = site_code(on, 3, Some(Space::Global), true);
        assert!(!global.contains("isspacep") && !global.contains("getctarank"));
        assert!(global.contains("match.any.sync") && global.contains("$__gpulab_done_3:"));
        assert!(
            !global.contains("rem.u32"),
            "the sample is tested once a function"
        );
        let cluster = site_code(on, 4, Some(Space::Cluster), true);
        assert!(cluster.contains("getctarank.u64") && !cluster.contains("isspacep.local"));
    }

    #[test]
    fn an_access_is_counted_by_the_census_and_a_global_one_with_its_sectors() {
        let on = Features { cluster: true };
        let first_branch = |code: &str| {
            code.lines()
                .find(|l| l.contains("bra"))
                .expect("a site branches")
                .to_string()
        };
        for space in [Space::Global, Space::Generic, Space::Shared, Space::Local] {
            let code = site_code(on, 5, Some(space), true);
            assert!(code.contains("[__gpulab_trace_census]"), "{space:?}");
            assert!(code.contains("red.global.min.u32") && code.contains("$__gpulab_counted_5:"));
            // Outside the sample a block goes on to count: its skip waits for the census.
            assert!(!first_branch(&code).contains("@!%__gpulab_on"), "{space:?}");
            assert!(!code.contains("//@"), "no tag is left");
            let global = matches!(space, Space::Global | Space::Generic);
            assert_eq!(
                code.contains("red.global.add.u64 \t[%__gl_rd16+16]"),
                global
            );
            // Shared wavefronts, where the access may be shared.
            let shared = matches!(space, Space::Shared | Space::Generic);
            assert_eq!(
                code.contains("red.global.add.u64 \t[%__gl_rd16+48]"),
                shared,
                "{space:?}"
            );
            assert_eq!(code.contains("$__gpulab_shared_5:"), shared);
        }
        // An event adds one to its cluster's count of events and counts nothing of an
        // access's: a block outside the sample then skips the rest.
        let event = site_code(on, 5, None, true);
        assert!(event.contains("[__gpulab_trace_census_events]"));
        assert!(event.contains("red.global.add.u32"));
        assert!(!event.contains("[__gpulab_trace_census]") && !event.contains("red.global.min"));
        assert!(first_branch(&event).contains("@!%__gpulab_on bra"));
        // A bulk copy's shared side, which the census does not count, runs none of the
        // census's figures (they read its slot, which such a site never sets up): it is
        // counted and skipped as an event is.
        let uncounted = site_code(on, 5, Some(Space::Shared), false);
        assert!(!uncounted.contains("[__gpulab_trace_census]"));
        assert!(!uncounted.contains("$__gpulab_shared_5:") && !uncounted.contains("+48]"));
        assert!(first_branch(&uncounted).contains("@!%__gpulab_on bra"));
    }
}
