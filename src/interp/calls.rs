//! Calls: a new frame whose parameters are copied from the caller's `.param` variables, the
//! return value copied back when the frame's lanes have all returned; and `printf`, which
//! NVRTC lowers to `vprintf(format, argument buffer)`.

use super::block::BlockCtx;
use super::frame::{Event, Frame};
use super::lanes::lanes;
use super::limits::PRINTF_BUFFER;
use super::mem::resolve;
use super::program::{Instr, Program};
use super::warp::Warp;
use super::{Fault, Halt, RunError};
use crate::model::results::PerturbOf;

const MAX_DEPTH: usize = 64;

pub fn call(
    w: &mut Warp,
    prog: &Program,
    ctx: &mut BlockCtx,
    ins: &Instr,
    active: u32,
) -> Result<Event, RunError> {
    let c = ins.call.as_ref().expect("a decoded call");
    let callee = &prog.funcs[c.func];
    let caller = w.frames.last().expect("a frame");
    if callee.name == "vprintf" {
        for lane in lanes(active) {
            let arg = |k: usize| {
                let off = c.args.get(k).map_or(0, |&o| o as usize) + lane * caller.pbytes;
                caller
                    .params
                    .get(off..off + 8)
                    .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap()))
            };
            if ctx.printed.len() >= PRINTF_BUFFER {
                // Full, as a GPU's printf buffer gets: the rest is lost, not formatted.
                break;
            }
            let text = printf(ctx, arg(0), arg(1), w.id as usize * 32 + lane);
            keep_printed(ctx.printed, &text);
        }
        return Ok(Event::Next);
    }
    if callee.name == "__assertfail" {
        // `assert()`: (message, file, line, function, char size); the GPU stops the kernel.
        let lane = active.trailing_zeros() as usize;
        let arg = |k: usize| {
            let off = c.args.get(k).map_or(0, |&o| o as usize) + lane * caller.pbytes;
            (caller.params.get(off..off + 8))
                .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap()))
        };
        let thread = w.id as usize * 32 + lane;
        let (msg, file, line, func) = (arg(0), arg(1), arg(2) as u32, arg(3));
        let why = format!(
            "{}:{line}: {}: Assertion `{}` failed (device-side assert)",
            c_string(ctx, file, thread),
            c_string(ctx, func, thread),
            c_string(ctx, msg, thread)
        );
        let halt = Halt::Fault(Fault::Assert);
        return Err(ctx.halt(ins.place, w.id, (why, halt), 1 << lane));
    }
    if !callee.has_body {
        let why = format!(
            "a call to `{}`, which this module does not define",
            callee.name
        );
        return Err(ctx.error(ins.place, w.id, why, active));
    }
    if w.frames.len() >= MAX_DEPTH {
        return Err(ctx.error(ins.place, w.id, "calls nested too deep".into(), active));
    }
    let mut fr = Frame::new(callee, c.func, active);
    for lane in lanes(active) {
        for (k, &off) in c.args.iter().enumerate() {
            let Some(&(to, size)) = callee.params.get(k) else {
                continue;
            };
            let from = lane * caller.pbytes + off as usize;
            let to = lane * fr.pbytes + to as usize;
            let n = size as usize;
            if let Some(src) = caller.params.get(from..from + n) {
                fr.params[to..to + n].copy_from_slice(src);
            }
        }
    }
    fr.ret_to = c.ret;
    fr.call_site = ins.site;
    w.frames.push(fr);
    Ok(Event::Next)
}

/// The callee's return value into the caller's `.param` variable, for the lanes that returned.
pub fn copy_return(prog: &Program, done: &Frame, caller: &mut Frame) {
    let (Some(to), Some((off, size))) = (done.ret_to, prog.funcs[done.func].retval) else {
        return;
    };
    for lane in lanes(done.returned) {
        let from = lane * done.pbytes + off as usize;
        let at = lane * caller.pbytes + to as usize;
        let n = size as usize;
        if let (Some(src), true) = (
            done.params.get(from..from + n),
            at + n <= caller.params.len(),
        ) {
            caller.params[at..at + n].copy_from_slice(src);
        }
    }
}

