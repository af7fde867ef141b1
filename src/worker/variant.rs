//! One variant on the GPU: compile, load, check its output against the reference, time it
//! and trace it, in that order, telling the client each stage as it starts.

use super::Sink;
use super::compile::compile_checked;
use super::device_compare;
use super::gpu_turn::{GpuTurn, Hold};
use super::hostdata::HostData;
use super::l2::PersistingL2;
use super::launch::{self, Buffers};
use super::measure;
use super::module_state::ModuleState;
use super::noise;
use super::outputs::Mismatch;
use super::timing;
use super::traced::{self, TraceError};
use super::turns::Turns;
use crate::analysis::fingerprint::blank_result;
use crate::analysis::gpu_share::RunWindow;
use crate::analysis::limits;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::host_memory::Place;
use crate::cuda::module::Kernel;
use crate::cuda::nvrtc::Compiled;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::Failure;
use crate::model::results::{DeviceInfo, Peak, PtxasReport, VariantResult};
use crate::model::{Lesson, Tolerance, Variant};

/// What every variant of one run shares.
pub struct RunContext<'a> {
    pub gpu: &'a Gpu,
    pub peak: &'a Peak,
    pub lesson: &'a Lesson,
    pub arch: &'a str,
    pub opts: &'a RunOptions,
    /// Outputs as they should be (from the reference), by buffer index.
    pub expected: &'a [(usize, HostData)],
    /// The GPU's turns: each variant's GPU work is one.
    pub turns: &'a Turns,
    /// The lesson's persisting-L2 set-aside, emptied before each variant.
    pub l2: &'a PersistingL2<'a>,
    /// NVML watched through the run, to judge each variant's timed runs (None: NVML
    /// cannot tell, or nothing is timed).
    pub noise: Option<&'a noise::Watch>,
}

/// The variant to run, and its role in this run.
pub struct Job<'a> {
    pub variant: &'a Variant,
    /// The others are checked against this one's outputs; it is not checked itself.
    pub is_reference: bool,
    /// Asked for by the client (the reference may run only to be checked against).
    pub shown: bool,
}

pub(super) fn stage(send: Sink, v: &Variant, s: &str) {
    send(Reply::Stage {
        variant: v.name.clone(),
        stage: s.to_string(),
    })
}

pub fn run_variant(
    ctx: &RunContext,
    job: &Job,
    bufs: &mut Buffers,
    send: Sink,
) -> Result<VariantResult, Fatal> {
    let v = job.variant;
    if let Some(t) = v.transfer {
        return super::transfer::run_transfer(ctx, job, t, bufs, send);
    }
    let fatal = |e| Fatal::in_variant(&v.name, e);
    let mut r = blank_result(ctx.lesson, v);
    let Some(compiled) = compile(ctx, v, &mut r, send) else {
        return Ok(r);
    };
    // Only the limits that are plain from the lesson are checked before launching; the
    // driver is the judge of registers and static shared memory (see `refused_words`).
    if let Err(why) = limits::check_launch(v, ctx.gpu.info(), None) {
        r.correct = Some(false);
        r.error = Some(format!("not launched: {why}"));
        r.failure = Some(Failure::LaunchLimits);
        return Ok(r);
    }
    // The traced build is made and loaded before any turn: the GPU waits for no compiler.
    let traced = (ctx.opts.trace && job.shown).then(|| traced::prepare(ctx.gpu, v, ctx.arch));
    let (windows, state) = match load_check_time(ctx, job, &compiled, bufs, &mut r, send) {
        Ok(w) => w,
        Err(e) if e.is_sticky() => return Err(fatal(e)),
        Err(e) => {
            // A refused launch leaves the context as it was: the run goes on in this worker.
            r.correct = Some(false);
            r.failure = Some(e.code().map_or(Failure::Refused, Failure::from));
            r.error = Some(refused_words(&e, v, ctx.gpu.info(), r.ptxas.as_ref()));
            return Ok(r);
        }
    };
    // A trace counts accesses, not time: it shares the GPU with other untimed work, and
    // what persists in the L2 changes none of its counts.
    let captured = match traced {
        Some(prepared) => {
            let _turn = ctx.turns.take((ctx.opts.job, Hold::Shared), &v.name, send);
            Some(capture(ctx, v, (prepared, &state), bufs, &mut r, send)?)
        }
        None => None,
    };
    // Decoding and analysing the trace needs only the CPU: the next job in the queue has
    // the GPU meanwhile.
    if let Some(Some((prepared, captured, t0))) = captured {
        let analysed = while_saying(send, v, "analysing the trace", || {
            traced::analyze(ctx.lesson, v, ctx.arch, prepared, captured)
        });
        keep_trace(&mut r, analysed, t0);
    }
    // Judged once NVML's samples for these runs are in, up to a second later: the next
    // variant, and the next job in the queue, need not wait for them.
    if let Some(watch) = ctx.noise {
        watch.timed(&v.name, windows);
    }
    Ok(r)
}

