//! A lesson run on the CPU interpreter, answering as a GPU run does: each variant compiled
//! (the ptxas report comes from NVRTC, no GPU needed), its output checked at the lesson's
//! CPU size against the reference, its sampled blocks traced at the lesson's size. No
//! times, bandwidth or occupancy from the driver: they need a GPU and stay absent.

use super::Sink;
use crate::model::results::Failure;
use std::thread::{Scope, ScopedJoinHandle};

use super::compile::{compile_cached, compile_checked, compile_job};
use super::hostdata::{self, HostData};
use super::outputs;
use super::runner::{refuse_all, run_order, wanted};
use crate::analysis::fingerprint::blank_result;
use crate::analysis::limits::{check_memory, size};
use crate::cuda::nvrtc::Output;
use crate::interp::block::Perturb;
use crate::interp::lesson::{self, CpuError, Placed};
use crate::interp::limits::{Budget, DEFAULT_BUDGET, GPU_MEMORY, Limits};
use crate::interp::{Halt, Kernel, Plan, prepare};
use crate::model::protocol::{CpuRun, Reply, RunOptions};
use crate::model::results::{MemoryStats, PerturbOf, VariantResult};
use crate::model::target::{Gpus, target};
use crate::model::{Lesson, Reference, Variant};
use crate::trace::instrument::Site;

mod reruns;
mod timed_loads;

/// What the CPU run says in place of a GPU's figures.
pub const LABEL: &str = "run on the CPU interpreter";

/// Why a variant's whole-grid run on the interpreter stopped, said as a CPU run.
#[derive(Debug, thiserror::Error)]
#[error("{label}: {0}", label = LABEL)]
struct Stopped(CpuError);

fn stage(send: Sink, v: &Variant, s: &str) {
    send(Reply::Stage {
        variant: v.name.clone(),
        stage: s.to_string(),
    });
}

/// The environment variable that sets the interpreter's memory budget.
pub const BUDGET_VAR: &str = "GPULAB_CPU_MEMORY";

/// Why the budget the environment asks for is not one.
#[derive(Debug, thiserror::Error)]
#[error("{BUDGET_VAR}=`{0}` is not a size: write bytes, or a number with K, M, G or T (4G, 512M)")]
pub struct BadBudget(String);

/// The memory budget of an interpreted run: `GPULAB_CPU_MEMORY` (bytes, or with a K, M, G or
/// T suffix, powers of 1024), else `DEFAULT_BUDGET`.
pub fn budget_from_env() -> Result<Budget, BadBudget> {
    match std::env::var(BUDGET_VAR) {
        Ok(text) => parse_size(&text).map(Budget::new).ok_or(BadBudget(text)),
        Err(_) => Ok(Budget::new(DEFAULT_BUDGET)),
    }
}

