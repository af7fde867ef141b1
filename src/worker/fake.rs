//! Stand-ins for a GPU and its failures, so the client's handling of faults, hangs and
//! crashes can be tested on machines without one. Chosen only by `GPULAB_WORKER_FAKE`;
//! never by a lesson.
//!
//! The old single words act on the first variant of a run and leave `Hello` to the real
//! worker: `hang`, `crash`, `fault`. A comma-separated list of the newer words fakes a GPU
//! (its `Hello` names one) that runs every variant correctly except as told:
//! `gpu`, `fault-on:V`, `assert-on:V`, `hang-on:V`, `crash-on:V`, `slow-compile:V` (V says
//! it is compiling and then nothing for 2 s, as a compile on a busy machine), `slow` (each variant
//! takes a while, so a test can act mid-run), `noisy:V` (another process computed while V
//! was timed: said at the run's end, after every variant's figures, as the real worker
//! says it once NVML's samples are in), `traced` (a run that asks for a trace gets an
//! empty one for each variant timed).
//!
//! Where a test names a turn folder (`GPULAB_LOCK_DIR`), the fake GPU takes a turn for each
//! variant as the real worker does, on a GPU of its own name (`FAKE_BUS`), so waiting in the
//! queue is tested end to end; elsewhere it takes none, and tests run side by side.

use super::gpu_turn::Hold;
use super::runner;
use super::turns::Turns;
use crate::analysis::limits;
use crate::model::Lesson;
use crate::model::protocol::{Reply, Request, RunOptions};
use crate::model::results::{DeviceInfo, TimeMs, VariantResult};
use std::time::Duration;

const LEGACY: [&str; 3] = ["hang", "crash", "fault"];

/// The PCI address the fake GPU takes its turns under.
pub const FAKE_BUS: &str = "fake:00:00.0";

/// Answer `req` as the fake `mode` would; false when the real worker should.
pub fn handle(mode: &str, req: &Request, send: &mut dyn FnMut(&Reply)) -> bool {
    if LEGACY.contains(&mode) {
        if let Request::Run { lesson, .. } = req {
            legacy_run(mode, lesson.variants.first().map(|v| v.name.as_str()), send);
            return true;
        }
        return false;
    }
    match req {
        Request::Hello { .. } => send(&Reply::Hello {
            device: Some(device()),
            no_gpu: None,
            nvrtc: Err("a fake worker compiles nothing".into()),
        }),
        Request::Run { lesson, options } => fake_run(mode, lesson, options, send),
        _ => return false,
    }
    send(&Reply::Done);
    true
}

/// The GPU the fake worker says it has: an H100's figures.
pub fn device() -> DeviceInfo {
    DeviceInfo {
        name: "Fake GPU".into(),
        cc: "9.0".into(),
        driver: "fake".into(),
        sms: 132,
        max_threads_per_sm: 2048,
        regs_per_sm: 65536,
        smem_per_sm: 233472,
        smem_per_block_optin: 232448,
        l2_bytes: 50 << 20,
        max_persisting_l2: 0,
        total_mem: 80 << 30,
        pcie: None,
        recorded_at: None,
    }
}

fn told(mode: &str, what: &str, variant: &str) -> bool {
    mode.split(',')
        .any(|w| w.strip_prefix(what).and_then(|r| r.strip_prefix(':')) == Some(variant))
}

