//! Second runs at the CPU size that test a variant whose output came out right: with its
//! clocks running faster (a figure it measures must be what its clock read), with its warps
//! taking their turns in the other order (warps that hand values over with nothing ordering
//! them), and with what one load site reads perturbed, a site at a time (how much of its
//! loading reaches the output).

use super::{LABEL, Stopped, Tweak, download, failed, judge, outputs, run_small};
use crate::interp::Kernel;
use crate::interp::block::{NS_PER_KILOCYCLE, Perturb, Seen, TimedDelay};
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
/// weighs nothing).
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
    let mut p = Perturbed {
        space,
        of: on.of,
        loads: 0,
        feeding: 0,
        sites: 0,
        sites_feeding: 0,
    };
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

/// How much of `v`'s timed loading from `space` chases what was drawn: the lesser of two
/// shares of its timed lane loads (at sites on the lines between two clock reads,
/// `Site::timed`), both kept by the interpreter word by word (`Observe`):
///
/// - those whose value follows the inputs: the run over `inputs` and one over inputs drawn
///   again each keep the word and value of every timed load; of the second run's loads at
///   a word the first run read too, those that found another value there. A fixed ring
///   chased for the clock, the drawn chain walked untimed for the output, finds the same
///   values, however the ring is laid out or entered.
/// - those whose address follows an earlier timed load's value: the run over `inputs` again
///   with one timed site's loaded values perturbed (bits flipped, every execution), the
///   site that moves most; a load whose address changed, or that the perturbed run never
///   made (it stopped: a pointer followed out of the buffer), follows. A sweep of the
///   chain's words in order, each load made to wait on the last by an arithmetic that
///   cancels, reads the drawn values and follows none.
///
/// `loads` is the first share's count, `feeding` as many of them as the lesser share
/// gives (`PerturbOf::Inputs`).
pub(super) fn timed_from_input(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    limits: &Limits,
    space: Space,
) -> Perturbed {
    let sites = timed_load_sites(k, space);
    let mut p = Perturbed {
        space,
        of: PerturbOf::Inputs,
        loads: 0,
        feeding: 0,
        sites: sites.len() as u32,
        sites_feeding: 0,
    };
    let observed = |inputs: &[HostData], perturb: Option<Perturb>| {
        observe_timed(k, (small, v, inputs, limits), (space, &sites), perturb)
    };
    if sites.is_empty() {
        return p;
    }
    let (first, whole) = observed(inputs, None);
    let again: Vec<HostData> = (small.buffers.iter())
        .map(|b| crate::worker::hostdata::generate(b, crate::worker::hostdata::fresh_seed()))
        .collect();
    let (second, again_whole) = observed(&again, None);
    if !whole || !again_whole || first.is_empty() {
        return p;
    }
    let words: crate::analysis::FastMap<u64, u64> =
        first.iter().map(|s| (s.address, s.value)).collect();
    for Seen { address, value, .. } in second {
        if let Some(&before) = words.get(&address) {
            p.loads += 1;
            p.feeding += u64::from(before != value);
        }
    }
    // The timed site whose perturbed values move the most timed addresses.
    let on = Perturbing {
        space,
        of: PerturbOf::Loads,
    };
    let followed = (sites.iter())
        .map(|&site| {
            let (moved, _) = observed(inputs, Some(Perturb::of(on, site)));
            let same = (first.iter().zip(&moved))
                .filter(|(a, b)| a.address == b.address)
                .count();
            (first.len() - same) as f64 / first.len() as f64
        })
        .fold(0.0, f64::max);
    let chased = (p.loads as f64 * followed).floor() as u64;
    p.feeding = p.feeding.min(chased);
    p.sites_feeding = u32::from(p.feeding > 0);
    p
}

