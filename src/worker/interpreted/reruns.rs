//! Second runs at the CPU size that test a variant whose output came out right: with its
//! clocks running faster (a figure it measures must be what its clock read), with its warps
//! taking their turns in the other order (warps that hand values over with nothing ordering
//! them), with swaps failing, and with what one load site reads perturbed, a site at a time
//! (how much of its loading reaches the output). The runs about its timed loads are in
//! `timed_loads`, which shares the perturbed runs' judging (`changed_by`) and draws.

use super::{LABEL, Stopped, Tweak, download, failed, judge, outputs, run_small};
use crate::interp::Kernel;
use crate::interp::block::{NS_PER_KILOCYCLE, Perturb, TimedDelay};
use crate::interp::lesson::Placed;
use crate::interp::limits::Limits;
use crate::model::access::{AccessKind, Space};
use crate::model::results::{PerturbOf, Perturbed, Perturbing, VariantResult};
use crate::model::{Lesson, Variant};
use crate::trace::instrument::Event;
use crate::worker::hostdata::HostData;
use std::sync::atomic::Ordering;

/// The scale of the second of the two runs `clocks_followed` compares.
pub(super) const CLOCK_SCALE: u64 = 7;

/// The measures a clock makes (in `cycles` or `ns`): their index and the measure.
fn clock_measures(small: &Lesson) -> impl Iterator<Item = (usize, &crate::model::Measure)> {
    (small.measures.iter().enumerate()).filter(|(_, m)| m.unit == "cycles" || m.unit == "ns")
}

/// The figure of each clock measure in the memory a run of `v` left.
pub(super) fn clock_figures(
    p: &mut Placed,
    small: &Lesson,
    v: &Variant,
) -> Result<Vec<Option<f64>>, Stopped> {
    clock_measures(small)
        .map(|(i, m)| {
            let data = download(p, small, m.buffer).map_err(Stopped)?;
            let per = v.per.get(i).copied().unwrap_or(1.0);
            Ok(crate::worker::measure::figure(
                m,
                &data,
                small.buffers[m.buffer].ty,
                per,
            ))
        })
        .collect()
}

/// Whether every figure `v` measures with a clock is what its clock read: `first` are the
/// figures of its run with the clocks reading the block's steps; over the same inputs,
/// with them reading `CLOCK_SCALE` times those, each figure must grow by that much (within
/// a step a timed access, as a figure divided in the kernel rounds). None when they all
/// do (or `v` measures none with a clock); else why not, in a learner's words.
pub(super) fn clocks_followed(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    (limits, first, delays): (&Limits, Vec<Option<f64>>, &[String]),
) -> Result<Option<String>, Stopped> {
    if first.is_empty() {
        return Ok(None);
    }
    let mut p = run_small(k, small, v, inputs, (limits, Tweak::clocks(CLOCK_SCALE)))?;
    let faster = clock_figures(&mut p, small, v)?;
    for (((i, m), one), more) in clock_measures(small).zip(first.iter().copied()).zip(faster) {
        let (Some(one), Some(more)) = (one, more) else {
            continue;
        };
        let per = v.per.get(i).copied().unwrap_or(1.0);
        let want = one * CLOCK_SCALE as f64;
        let slack = want.abs() * 0.02 + CLOCK_SCALE as f64 / per;
        if one <= 0.0 || (more - want).abs() > slack {
            return Ok(Some(format!(
                "measured.{}: with the CPU interpreter's clocks running {CLOCK_SCALE} times \
                 as fast, the kernel's figure went from {one:.1} to {more:.1} {}, not \
                 {CLOCK_SCALE} times as much: a figure must be what the clock read, not \
                 scaled or made up",
                m.name, m.unit
            )));
        }
    }
    delays_followed(k, small, v, inputs, (limits, first, delays))
}

/// What each timed load holds its warp's clocks back by in `delays_followed`'s run.
pub(super) const TIMED_DELAY: u64 = 1000;