fn fake_run(mode: &str, lesson: &Lesson, options: &RunOptions, send: &mut dyn FnMut(&Reply)) {
    let stage = |send: &mut dyn FnMut(&Reply), v: &str, s: &str| {
        send(&Reply::Stage {
            variant: v.into(),
            stage: s.into(),
        })
    };
    // What the real worker says where the GPU lacks a capability, against the fake GPU.
    if let Some(why) = lesson.requires.unmet(&device().cc, 1) {
        runner::lacking(lesson, options, &why, &mut |r| send(&r));
        return;
    }
    // The same refusal the real worker gives, against the fake GPU's memory.
    if let Err(why) = limits::check_memory(lesson, device().total_mem, None) {
        runner::refuse_all(lesson, options, &why.to_string(), &mut |r| send(&r));
        return;
    }
    stage(send, "", "preparing fresh inputs");
    let bus = std::env::var_os("GPULAB_LOCK_DIR").map(|_| FAKE_BUS.to_string());
    let turns = Turns::new(bus);
    for i in runner::run_order(lesson, options) {
        let name = lesson.variants[i].name.as_str();
        // One turn alone, held to the variant's end (the real worker's timed turn): a fake
        // that hangs or crashes here does so holding the GPU.
        let _turn = turns.take((options.job, Hold::Alone), name, &mut |r| send(&r));
        if told(mode, "slow-compile", name) {
            stage(send, name, "compiling");
            std::thread::sleep(Duration::from_secs(2));
        }
        stage(send, name, "checking the output");
        if mode.split(',').any(|w| w == "slow") {
            std::thread::sleep(Duration::from_millis(300));
        }
        fail_if_told(mode, name, send);
        if !(options.variants.is_empty() || options.variants.iter().any(|n| n == name)) {
            continue;
        }
        let mut result = correct(name);
        // Timed only where the run asks, as the real worker: a check that needs no time
        // (`ex check --deciding`) is seen not to take one.
        if options.time {
            stage(send, name, "timing");
            send(&Reply::Sample {
                variant: name.into(),
                ms: 1.0,
            });
        } else {
            result.time_ms = None;
            result.samples_ms.clear();
        }
        // `traced`: a trace with nothing in it, where the run asks for one.
        if options.trace && mode.split(',').any(|w| w == "traced") {
            stage(send, name, "tracing memory accesses");
            result.memory = Some(Default::default());
        }
        result.source_hash =
            crate::analysis::fingerprint::variant_hash(lesson, &lesson.variants[i]);
        send(&Reply::Variant {
            result: Box::new(result),
        });
    }
    for i in runner::run_order(lesson, options) {
        let name = lesson.variants[i].name.as_str();
        if told(mode, "noisy", name) {
            let noise = crate::analysis::gpu_share::Noise {
                pids: vec![4242],
                runs_hit: 1,
                runs: 1,
                sm_pct: 30,
                mem_pct: 0,
            };
            send(&Reply::Noise {
                variant: name.into(),
                noise: noise.to_string(),
            });
        }
    }
}

fn correct(name: &str) -> VariantResult {
    VariantResult {
        name: name.into(),
        correct: Some(true),
        time_ms: Some(TimeMs {
            median: 1.0,
            min: 1.0,
            max: 1.0,
            runs: 1,
            spread_pct: 0.0,
        }),
        samples_ms: vec![1.0],
        ..Default::default()
    }
}

fn fail_if_told(mode: &str, name: &str, send: &mut dyn FnMut(&Reply)) {
    let fault = |code: &str, text: &str| Reply::Fault {
        variant: Some(name.into()),
        message: format!("synchronize: {text} ({code})"),
        code: Some(code.into()),
    };
    if told(mode, "fault-on", name) {
        send(&fault(
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "an illegal memory access was encountered",
        ));
        std::process::exit(3);
    }
    if told(mode, "assert-on", name) {
        eprintln!(
            "corpus.cu:30: void copy(const float *, float *, int): block: [0,0,0], \
             thread: [7,0,0] Assertion `i != 7` failed."
        );
        send(&fault("CUDA_ERROR_ASSERT", "device-side assert triggered"));
        std::process::exit(3);
    }
    if told(mode, "crash-on", name) {
        eprintln!("fake worker: crashing on purpose");
        std::process::abort();
    }
    if told(mode, "hang-on", name) {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
}

fn legacy_run(mode: &str, variant: Option<&str>, send: &mut dyn FnMut(&Reply)) {
    let variant = variant.unwrap_or("?").to_string();
    send(&Reply::Stage {
        variant: variant.clone(),
        stage: "checking the output".into(),
    });
    match mode {
        "hang" => loop {
            std::thread::sleep(Duration::from_secs(3600));
        },
        "crash" => {
            eprintln!("fake worker: crashing on purpose");
            std::process::abort();
        }
        "fault" => {
            send(&Reply::Fault {
                variant: Some(variant),
                message: "running the kernel: an illegal memory access was encountered \
                          (CUDA_ERROR_ILLEGAL_ADDRESS)"
                    .into(),
                code: Some("CUDA_ERROR_ILLEGAL_ADDRESS".into()),
            });
            std::process::exit(3);
        }
        _ => send(&Reply::Done),
    }
}
