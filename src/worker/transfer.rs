//! A variant that is a copy between host and device (`transfer:`): the host memory it
//! needs, one checked copy, then timed copies, with events around each as around a
//! kernel, so its median, noise and GB/s are found the way a kernel's are.

use super::Sink;
use super::gpu_turn::Hold;
use super::launch::Buffers;
use super::timing::{self, Work};
use super::variant::{Fatal, Job, RunContext, stage};
use crate::analysis::fingerprint::blank_result;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::host_memory::{self, HostStage, PinnedHost};
use crate::cuda::memory::DevBuf;
use crate::model::host::{Side, Transfer};
use crate::model::results::VariantResult;

pub fn run_transfer(
    ctx: &RunContext,
    job: &Job,
    t: Transfer,
    bufs: &mut Buffers,
    send: Sink,
) -> Result<VariantResult, Fatal> {
    let v = job.variant;
    let mut r = blank_result(ctx.lesson, v);
    // A copy uses the copy engine and the link, not the SMs, but another's kernel in the
    // middle of it would still skew its time: a turn, as a kernel takes.
    let turn = ctx.turns.take((ctx.opts.job, Hold::Alone), &v.name, send);
    let windows = match check_and_time(ctx, job, t, bufs, &mut r, send) {
        Ok(w) => w,
        Err(e) if e.is_sticky() => return Err(Fatal::in_variant(&v.name, e)),
        Err(e) => {
            r.correct = Some(false);
            r.error = Some(format!("the copy failed: {e}"));
            return Ok(r);
        }
    };
    drop(turn);
    if let Some(watch) = ctx.noise {
        watch.timed(&v.name, windows);
    }
    Ok(r)
}

fn check_and_time(
    ctx: &RunContext,
    job: &Job,
    t: Transfer,
    bufs: &mut Buffers,
    r: &mut VariantResult,
    send: Sink,
) -> Result<Vec<crate::analysis::gpu_share::RunWindow>, CudaError> {
    let v = job.variant;
    stage(send, v, "allocating the host memory");
    let data = bufs.host_inputs[t.buffer].to_le_bytes();
    let mut host = host_end(ctx.gpu, t, &data)?;
    let dev = &bufs.dev[t.buffer];
    if ctx.opts.check || job.is_reference {
        stage(send, v, "checking the copy");
        copy_once(ctx.gpu, t, dev, &mut host)?;
        ctx.gpu.synchronize()?;
        let arrived = match t.to_device() {
            true => dev.download::<u8>(data.len())?,
            false => host.as_slice().to_vec(),
        };
        match first_difference(&arrived, &data) {
            None => r.correct = Some(true),
            Some(k) => {
                r.correct = Some(false);
                r.error = Some(format!(
                    "wrong copy: byte {k} of `{}` differs after the copy",
                    ctx.lesson.buffers[t.buffer].name
                ));
            }
        }
    }
    if !(ctx.opts.time && r.correct != Some(false) && job.shown) {
        return Ok(Vec::new());
    }
    stage(send, v, "timing");
    let work = Work::new(
        Box::new(|| Ok(())),
        Box::new(|| copy_once(ctx.gpu, t, dev, &mut host)),
    );
    // A copy does not read through the L2 as a kernel does: `cold_l2` means nothing here.
    let windows = timing::time_work(ctx.gpu, work, (ctx.opts, false), r, send)?;
    timing::summarize(ctx.lesson, ctx.peak, r);
    Ok(windows)
}

/// Queue the copy once.
fn copy_once(gpu: &Gpu, t: Transfer, dev: &DevBuf, host: &mut HostStage) -> Result<(), CudaError> {
    match t.to_device() {
        // The device end holds the buffer's input already: copying the same bytes over it
        // leaves every kernel's input as it was.
        true => host_memory::copy_to_device(gpu, dev, host),
        false => host_memory::copy_to_host(gpu, host, dev),
    }
}

/// The host end of the copy: the buffer's bytes (to the device) or room for them (back),
/// in pageable or pinned memory. Pageable room is written once here, so the first timed
/// copy does not pay for the kernel's first touch of its pages (the warm-up copies would
/// too; this keeps them honest warm-ups of the copy alone).
fn host_end(gpu: &Gpu, t: Transfer, data: &[u8]) -> Result<HostStage, CudaError> {
    let fill: Vec<u8> = match t.to_device() {
        true => data.to_vec(),
        false => vec![0xA5; data.len()],
    };
    Ok(match t.host_side() {
        Side::Pinned => {
            let mut p = PinnedHost::new(gpu, fill.len(), false)?;
            p.as_mut_slice().copy_from_slice(&fill);
            HostStage::Pinned(p)
        }
        _ => HostStage::Pageable(fill),
    })
}

/// The first byte where `got` and `want` differ (or where one is shorter).
fn first_difference(got: &[u8], want: &[u8]) -> Option<usize> {
    match got.iter().zip(want).position(|(a, b)| a != b) {
        Some(k) => Some(k),
        None => (got.len() != want.len()).then(|| got.len().min(want.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::first_difference;

    #[test]
    fn a_copy_is_right_only_when_every_byte_arrived() {
        assert_eq!(first_difference(&[1, 2, 3], &[1, 2, 3]), None);
        assert_eq!(first_difference(&[1, 9, 3], &[1, 2, 3]), Some(1));
        assert_eq!(first_difference(&[1, 2], &[1, 2, 3]), Some(2));
    }
}
