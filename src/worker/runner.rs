//! One lesson on the GPU: fresh inputs, then for each variant compile, check against the
//! reference, time with events until the median is stable, and trace. Runs inside the
//! worker process; replies stream out as they are measured.

use crate::analysis::{occupancy, stats};
use crate::cuda::gpu::{self, ArgValue, CudaFail, DevBuf, EventTimer, Gpu, Launch, Module};
use crate::cuda::nvrtc::{self, CompileJob, Output};
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{MemoryStats, Occupancy, Peak, PtxasReport, VariantResult};
use crate::model::{Arg, ElemType, Lesson, Reference, Variant};
use crate::trace;
use crate::worker::hostdata::{self, HostData};

/// Stop the whole request: the context is poisoned (or the GPU is unusable).
pub struct Fatal {
    pub variant: Option<String>,
    pub message: String,
}

type Send<'a> = &'a mut dyn FnMut(Reply);

fn fatal(variant: &str, f: CudaFail) -> Fatal {
    Fatal {
        variant: Some(variant.to_string()),
        message: f.message,
    }
}

/// Hash of everything that decides what a variant computes and how it is launched: a
/// recording whose hash differs from the lesson's is stale.
pub fn variant_hash(lesson: &Lesson, v: &Variant) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(v.source.as_bytes());
    let key = serde_json::json!({
        "kernel": v.kernel, "defines": v.defines, "options": v.options,
        "grid": v.grid, "block": v.block, "smem": v.smem, "args": v.args,
        "buffers": lesson.buffers.iter().map(|b| (&b.name, b.len)).collect::<Vec<_>>(),
    });
    h.update(key.to_string().as_bytes());
    h.finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn compile_job<'a>(v: &'a Variant, arch: &'a str, output: Output) -> CompileJob<'a> {
    CompileJob {
        file_name: &v.source_path,
        source: &v.source,
        kernel: &v.kernel,
        defines: &v.defines,
        options: &v.options,
        arch,
        output,
    }
}

/// Occupancy from the ptxas report with CUDA's rules (no GPU needed).
pub fn occupancy_from_report(cc: &str, v: &Variant, r: &PtxasReport) -> Option<Occupancy> {
    let (maj, min) = cc.split_once('.')?;
    let limits = occupancy::Limits::for_cc(maj.parse().ok()?, min.parse().ok()?)?;
    Some(occupancy::occupancy(
        &limits,
        v.threads_per_block(),
        r.registers,
        r.smem + v.smem,
    ))
}

struct Buffers {
    host_inputs: Vec<HostData>,
    dev: Vec<DevBuf>,
}

fn args_for(v: &Variant, bufs: &Buffers) -> Vec<ArgValue> {
    v.args
        .iter()
        .map(|a| match *a {
            Arg::Buffer(i) => ArgValue::Ptr(bufs.dev[i].ptr),
            Arg::I32(x) => ArgValue::I32(x),
            Arg::U32(x) => ArgValue::U32(x),
            Arg::I64(x) => ArgValue::I64(x),
            Arg::U64(x) => ArgValue::U64(x),
            Arg::F32(x) => ArgValue::F32(x),
        })
        .collect()
}

fn poison_outputs(lesson: &Lesson, bufs: &Buffers) -> Result<(), CudaFail> {
    for (b, d) in lesson.buffers.iter().zip(&bufs.dev) {
        if b.is_output() {
            d.fill_u32(hostdata::poison_pattern(b.ty))?;
        }
    }
    Ok(())
}

fn download(lesson: &Lesson, bufs: &Buffers, i: usize) -> Result<HostData, CudaFail> {
    let b = &lesson.buffers[i];
    let n = b.len as usize;
    Ok(match b.ty {
        ElemType::F32 => HostData::F32(bufs.dev[i].download(n)?),
        ElemType::F64 => HostData::F64(bufs.dev[i].download(n)?),
        ElemType::I32 => HostData::I32(bufs.dev[i].download(n)?),
        ElemType::U32 => HostData::U32(bufs.dev[i].download(n)?),
    })
}

fn upload(d: &DevBuf, h: &HostData) -> Result<(), CudaFail> {
    match h {
        HostData::F32(v) => d.upload(v),
        HostData::F64(v) => d.upload(v),
        HostData::I32(v) => d.upload(v),
        HostData::U32(v) => d.upload(v),
    }
}

pub struct Session {
    pub gpu: Gpu,
    pub peak: Option<Peak>,
}

