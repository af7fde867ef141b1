//! Shared by the integration tests: where the binary is, and the NVRTC skip rule.

#![allow(dead_code)]

use std::path::PathBuf;

/// The binary under test. `GPULAB_BIN` overrides the build path, for test binaries that
/// were built on one machine and run on another (the GPU machine has no toolchain).
pub fn bin() -> PathBuf {
    std::env::var_os("GPULAB_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_gpulab")))
}

/// The source tree: where it was built, else the current folder (a copy on another machine).
pub fn manifest_dir() -> PathBuf {
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if built.join("Cargo.toml").is_file() {
        built
    } else {
        std::env::current_dir().unwrap()
    }
}

pub fn fixture(rel: &str) -> PathBuf {
    manifest_dir().join("tests/fixtures").join(rel)
}

/// True when NVRTC can be loaded. Without it the test skips, saying why, unless
/// GPULAB_REQUIRE_NVRTC=1 (CI), where a missing NVRTC is a failure.
pub fn nvrtc_or_skip(test: &str) -> bool {
    match gpulab::cuda::discover::ensure_nvrtc() {
        Ok(_) => true,
        Err(why) => {
            if std::env::var("GPULAB_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
                panic!("{test}: GPULAB_REQUIRE_NVRTC=1 but NVRTC is missing: {why}");
            }
            eprintln!("skipped {test}: {why}");
            false
        }
    }
}

/// The GPU the worker finds, or None after saying that the test skipped and why.
pub fn gpu() -> Option<gpulab::model::results::DeviceInfo> {
    let mut c = gpulab::session::client::WorkerClient::with_command(bin(), vec!["worker".into()]);
    match gpulab::session::fold::hello(&mut c, 0) {
        Ok(caps) => {
            if caps.device.is_none() {
                eprintln!("skipped: no GPU ({})", caps.no_gpu.unwrap_or_default());
            }
            caps.device
        }
        // A GPU test that cannot even start the worker has found a bug, not a missing GPU.
        Err(e) => panic!("{e}"),
    }
}

/// `text` loaded as `file` from the probe pack (tests/fixtures/extras); errors as
/// `line:col: message`, so tests can assert positions.
pub fn load_probe(file: &str, text: &str) -> Result<gpulab::model::Lesson, Vec<String>> {
    let root = gpulab::course::bundle::CourseRoot::Dir(fixture("extras/lessons"));
    gpulab::course::load_file(&root, file, text).map_err(|errs| {
        errs.iter()
            .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
            .collect()
    })
}

/// `base` with `from` replaced by `to`, loaded as `file`: exactly one error, on the line that
/// holds `to`, containing `phrase`.
pub fn single_probe_error(file: &str, base: &str, from: &str, to: &str, phrase: &str) {
    assert!(base.contains(from), "{from}");
    let text = base.replacen(from, to, 1);
    let errs = load_probe(file, &text).expect_err("should fail");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    let line = 1 + text.lines().position(|l| l.contains(to)).unwrap();
    assert!(errs[0].starts_with(&format!("{line}:")), "{errs:?}");
    assert!(errs[0].contains(phrase), "{errs:?}");
}

/// Run `text`, loaded as `file` from the probe pack, on the GPU through a real worker: the
/// device and every variant's result, or None after saying that the test skipped. The
/// lesson loads before the GPU is asked for, so a machine without one still checks it.
pub fn run_probe_on_gpu(
    file: &str,
    text: &str,
    trace: bool,
) -> Option<(
    gpulab::model::results::DeviceInfo,
    Vec<gpulab::model::results::VariantResult>,
)> {
    let options = gpulab::model::protocol::RunOptions {
        trace,
        ..Default::default()
    };
    run_probe_on_gpu_with(file, text, options)
}

