//! A lesson whose reference is `builtin: sgemm`: cuBLAS computes the expected output on the
//! GPU, and is timed on the same problem, the yardstick of `peak: cublas`.

use super::hostdata::HostData;
use super::launch::Buffers;
use crate::cuda::blas::Blas;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::memory::DevBuf;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::{Lesson, Reference};

/// Runs not counted, then runs timed: cuBLAS picks its kernel on the first call.
const WARMUP: usize = 3;
const RUNS: usize = 10;

/// What cuBLAS gave: the expected output (buffer index and data) and its GFLOP/s when timed.
pub struct CublasReference {
    pub expected: (usize, HostData),
    pub gflops: Option<f64>,
}

pub fn run(
    gpu: &Gpu,
    lesson: &Lesson,
    bufs: &mut Buffers,
    opts: &RunOptions,
    send: &mut dyn FnMut(Reply),
) -> Result<Option<CublasReference>, CudaError> {
    let Reference::Sgemm {
        a,
        b,
        to,
        rows,
        cols,
        depth,
    } = lesson.reference
    else {
        return Ok(None);
    };
    let dims = (rows as usize, cols as usize, depth as usize);
    send(Reply::Stage {
        variant: String::new(),
        stage: "computing the reference with cuBLAS (FP32, no tensor cores)".into(),
    });
    let blas = match Blas::new(gpu) {
        Ok(b) => b,
        // No yardstick and no reference: the rungs still run and show their GFLOP/s.
        Err(CudaError::Unavailable(why)) => {
            send(Reply::Stage {
                variant: String::new(),
                stage: format!("{why}: GFLOP/s only, no % of cuBLAS, outputs not checked"),
            });
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let once = |bufs: &mut Buffers| -> Result<(), CudaError> {
        let (ma, mb, mc) = three(&mut bufs.dev, a, b, to);
        blas.sgemm_row_major(ma, mb, mc, dims)
    };
    once(bufs)?;
    gpu.synchronize()?;
    let expected = (to, bufs.download(lesson, to)?);
    let gflops = if opts.time {
        let timer = gpu.timer()?;
        for _ in 0..WARMUP {
            timer.time(|| once(bufs))?;
        }
        let mut ms: Vec<f64> = (0..RUNS)
            .map(|_| timer.time(|| once(bufs)))
            .collect::<Result<_, _>>()?;
        ms.sort_by(f64::total_cmp);
        let median = ms[RUNS / 2];
        Some(2.0 * rows as f64 * cols as f64 * depth as f64 / (median * 1e-3) / 1e9)
    } else {
        None
    };
    Ok(Some(CublasReference { expected, gflops }))
}

/// Two inputs and an output of the lesson's buffers, at distinct indices.
fn three(v: &mut [DevBuf], a: usize, b: usize, c: usize) -> (&DevBuf, &DevBuf, &mut DevBuf) {
    let (mut ra, mut rb, mut rc) = (None, None, None);
    for (i, d) in v.iter_mut().enumerate() {
        if i == c {
            rc = Some(d);
        } else if i == a && i == b {
            ra = Some(&*d);
            rb = ra;
        } else if i == a {
            ra = Some(&*d);
        } else if i == b {
            rb = Some(&*d);
        }
    }
    (
        ra.expect("a"),
        rb.expect("b"),
        rc.expect("the output is not an input"),
    )
}
