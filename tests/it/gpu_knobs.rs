//! The shipped knobs turned live on a GPU, as `gpulab record` turns them: every value runs
//! correct, and the traced counts follow the knob as the hardware's rules say. Prints that
//! it skipped, and why, where there is no GPU.

use crate::support::common;

use gpulab::course::bundle::CourseRoot;
use gpulab::model::Lesson;
use gpulab::model::results::{Source, VariantResult};
use gpulab::session::client::WorkerClient;
use gpulab::session::{fold, knobs};

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Every value of the knob of `id` named `knob` (its define, or `maxrregcount`), run live:
/// (value, figures). A lesson's other knobs turn other things, and are left out.
fn turned(lessons: &[Lesson], id: &str, knob: &str) -> Vec<(i64, VariantResult)> {
    let l = lessons.iter().find(|l| l.id == id).unwrap();
    let mut c = WorkerClient::with_command(common::bin(), vec!["worker".into()]);
    let caps = fold::hello(&mut c, 0).unwrap();
    let mut r = fold::blank_result(l, Source::Live, caps.device);
    knobs::run_all(&mut c, l, &mut r, |_| {}).unwrap_or_else(|e| panic!("{id}: {e}"));
    let settings: Vec<_> = (l.knobs.iter())
        .filter(|k| k.kind.name() == knob)
        .flat_map(|k| k.settings.iter())
        .collect();
    assert!(!settings.is_empty(), "{id} has no knob {knob}");
    (settings.into_iter())
        .map(|s| {
            let v = (r.knobs.iter())
                .find(|v| v.name == s.variant.name)
                .unwrap_or_else(|| panic!("{id}: no figures for {}", s.variant.name));
            (s.value, v.clone())
        })
        .collect()
}

fn ratio(n: u64, d: u64) -> f64 {
    assert!(d > 0, "no requests traced");
    n as f64 / d as f64
}

#[test]
fn the_shipped_knobs_run_live_and_their_counts_follow_the_value() {
    if common::gpu().is_none() {
        return;
    }
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    // The four lessons' knobs run at once, each by a worker of its own.
    let asked = [
        ("global-coalescing", "STRIDE"),
        ("shared-banks", "STRIDE"),
        ("shared-transpose", "PAD"),
        ("local-spills", "maxrregcount"),
    ];
    let [coalescing, banks, transpose, spills]: [Vec<(i64, VariantResult)>; 4] =
        common::par_map(&asked, |(id, knob)| turned(&lessons, id, knob))
            .try_into()
            .unwrap();
    for (stride, v) in coalescing {
        assert_eq!(v.correct, Some(true), "{v:?}");
        let g = &v.memory.as_ref().expect("traced").global;
        // A warp's 32 floats, `stride` floats apart: 4 sectors coalesced, one per lane at most.
        let want = (4 * stride).min(32) as f64;
        assert_eq!(ratio(g.sectors, g.requests), want, "STRIDE = {stride}");
    }
    for (stride, v) in banks {
        assert_eq!(v.correct, Some(true), "{v:?}");
        let s = &v.memory.as_ref().expect("traced").shared.ld;
        // 32 banks of 4-byte words: lanes `stride` words apart meet gcd(stride, 32) at a bank.
        let want = gcd(stride as u64, 32) as f64;
        assert_eq!(ratio(s.wavefronts, s.requests), want, "STRIDE = {stride}");
    }
    for (pad, v) in transpose {
        assert_eq!(v.correct, Some(true), "{v:?}");
        let s = &v.memory.as_ref().expect("traced").shared.ld;
        // Reading a column of a 32 x (32 + pad) tile: rows fall gcd(pad, 32) to a bank.
        let want = gcd(pad as u64, 32) as f64;
        assert_eq!(ratio(s.wavefronts, s.requests), want, "PAD = {pad}");
    }
    for (cap, v) in spills {
        assert_eq!(v.correct, Some(true), "{v:?}");
        let p = v.ptxas.as_ref().expect("compiled");
        assert!(p.registers as i64 <= cap, "cap {cap}: {p:?}");
        assert!(v.time_ms.is_some(), "cap {cap} is timed");
    }
}