/// The timed loads of `space` at `sites` a run keeps (with `perturb`'s loads perturbed),
/// and whether it ran to its end.
fn observe_timed(
    k: &Kernel,
    (small, v, inputs, limits): (&Lesson, &Variant, &[HostData], &Limits),
    (space, sites): (Space, &[u32]),
    perturb: Option<Perturb>,
) -> (Vec<Seen>, bool) {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let tweak = Tweak {
        observe: Some(crate::interp::block::Observe {
            space,
            sites: sites.to_vec(),
            seen: seen.clone(),
        }),
        perturb,
        ..Tweak::default()
    };
    let whole = run_small(k, small, v, inputs, (limits, tweak)).is_ok();
    let mut kept = seen.lock().unwrap_or_else(|e| e.into_inner());
    (std::mem::take(&mut *kept), whole)
}

/// How much of `v`'s timed loading from `space` the next timed load waits on: of a warp's
/// timed loads (across the timed sites, `Site::timed`), some drawn one at a time run with
/// their values perturbed (bits flipped), and the warp's next timed load compared with
/// the plain run's: where its addresses moved, or it was never made (the run stopped on
/// a pointer followed out of its buffer), it waited on the perturbed one
/// (`PerturbOf::TimedNext`). A chase's every step waits on the one before, so the steps
/// are as many latencies one after the other; a chase that overlaps its steps (a chain
/// of every second node, each step beside a load of the node between that nothing waits
/// on, or two chases interleaved) has half of them or none waited on, and its clock
/// times half the latencies or fewer. `loads` counts the perturbed loads' lanes,
/// `feeding` those whose next load moved.
pub(super) fn timed_next(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    limits: &Limits,
    space: Space,
) -> Perturbed {
    let sites = timed_load_sites(k, space);
    let mut p = Perturbed {
        space,
        of: PerturbOf::TimedNext,
        loads: 0,
        feeding: 0,
        sites: sites.len() as u32,
        sites_feeding: 0,
    };
    if sites.is_empty() {
        return p;
    }
    let run = |perturb: Option<Perturb>| {
        observe_timed(k, (small, v, inputs, limits), (space, &sites), perturb)
    };
    let (first, whole) = run(None);
    if !whole || first.is_empty() {
        return p;
    }
    // Each warp's timed loads by their order: the addresses of their lanes.
    let by_nth = |seen: &[Seen]| {
        let mut m: std::collections::BTreeMap<((u32, u32), u32), Vec<u64>> = Default::default();
        for s in seen {
            m.entry((s.warp, s.nth)).or_default().push(s.address);
        }
        m
    };
    let plain = by_nth(&first);
    let most = plain.keys().map(|&(_, n)| n + 1).max().unwrap_or(0);
    // The last of a warp's loads has no next one to wait on it.
    let seed = crate::worker::hostdata::fresh_seed();
    for nth in executions_drawn(most.saturating_sub(1), NEXT_TRIED, seed) {
        let perturb = Perturb {
            sites: Some(sites.clone()),
            execution: Some(nth),
            ..Perturb::site(space, 0)
        };
        let (moved, _) = run(Some(perturb));
        let moved = by_nth(&moved);
        for ((warp, _), lanes) in plain.iter().filter(|((_, n), _)| *n == nth) {
            let Some(next) = plain.get(&(*warp, nth + 1)) else {
                continue;
            };
            p.loads += lanes.len() as u64;
            if moved.get(&(*warp, nth + 1)) != Some(next) {
                p.feeding += lanes.len() as u64;
            }
        }
    }
    p.sites_feeding = u32::from(p.feeding > 0);
    p
}

/// Timed loads of a warp perturbed one at a time by `timed_next`: enough that a chase
/// with every second step left unwaited on (half its loads) reads at most 90% with odds
/// of about one in four thousand, and one in four left (three quarters) about one in ten.
const NEXT_TRIED: u32 = 16;

/// At most this many of a site's executions are perturbed one at a time.
const EXECUTIONS_TRIED: u32 = 4;