/// `4G`, `512M`, `4GiB`, `1048576` as bytes.
fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.char_indices().last()? {
        (i, 'k' | 'K') => (&t[..i], 10),
        (i, 'm' | 'M') => (&t[..i], 20),
        (i, 'g' | 'G') => (&t[..i], 30),
        (i, 't' | 'T') => (&t[..i], 40),
        _ => (t, 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Host memory a check at the CPU size takes beyond the pages the runs make (which draw
/// on the budget as they are made): every buffer's data as generated, each input again as
/// the bytes a run reads, for the variant's run and the reference's beside it, and each
/// output three times (expected, read back, compared).
fn check_bytes(small: &Lesson) -> u64 {
    let (mut all, mut outs) = (0u64, 0u64);
    for b in &small.buffers {
        all = all.saturating_add(b.bytes());
        if b.is_output() {
            outs = outs.saturating_add(b.bytes());
        }
    }
    all.saturating_mul(3).saturating_add(outs.saturating_mul(3))
}

/// Gives bytes taken from a budget back when the run is over, however it ends.
struct GiveBack<'a>(&'a Budget, u64);

impl Drop for GiveBack<'_> {
    fn drop(&mut self) {
        self.0.give(self.1);
    }
}

/// Every variant asked for, the reference first; outputs checked at the sizes `cpu` gives.
pub fn run_lesson(lesson: &Lesson, cpu: &CpuRun, opts: &RunOptions, send: Sink) {
    // No GPU says otherwise: the default the interpreter models.
    let arch = target(Some(lesson), &Gpus::default()).arch;
    let budget = match budget_from_env() {
        Ok(b) => b,
        Err(e) => {
            send(Reply::Error {
                message: format!("{LABEL}: {e}"),
            });
            return;
        }
    };
    let limits = Limits::for_arch(&arch, budget);
    // The buffers at the lesson's size, against the GPU the interpreter models, as a GPU
    // run checks them against its own.
    if let Err(why) = check_memory(lesson, GPU_MEMORY, None) {
        let why = format!("{LABEL}: {why} (the interpreter models an H100)");
        refuse_all(lesson, opts, &why, send);
        return;
    }
    let small = match cpu.check.as_ref().map(|s| s.apply(lesson)) {
        Some(Ok(small)) => small,
        Some(Err(e)) => {
            send(Reply::Error {
                message: format!("{LABEL}: {e}"),
            });
            return;
        }
        None => lesson.clone(),
    };
    let small = &small;
    // Taken from the budget for the whole run: the pages the runs make get what is left.
    let need = check_bytes(small).min(u64::MAX / 2) * u64::from(cpu.check.is_some());
    if !limits.budget.take(need) {
        let why = format!(
            "{LABEL}: the check at the `problem_cpu` sizes needs about {} of host memory for \
             its buffers' data, more than the interpreter's memory budget of {} ({BUDGET_VAR} \
             sets it; smaller `problem_cpu` sizes need less)",
            size(need),
            size(limits.budget.total())
        );
        refuse_all(lesson, opts, &why, send);
        return;
    }
    let _given_back = GiveBack(&limits.budget, need);
    let limits = &limits;
    let checking = cpu.check.is_some();
    // Inputs only for a check: at the lesson's size they can be GiBs.
    let inputs: Vec<HostData> = (small.buffers.iter())
        .filter(|_| checking)
        .map(|b| hostdata::generate(b, hostdata::fresh_seed()))
        .collect();
    std::thread::scope(|scope| {
        let mut expected = Vec::new();
        let mut pending = match checking {
            true => small_reference(scope, small, limits, &inputs, &mut expected, send),
            false => None,
        };
        // The reference variant's name, once its run came out right.
        let mut reference: Option<String> = None;
        for i in run_order(lesson, opts) {
            let v = &lesson.variants[i];
            let shown = wanted(opts, &v.name);
            if !shown && pending.as_ref().is_some_and(|p| p.0 == v.name) {
                // A reference no one asked to see (an exercise's solution) runs on its
                // thread while the variants that were asked for run here.
                continue;
            }
            let mut r = blank_result(lesson, v);
            if let Some(t) = v.transfer {
                // Not a failure: the interpreter runs kernels, and a copy over the link is
                // the machine's work, not a kernel's; the recording's figures stand.
                r.unmet = Some(format!(
                    "{} is a copy over the PCIe link: only a GPU runs it (the CPU interpreter runs kernels)",
                    t.describe()
                ));
                if shown {
                    send(Reply::Variant {
                        result: Box::new(r),
                    });
                }
                continue;
            }
            let traced = opts.trace && shown;
            let Some(k) = build(lesson, v, &arch, (&mut r, traced), send) else {
                if shown {
                    send(Reply::Variant {
                        result: Box::new(r),
                    });
                }
                continue;
            };
            match small.variant(&v.name).filter(|_| checking) {
                Some(_)
                    if pending.as_ref().is_some_and(|p| p.0 == v.name)
                        || reference.as_deref() == Some(v.name.as_str()) =>
                {
                    match settle(&mut pending, &mut expected, &mut reference) {
                        Some(e) => failed(&mut r, e),
                        None => r.correct = Some(true),
                    }
                }
                Some(sv) => {
                    stage(send, v, "checking the output on the CPU interpreter");
                    // Where the clock figures are checked, this run's clocks read the
                    // block's steps: it is the first of the two runs compared.
                    let scale = u64::from(opts.clock_checked);
                    let ran = run_small(&k, small, sv, &inputs, (limits, Tweak::clocks(scale)));
                    // A failed reference leaves nothing to compare with, which `judge` says,
                    // and why it failed (a solution that samples a texture needs a GPU).
                    let unreferenced = settle(&mut pending, &mut expected, &mut reference);
                    let mut first = None;
                    let mut plain = None;
                    match ran {
                        Ok(mut p) => {
                            r.tolerance = small.tolerance;
                            if let Err(e) = judge(small, &mut p, &expected, &mut r) {
                                failed(&mut r, Stopped(e));
                            }
                            if let (Some(Stopped(e)), Some(said)) = (&unreferenced, &mut r.check) {
                                said.push_str(&format!(" (the reference stopped: {e})"));
                            }
                            if opts.order_checked && r.correct == Some(true) {
                                stage(
                                    send,
                                    v,
                                    "checking the output with its warps in the other order \
                                     on the CPU interpreter",
                                );
                                let tweak = Tweak {
                                    reverse_warps: true,
                                    ..Tweak::clocks(scale)
                                };
                                let again = run_small(&k, small, sv, &inputs, (limits, tweak));
                                reruns::in_the_other_order(small, again, &expected, &mut r);
                            }
                            if opts.swaps_checked && r.correct == Some(true) && swaps(&k) {
                                stage(
                                    send,
                                    v,
                                    "checking the output with compare-and-swaps failing \
                                     where another thread updated the word, on the CPU \
                                     interpreter",
                                );
                                let tweak = Tweak {
                                    cas_interference: Some(Default::default()),
                                    // A claim that waits for its winner waits forever when
                                    // no one won: a stop here says nothing (`with_swaps_failing`).
                                    budget: Some(RERUN_BUDGET),
                                    ..Tweak::clocks(scale)
                                };
                                let again = run_small(&k, small, sv, &inputs, (limits, tweak));
                                reruns::with_swaps_failing(small, again, &expected, &mut r);
                            }
                            if opts.clock_checked && r.correct == Some(true) {
                                first = Some(reruns::clock_figures(&mut p, small, sv));
                            }
                            if !opts.perturb.is_empty() && r.correct == Some(true) {
                                plain = outputs(small, &mut p).ok();
                            }
                        }
                        Err(e) => failed(&mut r, e),
                    }
                    // A run of its own for each space and kind of site asked.
                    let asked = if plain.is_some() {
                        opts.perturb.as_slice()
                    } else {
                        &[]
                    };
                    for &on in asked {
                        r.perturbed.push(match on.of {
                            PerturbOf::Inputs => {
                                stage(
                                    send,
                                    v,
                                    "running it again over other inputs on the CPU \
                                     interpreter: what its timed loads read",
                                );
                                timed_loads::timed_from_input(
                                    &k, small, sv, &inputs, limits, on.space,
                                )
                            }
                            PerturbOf::TimedNext => {
                                stage(
                                    send,
                                    v,
                                    "perturbing its timed loads one at a time on the CPU \
                                     interpreter: what the next one waits on",
                                );
                                timed_loads::timed_next(&k, small, sv, &inputs, limits, on.space)
                            }
                            PerturbOf::TimedEnd => {
                                stage(
                                    send,
                                    v,
                                    "perturbing what its last timed load reads on the CPU \
                                     interpreter",
                                );
                                let plain = (on, plain.as_deref().unwrap_or_default());
                                timed_loads::timed_end(&k, small, sv, &inputs, limits, plain)
                            }
                            _ => {
                                let words = on.space.memory_words();
                                let mut said = |i: usize, n: usize| {
                                    let at = match on.of {
                                        PerturbOf::Atomics => format!(
                                            "leaving out its atomics on {words} on the CPU \
                                             interpreter: atomic site {i} of {n}"
                                        ),
                                        PerturbOf::Returns => format!(
                                            "perturbing what its calls return on the CPU \
                                             interpreter: call site {i} of {n}"
                                        ),
                                        _ => format!(
                                            "perturbing what it reads from {words} on the \
                                             CPU interpreter: load site {i} of {n}"
                                        ),
                                    };
                                    stage(send, v, &at);
                                };
                                let plain = (on, plain.as_deref().unwrap_or_default());
                                reruns::followed(&k, small, sv, &inputs, limits, plain, &mut said)
                            }
                        });
                    }
                    if let Some(first) = first {
                        stage(send, v, "checking its clock figures on the CPU interpreter");
                        match first.and_then(|f| {
                            let delays = opts.delays_checked.as_slice();
                            reruns::clocks_followed(&k, small, sv, &inputs, (limits, f, delays))
                        }) {
                            Ok(None) => {}
                            Ok(Some(why)) => {
                                r.correct = Some(false);
                                r.error = Some(why);
                            }
                            Err(e) => failed(&mut r, e),
                        }
                    }
                }
                None => {
                    r.check = Some(format!(
                        "{LABEL}: no `problem_cpu` size, output not checked"
                    ))
                }
            }
            if traced {
                trace(&k, lesson, v, (limits, opts), &mut r, send);
            }
            if shown {
                send(Reply::Variant {
                    result: Box::new(r),
                });
            }
        }
    });
}

/// The reference variant's run at the CPU size, going on beside the first variant's (the
/// two runs are most of a CPU check): its name, and the run's verdict and outputs.
type RefRun<'s> = (
    String,
    ScopedJoinHandle<'s, Result<Vec<(usize, HostData)>, Stopped>>,
);