/// How often long work on the host says it is still going: well within the client's
/// wait for a word (20 s by default), which is meant for a kernel that never ends, not a
/// million trace records analysed on a host whose cores are all busy.
const STILL_GOING: std::time::Duration = std::time::Duration::from_secs(5);

/// `work` on a thread of its own, while this one says every `STILL_GOING` that it goes on.
fn while_saying<T: Send>(
    send: Sink,
    v: &Variant,
    what: &str,
    work: impl FnOnce() -> T + Send,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = tx.send(work());
        });
        let t0 = std::time::Instant::now();
        loop {
            match rx.recv_timeout(STILL_GOING) {
                Ok(done) => return done,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    let secs = t0.elapsed().as_secs();
                    stage(send, v, &format!("{what} ({secs} s so far)"));
                }
                // The work panicked: the scope passes the panic on when it ends.
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    panic!("{what} stopped without an answer")
                }
            }
        }
    })
}

/// This variant's turn on the GPU, held as `hold` says, with the lines the last variant
/// made persist in the L2 made ordinary first (no turn that times runs meanwhile).
fn turn(
    ctx: &RunContext,
    v: &Variant,
    hold: Hold,
    send: Sink,
) -> Result<Option<GpuTurn>, CudaError> {
    let turn = ctx.turns.take((ctx.opts.job, hold), &v.name, send);
    ctx.l2.fresh()?;
    Ok(turn)
}