/// `run_probe_on_gpu` with the run's options given.
pub fn run_probe_on_gpu_with(
    file: &str,
    text: &str,
    options: gpulab::model::protocol::RunOptions,
) -> Option<(
    gpulab::model::results::DeviceInfo,
    Vec<gpulab::model::results::VariantResult>,
)> {
    use gpulab::model::protocol::{Reply, Request};
    let lesson = load_probe(file, text).unwrap_or_else(|e| panic!("{e:#?}"));
    let mut c = gpulab::session::client::WorkerClient::with_command(bin(), vec!["worker".into()]);
    let caps = gpulab::session::fold::hello(&mut c, 0).unwrap_or_else(|e| panic!("{e}"));
    let Some(device) = caps.device else {
        eprintln!("skipped: no GPU ({})", caps.no_gpu.unwrap_or_default());
        return None;
    };
    let req = Request::Run {
        lesson: Box::new(lesson),
        options,
    };
    let mut results = Vec::new();
    c.request(&req, std::time::Duration::from_secs(120), |r| {
        if let Reply::Variant { result } = r {
            results.push((**result).clone());
        }
    })
    .unwrap();
    Some((device, results))
}

/// Feed the worker thread's news to the lab until `done` holds, sending the jobs it asks
/// for; fails after `secs` seconds.
pub fn pump(
    app: &mut gpulab::ui::App,
    rx: &std::sync::mpsc::Receiver<gpulab::ui::UiEvent>,
    jobs: &std::sync::mpsc::Sender<gpulab::ui::Job>,
    secs: u64,
    done: impl Fn(&gpulab::ui::App) -> bool,
) {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !done(app) {
        for job in app.outbox.drain(..) {
            jobs.send(job).unwrap();
        }
        let left = end.saturating_duration_since(std::time::Instant::now());
        assert!(!left.is_zero(), "the worker never finished");
        if let Ok(ev) = rx.recv_timeout(left) {
            app.on_event(ev);
        }
    }
}

/// The head of a probe lesson most loader tests share, up to `variants:`: its pages, the
/// `problem` lines given (with `n` among the sizes) and the three buffers the probe kernel
/// takes.
pub fn probe_head(space: &str, problem: &str) -> String {
    format!(
        "format_version: 1\nid: probe\ntitle: Probe\nspace: {space}\n\
         pages: [{{ title: t, text: x }}]\n{problem}\nbuffers:\n\
         \x20 - {{ name: in, type: f32, len: n, init: random }}\n\
         \x20 - {{ name: out, type: f32, len: n, init: poison }}\n\
         \x20 - {{ name: cycles, type: u64, len: n, init: poison }}\n"
    )
}

/// The source lines of `finish` in a kernel's `source`: the epilogue only the grid's last
/// block to finish runs. On the GPU the traced blocks, slowed by their logging, finish last
/// and so run it; the interpreter traces the sampled blocks alone, none of them last. Its
/// sites may be traced on the GPU only, and that is no difference of the two tracers.
pub fn last_block_lines(source: &str) -> std::ops::Range<u32> {
    let lines: Vec<&str> = source.lines().collect();
    let Some(start) = lines
        .iter()
        .position(|l| l.starts_with("__device__ void finish("))
    else {
        return 0..0;
    };
    let end = (start..lines.len())
        .find(|&i| lines[i] == "}")
        .unwrap_or(start);
    (start as u32 + 1)..(end as u32 + 2)
}

/// Lessons the shipped recording does not hold yet, each with why. A lesson leaves this list
/// when it is recorded on the H100 (`gpulab record --lesson ID`); the test fails for a
/// listed lesson the recording has, so the list cannot outlive its reason. Until then the
/// lab says "no recording of this lesson" and runs it live or on the interpreter.
pub const NOT_YET_RECORDED: &[(&str, &str)] = &[];

/// Kernel files for which NVRTC 13.0 itself gives one of two PTX texts for the very same
/// job, from one compile to the next within a process: a GEMM rung's 16-byte shared load
/// (`ld.shared.v4.f32`) is now and then followed by a second, 8-byte load of half of the
/// same words (`ld.shared.v2.f32`, under a `used_bytes_mask` pragma). For these the CUBIN
/// build's PTX cannot be held equal to a PTX build's (tests/it/nvrtc.rs), nor the interpreter's
/// trace to the recording's site by site (tests/it/cpu_recorded.rs, which compares their
/// totals instead). A file not listed that varies fails, so the exemption cannot spread
/// unseen; the list goes when the kernels name their vector loads in PTX, which NVRTC
/// cannot rewrite, and the GEMM is recorded again from them.
/// `kernels/gemm/ladder.cu` joined the list when its `double-buffered` rung came out of NVRTC
/// with and without the extra `ld.shared.v2.f32` in 2 of 8 compiles on one machine (62 sites
/// against 63), which is what an H200 run's GPU-against-interpreter trace had tripped on.
pub const NVRTC_VARIES: &[&str] = &["kernels/gemm/tuned.cu", "kernels/gemm/ladder.cu"];

