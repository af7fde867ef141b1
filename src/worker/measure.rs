//! What the worker adds for the lesson keys beyond the first format: `__constant__` symbols
//! filled from buffers, and the figures a kernel measures itself, summarised per variant.

use super::hostdata::HostData;
use super::launch::Buffers;
use crate::cuda::error::CudaError;
use crate::cuda::module::Module;
use crate::model::results::VariantResult;
use crate::model::{ElemType, Lesson, Measure, Measured, Summary, Variant};
use std::collections::BTreeMap;

/// A symbol that cannot take its buffer, in words naming both; None when every constant
/// was filled. Kernels never write `__constant__` memory, so one fill serves every launch
/// of the module (the check, the timed runs).
pub fn fill_constants(
    lesson: &Lesson,
    v: &Variant,
    module: &Module,
    bufs: &Buffers,
) -> Result<Option<String>, CudaError> {
    for c in &v.constants {
        let b = &lesson.buffers[c.buffer];
        let data = bufs.host_inputs[c.buffer].to_le_bytes();
        let mut g = match module.global(&c.symbol) {
            Ok(g) => g,
            // Not a broken context: the compiled module lacks the symbol (a namespace
            // mangled its name, or the kernel never reads it and it was dropped).
            Err(e) if !e.is_sticky() => {
                return Ok(Some(format!(
                    "the compiled kernel has no __constant__ `{}` to fill from `{}` (declare it \
                     at file scope, outside any namespace, and read it in the kernel): {e}",
                    c.symbol, b.name
                )));
            }
            Err(e) => return Err(e),
        };
        if g.bytes() != data.len() {
            return Ok(Some(format!(
                "__constant__ `{}` is {} bytes but buffer `{}` holds {} bytes ({} × {:?}); \
                 they must be the same size",
                c.symbol,
                g.bytes(),
                b.name,
                data.len(),
                b.len,
                b.ty
            )));
        }
        g.set_bytes(&data)?;
    }
    Ok(None)
}

/// Why a measure has no figure, or none to trust.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasureError {
    #[error("measured.{name}: the kernel wrote no element of `{buffer}`")]
    NothingWritten { name: String, buffer: String },
    #[error(
        "measured.{name}: the kernel's own clock says {said:.0} {unit} for what it timed, more \
         than its whole launch could hold ({held:.0} {unit}: {ms:.3} ms by the GPU's events); \
         a figure must be what the clock read, not scaled or made up"
    )]
    BeyondTheLaunch {
        name: String,
        unit: String,
        said: f64,
        held: f64,
        ms: f64,
    },
}

/// The checked launch as the GPU's events timed it, and the SM clock's peak.
#[derive(Debug, Clone, Copy)]
pub struct Launch {
    pub ms: f64,
    pub clock_khz: Option<u32>,
}

/// The most a kernel's own reading in `unit` can be within a launch of `launch.ms`: its
/// span lies inside the launch, and `clock64` counts at most the SM clock's peak. A slack
/// for the timers' resolution (`%globaltimer` ticks every microsecond on some GPUs, the
/// events about every half). None for a unit that is not a clock's.
pub fn most_held(unit: &str, launch: Launch) -> Option<f64> {
    let ns = launch.ms * 1e6;
    match unit {
        "ns" => Some(ns * 1.02 + 2000.0),
        "cycles" => (launch.clock_khz).map(|k| ns * f64::from(k) * 1e-6 * 1.05 + 4000.0),
        _ => None,
    }
}

/// Read every measure's buffer after the checked launch and put its figure in `r`. A clock
/// measure whose largest reading is more than the launch could hold is an error too: a
/// kernel that scales or invents its timings (a warm chase reported three times over
/// passes for a cold one) is caught by the GPU's own timing of the same launch.
pub fn read_measures(
    lesson: &Lesson,
    v: &Variant,
    (bufs, launch): (&Buffers, Launch),
    r: &mut VariantResult,
) -> Result<Vec<MeasureError>, CudaError> {
    let (figures, errors) = read_figures(lesson, v, (bufs, launch))?;
    r.measured.extend(figures);
    Ok(errors)
}

