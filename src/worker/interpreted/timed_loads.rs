//! Second runs at the CPU size that test what a variant times: its timed loads (at sites on
//! the lines between two clock reads, `Site::timed`), kept word by word by the interpreter
//! (`Observe`) or perturbed, tell whether the timed loading chases what was drawn
//! (`timed_from_input`), whether each timed load waits on the one before
//! (`timed_next`), and whether the chase's end reaches the output (`timed_end`).

use super::reruns::{changed_by, executions_drawn};
use super::{Tweak, run_small};
use crate::interp::Kernel;
use crate::interp::block::{Perturb, Seen};
use crate::interp::limits::Limits;
use crate::model::access::{AccessKind, Space};
use crate::model::results::{PerturbOf, Perturbed, Perturbing};
use crate::model::{Lesson, Variant};
use crate::worker::hostdata::HostData;

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
    let mut p = Perturbed::none(space, PerturbOf::Inputs, sites.len() as u32);
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
    let mut p = Perturbed::none(space, PerturbOf::TimedNext, sites.len() as u32);
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

/// The load sites on a kernel's timed lines (between two clock reads) that may read
/// `space` (a generic address may land there).
fn timed_load_sites(k: &Kernel, space: Space) -> Vec<u32> {
    (k.sites.iter())
        .filter(|s| s.timed && s.kind() == Some(AccessKind::Load))
        .filter(|s| matches!(s.space(), Some(sp) if sp == space || sp == Space::Generic))
        .map(|s| s.id)
        .collect()
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
    let mut p = Perturbed::none(space, PerturbOf::TimedEnd, sites.len() as u32);
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

#[cfg(test)]
mod tests {
    use super::{NEXT_TRIED, executions_drawn};

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
