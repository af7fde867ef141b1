//! One variant on the GPU: compile, load, check its output against the reference, time it
//! and trace it, in that order, telling the client each stage as it starts.

use super::compile::compile_job;
use super::hostdata::{self, HostData};
use super::launch::{self, Buffers};
use super::runner::Fatal;
use super::timing;
use super::traced::{self, TraceError};
use crate::course::fingerprint::variant_hash;
use crate::cuda::gpu::Gpu;
use crate::cuda::module::Kernel;
use crate::cuda::nvrtc::{self, Compiled, Output};
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{Peak, VariantResult};
use crate::model::{Lesson, Variant};

/// What every variant of one run shares.
pub struct RunContext<'a> {
    pub gpu: &'a Gpu,
    pub peak: &'a Peak,
    pub lesson: &'a Lesson,
    pub arch: &'a str,
    pub opts: &'a RunOptions,
    /// Outputs as they should be (from the reference), by buffer index.
    pub expected: &'a [(usize, HostData)],
}

/// The variant to run, and its role in this run.
pub struct Job<'a> {
    pub variant: &'a Variant,
    /// The others are checked against this one's outputs; it is not checked itself.
    pub is_reference: bool,
    /// Asked for by the client (the reference may run only to be checked against).
    pub shown: bool,
}

type Send<'s> = &'s mut dyn FnMut(Reply);

fn stage(send: Send, v: &Variant, s: &str) {
    send(Reply::Stage {
        variant: v.name.clone(),
        stage: s.to_string(),
    })
}

pub fn run_variant(
    ctx: &RunContext,
    job: &Job,
    bufs: &mut Buffers,
    send: Send,
) -> Result<VariantResult, Fatal> {
    let v = job.variant;
    let fatal = |e| Fatal::in_variant(&v.name, e);
    let mut r = VariantResult {
        name: v.name.clone(),
        source_hash: variant_hash(ctx.lesson, v),
        grid: v.grid,
        block: v.block,
        ..Default::default()
    };
    let Some(compiled) = compile(ctx, v, &mut r, send) else {
        return Ok(r);
    };
    let module = ctx.gpu.load_module(&compiled.image).map_err(fatal)?;
    let kernel = module.kernel(&compiled.lowered_name).map_err(fatal)?;
    if v.smem > 48 * 1024 {
        kernel.allow_dynamic_smem(v.smem).map_err(fatal)?;
    }
    r.occupancy = launch::measure_occupancy(ctx.gpu, v, &kernel, r.ptxas.as_ref());
    check_output(ctx, job, &kernel, bufs, &mut r, send)?;
    if ctx.opts.time && r.correct == Some(true) && job.shown {
        stage(send, v, "timing");
        let launch = bufs.launch(v, &kernel);
        timing::time_variant(ctx.gpu, &launch, ctx.opts, &mut r, send).map_err(fatal)?;
        timing::summarize(ctx.lesson, ctx.peak, &mut r);
    }
    if ctx.opts.trace && job.shown {
        trace(ctx, v, bufs, &mut r, send)?;
    }
    Ok(r)
}

/// Compile to CUBIN and report ptxas's figures; None (with the error in `r`) when it fails.
fn compile(ctx: &RunContext, v: &Variant, r: &mut VariantResult, send: Send) -> Option<Compiled> {
    stage(send, v, "compiling");
    let compiled = match nvrtc::compile(&compile_job(v, ctx.arch, Output::Cubin)) {
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
    send: Send,
) -> Result<(), Fatal> {
    let v = job.variant;
    let fatal = |e| Fatal::in_variant(&v.name, e);
    stage(send, v, "checking the output");
    bufs.poison_outputs(ctx.lesson).map_err(fatal)?;
    bufs.launch(v, kernel).enqueue().map_err(fatal)?;
    ctx.gpu.synchronize().map_err(fatal)?;
    let mut problems = Vec::new();
    if !job.is_reference {
        for (j, want) in ctx.expected {
            let got = bufs.download(ctx.lesson, *j).map_err(fatal)?;
            if let Err(e) = hostdata::compare(&ctx.lesson.buffers[*j].name, &got, want) {
                problems.push(e.to_string());
            }
        }
        if ctx.expected.is_empty() {
            problems.push("no reference output to check against".into());
        }
    }
    r.correct = Some(problems.is_empty());
    if !problems.is_empty() {
        r.error = Some(format!("wrong output: {}", problems.join("; ")));
    }
    Ok(())
}

/// Trace memory accesses into `r`; only a poisoned context stops the run.
fn trace(
    ctx: &RunContext,
    v: &Variant,
    bufs: &mut Buffers,
    r: &mut VariantResult,
    send: Send,
) -> Result<(), Fatal> {
    stage(send, v, "tracing memory accesses");
    let t0 = std::time::Instant::now();
    match traced::trace_variant(ctx.gpu, ctx.lesson, v, ctx.arch, bufs, ctx.opts) {
        Ok(mut m) => {
            m.trace_ms = t0.elapsed().as_secs_f64() * 1e3;
            r.memory = Some(m)
        }
        Err(TraceError::Cuda(f)) if f.is_sticky() => return Err(Fatal::in_variant(&v.name, f)),
        Err(e) => r.trace_error = Some(e.to_string()),
    }
    Ok(())
}
