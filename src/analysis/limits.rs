//! What a lesson asks of a machine, checked before anything is allocated or launched: the
//! memory its buffers need against what is free, and each launch against the GPU's limits
//! on threads, shared memory and registers per block. A refusal says which limit and the
//! numbers, so the learner knows what to shrink.

use crate::model::results::{DeviceInfo, PtxasReport};
use crate::model::{Lesson, Variant};

/// A byte count for people: "3.6 PiB", "200 GiB", "227 KiB", "96 B".
pub fn size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 5] = [
        ("PiB", 1 << 50),
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (unit, scale) in UNITS {
        if bytes >= scale {
            let x = bytes as f64 / scale as f64;
            return if x.fract() == 0.0 || x >= 100.0 {
                format!("{x:.0} {unit}")
            } else {
                format!("{x:.1} {unit}")
            };
        }
    }
    format!("{bytes} B")
}

/// Host memory a run of `lesson` needs: every buffer's host copy, and each output twice
/// more (the reference's copy and the one compared with it).
pub fn host_bytes(lesson: &Lesson) -> u64 {
    let all: u64 = lesson.buffers.iter().map(|b| b.bytes()).sum();
    let outs: u64 = lesson
        .buffers
        .iter()
        .filter(|b| b.is_output())
        .map(|b| b.bytes())
        .sum();
    all + 2 * outs
}

/// Why a lesson's buffers or a variant's launch cannot be had on a GPU, with the numbers a
/// learner can change.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    #[error("buffer `{name}` needs {need}, {has}")]
    Buffer {
        name: String,
        need: String,
        has: String,
    },
    #[error("the buffers need {need} together, {has}")]
    Buffers { need: String, has: String },
    #[error(
        "the buffers need {need} of host memory for their data, this machine has {has} available"
    )]
    Host { need: String, has: String },
    #[error(
        "the block {block:?} has {threads} threads; a block may have at most {MAX_THREADS} \
         (and {MAX_BLOCK:?} per dimension)"
    )]
    Threads { block: [u32; 3], threads: u32 },
    #[error(
        "the launch asks for {asks} of dynamic shared memory{beside}; this GPU allows {allows} \
         per block"
    )]
    SharedMemory {
        asks: String,
        beside: String,
        allows: String,
    },
    #[error(
        "{threads} threads of {regs} registers each need {needed} registers; a block may have \
         at most {max} (fewer threads per block, or __launch_bounds__ to cap registers)"
    )]
    Registers {
        threads: u32,
        regs: u32,
        needed: u64,
        max: u32,
    },
}

/// Why the buffers of `lesson` cannot be allocated on a GPU with `free` bytes free, or on
/// a host with `host_free` bytes available (when known), without trying.
pub fn check_memory(lesson: &Lesson, free: u64, host_free: Option<u64>) -> Result<(), Refusal> {
    check_device(lesson, free, &format!("the GPU has {} free", size(free)))?;
    match host_free {
        Some(h) if host_bytes(lesson) > h => Err(Refusal::Host {
            need: size(host_bytes(lesson)),
            has: size(h),
        }),
        _ => Ok(()),
    }
}

/// The buffers against `room` bytes of device memory; `has` ends the sentence.
fn check_device(lesson: &Lesson, room: u64, has: &str) -> Result<(), Refusal> {
    let largest = lesson.buffers.iter().max_by_key(|b| b.bytes());
    if let Some(b) = largest.filter(|b| b.bytes() > room) {
        return Err(Refusal::Buffer {
            name: b.name.clone(),
            need: size(b.bytes()),
            has: has.to_string(),
        });
    }
    let total: u64 = lesson.buffers.iter().map(|b| b.bytes()).sum();
    if total > room {
        return Err(Refusal::Buffers {
            need: size(total),
            has: has.to_string(),
        });
    }
    Ok(())
}

/// The most threads a block may have, and per dimension (x, y, z), on every GPU the lab
/// supports.
const MAX_THREADS: u32 = 1024;
const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];

/// Shared memory a block may have, static and dynamic together (the opt-in maximum), on a
/// GPU of architecture `arch` (`sm_90`, `sm_90a`), as CUDA's table of compute capabilities
/// gives it; None for an architecture it does not list.
pub fn smem_per_block(arch: &str) -> Option<u32> {
    let digits: String = (arch.strip_prefix("sm_").unwrap_or(arch).chars())
        .take_while(char::is_ascii_digit)
        .collect();
    let kib = match digits.parse::<u32>().ok()? {
        70 | 72 => 96,
        75 => 64,
        80 | 87 => 163,
        86 | 89 => 99,
        90 | 100 | 101 | 103 | 110 => 227,
        120 | 121 => 99,
        _ => return None,
    };
    Some(kib << 10)
}

/// Why `v` cannot be launched on `dev`, in words with the numbers; `ptxas` (when known)
/// adds the kernel's own registers and static shared memory.
pub fn check_launch(
    v: &Variant,
    dev: &DeviceInfo,
    ptxas: Option<&PtxasReport>,
) -> Result<(), Refusal> {
    let threads = v.threads_per_block();
    if threads > MAX_THREADS || (0..3).any(|d| v.block[d] > MAX_BLOCK[d]) {
        return Err(Refusal::Threads {
            block: v.block,
            threads,
        });
    }
    let static_smem = ptxas.map_or(0, |p| p.smem);
    let optin = dev.smem_per_block_optin;
    if optin > 0 && u64::from(v.smem) + u64::from(static_smem) > u64::from(optin) {
        return Err(Refusal::SharedMemory {
            asks: size(v.smem.into()),
            beside: if static_smem > 0 {
                format!(" beside {} static", size(static_smem.into()))
            } else {
                String::new()
            },
            allows: size(optin.into()),
        });
    }
    let regs = ptxas.map_or(0, |p| p.registers);
    // Registers are handed out per warp in chunks of 256.
    let per_warp = (regs * 32).div_ceil(256) * 256;
    let needed = u64::from(per_warp) * u64::from(threads.div_ceil(32));
    if dev.regs_per_sm > 0 && needed > u64::from(dev.regs_per_sm) {
        return Err(Refusal::Registers {
            threads,
            regs,
            needed,
            max: dev.regs_per_sm,
        });
    }
    Ok(())
}

/// The warnings `check` gives for `lesson` against `dev`, which `on` names ("the NVIDIA
/// H100 80GB HBM3 it was recorded on").
pub fn warnings(lesson: &Lesson, dev: &DeviceInfo, on: &str) -> Vec<String> {
    let mut out = Vec::new();
    let has = format!("{on} has {}", size(dev.total_mem));
    if dev.total_mem > 0
        && let Err(why) = check_device(lesson, dev.total_mem, &has)
    {
        out.push(why.to_string());
    }
    for v in &lesson.variants {
        if let Err(why) = check_launch(v, dev, None) {
            out.push(format!("variant {}: {why} ({on})", v.name));
        }
    }
    out
}

/// A device's memory; for one recorded before it was kept, what its name says ("NVIDIA
/// H100 80GB HBM3": 80 GiB), else 0.
pub fn total_mem(dev: &DeviceInfo) -> u64 {
    if dev.total_mem > 0 {
        return dev.total_mem;
    }
    dev.name
        .split_whitespace()
        .find_map(|w| w.strip_suffix("GB")?.parse::<u64>().ok())
        .map_or(0, |gb| gb << 30)
}

#[cfg(test)]
#[path = "limits_tests.rs"]
mod tests;
