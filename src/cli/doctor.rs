//! `gpulab doctor`: what this machine has for the lab, and the one command that gets each
//! missing piece. Everything is asked of the worker, as every run does, so a broken driver
//! or NVRTC cannot take this command down.

use super::say::say_part;
use crate::model::protocol::{HEADERS_PIP_HINT, PIP_HINT, Toolkit};
use crate::session::client::{WorkerClient, WorkerFailure};
use crate::session::fold::{self, Capabilities};
use std::path::PathBuf;

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
    let mut client = WorkerClient::new().on_device(device);
    gpu_lines(&mut out, fold::hello(&mut client, device));
    match client.toolkit() {
        Ok(tools) => tool_lines(&mut out, &tools),
        Err(e) => line(
            &mut out,
            false,
            "NVRTC",
            &format!("could not ask the worker: {e}"),
        ),
    }
    out
}

fn gpu_lines(out: &mut String, hello: Result<Capabilities, WorkerFailure>) {
    let caps = match hello {
        Ok(caps) => caps,
        Err(e) => return line(out, false, "GPU", &format!("could not ask the worker: {e}")),
    };
    match (&caps.device, &caps.no_gpu) {
        (Some(d), _) => {
            line(
                out,
                true,
                "GPU",
                &format!("{} (compute capability {}, {} SMs)", d.name, d.cc, d.sms),
            );
            line(out, true, "driver", &d.driver);
        }
        (None, why) => line(
            out,
            false,
            "GPU",
            &format!(
                "{} — the lab replays the recording; install an NVIDIA driver on a GPU machine to run live",
                why.as_deref().unwrap_or("none")
            ),
        ),
    }
}

fn tool(out: &mut String, name: &str, p: &Option<PathBuf>, why: &str, get: &str) {
    match p {
        Some(p) => line(out, true, name, &p.display().to_string()),
        None => line(
            out,
            false,
            name,
            &format!("not found — {why}; get it with: {get}"),
        ),
    }
}

fn tool_lines(out: &mut String, tools: &Toolkit) {
    match &tools.nvrtc {
        Ok(n) => line(out, true, "NVRTC", &format!("{} at {}", n.version, n.from)),
        Err(e) => line(
            out,
            false,
            "NVRTC",
            &format!("{e} — needed for live compile reports"),
        ),
    }
    headers_line(out, tools);
    if let Some(c) = &tools.confined {
        line(out, c.enforced, "compile confined", &c.words);
    }
    let shows = "shows SASS (LDL/STL, LDS, LDG)";
    tool(out, "nvdisasm", &tools.nvdisasm, shows, PIP_HINT);
    let yardstick = "measures the GEMM capstone against cuBLAS SGEMM";
    tool(
        out,
        "cuBLAS",
        &tools.cublas,
        yardstick,
        "the CUDA toolkit, or: pip install nvidia-cublas",
    );
    let checks = "checks traced counts against hardware counters";
    tool(
        out,
        "ncu",
        &tools.ncu,
        checks,
        "the CUDA toolkit (Nsight Compute)",
    );
    let finds = "finds races and out-of-bounds accesses";
    let sanitizer = &tools.compute_sanitizer;
    tool(
        out,
        "compute-sanitizer",
        sanitizer,
        finds,
        "the CUDA toolkit",
    );
    out.push_str("\nsearched, in order:\n");
    for s in &tools.searched {
        let mark = if s.present { "" } else { " (absent)" };
        out.push_str(&format!("  {:<16} {}{mark}\n", s.why, s.dir.display()));
    }
    out.push_str("  then the system loader path and $PATH\n");
}

fn headers_line(out: &mut String, tools: &Toolkit) {
    let dirs: Vec<String> = tools
        .include_dirs
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    if dirs.is_empty() {
        let why = "#include <cuda_fp16.h> or <cuda/std/...> will not compile";
        line(
            out,
            false,
            "CUDA headers",
            &format!("not found — {why}; get them with: {HEADERS_PIP_HINT}"),
        );
    } else {
        line(out, true, "CUDA headers", &dirs.join(", "));
    }
}

pub fn cmd_doctor(device: u32) -> anyhow::Result<()> {
    say_part!("{}", report(device));
    Ok(())
}
