//! One lesson on the GPU: fresh inputs, then each variant in turn (the reference first, so
//! the others can be checked against it). Runs inside the worker process; replies stream
//! out as they are measured.

use super::Sink;
use super::copy_peak;
use super::gpu_turn::Hold;
use super::hostdata::{self, HostData};
use super::kept::{self, Kept};
use super::l2::{self, PersistingL2};
use super::launch::{Buffers, Staged};
use super::noise;
use super::sgemm_ref;
use super::turns::Turns;
use super::variant::{self, Fatal, Job, RunContext, capped};
use crate::analysis::fingerprint::blank_result;
use crate::analysis::limits;
use crate::cuda::gpu::{self, Gpu};
use crate::model::protocol::{JobKind, Reply, RunOptions};
use crate::model::results::Failure;
use crate::model::results::{Peak, VariantResult};
use crate::model::target::{Gpus, target};
use crate::model::{Lesson, Reference, Variant};

pub use super::compile::compile_job;
pub use super::launch::occupancy_from_report;

/// The worker's GPU, and what it has measured once for all lessons.
pub struct Session {
    pub gpu: Gpu,
    pub peak: Option<Peak>,
    /// The last inputs a run asked to keep (`keep_inputs`): a learner saving a kernel
    /// again and again need not wait for a GiB of fresh random numbers each time.
    pub kept: Option<Kept>,
    /// Turns on this GPU with the other gpulab processes using it.
    pub turns: Turns,
}

impl Session {
    pub fn new(gpu: Gpu) -> Session {
        let turns = Turns::new(gpu.pci_bus_id());
        turns.register();
        Session {
            gpu,
            peak: None,
            kept: None,
            turns,
        }
    }
}

pub fn run_lesson(
    session: &mut Session,
    lesson: &Lesson,
    opts: &RunOptions,
    send: Sink,
) -> Result<(), Fatal> {
    let unmet = (lesson.requires).unmet(&session.gpu.info().cc, session.gpu.device_count());
    if let Some(why) = unmet {
        lacking(lesson, opts, &why, send);
        return Ok(());
    }
    // NVRTC works on the CPU while the GPU makes the inputs and the reference: a learner's
    // save waits for the longer of the two, not for both.
    let ahead = (run_order(lesson, opts).into_iter())
        .map(|i| lesson.variants[i].clone())
        .collect();
    let on_this_gpu = Gpus {
        here: Some(session.gpu.info()),
        ..Default::default()
    };
    let arch = target(Some(lesson), &on_this_gpu).arch;
    super::compile::build_ahead(ahead, arch.clone());
    super::device_compare::build_ahead(lesson, arch.clone());
    let key = kept::key(lesson, opts);
    let kept = kept::take_for(&mut session.kept, &key, opts);
    if kept.is_none() && !fits_beside_kept(session, lesson, opts, send) {
        return Ok(());
    }
    let mut peak = ensure_peak(session, opts, send)?;
    send(Reply::Peak { peak: peak.clone() });
    say_inputs(send, kept.is_some());
    let gpu = &session.gpu;
    let turns = &session.turns;
    let made_by = kept::reference_fingerprint(lesson, opts);
    let (mut bufs, known, kept_cublas) = inputs((gpu, turns), lesson, opts, kept, &made_by, send)?;
    let reference_known = known.is_some();
    let mut expected: Vec<(usize, HostData)> = known.unwrap_or_else(|| {
        (super::outputs::builtin_expected(&lesson.reference, &bufs.host_inputs).into_iter())
            .collect()
    });
    let is_sgemm = matches!(lesson.reference, Reference::Sgemm { .. });
    // cuBLAS's output on kept inputs is among the kept expected ones; its speed too, when
    // it was timed and this run times.
    let cublas_known = is_sgemm && reference_known && (kept_cublas.is_some() || !opts.time);
    let mut cublas_timed = false;
    if cublas_known {
        if let Some(g) = kept_cublas {
            peak.cublas_gflops = Some(g);
            send(Reply::Peak { peak: peak.clone() });
        }
        send(Reply::Stage {
            variant: String::new(),
            stage: "cuBLAS's output and speed on these inputs, from the last check".into(),
        });
    } else if is_sgemm {
        // cuBLAS is timed beside its output when this run times: alone, then.
        let hold = if opts.time { Hold::Alone } else { Hold::Shared };
        let _turn = turns.take((opts.job, hold), "", send);
        if reference_known {
            // Kept outputs without a kept speed: cuBLAS runs again, and gives both.
            expected.clear();
        }
        cublas_reference(gpu, lesson, &mut bufs, opts, &mut expected, &mut peak, send)?;
        cublas_timed = opts.time && peak.cublas_gflops.is_some();
    }
    let l2 = set_aside_l2(gpu, lesson, send)?;
    let watch = opts.time.then(|| noise::Watch::start(gpu, turns)).flatten();
    let mut wrong = false;
    let ran: Result<(), Fatal> = 'variants: {
        for i in run_order(lesson, opts) {
            let v = &capped(&lesson.variants[i], opts.max_blocks);
            let is_reference = lesson.reference == Reference::Variant(i);
            if is_reference && reference_known && !wanted(opts, &v.name) {
                continue;
            }
            let ctx = RunContext {
                gpu,
                peak: &peak,
                lesson,
                arch: &arch,
                opts,
                expected: &expected,
                turns,
                l2: &l2,
                noise: watch.as_ref(),
            };
            match run_one(&ctx, v, is_reference, &mut bufs, send) {
                Ok((outputs, was_wrong)) => {
                    wrong |= was_wrong;
                    if !reference_known {
                        expected.extend(outputs);
                    }
                }
                Err(f) => break 'variants Err(f),
            }
        }
        Ok(())
    };
    // The variants timed last are judged now, in one wait for NVML's samples; those
    // measured before a fault too, for their figures stand.
    if let Some(w) = watch {
        match opts.job {
            // A learner waits on every save: no second more for NVML. The verdict is
            // judged on the samples already in, so another process's last second of
            // work may go unseen by a check (a lesson run or a recording waits for it).
            JobKind::ExerciseCheck => w.finish_now(send),
            _ => w.finish(send),
        }
    }
    ran?;
    // A kernel that wrote where it should not may have written into the inputs too: after
    // a wrong output the next check makes fresh ones rather than trust these.
    if opts.keep_inputs && !wrong {
        session.kept = Some(Kept {
            key,
            bufs,
            expected: kept::keepable(made_by, expected),
            cublas_gflops: peak.cublas_gflops.filter(|_| cublas_known || cublas_timed),
        });
    }
    Ok(())
}