/// Whether every figure `v` measures per access with a clock (the measures named in
/// `delays`, those a check judges) counts its timed accesses at their time: over the same
/// inputs as `first`'s run, with every load on its timed lines (`Site::timed`) holding its
/// warp's clocks back by `TIMED_DELAY` cycles, each figure must grow by at least that
/// much, an access making at least one timed load (within a step, as a figure divided in
/// the kernel rounds). A figure scaled by 7/8 grows by 7/8 of it, which the run at
/// `CLOCK_SCALE` cannot tell, since a scaled figure scales too; a figure whose clock reads
/// hold no access (the pair read after the load it was to time) does not grow at all.
/// More is no fault: an access may make more than one timed load (a value read remotely
/// and handed on through shared memory), and a wait timed whole grows by its spins. But
/// no figure the clock read grows by more than every warp's timed loads were held back by
/// together, over the figure's accesses: one that does was scaled up (1.5 times the
/// cycles passed every bar of the local rung's check). None when every figure grows so;
/// else why not, in a learner's words.
fn delays_followed(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    (limits, first, delays): (&Limits, Vec<Option<f64>>, &[String]),
) -> Result<Option<String>, Stopped> {
    let judged = |m: &crate::model::Measure| delays.contains(&m.name);
    if !clock_measures(small).any(|(_, m)| judged(m)) {
        return Ok(None);
    }
    let sites: Vec<u32> = (k.sites.iter())
        .filter(|s| s.timed && s.kind() == Some(AccessKind::Load))
        .filter(|s| s.space() != Some(Space::Param))
        .map(|s| s.id)
        .collect();
    let total = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let tweak = Tweak {
        timed_delay: Some(TimedDelay {
            sites,
            cycles: TIMED_DELAY,
            total: total.clone(),
        }),
        ..Tweak::clocks(1)
    };
    let mut p = run_small(k, small, v, inputs, (limits, tweak))?;
    let delayed = clock_figures(&mut p, small, v)?;
    let held = total.load(Ordering::Relaxed) as f64;
    for (((i, m), one), late) in clock_measures(small).zip(first).zip(delayed) {
        let (Some(one), Some(late)) = (one, late) else {
            continue;
        };
        if !judged(m) {
            continue;
        }
        let per = v.per.get(i).copied().unwrap_or(1.0);
        // A delay of cycles is fewer nanoseconds (`interp::block::NS_PER_KILOCYCLE`).
        let to_unit = match m.unit.as_str() {
            "ns" => NS_PER_KILOCYCLE as f64 / 1000.0,
            _ => 1.0,
        };
        let want = TIMED_DELAY as f64 * to_unit;
        // Every warp's delays over the figure's accesses: what the clock reads, summed
        // over every warp that timed, grows by no more.
        let most = held * to_unit / per.max(1.0);
        let grew = late - one;
        if grew > most * 1.02 + 1.0 / per.max(1.0) {
            return Ok(Some(format!(
                "measured.{}: with each timed load taking {want:.0} {} longer on the CPU \
                 interpreter's clock, the kernel's figure grew by {grew:.1}, more than the \
                 {most:.1} its timed loads were held back by in all, per access: a figure \
                 must be what the clock read, not scaled up",
                m.name, m.unit
            )));
        }
        if grew < want * 0.98 - 1.0 / per.max(1.0) {
            return Ok(Some(format!(
                "measured.{}: with each timed load taking {want:.0} {} longer on the CPU \
                 interpreter's clock, the kernel's figure grew by {grew:.1}, less than \
                 {want:.0} (at least one timed load an access): a figure must be what the \
                 clock read over the accesses it counts, not scaled down, nor read around \
                 none of them",
                m.name, m.unit
            )));
        }
    }
    Ok(None)
}

/// The verdict of a second run whose warps took their turns last to first (`again`), where
/// first to last the output came out right: wrong if it stopped or its output differs.
pub(super) fn in_the_other_order(
    small: &Lesson,
    again: Result<Placed, Stopped>,
    expected: &[(usize, HostData)],
    r: &mut VariantResult,
) {
    const WHY: &str = "with each block's warps taking their turns last to first instead of \
                       first to last; warps that hand values over through shared memory need \
                       something ordering them (a barrier, `__syncwarp()`, or a release store \
                       read by an acquire load)";
    judged_again(small, (again, expected), r, WHY, true);
}