/// Wait for the reference's run; its outputs become the expected ones if it came out right,
/// else why it did not.
fn settle(
    pending: &mut Option<RefRun>,
    expected: &mut Vec<(usize, HostData)>,
    reference: &mut Option<String>,
) -> Option<Stopped> {
    let (name, run) = pending.take()?;
    match run.join().expect("the reference's run ended") {
        Ok(outputs) => {
            expected.extend(outputs);
            *reference = Some(name);
            None
        }
        Err(e) => Some(e),
    }
}

/// The expected outputs at the CPU size: a built-in reference's, or those of the CPU-size
/// lesson's reference variant run there (an exercise's solution); that variant's name.
fn small_reference<'s, 'e: 's>(
    scope: &'s Scope<'s, 'e>,
    small: &'e Lesson,
    limits: &'e Limits,
    inputs: &'e [HostData],
    expected: &mut Vec<(usize, HostData)>,
    send: Sink,
) -> Option<RefRun<'s>> {
    expected.extend(outputs::builtin_expected(&small.reference, inputs));
    let words = match small.reference {
        Reference::Variant(r) => {
            let sv = &small.variants[r];
            let mut res = blank_result(small, sv);
            let k = build(small, sv, &limits.arch, (&mut res, false), &mut |_| {})?;
            stage(send, sv, "running the reference on the CPU interpreter");
            let run = scope.spawn(move || {
                let mut p = run_small(&k, small, sv, inputs, (limits, Tweak::default()))?;
                outputs(small, &mut p).map_err(Stopped)
            });
            return Some((sv.name.clone(), run));
        }
        Reference::Sgemm { .. } => {
            // No cuBLAS without a GPU: the same product, computed here.
            expected.extend(outputs::sgemm_on_host(&small.reference, inputs));
            "the reference: the product computed on the host (cuBLAS needs a GPU)"
        }
        _ => return None,
    };
    send(Reply::Stage {
        variant: String::new(),
        stage: words.into(),
    });
    None
}