/// Every measure's figure after one launch of `v`, and what is wrong with them.
fn read_figures(
    lesson: &Lesson,
    v: &Variant,
    (bufs, launch): (&Buffers, Launch),
) -> Result<(BTreeMap<String, Measured>, Vec<MeasureError>), CudaError> {
    let mut figures = BTreeMap::new();
    let mut errors = Vec::new();
    for (k, m) in lesson.measures.iter().enumerate() {
        let data = bufs.download(lesson, m.buffer)?;
        let ty = lesson.buffers[m.buffer].ty;
        // A define may change how many accesses one figure covers.
        let per = v.per.get(k).copied().unwrap_or(1.0);
        match figure(m, &data, ty, per) {
            Some(value) => {
                let unit = m.unit.clone();
                figures.insert(m.name.clone(), Measured { value, unit });
            }
            None => errors.push(MeasureError::NothingWritten {
                name: m.name.clone(),
                buffer: lesson.buffers[m.buffer].name.clone(),
            }),
        }
        let Some(held) = most_held(&m.unit, launch) else {
            continue;
        };
        let largest = Measure {
            summary: Summary::Max,
            ..m.clone()
        };
        if let Some(said) = figure(&largest, &data, ty, 1.0).filter(|&x| x > held) {
            errors.push(MeasureError::BeyondTheLaunch {
                name: m.name.clone(),
                unit: m.unit.clone(),
                said,
                held,
                ms: launch.ms,
            });
        }
    }
    Ok((figures, errors))
}

/// The figures of every counted timed run, and the first thing wrong with any of them:
/// the result keeps each figure's median over the runs, as the time is their median.
#[derive(Debug, Default)]
pub struct PerRun {
    figures: BTreeMap<String, (Vec<f64>, String)>,
    wrong: Option<MeasureError>,
}

impl PerRun {
    /// What the run just ended left in the measures' buffers.
    pub fn read(
        &mut self,
        lesson: &Lesson,
        v: &Variant,
        at: (&Buffers, Launch),
    ) -> Result<(), CudaError> {
        let (figures, errors) = read_figures(lesson, v, at)?;
        self.push(figures, errors);
        Ok(())
    }

    fn push(&mut self, figures: BTreeMap<String, Measured>, errors: Vec<MeasureError>) {
        for (name, m) in figures {
            let entry = self
                .figures
                .entry(name)
                .or_insert_with(|| (Vec::new(), m.unit));
            entry.0.push(m.value);
        }
        if self.wrong.is_none() {
            self.wrong = errors.into_iter().next();
        }
    }

    /// The medians into `r`, in place of the checked launch's figures; a figure beyond its
    /// run (a kernel that reports honestly only on its first launch) makes `r` wrong.
    pub fn into_result(self, r: &mut VariantResult) {
        for (name, (mut xs, unit)) in self.figures {
            if let Some(value) = summarise(Summary::Median, &mut xs) {
                r.measured.insert(name, Measured { value, unit });
            }
        }
        if let Some(e) = self.wrong {
            r.correct = Some(false);
            let said = format!("wrong output in a timed run: {e}");
            r.error = Some(match r.error.take() {
                Some(before) => format!("{before}; {said}"),
                None => said,
            });
        }
    }
}

/// The summary of the elements the kernel wrote, divided by `per`. Elements still holding
/// the poison were not written (a kernel may time one lane per warp) and are left out.
pub fn figure(m: &Measure, data: &HostData, ty: ElemType, per: f64) -> Option<f64> {
    let p = ty.poison_bits();
    let p64 = (u64::from(p) << 32) | u64::from(p);
    let mut xs: Vec<f64> = match data {
        HostData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        HostData::F64(v) => v.to_vec(),
        HostData::I32(v) => v
            .iter()
            .filter(|&&x| x as u32 != p)
            .map(|&x| x.into())
            .collect(),
        HostData::U32(v) => v.iter().filter(|&&x| x != p).map(|&x| x.into()).collect(),
        HostData::U64(v) => v.iter().filter(|&&x| x != p64).map(|&x| x as f64).collect(),
    };
    // Float poison is a NaN, and a NaN figure says nothing either.
    xs.retain(|x| !x.is_nan());
    summarise(m.summary, &mut xs).map(|s| s / per)
}