/// Load the compiled kernel, check its output and time it; the timed runs' windows come
/// back (none when it was not timed), with what its launches left in the module's own
/// variables where a trace follows (`module_state`). Any CUDA error comes back as it is: the caller tells
/// a poisoned context from a refused launch. The check shares the GPU with other untimed
/// work, unless the kernel's own clock figures are read from it (no timed run follows to
/// read them again); the timed runs have it alone.
fn load_check_time(
    ctx: &RunContext,
    job: &Job,
    compiled: &Compiled,
    bufs: &mut Buffers,
    r: &mut VariantResult,
    send: Sink,
) -> Result<(Vec<RunWindow>, ModuleState), CudaError> {
    let v = job.variant;
    let traced = ctx.opts.trace && job.shown;
    let state = |module: &crate::cuda::module::Module| match (traced, &compiled.ptx) {
        (true, Some(ptx)) => ModuleState::read(module, &String::from_utf8_lossy(ptx)),
        _ => Ok(ModuleState::default()),
    };
    let timed = ctx.opts.time && job.shown;
    let hold = match !ctx.lesson.measures.is_empty() && !timed {
        true => Hold::Alone,
        false => Hold::Shared,
    };
    let check_turn = turn(ctx, v, hold, send)?;
    let module = ctx.gpu.load_module(&compiled.image)?;
    let kernel = module.kernel(&compiled.lowered_name)?;
    launch::prepare(&kernel, v)?;
    if let Some(why) = measure::fill_constants(ctx.lesson, v, &module, bufs)? {
        r.correct = Some(false);
        r.error = Some(format!("not launched: {why}"));
        r.failure = Some(Failure::ConstantSize);
        return Ok((Vec::new(), ModuleState::default()));
    }
    r.occupancy = launch::measure_occupancy(ctx.gpu, v, &kernel, r.ptxas.as_ref());
    if ctx.opts.check || job.is_reference {
        check_output(ctx, job, &kernel, bufs, r, send)?;
    }
    drop(check_turn);
    // A variant with nothing to compare against is timed too: it is not wrong.
    if timed && r.correct != Some(false) {
        let _turn = turn(ctx, v, Hold::Alone, send)?;
        stage(send, v, "timing");
        // The kernel's own figures are read after every counted run too, at the clocks
        // the timing settled at: in a table of checks side by side on an H200 one checked
        // launch, the first of its turn, read a cold chase at 992 cycles an access where
        // the others read about 690, as a figure in cycles moves with the SM's clock.
        let mut runs = measure::PerRun::default();
        let launch = bufs.launch(v, &kernel);
        let cold = v.cold_l2 || ctx.opts.cold_l2;
        let mut work = managed_work(ctx, v, bufs, &launch);
        if !ctx.lesson.measures.is_empty() {
            let (lesson, khz, read) = (ctx.lesson, ctx.gpu.peak_sm_clock_khz(), &*bufs);
            let runs = &mut runs;
            work.counted = Box::new(move |ms| {
                let launch = measure::Launch { ms, clock_khz: khz };
                runs.read(lesson, v, (read, launch))
            });
        }
        let windows = timing::time_work(ctx.gpu, work, (ctx.opts, cold), r, send)?;
        runs.into_result(r);
        timing::summarize(ctx.lesson, ctx.peak, r);
        return Ok((windows, state(&module)?));
    }
    Ok((Vec::new(), state(&module)?))
}

/// A timed run of `launch`. Where it reads managed buffers, every run starts with their
/// pages on the host (sent there before the first event, not timed), as in a program that
/// has just written its input on the CPU: after one run the pages would sit on the GPU and
/// every later run would read device memory, so without this only the first run, a
/// warm-up, would ever touch them first. Then, inside the time, with `prefetch: true` the
/// pages go over in bulk (`cuMemPrefetchAsync`) before the kernel; without it the kernel's
/// first touch of each page faults and migrates it.
fn managed_work<'a>(
    ctx: &'a RunContext,
    v: &Variant,
    bufs: &'a Buffers,
    launch: &'a crate::cuda::module::Launch<'a>,
) -> timing::Work<'a> {
    let managed = bufs.managed_args(v);
    if managed.is_empty() {
        return timing::Work::launch(launch);
    }
    let gpu = ctx.gpu;
    let ahead = v.prefetch;
    let home = managed.clone();
    timing::Work::new(
        Box::new(move || home.iter().try_for_each(|m| m.prefetch(gpu, Place::Host))),
        Box::new(move || {
            if ahead {
                managed
                    .iter()
                    .try_for_each(|m| m.prefetch(gpu, Place::Gpu))?;
            }
            launch.enqueue()
        }),
    )
}

/// A launch the GPU refused (too many threads, too much shared memory or too many
/// registers per block), with the figures the learner can change.
fn refused_words(e: &CudaError, v: &Variant, dev: &DeviceInfo, p: Option<&PtxasReport>) -> String {
    if let Err(which) = limits::check_launch(v, dev, p) {
        return format!(
            "{e}. The GPU refused the launch: {which}. Not a fault: the GPU context is fine \
             and the run went on."
        );
    }
    let regs = p.map_or("?".to_string(), |p| p.registers.to_string());
    format!(
        "{e}. The GPU refused the launch: it asks for more than a block may have. This \
         launch: {} threads a block (at most 1024), {} of dynamic shared memory (this GPU \
         allows {}), {regs} registers a thread ({} a block at most). Not a fault: the GPU \
         context is fine and the run went on.",
        v.threads_per_block(),
        limits::size(v.smem.into()),
        limits::size(dev.smem_per_block_optin.into()),
        dev.regs_per_sm
    )
}

