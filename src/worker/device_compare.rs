//! A large output judged on the GPU where it lies: on a learner's save the output of a
//! 16384² transpose (a GiB) was copied to the host and compared there, a third of a second
//! of every save. Here the expected output is uploaded once, kept beside the inputs, and
//! each check is one kernel that counts the wrong elements and finds the first; only that
//! element comes back. The verdict and its words are those of `outputs::compare` (a GPU
//! test holds the two to each other); small outputs are still compared on the host, where
//! the copy costs less than a launch.

use super::compile::compile_cached;
use super::hostdata::HostData;
use super::launch::Buffers;
use super::outputs::{Mismatch, mismatch_at};
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::memory::DevBuf;
use crate::cuda::module::{ArgValue, Launch};
use crate::cuda::nvrtc::{CompileJob, Output};
use crate::model::{ElemType, Lesson, Tolerance};

const SOURCE: &str = include_str!("compare.cu");
const FILE: &str = "gpulab_compare.cu";
/// Any kernel of the file: one build makes them all.
const FIRST_KERNEL: &str = "gpulab_compare_f32";
const OPTIONS: &[&str] = &["--fmad=false"];

/// Outputs smaller than this are downloaded and compared on the host: below it a copy is
/// quicker than a launch and a few small copies back.
pub const ON_DEVICE_FROM_BYTES: u64 = 64 << 20;

/// Whether output `j` of `lesson` is judged on the GPU: a large output on this GPU (a
/// second GPU's buffer is compared on the host).
pub fn worth_it(lesson: &Lesson, j: usize) -> bool {
    let b = &lesson.buffers[j];
    b.gpu == 0 && b.bytes() >= ON_DEVICE_FROM_BYTES
}

/// The comparison kernels built ahead, while the GPU makes the inputs, when the lesson has
/// an output large enough to be judged on the GPU: NVRTC's tenth of a second then overlaps
/// the wait rather than adding to the first check.
pub fn build_ahead(lesson: &Lesson, arch: String) {
    let large = (0..lesson.buffers.len())
        .any(|j| lesson.buffers[j].is_output() && !lesson.is_measured(j) && worth_it(lesson, j));
    if large {
        std::thread::spawn(move || {
            let _ = build(&arch);
        });
    }
}

fn build(arch: &str) -> Result<Vec<u8>, CudaError> {
    let options: Vec<String> = OPTIONS.iter().map(|o| o.to_string()).collect();
    let job = CompileJob {
        file_name: FILE,
        source: SOURCE,
        kernel: FIRST_KERNEL,
        defines: &[],
        options: &options,
        arch,
        output: Output::Cubin,
    };
    compile_cached(&job)
        .map(|c| c.image)
        .map_err(|e| CudaError::Invalid(format!("building the output comparison: {e}")))
}

/// Whether the comparison kernels build for `arch` (NVRTC, no GPU needed).
pub fn check_build(arch: &str) -> Result<(), CudaError> {
    build(arch).map(|_| ())
}

/// The kernel for an element type: integers compare by their bits (an i32 as a u32).
fn kernel_name(ty: ElemType) -> &'static str {
    match ty {
        ElemType::F32 => "gpulab_compare_f32",
        ElemType::F64 => "gpulab_compare_f64",
        ElemType::I32 | ElemType::U32 => "gpulab_compare_u32",
        ElemType::U64 => "gpulab_compare_u64",
    }
}