/// Judge the run `again` made with each thread's first compare-and-swap on a word another
/// thread updated failing (`Launch::cas_interference`), as a GPU's does when the other
/// thread's update lands between: a kernel that drops the update then (a swap made once,
/// its result unchecked) leaves a wrong output, which `r` then says. A run that stops
/// tells nothing: a thread that waits for a claim's winner to finish (`atomicCAS(&state,
/// 0, 1)`, then a wait for `state == 2`) waits forever where the claim failed with no
/// winner, which a GPU's failing swap never leaves.
pub(super) fn with_swaps_failing(
    small: &Lesson,
    again: Result<Placed, Stopped>,
    expected: &[(usize, HostData)],
    r: &mut VariantResult,
) {
    const WHY: &str = "with each thread's first compare-and-swap on a word another thread \
                       updated failing, as one does on a GPU when the other thread's update \
                       lands between this thread's read and its swap: a swap that fails must \
                       be tried again with the value it returned (a loop until it succeeds), \
                       or the update is lost";
    judged_again(small, (again, expected), r, WHY, false);
}

/// `r` made wrong where the run `again`, made another way after a right output, left an
/// output other than `expected`, or (where `stops_count`) stopped; `why` says the other way.
fn judged_again(
    small: &Lesson,
    (again, expected): (Result<Placed, Stopped>, &[(usize, HostData)]),
    r: &mut VariantResult,
    why: &str,
    stops_count: bool,
) {
    let mut other = r.clone();
    match again.map(|mut q| judge(small, &mut q, expected, &mut other)) {
        Ok(Ok(())) if other.correct == Some(true) => {}
        Ok(Ok(())) => {
            let said = other.error.unwrap_or_default();
            let what = said.split_once("): ").map_or(said.as_str(), |(_, w)| w);
            r.correct = Some(false);
            r.error = Some(format!("wrong output ({LABEL}) {why}: {what}"));
        }
        Ok(Err(e)) if stops_count => failed(r, Stopped(e)),
        Err(Stopped(e)) if stops_count => {
            r.correct = Some(false);
            r.error = Some(format!("stopped ({LABEL}) {why}: {e}"));
        }
        Ok(Err(_)) | Err(_) => {}
    }
}

/// The share of `v`'s loads from `space` whose values reach the output: each load site of
/// the space runs perturbed in a run of its own over the same inputs (every value a lane
/// loads there reaches its register with bits flipped), and a site feeds the output when
/// any element of `plain` then changes. Sites are weighed by the lane values they loaded;
/// a site no lane ran weighs nothing. A run the perturbation stops (a value used as an
/// address, a loop bound) counts its site as feeding the output. A tree made for show,
/// its result masked away, feeds nothing, where the sum made elsewhere does.
///
/// A site a warp runs more than once (a loop) is then perturbed one execution at a time
/// (`executions_tried`): a loop over tiles whose every pass climbs the same tree, only
/// the last pass's result kept, feeds the output at one execution in many, and its site
/// weighs that share, where a loop whose every pass feeds keeps its whole weight.
///
/// Asked of atomics (`PerturbOf::Atomics`), each atomic site of the space runs with its
/// updates left out instead, and the same weighing gives the share of the updates that
/// reach the output: an add of zero, or a counter nobody reads, reaches none. Asked of
/// returns (`PerturbOf::Returns`), each call site runs with the value its callee returns
/// perturbed as it reaches the caller: a function called for show, its result masked
/// away while the caller does the work inline, feeds nothing (a call that returns nothing
/// weighs a word a lane, and feeds nothing).
pub(super) fn followed(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    limits: &Limits,
    (on, plain): (Perturbing, &[(usize, HostData)]),
    said: &mut dyn FnMut(usize, usize),
) -> Perturbed {
    let space = on.space;
    // A generic access counts where its lanes land in the space (a site whose lanes never
    // do perturbs nothing and weighs nothing).
    let kind_asked = |kind: AccessKind| match on.of {
        PerturbOf::Loads => kind == AccessKind::Load,
        PerturbOf::Atomics => kind.is_atomic(),
        PerturbOf::Returns | PerturbOf::Inputs | PerturbOf::TimedEnd | PerturbOf::TimedNext => {
            false
        }
    };
    let sites: Vec<_> = (k.sites.iter())
        .filter(|s| match s.event {
            Event::Access { space: sp, kind } => {
                (sp == space || sp == Space::Generic) && kind_asked(kind)
            }
            Event::Call => on.of == PerturbOf::Returns,
            _ => false,
        })
        .collect();
    let mut p = Perturbed::none(space, on.of, 0);
    let changed = |perturb: Perturb| changed_by(k, small, v, inputs, limits, plain, perturb);
    let seed = crate::worker::hostdata::fresh_seed();
    for (i, site) in sites.iter().enumerate() {
        // A kernel with many load sites takes many runs: each says it goes on, so that
        // the wait for a word does not take it for one that never ends.
        said(i + 1, sites.len());
        let (fed, n, most) = changed(Perturb::of(on, site.id));
        if n == 0 {
            continue;
        }
        p.sites += 1;
        p.loads += n;
        if !fed {
            continue;
        }
        // The executions tried, each weighed by the lane values it perturbed.
        let (mut tried, mut feeding) = (0u64, 0u64);
        for nth in executions_tried(most, seed ^ u64::from(site.id)) {
            let (fed, hits, _) = changed(Perturb {
                execution: Some(nth),
                ..Perturb::of(on, site.id)
            });
            tried += hits;
            feeding += if fed { hits } else { 0 };
        }
        let share = match tried {
            0 => n,
            t => (u128::from(n) * u128::from(feeding) / u128::from(t)) as u64,
        };
        if share > 0 {
            p.sites_feeding += 1;
        }
        p.feeding += share;
    }
    p
}