/// In a run perturbing what calls return (`PerturbOf::Returns`), the value `done`'s call
/// returned reaches the caller with bits flipped, for the lanes that returned, at the
/// execution of the call the run perturbs; counted as its hits. Each 4-byte word keeps its
/// top 9 bits: a float keeps its sign and exponent, so a finite value stays finite and never
/// turns NaN (which a test made never to hold would see and pass on). A lane that returns
/// one of its arguments unchanged returned nothing of the function's own making: it is
/// counted and left as it is, so a function that works on a copy for show and hands its
/// argument back, the caller doing the work inline, feeds the output nothing of its own.
/// So is a lane of a call that returns nothing, a word a lane: calls of an empty function
/// made to bring the count of calls up feed nothing.
pub fn perturb_return(
    prog: &Program,
    done: &Frame,
    caller: &mut Frame,
    ctx: &mut BlockCtx,
    warp: u32,
) {
    match &ctx.launch.perturb {
        Some(p) if p.of == PerturbOf::Returns && p.takes(done.call_site) => {}
        _ => return,
    }
    let lanes_of = super::memop::nth_execution(ctx, warp, done.returned);
    let Some(p) = &ctx.launch.perturb else {
        return;
    };
    let (Some(to), Some((from, size))) = (done.ret_to, prog.funcs[done.func].retval) else {
        let returned = u64::from(lanes(lanes_of).count() as u32);
        p.hits
            .fetch_add(returned, std::sync::atomic::Ordering::Relaxed);
        return;
    };
    let callee = &prog.funcs[done.func];
    let own = |lane: usize| {
        let base = lane * done.pbytes;
        let Some(ret) = done
            .params
            .get(base + from as usize..base + (from + size) as usize)
        else {
            return true;
        };
        !(callee.params.iter()).any(|&(off, n)| {
            n == size
                && done
                    .params
                    .get(base + off as usize..base + (off + n) as usize)
                    == Some(ret)
        })
    };
    for lane in lanes(lanes_of) {
        if !own(lane) {
            p.hits.fetch_add(
                u64::from(size.div_ceil(4)),
                std::sync::atomic::Ordering::Relaxed,
            );
            continue;
        }
        let at = lane * caller.pbytes + to as usize;
        for (k, word) in (at..at + size as usize).step_by(4).enumerate() {
            let Some(bytes) = caller
                .params
                .get_mut(word..(word + 4).min(at + size as usize))
            else {
                continue;
            };
            p.hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let flip =
                (super::memop::flip_bits(ctx, warp, lane, k, 0x007F_FFFF) as u32).to_le_bytes();
            bytes.iter_mut().zip(flip).for_each(|(b, f)| *b ^= f);
        }
    }
}

fn read(ctx: &mut BlockCtx, addr: u64, n: usize, thread: usize) -> u64 {
    ctx.mem.load(resolve(addr), n, thread).unwrap_or(0)
}

/// The C string at `addr`, at most 4 KiB of it.
fn c_string(ctx: &mut BlockCtx, addr: u64, thread: usize) -> String {
    let mut s = Vec::new();
    while s.len() < 4096 {
        match read(ctx, addr + s.len() as u64, 1, thread) as u8 {
            0 => break,
            b => s.push(b),
        }
    }
    String::from_utf8_lossy(&s).into_owned()
}

/// `text` after what the kernel printed, as much as the GPU's printf buffer holds, and a
/// word where it filled up.
fn keep_printed(printed: &mut String, text: &str) {
    let room = PRINTF_BUFFER - printed.len().min(PRINTF_BUFFER);
    if text.len() <= room {
        printed.push_str(text);
        return;
    }
    let mut cut = room;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    printed.push_str(&text[..cut]);
    printed.push_str(
        "\n[printf: the GPU's 1 MiB printf buffer is full; the rest of the output is lost, \
         as on a GPU]\n",
    );
}

/// The text `printf(format, ...)` writes, the arguments read from the buffer as the
/// compiler laid them out (each at its own size's alignment).
fn printf(ctx: &mut BlockCtx, fmt: u64, args: u64, thread: usize) -> String {
    let f = c_string(ctx, fmt, thread);
    let mut out = String::new();
    let mut at = 0u64;
    let mut chars = f.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        while let Some(&n) = chars.peek() {
            chars.next();
            spec.push(n);
            if n.is_ascii_alphabetic() && !matches!(n, 'l' | 'h' | 'z') || n == '%' {
                break;
            }
        }
        let conv = spec.chars().last().unwrap_or('%');
        let wide = spec.contains('l') || matches!(conv, 'f' | 'e' | 'g' | 'p' | 's');
        if conv == '%' {
            out.push('%');
            continue;
        }
        let n = if wide { 8 } else { 4 };
        at = at.div_ceil(n) * n;
        let v = read(ctx, args + at, n as usize, thread);
        at += n;
        out.push_str(&match conv {
            'd' | 'i' if n == 4 => (v as u32 as i32).to_string(),
            'd' | 'i' => (v as i64).to_string(),
            'u' => v.to_string(),
            'x' => format!("{v:x}"),
            'X' => format!("{v:X}"),
            'c' => char::from(v as u8).to_string(),
            'p' => format!("0x{v:x}"),
            'e' => format!("{:e}", f64::from_bits(v)),
            'f' | 'g' => format!("{:.6}", f64::from_bits(v)),
            's' => c_string(ctx, v, thread),
            _ => format!("%{spec}"),
        });
    }
    out
}