pub fn run_lesson(
    session: &mut Session,
    lesson: &Lesson,
    opts: &RunOptions,
    send: Send,
) -> Result<(), Fatal> {
    let gpu = &session.gpu;
    if session.peak.is_none() && opts.time {
        send(Reply::Stage {
            variant: String::new(),
            stage: "measuring the copy bandwidth of this GPU".into(),
        });
        let gbps = gpu::measure_copy_gbps(gpu).map_err(|f| Fatal {
            variant: None,
            message: f.message,
        })?;
        session.peak = Some(Peak {
            copy_gbps: Some(gbps),
        });
    }
    let peak = session.peak.clone().unwrap_or_default();
    send(Reply::Peak { peak: peak.clone() });

    send(Reply::Stage {
        variant: String::new(),
        stage: "preparing fresh inputs".into(),
    });
    let seed = hostdata::fresh_seed();
    let mut bufs = Buffers {
        host_inputs: Vec::new(),
        dev: Vec::new(),
    };
    for b in &lesson.buffers {
        let h = hostdata::generate(b, seed);
        let d = DevBuf::new(b.bytes() as usize).map_err(|f| fatal("", f))?;
        if !b.is_output() {
            upload(&d, &h).map_err(|f| fatal("", f))?;
        }
        bufs.host_inputs.push(h);
        bufs.dev.push(d);
    }
    let mut expected: Vec<(usize, HostData)> =
        hostdata::builtin_expected(&lesson.reference, &bufs.host_inputs)
            .into_iter()
            .collect();

    // The reference variant runs first: the others are checked against its outputs.
    let mut order: Vec<usize> = Vec::new();
    if let Reference::Variant(r) = lesson.reference {
        order.push(r);
    }
    for (i, v) in lesson.variants.iter().enumerate() {
        let wanted = opts.variants.is_empty() || opts.variants.iter().any(|n| n == &v.name);
        if wanted && !order.contains(&i) {
            order.push(i);
        }
    }
    let arch = gpu.info.arch();
    for i in order {
        let v = &lesson.variants[i];
        let is_reference = lesson.reference == Reference::Variant(i);
        let shown = opts.variants.is_empty() || opts.variants.iter().any(|n| n == &v.name);
        let mut result = run_variant(
            gpu,
            &peak,
            lesson,
            v,
            &arch,
            &bufs,
            &expected,
            is_reference,
            opts,
            shown,
            send,
        )?;
        if is_reference {
            if result.correct == Some(true) {
                for (j, b) in lesson.buffers.iter().enumerate() {
                    if b.is_output() {
                        expected.push((
                            j,
                            download(lesson, &bufs, j).map_err(|f| fatal(&v.name, f))?,
                        ));
                    }
                }
            } else {
                result
                    .error
                    .get_or_insert("the reference variant failed".into());
            }
        }
        if shown {
            send(Reply::Variant {
                result: Box::new(result),
            });
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run_variant(
    gpu: &Gpu,
    peak: &Peak,
    lesson: &Lesson,
    v: &Variant,
    arch: &str,
    bufs: &Buffers,
    expected: &[(usize, HostData)],
    is_reference: bool,
    opts: &RunOptions,
    shown: bool,
    send: Send,
) -> Result<VariantResult, Fatal> {
    let mut r = VariantResult {
        name: v.name.clone(),
        source_hash: variant_hash(lesson, v),
        grid: v.grid,
        block: v.block,
        ..Default::default()
    };
    let stage = |send: &mut dyn FnMut(Reply), s: &str| {
        send(Reply::Stage {
            variant: v.name.clone(),
            stage: s.to_string(),
        })
    };
    stage(send, "compiling");
    let compiled = match nvrtc::compile(&compile_job(v, arch, Output::Cubin)) {
        Ok(c) => c,
        Err(e) => {
            r.error = Some(e.to_string());
            send(Reply::Compiled {
                variant: v.name.clone(),
                ptxas: None,
                error: r.error.clone(),
            });
            return Ok(r);
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
    let module = Module::load(&compiled.image).map_err(|f| fatal(&v.name, f))?;
    let func = module
        .function(&compiled.lowered_name)
        .map_err(|f| fatal(&v.name, f))?;
    if v.smem > 48 * 1024 {
        gpu::allow_dynamic_smem(func, v.smem).map_err(|f| fatal(&v.name, f))?;
    }
    let launch = Launch {
        func,
        grid: v.grid,
        block: v.block,
        smem: v.smem,
        args: args_for(v, bufs),
    };
    // Occupancy from CUDA's calculator; the limiter comes from the same rules applied to the
    // report (the calculator says how many, not why).
    let from_report = r
        .ptxas
        .as_ref()
        .and_then(|p| occupancy_from_report(&gpu.info.cc, v, p));
    if let Ok(blocks) = gpu::active_blocks_per_sm(func, v.threads_per_block(), v.smem) {
        let warps_per_block = v.threads_per_block().div_ceil(32);
        let max_warps = gpu.info.max_threads_per_sm / 32;
        let active = (blocks * warps_per_block).min(max_warps);
        r.occupancy = Some(Occupancy {
            blocks_per_sm: blocks,
            active_warps: active,
            max_warps,
            ratio: active as f64 / max_warps.max(1) as f64,
            limiter: from_report
                .as_ref()
                .map(|o| o.limiter.clone())
                .unwrap_or_default(),
            from: "api".into(),
        });
    } else {
        r.occupancy = from_report;
    }

    stage(send, "checking the output");
    poison_outputs(lesson, bufs).map_err(|f| fatal(&v.name, f))?;
    launch.enqueue().map_err(|f| fatal(&v.name, f))?;
    gpu.synchronize().map_err(|f| fatal(&v.name, f))?;
    let mut problems = Vec::new();
    if !is_reference {
        for (j, want) in expected {
            let got = download(lesson, bufs, *j).map_err(|f| fatal(&v.name, f))?;
            if let Err(e) = hostdata::compare(&lesson.buffers[*j].name, &got, want) {
                problems.push(e);
            }
        }
        if expected.is_empty() {
            problems.push("no reference output to check against".into());
        }
    }
    r.correct = Some(problems.is_empty());
    if !problems.is_empty() {
        r.error = Some(format!("wrong output: {}", problems.join("; ")));
    }

    if opts.time && r.correct == Some(true) && shown {
        stage(send, "timing");
        let timer = EventTimer::new().map_err(|f| fatal(&v.name, f))?;
        for _ in 0..3 {
            timer
                .time(|| launch.enqueue())
                .map_err(|f| fatal(&v.name, f))?;
        }
        let mut stop = stats::Stopper::new(10, opts.max_runs.max(10) as usize, opts.max_ms, 0.005);
        loop {
            let ms = timer
                .time(|| launch.enqueue())
                .map_err(|f| fatal(&v.name, f))?;
            r.samples_ms.push(ms);
            send(Reply::Sample {
                variant: v.name.clone(),
                ms,
            });
            if stop.push(ms) {
                break;
            }
        }
        let t = stats::summarize(&r.samples_ms);
        let secs = t.median * 1e-3;
        r.gbps = lesson.metrics.bytes.map(|b| b / secs / 1e9);
        r.gflops = lesson.metrics.flops.map(|f| f / secs / 1e9);
        if let (Some(g), Some(p), false) = (r.gbps, peak.copy_gbps, lesson.metrics.no_peak) {
            r.pct_of_peak = Some(100.0 * g / p);
        }
        r.time_ms = Some(t);
    }

    if opts.trace && shown {
        stage(send, "tracing memory accesses");
        let t0 = std::time::Instant::now();
        match trace_variant(gpu, lesson, v, arch, bufs, opts) {
            Ok(mut m) => {
                m.trace_ms = t0.elapsed().as_secs_f64() * 1e3;
                r.memory = Some(m)
            }
            Err(TraceFail::Cuda(f)) if f.sticky => return Err(fatal(&v.name, f)),
            Err(TraceFail::Cuda(f)) => r.trace_error = Some(f.message),
            Err(TraceFail::Other(m)) => r.trace_error = Some(m),
        }
    }
    Ok(r)
}

enum TraceFail {
    Cuda(CudaFail),
    Other(String),
}

impl From<CudaFail> for TraceFail {
    fn from(f: CudaFail) -> Self {
        TraceFail::Cuda(f)
    }
}

/// Records the trace buffer holds (288 MiB): enough for a few blocks of a loop-heavy kernel
/// such as a private array in local memory, small next to any GPU the lessons fill.
const TRACE_CAPACITY: u32 = 1 << 20;

fn set_global<T: Copy>(m: &Module, name: &str, value: T) -> Result<(), CudaFail> {
    let (ptr, size) = m.global(name)?;
    if size < std::mem::size_of::<T>() {
        return Err(CudaFail {
            message: format!("{name} is {size} bytes"),
            sticky: false,
        });
    }
    let tmp = DevBuf { ptr, bytes: size };
    let res = tmp.upload(&[value]);
    // The module owns that memory: forget our view of it so it is not freed.
    std::mem::forget(tmp);
    res
}

fn trace_variant(
    gpu: &Gpu,
    lesson: &Lesson,
    v: &Variant,
    arch: &str,
    bufs: &Buffers,
    opts: &RunOptions,
) -> Result<MemoryStats, TraceFail> {
    let ptx = nvrtc::compile(&compile_job(v, arch, Output::Ptx))
        .map_err(|e| TraceFail::Other(e.to_string()))?;
    let text = String::from_utf8_lossy(&ptx.image)
        .trim_end_matches('\0')
        .to_string();
    let inst = trace::instrument::instrument(&text).map_err(|e| TraceFail::Other(e.to_string()))?;
    let mut image = inst.ptx.into_bytes();
    image.push(0);
    let module = Module::load(&image)?;
    let func = module.function(&ptx.lowered_name)?;
    if v.smem > 48 * 1024 {
        gpu::allow_dynamic_smem(func, v.smem)?;
    }
    let total = v.blocks();
    let wanted = if opts.trace_blocks > 0 {
        opts.trace_blocks
    } else {
        lesson.trace_blocks
    }
    .max(1) as u64;
    let stride = (total / wanted).max(1);
    let traced = total.div_ceil(stride).min(wanted);
    use trace::decode::RECORD_BYTES;
    use trace::instrument::{SYM_BLOCK_LIMIT, SYM_BLOCK_STRIDE, SYM_BUF, SYM_CAP, SYM_COUNT};
    let records = DevBuf::new(TRACE_CAPACITY as usize * RECORD_BYTES)?;
    set_global(&module, SYM_BUF, records.ptr)?;
    set_global(&module, SYM_CAP, TRACE_CAPACITY)?;
    set_global(&module, SYM_COUNT, 0u32)?;
    set_global(&module, SYM_BLOCK_STRIDE, stride as u32)?;
    set_global(&module, SYM_BLOCK_LIMIT, wanted as u32)?;
    poison_outputs(lesson, bufs)?;
    Launch {
        func,
        grid: v.grid,
        block: v.block,
        smem: v.smem,
        args: args_for(v, bufs),
    }
    .enqueue()?;
    gpu.synchronize()?;
    let (count_ptr, _) = module.global(SYM_COUNT)?;
    let count_view = DevBuf {
        ptr: count_ptr,
        bytes: 4,
    };
    let count = count_view.download::<u32>(1)?[0];
    std::mem::forget(count_view);
    let (kept, overflow) = trace::decode::records_to_read(count, TRACE_CAPACITY);
    let bytes: Vec<u8> = records.download(kept * RECORD_BYTES)?;
    let recs =
        trace::decode::decode(&bytes, &inst.sites).map_err(|e| TraceFail::Other(e.to_string()))?;
    let mut m = trace::analyze::analyze(&recs, &inst.sites);
    m.traced_blocks = traced;
    m.total_blocks = total;
    m.overflow = overflow;
    for i in m
        .instructions
        .iter()
        .filter(|i| i.space == crate::model::access::Space::Shared)
    {
        let c = match i.kind {
            crate::model::access::AccessKind::Load => &mut m.shared.ld,
            crate::model::access::AccessKind::Store => &mut m.shared.st,
        };
        c.requests += i.requests;
        c.wavefronts += i.wavefronts;
        c.ideal_wavefronts += i.ideal_wavefronts;
    }
    scale(&mut m, total as f64 / traced.max(1) as f64);
    Ok(m)
}

/// Scale traced totals from the sampled blocks to the whole grid.
fn scale(m: &mut MemoryStats, k: f64) {
    let s = |x: &mut u64| *x = (*x as f64 * k).round() as u64;
    s(&mut m.shared.requests);
    s(&mut m.shared.wavefronts);
    s(&mut m.shared.ideal_wavefronts);
    for c in [&mut m.shared.ld, &mut m.shared.st] {
        s(&mut c.requests);
        s(&mut c.wavefronts);
        s(&mut c.ideal_wavefronts);
    }
    s(&mut m.global.requests);
    s(&mut m.global.sectors);
    s(&mut m.global.lines);
    s(&mut m.global.bytes_used);
    s(&mut m.constant.requests);
    s(&mut m.constant.distinct);
    s(&mut m.local.bytes);
}