/// Compile to CUBIN and report ptxas's figures; None (with the error in `r`) when it fails.
fn compile(ctx: &RunContext, v: &Variant, r: &mut VariantResult, send: Sink) -> Option<Compiled> {
    stage(send, v, crate::model::protocol::COMPILING);
    let compiled = match compile_checked(ctx.lesson, v, ctx.arch) {
        Ok(c) => c,
        Err(e) => {
            r.error = Some(e.to_string());
            send(Reply::Compiled {
                variant: v.name.clone(),
                ptxas: None,
                error: r.error.clone(),
            });
            return None;
        }
    };
    r.ptxas = compiled.report.clone();
    if r.ptxas.is_none() {
        r.ptxas_log = Some(compiled.log.clone());
    }
    send(Reply::Compiled {
        variant: v.name.clone(),
        ptxas: r.ptxas.clone(),
        error: None,
    });
    Some(compiled)
}

/// Run once over poisoned outputs and compare them with the reference's.
fn check_output(
    ctx: &RunContext,
    job: &Job,
    kernel: &Kernel,
    bufs: &mut Buffers,
    r: &mut VariantResult,
    send: Sink,
) -> Result<(), CudaError> {
    let v = job.variant;
    stage(send, v, "checking the output");
    bufs.poison_outputs(ctx.lesson)?;
    // Timed by the GPU's events, to bound what the kernel says its own clock read.
    let launch_ms = ctx.gpu.timer()?.time(|| bufs.launch(v, kernel).enqueue())?;
    let mut problems = Vec::new();
    let tol = ctx.lesson.tolerance.unwrap_or_default();
    r.tolerance = ctx.lesson.tolerance;
    // Buffers of measured figures hold timings, which differ on every run.
    let compared: Vec<_> = (ctx.expected.iter())
        .filter(|(j, _)| !ctx.lesson.is_measured(*j))
        .collect();
    if !job.is_reference {
        for (j, want) in &compared {
            if let Err(e) = judge_output(ctx, bufs, (*j, want), &tol)? {
                problems.push(e.to_string());
            }
        }
    }
    if ctx.opts.guard && !job.is_reference {
        problems.extend(bufs.overruns(ctx.lesson)?);
    }
    let launch = measure::Launch {
        ms: launch_ms,
        clock_khz: ctx.gpu.peak_sm_clock_khz(),
    };
    let unread = measure::read_measures(ctx.lesson, v, (bufs, launch), r)?;
    problems.extend(unread.iter().map(ToString::to_string));
    let verdict = judge(ctx.lesson, job.is_reference, compared.len(), problems);
    (r.correct, r.error, r.check) = verdict;
    Ok(())
}

/// Output `j` against what it should hold: a large one on the GPU where it lies, when the
/// GPU has room for the expected copy; else downloaded and compared here.
fn judge_output(
    ctx: &RunContext,
    bufs: &mut Buffers,
    (j, want): (usize, &HostData),
    tol: &Tolerance,
) -> Result<Result<(), Mismatch>, CudaError> {
    if device_compare::worth_it(ctx.lesson, j) {
        let on_gpu = device_compare::compare(ctx.gpu, ctx.arch, ctx.lesson, bufs, (j, want), tol)?;
        if let Some(verdict) = on_gpu {
            return Ok(verdict);
        }
    }
    let got = bufs.download(ctx.lesson, j)?;
    Ok(super::outputs::compare(
        &ctx.lesson.buffers[j].name,
        &got,
        want,
        tol,
    ))
}

/// Right, wrong, or not judged: with nothing to compare against (the lesson has no output,
/// or the reference failed) a variant is not called wrong; `check` says why.
fn judge(
    lesson: &Lesson,
    is_reference: bool,
    compared: usize,
    problems: Vec<String>,
) -> (Option<bool>, Option<String>, Option<String>) {
    // A measure the kernel left unwritten is wrong even with no output to compare.
    if !is_reference && compared == 0 && problems.is_empty() {
        let has_outputs = (lesson.buffers.iter().enumerate())
            .any(|(i, b)| b.is_output() && !lesson.is_measured(i));
        let why = if has_outputs {
            "no reference output (the reference failed)"
        } else {
            "no output"
        };
        return (None, None, Some(why.to_string()));
    }
    if problems.is_empty() {
        return (Some(true), None, None);
    }
    let error = format!("wrong output: {}", problems.join("; "));
    (Some(false), Some(error), None)
}

