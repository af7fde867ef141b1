//! How long the CPU interpreter takes to trace each shipped lesson's sampled blocks at the
//! lesson's size, as `gpulab run LESSON --cpu` does after compiling (the SASS read for
//! split shared accesses included; the CUBIN it reads is built first, as a run builds it
//! for the ptxas report). Needs NVRTC, no GPU.
//!
//!     cargo run --release --example cpu_trace_bench [-- LESSON[/VARIANT]...]

use gpulab::course::bundle::CourseRoot;
use gpulab::cuda::nvrtc::Output;
use gpulab::interp;
use gpulab::worker::compile::{compile_cached, compile_checked, compile_job};
use std::time::Instant;

fn main() {
    let only: Vec<String> = std::env::args().skip(1).collect();
    let (lessons, errs) = gpulab::course::load::load_course(&CourseRoot::Bundled);
    assert!(errs.is_empty(), "{errs:?}");
    let mut worst = (0f64, String::new());
    for l in lessons
        .iter()
        .filter(|l| only.is_empty() || only.iter().any(|o| o.split('/').next() == Some(&l.id)))
    {
        let arch = l.arch_on(None);
        let mut lesson_secs = 0f64;
        let mut refused = Vec::new();
        let picked = |name: &str| {
            only.iter().all(|o| {
                o.split_once('/')
                    .is_none_or(|(id, v)| id != l.id || v == name)
            })
        };
        for v in l.variants.iter().filter(|v| picked(&v.name)) {
            let c = compile_cached(&compile_job(v, &arch, Output::Ptx)).expect("NVRTC");
            compile_checked(l, v, &arch).expect("a CUBIN");
            let ptx = String::from_utf8_lossy(&c.image)
                .trim_end_matches('\0')
                .to_string();
            let Ok(k) = interp::prepare(&ptx, &c.lowered_name) else {
                refused.push(v.name.clone());
                continue;
            };
            let t0 = Instant::now();
            let limits = interp::limits::Limits::for_arch(&arch, Default::default());
            let m = gpulab::worker::interpreted::trace_sampled(&k, l, v, (0, 0), &limits);
            let secs = t0.elapsed().as_secs_f64();
            let Ok(m) = m else {
                refused.push(v.name.clone());
                continue;
            };
            lesson_secs += secs;
            if secs > worst.0 {
                worst = (secs, format!("{}/{}", l.id, v.name));
            }
            println!(
                "{:>18} {:<18} {:>8.1} ms  {} of {} blocks",
                l.id,
                v.name,
                secs * 1e3,
                m.traced_blocks,
                m.total_blocks
            );
        }
        println!(
            "{:>18} {:<18} {:>8.1} ms  all variants{}",
            l.id,
            "",
            lesson_secs * 1e3,
            match refused.is_empty() {
                true => String::new(),
                false => format!(" (not interpreted: {})", refused.join(", ")),
            }
        );
    }
    println!("slowest variant: {} {:.1} ms", worst.1, worst.0 * 1e3);
}