/// Outputs as they should be, by buffer index.
type Expected = Vec<(usize, HostData)>;

/// The inputs of this run, kept or fresh, and the outputs expected of them when the same
/// reference (`made_by`) already made them on these very inputs. Fresh ones are made on
/// the host first, then uploaded in a turn of their own: the copies would slow another's
/// timed runs.
fn inputs(
    (gpu, turns): (&Gpu, &Turns),
    lesson: &Lesson,
    opts: &RunOptions,
    kept: Option<Kept>,
    made_by: &str,
    send: Sink,
) -> Result<(Buffers, Option<Expected>, Option<f64>), Fatal> {
    match kept {
        Some(k) => {
            let expected = k.expected.and_then(|(f, e)| (f == made_by).then_some(e));
            let cublas = k.cublas_gflops.filter(|_| expected.is_some());
            let mut bufs = k.bufs;
            if expected.is_none() {
                // Another reference makes them now: the GPU's copies are of the old ones.
                bufs.expected_dev.clear();
            }
            Ok((bufs, expected, cublas))
        }
        None => {
            let seed = hostdata::fresh_seed();
            let host: Vec<HostData> = (lesson.buffers.iter())
                .map(|b| hostdata::generate(b, seed))
                .collect();
            let staged = Staged::new(gpu, lesson, &host);
            // An upload is not timed: other turns that time nothing may run beside it.
            let _turn = turns.take((opts.job, Hold::Shared), "", send);
            let size = crate::analysis::limits::size;
            let stage = match staged.link_bytes(lesson) {
                (0, _) => "uploading the inputs".to_string(),
                (all, 0) => format!("uploading the inputs: {}", size(all)),
                (all, pinned) => format!(
                    "uploading the inputs: {}, {} of it from pinned memory",
                    size(all),
                    size(pinned)
                ),
            };
            send(Reply::Stage {
                variant: String::new(),
                stage,
            });
            let fresh = Buffers::upload(gpu, lesson, host, opts.guard, staged);
            Ok((fresh.map_err(|e| Fatal::in_variant("", e))?, None, None))
        }
    }
}