/// A trace started at, its records, and the build that logged them.
type Captured = (traced::Prepared, traced::Captured, std::time::Instant);

/// The GPU half of a trace: the traced launch and its records' download, or None with
/// the trace's error in `r`. Only a poisoned context stops the run.
fn capture(
    ctx: &RunContext,
    v: &Variant,
    (prepared, state): (Result<traced::Prepared, TraceError>, &ModuleState),
    bufs: &mut Buffers,
    r: &mut VariantResult,
    send: Sink,
) -> Result<Option<Captured>, Fatal> {
    stage(send, v, "tracing memory accesses");
    let t0 = std::time::Instant::now();
    let got = prepared.and_then(|p| {
        traced::capture(ctx.gpu, (ctx.lesson, v), (&p, state), bufs, ctx.opts).map(|c| (p, c, t0))
    });
    match got {
        Ok(c) => Ok(Some(c)),
        Err(TraceError::Cuda(f)) if f.is_sticky() => Err(Fatal::in_variant(&v.name, f)),
        Err(e) => {
            keep_trace(r, Err(e), t0);
            Ok(None)
        }
    }
}

/// The trace's figures, or its error, into `r`, with the time it took.
fn keep_trace(
    r: &mut VariantResult,
    got: Result<crate::model::results::MemoryStats, TraceError>,
    t0: std::time::Instant,
) {
    match got {
        Ok(mut m) => {
            m.trace_ms = t0.elapsed().as_secs_f64() * 1e3;
            r.memory = Some(m)
        }
        Err(e) => r.trace_error = Some(e.to_string()),
    }
}

/// Stop the whole request: the context is poisoned (or the GPU is unusable).
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct Fatal {
    pub variant: Option<String>,
    pub error: CudaError,
}

impl Fatal {
    pub fn in_variant(variant: &str, error: CudaError) -> Fatal {
        Fatal {
            variant: Some(variant.to_string()),
            error,
        }
    }
}

/// `v` on at most `max_blocks` blocks (0: as the lesson has it), for a rerun under
/// compute-sanitizer, where the first faulting access is all that is wanted.
pub(crate) fn capped(v: &Variant, max_blocks: u32) -> Variant {
    let mut v = v.clone();
    if max_blocks > 0 && v.blocks() > u64::from(max_blocks) {
        // A cluster's blocks run together: keep whole clusters.
        let c = v.attrs.cluster.map_or(1, |c| c[0]);
        let x = v.grid[0].clamp(1, max_blocks.max(c));
        v.grid = [x - x % c, 1, 1];
        if let Some(cl) = v.attrs.cluster.as_mut() {
            *cl = [c, 1, 1];
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;

    #[test]
    fn with_nothing_to_compare_a_variant_is_not_called_wrong() {
        let l = LessonBuilder::new("a").variant("r").variant("v").build();
        let (correct, error, check) = judge(&l, false, 0, vec![]);
        assert_eq!(correct, None);
        assert_eq!(error, None);
        assert_eq!(check.as_deref(), Some("no output"));
        assert_eq!(judge(&l, true, 0, vec![]).0, Some(true));
        let r = VariantResult {
            check: check.clone(),
            ..Default::default()
        };
        assert_eq!(crate::analysis::describe::status(&r), "checked: no output");
        let unwritten = judge(&l, false, 0, vec!["measured.c: nothing written".into()]);
        assert_eq!(unwritten.0, Some(false));
        let wrong = judge(&l, false, 1, vec!["out[3] = 1".into()]);
        assert_eq!(wrong.0, Some(false));
        assert!(wrong.1.unwrap().contains("out[3]"));
    }
}