fn trace(
    k: &Kernel,
    lesson: &Lesson,
    v: &Variant,
    (limits, opts): (&Limits, &RunOptions),
    r: &mut VariantResult,
    send: Sink,
) {
    stage(send, v, "tracing memory accesses on the CPU interpreter");
    let t0 = std::time::Instant::now();
    match self::trace_sampled(k, lesson, v, (opts.trace_blocks, opts.sample_seed), limits) {
        Ok(mut m) => {
            m.trace_ms = t0.elapsed().as_secs_f64() * 1e3;
            r.memory = Some(m);
        }
        // What a GPU faults on or refuses at the lesson's size fails the variant there
        // too, whatever the check at the CPU size said.
        Err(CpuError::Run(e)) if e.halt != Halt::Stopped => {
            r.trace_error = Some(e.to_string());
            // The check's own failure, when it failed, says it first.
            if r.correct != Some(false) {
                failed(r, Stopped(CpuError::Run(e)));
            }
        }
        // A kernel whose output nothing judged here, and whose trace needs a GPU (a
        // texture in its launch), is left to a GPU whole: every figure of it needs one.
        Err(e @ CpuError::NeedsGpu(_)) if r.correct.is_none() && r.failure.is_none() => {
            r.trace_error = Some(e.to_string());
            r.failure = Some(Failure::NotInterpreted);
        }
        Err(e) => r.trace_error = Some(e.to_string()),
    }
}