/// `fits`, beside the kept inputs when there is room for both; else they are freed first.
fn fits_beside_kept(session: &mut Session, lesson: &Lesson, opts: &RunOptions, send: Sink) -> bool {
    if session.kept.is_some() {
        if memory_check(&session.gpu, lesson).is_ok() {
            return true;
        }
        session.kept = None;
    }
    fits(&session.gpu, lesson, opts, send)
}

fn say_inputs(send: Sink, kept: bool) {
    let stage = match kept {
        true => "using the inputs of the last check again",
        false => "preparing fresh inputs",
    };
    send(Reply::Stage {
        variant: String::new(),
        stage: stage.into(),
    });
}

/// One variant, its result sent if it was asked for; the reference's outputs, when it is
/// the reference and right, for the others to match; and whether it was wrong.
fn run_one(
    ctx: &RunContext,
    v: &Variant,
    is_reference: bool,
    bufs: &mut Buffers,
    send: Sink,
) -> Result<(Vec<(usize, HostData)>, bool), Fatal> {
    let job = Job {
        variant: v,
        is_reference,
        shown: wanted(ctx.opts, &v.name),
    };
    let mut result = variant::run_variant(ctx, &job, bufs, send)?;
    let wrong = result.correct == Some(false);
    let mut outputs = Vec::new();
    if is_reference {
        if result.correct == Some(true) {
            outputs = reference_outputs(ctx.lesson, bufs, &v.name)?;
        } else {
            result
                .error
                .get_or_insert("the reference variant failed".into());
        }
    }
    if job.shown {
        send(Reply::Variant {
            result: Box::new(result),
        });
    }
    // After the figures, never before: a verdict marks them.
    if let Some(w) = ctx.noise {
        w.judge_settled(send);
    }
    Ok((outputs, wrong))
}

/// A `builtin: sgemm` reference: cuBLAS's output joins the expected ones, and its speed
/// the peak (sent again, with it).
fn cublas_reference(
    gpu: &Gpu,
    lesson: &Lesson,
    bufs: &mut Buffers,
    opts: &RunOptions,
    expected: &mut Vec<(usize, HostData)>,
    peak: &mut Peak,
    send: Sink,
) -> Result<(), Fatal> {
    let got =
        sgemm_ref::run(gpu, lesson, bufs, opts, send).map_err(|e| Fatal::in_variant("", e))?;
    if let Some(c) = got {
        expected.push(c.expected);
        peak.cublas_gflops = c.gflops;
        send(Reply::Peak { peak: peak.clone() });
    }
    Ok(())
}

/// The lesson's persisting-L2 set-aside, told to the learner as it starts.
fn set_aside_l2<'g>(gpu: &'g Gpu, lesson: &Lesson, send: Sink) -> Result<PersistingL2<'g>, Fatal> {
    let (l2, set) =
        PersistingL2::set(gpu, lesson.l2_persisting_bytes).map_err(|e| Fatal::in_variant("", e))?;
    if let Some(asked) = lesson.l2_persisting_bytes {
        send(Reply::Stage {
            variant: String::new(),
            stage: l2::stage_text(asked, set, gpu.info().max_persisting_l2),
        });
    }
    Ok(l2)
}

/// Checked before anything is allocated: a lesson too large for this GPU would otherwise
/// fail deep inside the driver, or page the host to a standstill. False (every variant
/// refused, with why) when it does not fit.
fn fits(gpu: &Gpu, lesson: &Lesson, opts: &RunOptions, send: Sink) -> bool {
    match memory_check(gpu, lesson) {
        Ok(()) => true,
        Err(why) => {
            refuse_all(lesson, opts, &why.to_string(), send);
            false
        }
    }
}

fn memory_check(gpu: &Gpu, lesson: &Lesson) -> Result<(), limits::Refusal> {
    // 0: the driver would not say; let the allocation decide then.
    let free = match gpu.free_memory() as u64 {
        0 => u64::MAX,
        f => f,
    };
    limits::check_memory(lesson, free, host_available())
}

/// Every variant asked for, marked not run, with why: nothing of the lesson fits.
pub(crate) fn refuse_all(lesson: &Lesson, opts: &RunOptions, why: &str, send: Sink) {
    for v in lesson.variants.iter().filter(|v| wanted(opts, &v.name)) {
        send(Reply::Variant {
            result: Box::new(VariantResult {
                correct: Some(false),
                error: Some(format!("not run: {why}")),
                failure: Some(Failure::OutOfMemory),
                ..blank_result(lesson, v)
            }),
        });
    }
}