fn summarise(summary: Summary, xs: &mut [f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    Some(match summary {
        Summary::Min => xs[0],
        Summary::Max => xs[n - 1],
        Summary::Mean => xs.iter().sum::<f64>() / n as f64,
        Summary::Median if n % 2 == 1 => xs[n / 2],
        Summary::Median => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(summary: Summary) -> Measure {
        Measure {
            name: "cycles".into(),
            buffer: 0,
            summary,
            unit: "cycles".into(),
        }
    }

    #[test]
    fn unwritten_elements_are_left_out_and_the_divisor_applies() {
        let p = 0xDEAD_BEEF_DEAD_BEEF;
        let d = HostData::U64(vec![100, p, 300, 200, p]);
        let f = |s| figure(&measure(s), &d, ElemType::U64, 2.0);
        assert_eq!(f(Summary::Median), Some(100.0));
        assert_eq!(f(Summary::Mean), Some(100.0));
        assert_eq!(f(Summary::Min), Some(50.0));
        assert_eq!(f(Summary::Max), Some(150.0));
        let even = HostData::F32(vec![1.0, f32::NAN, 3.0, 2.0, 4.0]);
        let m = measure(Summary::Median);
        assert_eq!(figure(&m, &even, ElemType::F32, 1.0), Some(2.5));
        let none = HostData::U32(vec![0xDEAD_BEEF; 3]);
        assert_eq!(figure(&m, &none, ElemType::U32, 1.0), None);
    }

    #[test]
    fn a_clock_reading_is_bounded_by_the_launch_that_held_it() {
        let launch = Launch {
            ms: 0.5,
            clock_khz: Some(1_980_000),
        };
        // 0.5 ms: 500,000 ns and, at 1.98 GHz, 990,000 cycles, with their slack.
        let ns = most_held("ns", launch).unwrap();
        assert!((510_000.0..=512_000.0).contains(&ns), "{ns}");
        let cycles = most_held("cycles", launch).unwrap();
        assert!((1_030_000.0..=1_045_000.0).contains(&cycles), "{cycles}");
        // A warm chase of 0.45 ms reported three times over is beyond it.
        assert!(3.0 * 0.45e6 > ns && 3.0 * 0.45e6 * 1.98 > cycles);
        // No clock known: cycles are not bounded; a unit that is not a clock's never is.
        let unknown = Launch {
            clock_khz: None,
            ..launch
        };
        assert_eq!(most_held("cycles", unknown), None);
        assert_eq!(most_held("bytes", launch), None);
        // A short launch keeps the timers' slack.
        let short = Launch { ms: 0.0, ..launch };
        assert_eq!(most_held("ns", short), Some(2000.0));
    }

    #[test]
    fn timed_runs_keep_each_figures_median_and_a_run_beyond_its_launch_is_wrong() {
        let at = |value: f64| {
            let m = Measured {
                value,
                unit: "cycles".into(),
            };
            BTreeMap::from([("cycles_per_access".to_string(), m)])
        };
        let mut runs = PerRun::default();
        // A clock that settles: the first run's figure is the odd one out.
        for x in [992.0, 694.0, 691.0, 697.0, 693.0] {
            runs.push(at(x), Vec::new());
        }
        // The checked launch read the odd one out; the runs' median takes its place.
        let mut r = VariantResult {
            correct: Some(true),
            measured: at(992.0),
            ..Default::default()
        };
        runs.into_result(&mut r);
        assert_eq!(r.measured["cycles_per_access"].value, 694.0);
        assert_eq!(r.correct, Some(true));
        let mut runs = PerRun::default();
        runs.push(at(700.0), Vec::new());
        let beyond = MeasureError::BeyondTheLaunch {
            name: "cycles_per_access".into(),
            unit: "cycles".into(),
            said: 3e6,
            held: 1e6,
            ms: 0.5,
        };
        runs.push(at(2100.0), vec![beyond]);
        let mut r = VariantResult::default();
        runs.into_result(&mut r);
        assert_eq!(r.correct, Some(false));
        assert!(
            r.error.as_deref().unwrap().contains("timed run"),
            "{:?}",
            r.error
        );
    }

    #[test]
    fn bytes_are_little_endian_as_on_the_gpu() {
        assert_eq!(
            HostData::U32(vec![1, 0x0102_0304]).to_le_bytes(),
            [1, 0, 0, 0, 4, 3, 2, 1]
        );
        assert_eq!(HostData::F32(vec![1.0]).to_le_bytes(), 1.0f32.to_le_bytes());
        let back = HostData::from_le_bytes(ElemType::U32, &[1, 0, 0, 0, 4, 3, 2, 1]);
        assert_eq!(back, HostData::U32(vec![1, 0x0102_0304]));
    }
}