/// The sampled blocks of `v` at the lesson's size on the interpreter, as the GPU's trace
/// is; where nvdisasm can read the SASS, shared accesses ptxas splits are counted as
/// split, as on the GPU. It reads while the interpreter runs, within `limits` (the
/// architecture's, the run's budget).
pub fn trace_sampled(
    k: &Kernel,
    lesson: &Lesson,
    v: &Variant,
    (trace_blocks, sample_seed): (u32, u32),
    limits: &Limits,
) -> Result<MemoryStats, CpuError> {
    let shapes = k.sites.iter().any(Site::may_split).then(|| {
        let (to, from) = std::sync::mpsc::channel();
        let (lesson, v, arch, sites) = (
            lesson.clone(),
            v.clone(),
            limits.arch.clone(),
            k.sites.clone(),
        );
        std::thread::spawn(move || {
            let _ = to.send(super::sass::shapes(&lesson, &v, &arch, &sites));
        });
        from
    });
    let seed = hostdata::fresh_seed();
    lesson::trace(
        k,
        lesson,
        v,
        (trace_blocks, seed, sample_seed),
        shapes,
        limits,
    )
}

/// The ptxas report (CUBIN build) and the decoded PTX; None with the reason in `r`. For a
/// variant that will be `traced`, the SASS the trace may need starts being read.
fn build(
    lesson: &Lesson,
    v: &Variant,
    arch: &str,
    (r, traced): (&mut VariantResult, bool),
    send: Sink,
) -> Option<Kernel> {
    stage(send, v, crate::model::protocol::COMPILING);
    let compiled = compile_checked(lesson, v, arch).map_err(|e| e.to_string());
    send(Reply::Compiled {
        variant: v.name.clone(),
        ptxas: compiled.as_ref().ok().and_then(|c| c.report.clone()),
        error: compiled.as_ref().err().cloned(),
    });
    let mut cubin = None;
    let ptx = compiled.and_then(|c| {
        r.ptxas = c.report;
        cubin = Some(c.image);
        compile_cached(&compile_job(v, arch, Output::Ptx)).map_err(|e| e.to_string())
    });
    // A kernel that does not compile is the kernel's error, as on a GPU: not one the
    // interpreter's reach explains (that is `prepare` refusing the PTX).
    let ptx = match ptx {
        Ok(p) => p,
        Err(e) => {
            r.error = Some(e);
            return None;
        }
    };
    let text = (
        String::from_utf8_lossy(&ptx.image)
            .trim_end_matches('\0')
            .to_string(),
        ptx.lowered_name,
    );
    match prepare(&text.0, &text.1).map_err(|e| e.to_string()) {
        Ok(mut k) => {
            crate::trace::instrument::mark_timed(&mut k.sites, &v.source, &text.0);
            // The trace will want the SASS of accesses ptxas may split (`sass::shapes`).
            if let Some(image) = cubin.filter(|_| traced && k.sites.iter().any(Site::may_split)) {
                crate::worker::sass::prefetch(image);
            }
            Some(k)
        }
        Err(e) => {
            r.error = Some(e);
            r.failure = Some(Failure::NotInterpreted);
            None
        }
    }
}

/// Whether `k` makes a compare-and-swap (`atom.cas`) anywhere.
fn swaps(k: &Kernel) -> bool {
    (k.sites.iter()).any(|s| s.is_atomic() && s.op.split('.').any(|q| q == "cas"))
}

/// How a run at the CPU size departs from a plain one: its clocks (`Launch::clock_scale`),
/// the space whose loaded values it perturbs (`Launch::perturb`) and the order its warps
/// take their turns in (`Launch::reverse_warps`).
#[derive(Debug, Clone, Default)]
struct Tweak {
    clock_scale: u64,
    perturb: Option<Perturb>,
    reverse_warps: bool,
    observe: Option<crate::interp::block::Observe>,
    timed_delay: Option<crate::interp::block::TimedDelay>,
    cas_interference: Option<crate::interp::block::CasInterference>,
    /// Warp steps a block may take, where not `lesson::BLOCK_BUDGET`.
    budget: Option<u64>,
}

/// The warp steps a block may take in a run made another way to see what changes (swaps
/// failing, a site's values perturbed, its atomics left out): a tenth of a plain run's, so
/// that a kernel left waiting (a lock never released, a claim with no winner) stops within
/// seconds, where the worker would otherwise go quiet for longer than its client waits.
pub(super) const RERUN_BUDGET: u64 = lesson::BLOCK_BUDGET / 10;

impl Tweak {
    fn clocks(clock_scale: u64) -> Tweak {
        Tweak {
            clock_scale,
            ..Tweak::default()
        }
    }
}

