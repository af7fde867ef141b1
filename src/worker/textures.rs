//! The lesson's texture objects on the GPU: one CUDA array per texture, filled from its
//! buffer's fresh host data (the same inputs the kernels get), and a texture object over it.

use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::texture::TexObject;
use crate::model::Lesson;
use crate::worker::hostdata::HostData;

/// Every texture of `lesson`, in order (`Arg::Texture(i)` is the i-th). Each owns its array;
/// dropping the list destroys them.
pub fn create(
    gpu: &Gpu,
    lesson: &Lesson,
    inputs: &[HostData],
) -> Result<Vec<TexObject>, CudaError> {
    lesson
        .textures
        .iter()
        .map(|t| {
            let ty = lesson.buffers[t.buffer].ty;
            match &inputs[t.buffer] {
                HostData::F32(v) => TexObject::new(gpu, t, ty, v),
                HostData::I32(v) => TexObject::new(gpu, t, ty, v),
                HostData::U32(v) => TexObject::new(gpu, t, ty, v),
                // The loader admits only 32-bit texels; say so rather than guess.
                _ => Err(CudaError::Invalid(format!(
                    "texture `{}`: its buffer's texels are not 32-bit",
                    t.name
                ))),
            }
        })
        .collect()
}