/// A kernel's traffic by the operation's space and direction (`ld.shared`, `st.global`,
/// ...): wavefronts, ideal wavefronts and sectors, however it was cut into instructions.
pub type Traffic = std::collections::BTreeMap<String, [u64; 3]>;

/// The traffic of instructions given as (op, wavefronts, ideal wavefronts, sectors).
pub fn traffic<'a>(instructions: impl IntoIterator<Item = (&'a str, u64, u64, u64)>) -> Traffic {
    let mut out = Traffic::new();
    for (op, wavefronts, ideal, sectors) in instructions {
        let key: String = op.split('.').take(2).collect::<Vec<_>>().join(".");
        let t: &mut [u64; 3] = out.entry(key).or_default();
        t[0] += wavefronts;
        t[1] += ideal;
        t[2] += sectors;
    }
    out
}

/// Whether two builds of an `NVRTC_VARIES` kernel move the same traffic: all of it exactly,
/// but the shared loads' wavefronts, which the extra 8-byte load of half a float4's words
/// moves by about 1% (397,312 against 393,216 for the GEMM's `paired`), within 2%.
pub fn same_traffic(a: &Traffic, b: &Traffic) -> bool {
    let near = |x: u64, y: u64| x.abs_diff(y) as f64 <= 0.02 * y.max(1) as f64;
    a.keys().eq(b.keys())
        && a.iter().all(|(k, x)| {
            let y = &b[k];
            match k.as_str() {
                "ld.shared" => near(x[0], y[0]) && near(x[1], y[1]) && x[2] == y[2],
                _ => x == y,
            }
        })
}

/// Whether `variant` of `l` reads a buffer filled `shuffled`: its addresses depend on an
/// order drawn afresh for every run (the atomics lesson's noise), so two runs, the GPU's and
/// the interpreter's or the recording's and this one, trace two pictures.
pub fn reads_a_fresh_order(l: &gpulab::model::Lesson, variant: &str) -> bool {
    use gpulab::model::{Arg, Init};
    let Some(v) = l.variant(variant) else {
        return false;
    };
    v.args.iter().any(|a| match a {
        Arg::Buffer(i) => {
            (l.buffers.get(*i)).is_some_and(|b| matches!(b.init, Init::Ramp { shuffled: true, .. }))
        }
        _ => false,
    })
}

/// Figures of one instruction traced on two pictures of one fresh order
/// (`reads_a_fresh_order`), each as `[exact, ..]` pairs: what the picture cannot move (the
/// requests, the ideal wavefronts) equal, what it moves (wavefronts, sectors, lines,
/// distinct addresses, an aggregated atomic's lanes) within 3%: two pictures of the noise
/// differed by up to 1.1% in shared wavefronts on the H200 (6222 against 6293).
pub fn near_on_fresh_orders(exact: &[(u64, u64)], moved: &[(u64, u64)]) -> bool {
    let near = |x: u64, y: u64| x.abs_diff(y) as f64 <= 0.03 * y.max(1) as f64;
    exact.iter().all(|(a, b)| a == b) && moved.iter().all(|&(a, b)| near(a, b))
}

/// `f` of every item, on up to `GPULAB_TEST_LESSON_THREADS` threads at once (default 4), the
/// results in the items' order: a GPU test that runs every lesson, each through a process of
/// its own, overlaps their compiles, inputs and trace analyses on the host while their
/// workers take the GPU by turns (timed runs alone on it, as learners' are).
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::env::var("GPULAB_TEST_LESSON_THREADS")
        .ok()
        .and_then(|t| t.parse::<usize>().ok())
        .unwrap_or(4)
        .max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.min(items.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    *out[i].lock().unwrap() = Some(r);
                }
            });
        }
    });
    (out.into_iter())
        .map(|m| m.into_inner().unwrap().expect("every item was mapped"))
        .collect()
}