/// The whole grid at the CPU size over fresh inputs, as `tweak` has it: the memory it
/// left, or why it stopped.
fn run_small(
    k: &Kernel,
    small: &Lesson,
    v: &Variant,
    inputs: &[HostData],
    (limits, tweak): (&Limits, Tweak),
) -> Result<Placed, Stopped> {
    let bytes: Vec<Vec<u8>> = inputs.iter().map(HostData::to_le_bytes).collect();
    let mut p = lesson::dense(small, bytes, &limits.budget).map_err(Stopped)?;
    let launched = lesson::launch(k, small, v, &mut p).map(|l| crate::interp::block::Launch {
        clock_scale: tweak.clock_scale,
        perturb: tweak.perturb,
        reverse_warps: tweak.reverse_warps,
        observe: tweak.observe,
        timed_delay: tweak.timed_delay,
        cas_interference: tweak.cas_interference,
        // Each run's blocks dealt over the SMs afresh, as a GPU's scheduler does.
        deal: hostdata::fresh_seed() | 1,
        ..l
    });
    let run = launched.and_then(|l| {
        let plan = Plan {
            trace: None,
            traced_only: false,
            budget: tweak.budget.unwrap_or(lesson::BLOCK_BUDGET),
            keep_records: false,
            shapes: Vec::new(),
            limits: limits.clone(),
        };
        crate::interp::run(k, &mut p.mem, &l, &plan).map_err(CpuError::from)
    });
    match run {
        // The worker's stdout is the protocol's; plain prints go where a GPU's printf goes.
        Ok(out) => print!("{}", out.printed),
        Err(e) => return Err(Stopped(e)),
    }
    Ok(p)
}

/// The outputs a run left, those the check compares.
fn outputs(small: &Lesson, p: &mut Placed) -> Result<Vec<(usize, HostData)>, CpuError> {
    (0..small.buffers.len())
        .filter(|&j| small.buffers[j].is_output() && !small.is_measured(j))
        .map(|j| Ok((j, download(p, small, j)?)))
        .collect()
}

/// Buffer `j` as the kernel left it.
fn download(p: &mut Placed, small: &Lesson, j: usize) -> Result<HostData, CpuError> {
    let bytes = lesson::download(p, small, j)?;
    Ok(HostData::from_le_bytes(small.buffers[j].ty, &bytes))
}

/// A run that stopped, in the words a GPU run would use where it would have stopped too:
/// a fault by its CUDA error's name, a launch beyond the GPU's limits, memory beyond the
/// budget; else the interpreter's own stop.
fn failed(r: &mut VariantResult, e: Stopped) {
    // Left to a GPU is no verdict on the output.
    r.correct = (!matches!(e.0, CpuError::NeedsGpu(_))).then_some(false);
    r.error = Some(e.to_string());
    r.failure = Some(match &e.0 {
        CpuError::Run(run) => match run.halt {
            Halt::Fault(f) => Failure::Cuda(f.cuda_error().to_string()),
            Halt::Launch => Failure::LaunchLimits,
            Halt::Memory => Failure::OutOfMemory,
            Halt::Stopped => Failure::Interpreter,
            // Made `NeedsGpu` where a run's error becomes a `CpuError`.
            Halt::Unmodelled => Failure::NotInterpreted,
        },
        CpuError::NeedsGpu(_) => Failure::NotInterpreted,
        _ => Failure::Interpreter,
    });
}

fn judge(
    small: &Lesson,
    p: &mut Placed,
    expected: &[(usize, HostData)],
    r: &mut VariantResult,
) -> Result<(), CpuError> {
    let tol = small.tolerance.unwrap_or_default();
    let mut problems = Vec::new();
    for (j, want) in expected.iter().filter(|(j, _)| !small.is_measured(*j)) {
        let got = download(p, small, *j)?;
        if let Err(e) = outputs::compare(&small.buffers[*j].name, &got, want, &tol) {
            problems.push(e.to_string());
        }
    }
    if expected.is_empty() {
        r.check = Some(format!("{LABEL}: no reference output to compare with"));
    } else if problems.is_empty() {
        r.correct = Some(true);
    } else {
        r.correct = Some(false);
        r.error = Some(format!("wrong output ({LABEL}): {}", problems.join("; ")));
    }
    Ok(())
}
