//! `gpulab doctor`: what this machine has for the lab, and the one command that gets each
//! missing piece.

use crate::cuda::discover::{self, PIP_HINT};
use crate::session::client::WorkerClient;
use crate::session::fold;

fn line(out: &mut String, ok: bool, what: &str, detail: &str) {
    out.push_str(&format!(
        "{} {:<18} {}\n",
        if ok { "✓" } else { "✗" },
        what,
        detail
    ));
}

pub fn report(device: u32) -> String {
    let mut out = String::new();
    let found = discover::find();
    // The GPU is asked through the worker, as every run does, so a broken driver cannot
    // take this command down.
    let mut client = WorkerClient::new();
    match fold::hello(&mut client, device) {
        Ok(caps) => match (&caps.device, &caps.no_gpu) {
            (Some(d), _) => {
                line(
                    &mut out,
                    true,
                    "GPU",
                    &format!("{} (compute capability {}, {} SMs)", d.name, d.cc, d.sms),
                );
                line(&mut out, true, "driver", &d.driver);
            }
            (None, why) => {
                line(
                    &mut out,
                    false,
                    "GPU",
                    &format!(
                        "{} — the lab replays the recording; install an NVIDIA driver on a GPU machine to run live",
                        why.as_deref().unwrap_or("none")
                    ),
                );
            }
        },
        Err(e) => line(
            &mut out,
            false,
            "GPU",
            &format!("could not ask the worker: {e}"),
        ),
    }
    match discover::ensure_nvrtc() {
        Ok(from) => {
            let v = crate::cuda::nvrtc::version().unwrap_or_default();
            line(&mut out, true, "NVRTC", &format!("{v} at {from}"));
        }
        Err(e) => line(
            &mut out,
            false,
            "NVRTC",
            &format!("{e} — needed for live compile reports"),
        ),
    }
    let tool = |out: &mut String,
                name: &str,
                p: &Option<std::path::PathBuf>,
                why: &str,
                get: &str| match p {
        Some(p) => line(out, true, name, &p.display().to_string()),
        None => line(
            out,
            false,
            name,
            &format!("not found — {why}; get it with: {get}"),
        ),
    };
    tool(
        &mut out,
        "nvdisasm",
        &found.nvdisasm,
        "shows SASS (LDL/STL, LDS, LDG)",
        PIP_HINT,
    );
    tool(
        &mut out,
        "ncu",
        &found.ncu,
        "checks traced counts against hardware counters",
        "the CUDA toolkit (Nsight Compute)",
    );
    tool(
        &mut out,
        "compute-sanitizer",
        &found.compute_sanitizer,
        "finds races and out-of-bounds accesses",
        "the CUDA toolkit",
    );
    out.push_str("\nsearched, in order:\n");
    for (why, dir) in &found.searched {
        let mark = if dir.is_dir() { "" } else { " (absent)" };
        out.push_str(&format!("  {:<16} {}{mark}\n", why, dir.display()));
    }
    out.push_str("  then the system loader path and $PATH\n");
    out
}

pub fn cmd_doctor(device: u32) -> anyhow::Result<()> {
    print!("{}", report(device));
    Ok(())
}