/// Every variant asked for, not run because this machine lacks what the lesson requires.
/// Not an error: neither right nor wrong, and the recording's figures stand.
pub(crate) fn lacking(lesson: &Lesson, opts: &RunOptions, why: &str, send: Sink) {
    for v in lesson.variants.iter().filter(|v| wanted(opts, &v.name)) {
        send(Reply::Variant {
            result: Box::new(VariantResult {
                unmet: Some(why.to_string()),
                ..blank_result(lesson, v)
            }),
        });
    }
}

/// Host memory the kernel says is available for new allocations (Linux), in bytes.
fn host_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The copy bandwidth of this GPU, measured on the first timed run of the session.
fn ensure_peak(session: &mut Session, opts: &RunOptions, send: Sink) -> Result<Peak, Fatal> {
    if session.peak.is_none() && opts.time {
        let bus = session.turns.bus().map(str::to_string);
        let kept = (bus.as_deref()).and_then(|b| copy_peak::kept(b, session.gpu.info()));
        let gbps = match kept {
            Some((gbps, age)) => {
                send(Reply::Stage {
                    variant: String::new(),
                    stage: format!(
                        "the copy bandwidth of this GPU: {gbps:.0} GB/s, measured {} s ago",
                        age.as_secs()
                    ),
                });
                gbps
            }
            None => {
                let _turn = session.turns.take((opts.job, Hold::Alone), "", send);
                send(Reply::Stage {
                    variant: String::new(),
                    stage: "measuring the copy bandwidth of this GPU".into(),
                });
                let gbps = gpu::measure_copy_gbps(&session.gpu).map_err(|error| Fatal {
                    variant: None,
                    error,
                })?;
                if let Some(b) = &bus {
                    copy_peak::keep(b, session.gpu.info(), gbps);
                }
                gbps
            }
        };
        session.peak = Some(Peak {
            copy_gbps: Some(gbps),
            cublas_gflops: None,
            link_gbps: (session.gpu.info().pcie).and_then(|l| l.theoretical_gbps()),
        });
    }
    Ok(session.peak.clone().unwrap_or_default())
}

pub(crate) fn wanted(opts: &RunOptions, name: &str) -> bool {
    opts.variants.is_empty() || opts.variants.iter().any(|n| n == name)
}

/// The reference variant first (the others are checked against its outputs), then the
/// variants asked for, in lesson order.
pub(crate) fn run_order(lesson: &Lesson, opts: &RunOptions) -> Vec<usize> {
    let mut order: Vec<usize> = Vec::new();
    if let Reference::Variant(r) = lesson.reference {
        order.push(r);
    }
    // Asked by name: in the order asked (a learner's kernel first, its figures soonest).
    let asked = |name: &str| opts.variants.iter().position(|n| n == name);
    let mut rest: Vec<usize> = (0..lesson.variants.len())
        .filter(|&i| wanted(opts, &lesson.variants[i].name) && !order.contains(&i))
        .collect();
    rest.sort_by_key(|&i| asked(&lesson.variants[i].name));
    order.extend(rest);
    order
}

/// The reference's outputs, as every other variant must reproduce them.
fn reference_outputs(
    lesson: &Lesson,
    bufs: &Buffers,
    variant: &str,
) -> Result<Vec<(usize, HostData)>, Fatal> {
    let mut out = Vec::new();
    for (j, b) in lesson.buffers.iter().enumerate() {
        if b.is_output() && !lesson.is_measured(j) {
            let data = bufs
                .download(lesson, j)
                .map_err(|e| Fatal::in_variant(variant, e))?;
            out.push((j, data));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod order_tests {
    use super::*;
    use crate::model::builder::LessonBuilder;

    #[test]
    fn the_reference_runs_first_then_the_variants_in_the_order_asked() {
        let mut l = LessonBuilder::new("l")
            .variant("a")
            .variant("b")
            .variant("yours")
            .build();
        l.reference = Reference::Variant(0);
        let names = |o: &RunOptions| -> Vec<String> {
            run_order(&l, o)
                .into_iter()
                .map(|i| l.variants[i].name.clone())
                .collect()
        };
        assert_eq!(names(&RunOptions::default()), ["a", "b", "yours"]);
        let asked = RunOptions {
            variants: vec!["yours".into(), "b".into()],
            ..RunOptions::default()
        };
        assert_eq!(names(&asked), ["a", "yours", "b"]);
    }
}