/// The load sites on a kernel's timed lines (between two clock reads) that may read
/// `space` (a generic address may land there).
fn timed_load_sites(k: &Kernel, space: Space) -> Vec<u32> {
    (k.sites.iter())
        .filter(|s| s.timed && s.kind() == Some(AccessKind::Load))
        .filter(|s| matches!(s.space(), Some(sp) if sp == space || sp == Space::Generic))
        .map(|s| s.id)
        .collect()
}

/// Whether the output changed from `plain` with `perturb`'s loads perturbed (a run that
/// stops, a pointer followed out of its buffer, changed it); the lane values it perturbed,
/// and the most executions of its sites a warp made.
fn changed_by(
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

/// Whether the end of `v`'s timed loading from `space` reaches its output
/// (`PerturbOf::TimedEnd`): its timed load sites (`Site::timed`) are counted as one, and
/// the run over `inputs` is made again with only each warp's last of those loads
/// perturbed (the last of the warp that made the most). A chase timed for the clock
/// writes where it ended, and the output changes; a timed walk whose end is dropped, the
/// output taken from another chase run untimed, changes nothing. Perturbing an earlier
/// load would tell nothing here: the pointers after it leave the buffer, and a run that
/// stops counts as changed.
pub(super) fn timed_end(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    limits: &Limits,
    (on, plain): (Perturbing, &[(usize, HostData)]),
) -> Perturbed {
    let space = on.space;
    let sites = timed_load_sites(k, space);
    let mut p = Perturbed {
        space,
        of: PerturbOf::TimedEnd,
        loads: 0,
        feeding: 0,
        sites: sites.len() as u32,
        sites_feeding: 0,
    };
    let timed = |execution: Option<u32>| Perturb {
        sites: Some(sites.clone()),
        execution,
        ..Perturb::of(
            Perturbing {
                space,
                of: PerturbOf::Loads,
            },
            0,
        )
    };
    if sites.is_empty() {
        return p;
    }
    // A run that counts the timed loads a warp makes and perturbs none (an execution no
    // warp reaches): perturbed, a pointer would stop the run at its first.
    let (_, _, most) = changed_by(k, small, v, inputs, limits, plain, timed(Some(u32::MAX)));
    if most == 0 {
        return p;
    }
    let (fed, hits, _) = changed_by(k, small, v, inputs, limits, plain, timed(Some(most - 1)));
    p.loads = hits;
    if fed {
        p.feeding = hits;
        p.sites_feeding = 1;
    }
    p
}

/// Which executions of a site run `most` times by some warp are perturbed one at a time:
/// none for a site run once (its run with every execution perturbed said it all), every
/// one up to `EXECUTIONS_TRIED`; past that the first and the last, which a loop that
/// keeps one pass's result cannot both have kept, and others drawn afresh from `seed`,
/// so that no pass in between is known to go untried.
fn executions_tried(most: u32, seed: u64) -> Vec<u32> {
    if most <= 1 {
        return Vec::new();
    }
    executions_drawn(most, EXECUTIONS_TRIED, seed)
}

/// `count` of the executions 0 .. `most` (every one where there are no more): the first
/// and the last, and others drawn afresh from `seed`.
fn executions_drawn(most: u32, count: u32, seed: u64) -> Vec<u32> {
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
    use super::{NEXT_TRIED, executions_drawn, executions_tried};

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

    /// `timed_next` draws its loads as `executions_tried` does, 16 of them: every one of a
    /// short chase, and of a long one the first, the last given and others, all distinct.
    #[test]
    fn the_loads_a_serial_check_perturbs_are_distinct_and_within_the_chase() {
        assert!(executions_drawn(0, NEXT_TRIED, 3).is_empty());
        assert_eq!(executions_drawn(5, NEXT_TRIED, 3), vec![0, 1, 2, 3, 4]);
        let a = executions_drawn(9999, NEXT_TRIED, 3);
        assert_eq!(a.len(), NEXT_TRIED as usize);
        assert_eq!(&a[..2], &[0, 9998]);
        let mut distinct = a.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), a.len(), "{a:?}");
        assert!(a.iter().all(|&n| n < 9999));
    }
}