/// At most this many of a site's executions are perturbed one at a time.
const EXECUTIONS_TRIED: u32 = 4;

/// Whether the output changed from `plain` with `perturb`'s loads perturbed (a run that
/// stops, a pointer followed out of its buffer, changed it); the lane values it perturbed,
/// and the most executions of its sites a warp made.
pub(super) fn changed_by(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    limits: &Limits,
    plain: &[(usize, HostData)],
    perturb: Perturb,
) -> (bool, u64, u32) {
    let (hits, most) = (perturb.hits.clone(), perturb.most.clone());
    // A perturbed run that stops (a lock's release left out, so the next taker spins) is
    // a changed output, within a budget that ends it in seconds.
    let tweak = Tweak {
        clock_scale: 0,
        perturb: Some(perturb),
        budget: Some(super::RERUN_BUDGET),
        ..Tweak::default()
    };
    let changed = match run_small(k, small, v, inputs, (limits, tweak))
        .ok()
        .and_then(|mut run| outputs(small, &mut run).ok())
    {
        Some(now) => (plain.iter().zip(&now)).any(|((_, a), (_, b))| a.differing(b) > 0),
        None => true,
    };
    let most = most.load(Ordering::Relaxed).min(u64::from(u32::MAX)) as u32;
    (changed, hits.load(Ordering::Relaxed), most)
}

/// Which executions of a site run `most` times by some warp are perturbed one at a time:
/// none for a site run once (its run with every execution perturbed said it all), every
/// one up to `EXECUTIONS_TRIED`; past that the first and the last, which a loop that
/// keeps one pass's result cannot both have kept, and others drawn afresh from `seed`,
/// so that no pass in between is known to go untried.
pub(super) fn executions_tried(most: u32, seed: u64) -> Vec<u32> {
    if most <= 1 {
        return Vec::new();
    }
    executions_drawn(most, EXECUTIONS_TRIED, seed)
}

/// `count` of the executions 0 .. `most` (every one where there are no more): the first
/// and the last, and others drawn afresh from `seed`.
pub(super) fn executions_drawn(most: u32, count: u32, seed: u64) -> Vec<u32> {
    if most <= count {
        return (0..most).collect();
    }
    let mut tried = vec![0, most - 1];
    let mut x = seed;
    while tried.len() < count as usize {
        // splitmix64: a fresh draw per step of `x`.
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let nth = ((z ^ (z >> 31)) % u64::from(most)) as u32;
        if !tried.contains(&nth) {
            tried.push(nth);
        }
    }
    tried
}

#[cfg(test)]
mod tests {
    use super::executions_tried;

    #[test]
    fn a_site_run_often_is_tried_at_its_first_and_last_executions_and_fresh_others() {
        assert!(executions_tried(1, 7).is_empty());
        assert_eq!(executions_tried(3, 7), vec![0, 1, 2]);
        let a = executions_tried(64, 1);
        assert_eq!(a.len(), 4);
        assert_eq!(&a[..2], &[0, 63]);
        assert!(a.iter().all(|&n| n < 64));
        let mut distinct = a.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 4, "{a:?}");
        // Another seed draws other executions in between (not always the same passes).
        let drawn: std::collections::HashSet<Vec<u32>> = (0..20)
            .map(|s| executions_tried(64, s)[2..].to_vec())
            .collect();
        assert!(drawn.len() > 10, "{drawn:?}");
    }
}
