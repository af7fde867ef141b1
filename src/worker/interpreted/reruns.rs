//! Second runs at the CPU size that test a variant whose output came out right: with its
//! clocks running faster (a figure it measures must be what its clock read), and with what
//! one load site reads perturbed, a site at a time (how much of its loading reaches the
//! output).

use super::{Stopped, Tweak, download, outputs, run_small};
use crate::interp::Kernel;
use crate::interp::block::Perturb;
use crate::interp::lesson::Placed;
use crate::interp::limits::Limits;
use crate::model::access::{AccessKind, Space};
use crate::model::results::Perturbed;
use crate::model::{Lesson, Variant};
use crate::trace::instrument::Event;
use crate::worker::hostdata::HostData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
    (limits, first): (&Limits, Vec<Option<f64>>),
) -> Result<Option<String>, Stopped> {
    if first.is_empty() {
        return Ok(None);
    }
    let mut p = run_small(k, small, v, inputs, (limits, Tweak::clocks(CLOCK_SCALE)))?;
    let faster = clock_figures(&mut p, small, v)?;
    for (((i, m), one), more) in clock_measures(small).zip(first).zip(faster) {
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
    Ok(None)
}

/// The share of `v`'s loads from `space` whose values reach the output: each load site of
/// the space runs perturbed in a run of its own over the same inputs (every value a lane
/// loads there reaches its register with bits flipped), and a site feeds the output when
/// any element of `plain` then changes. Sites are weighed by the lane values they loaded;
/// a site no lane ran weighs nothing. A run the perturbation stops (a value used as an
/// address, a loop bound) counts its site as feeding the output. A tree made for show,
/// its result masked away, feeds nothing, where the sum made elsewhere does.
pub(super) fn followed(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    limits: &Limits,
    (space, plain): (Space, &[(usize, HostData)]),
) -> Perturbed {
    // A generic load counts where its lanes land in the space (a site whose lanes never
    // do perturbs nothing and weighs nothing).
    let sites = (k.sites.iter()).filter(|s| {
        matches!(
            s.event,
            Event::Access {
                space: sp,
                kind: AccessKind::Load,
            } if sp == space || sp == Space::Generic
        )
    });
    let mut p = Perturbed {
        space,
        loads: 0,
        feeding: 0,
        sites: 0,
        sites_feeding: 0,
    };
    for site in sites {
        let hits = Arc::new(AtomicU64::new(0));
        let tweak = Tweak {
            clock_scale: 0,
            perturb: Some(Perturb {
                space,
                site: Some(site.id),
                hits: hits.clone(),
            }),
        };
        let changed = match run_small(k, small, v, inputs, (limits, tweak))
            .ok()
            .and_then(|mut run| outputs(small, &mut run).ok())
        {
            Some(now) => (plain.iter().zip(&now)).any(|((_, a), (_, b))| a.differing(b) > 0),
            None => true,
        };
        let n = hits.load(Ordering::Relaxed);
        if n == 0 {
            continue;
        }
        p.sites += 1;
        p.loads += n;
        if changed {
            p.sites_feeding += 1;
            p.feeding += n;
        }
    }
    p
}