/// Compare output `j` as the GPU holds it now with `want`, on the GPU. `Ok(None)`: the
/// GPU has no room for a copy of `want` (the caller compares on the host); else the verdict
/// in `outputs::compare`'s words.
pub fn compare(
    gpu: &Gpu,
    arch: &str,
    lesson: &Lesson,
    bufs: &mut Buffers,
    (j, want): (usize, &HostData),
    tol: &Tolerance,
) -> Result<Option<Result<(), Mismatch>>, CudaError> {
    let b = &lesson.buffers[j];
    let n = b.len as usize;
    if want.len() != n {
        return Ok(Some(Err(Mismatch::Shape {
            name: b.name.clone(),
        })));
    }
    let Some(k) = bufs.expected_on_device(gpu, j, want)? else {
        return Ok(None);
    };
    let expected = &bufs.expected_dev.outs[k].1;
    let module = gpu.load_module(&build(arch)?)?;
    let kernel = module.kernel(kernel_name(b.ty))?;
    let mut answer = gpu.alloc(16)?;
    answer.upload(&[0u64, u64::MAX])?;
    // A few blocks per SM, each striding over the output: enough loads in flight to read
    // at the memory's speed, few enough that the per-block atomics cost nothing.
    let blocks = (gpu.info().sms.max(1) * 4).min(n.div_ceil(256).max(1) as u32);
    Launch {
        kernel: &kernel,
        grid: [blocks, 1, 1],
        block: [256, 1, 1],
        smem: 0,
        args: vec![
            ArgValue::Buffer(&bufs.dev[j]),
            ArgValue::Buffer(expected),
            ArgValue::U64(n as u64),
            ArgValue::U64(tol.abs.to_bits()),
            ArgValue::U64(tol.rel.to_bits()),
            ArgValue::Buffer(&answer),
        ],
        attrs: Vec::new(),
    }
    .enqueue()?;
    let [bad, first]: [u64; 2] = answer
        .download::<u64>(2)?
        .try_into()
        .map_err(|_| CudaError::Invalid("the comparison's answer is two words".into()))?;
    if bad == 0 {
        return Ok(Some(Ok(())));
    }
    let i = first as usize;
    let at = i * b.ty.size();
    let got = match b.ty {
        ElemType::F32 => HostData::F32(bufs.dev[j].download_at(at, 1)?),
        ElemType::F64 => HostData::F64(bufs.dev[j].download_at(at, 1)?),
        ElemType::I32 => HostData::I32(bufs.dev[j].download_at(at, 1)?),
        ElemType::U32 => HostData::U32(bufs.dev[j].download_at(at, 1)?),
        ElemType::U64 => HostData::U64(bufs.dev[j].download_at(at, 1)?),
    };
    Ok(Some(Err(mismatch_at(
        &b.name,
        i,
        &got,
        want,
        (bad as usize, n),
    ))))
}

/// Copies of the expected outputs on the GPU, kept with the inputs they were made from.
#[derive(Default)]
pub struct OnDevice {
    outs: Vec<(usize, DevBuf)>,
}

impl OnDevice {
    /// Forget them: the expected outputs are made again (another reference, or none kept).
    pub fn clear(&mut self) {
        self.outs.clear();
    }
}

impl Buffers {
    /// The expected contents of output `j` on the GPU, uploaded the first time they are
    /// asked for on these inputs (their place in `expected_dev`); None when the GPU has no
    /// room to spare for them.
    fn expected_on_device(
        &mut self,
        gpu: &Gpu,
        j: usize,
        want: &HostData,
    ) -> Result<Option<usize>, CudaError> {
        if let Some(k) = self.expected_dev.outs.iter().position(|(o, _)| *o == j) {
            return Ok(Some(k));
        }
        let bytes = want.len() * want_size(want);
        // Room for the copy and a quarter more: the lesson's own kernels (and the tracer's
        // log) must still find memory after it.
        if gpu.free_memory() < bytes + bytes / 4 {
            return Ok(None);
        }
        let mut d = gpu.alloc(bytes)?;
        match want {
            HostData::F32(v) => d.upload(v)?,
            HostData::F64(v) => d.upload(v)?,
            HostData::I32(v) => d.upload(v)?,
            HostData::U32(v) => d.upload(v)?,
            HostData::U64(v) => d.upload(v)?,
        }
        self.expected_dev.outs.push((j, d));
        Ok(Some(self.expected_dev.outs.len() - 1))
    }
}

fn want_size(h: &HostData) -> usize {
    match h {
        HostData::F32(_) | HostData::I32(_) | HostData::U32(_) => 4,
        HostData::F64(_) | HostData::U64(_) => 8,
    }
}
