//! 2D texture objects over CUDA arrays. A `TexObject` owns its array: dropping it destroys
//! the texture object first, then the array it reads. The descriptors are built as plain
//! data (no GPU needed) so that they can be checked by tests.

use super::error::{CudaError, fail};
use super::gpu::Gpu;
use super::memory::Plain;
use crate::model::texture::{AddressMode, FilterMode, ReadMode};
use crate::model::{ElemType, Texture};
use cudarc::driver::sys;
use std::sync::Arc;

/// The CUDA array's shape and texel format: one channel of the buffer's element type.
pub fn array_desc(t: &Texture, ty: ElemType) -> Result<sys::CUDA_ARRAY3D_DESCRIPTOR, CudaError> {
    use sys::CUarray_format::*;
    let format = match ty {
        ElemType::F32 => CU_AD_FORMAT_FLOAT,
        ElemType::I32 => CU_AD_FORMAT_SIGNED_INT32,
        ElemType::U32 => CU_AD_FORMAT_UNSIGNED_INT32,
        other => {
            return Err(CudaError::Invalid(format!(
                "texture `{}`: a CUDA array cannot hold {other:?} texels",
                t.name
            )));
        }
    };
    Ok(sys::CUDA_ARRAY3D_DESCRIPTOR {
        Width: t.width as usize,
        Height: t.height as usize,
        // Depth 0 makes the array two-dimensional.
        Depth: 0,
        Format: format,
        NumChannels: 1,
        // `tex2Dgather` is defined only on arrays made for it; the flag costs nothing else,
        // but bounds the array at the gather limit (32768 texels an axis from sm_35 on), past
        // which the array is made without it.
        Flags: match t.width <= GATHER_MAX && t.height <= GATHER_MAX {
            true => sys::CUDA_ARRAY3D_TEXTURE_GATHER,
            false => 0,
        },
    })
}

/// The widest and tallest array a texture gather may read (the devices' 2D gather limit).
const GATHER_MAX: u64 = 32768;

/// How the texture unit samples: addressing on both axes, filtering, coordinates, and
/// whether integer texels are returned as they are.
pub fn texture_desc(t: &Texture) -> sys::CUDA_TEXTURE_DESC {
    use sys::CUaddress_mode::*;
    let address = match t.address {
        AddressMode::Clamp => CU_TR_ADDRESS_MODE_CLAMP,
        AddressMode::Border => CU_TR_ADDRESS_MODE_BORDER,
        AddressMode::Wrap => CU_TR_ADDRESS_MODE_WRAP,
        AddressMode::Mirror => CU_TR_ADDRESS_MODE_MIRROR,
    };
    let filter = match t.filter {
        FilterMode::Point => sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        FilterMode::Linear => sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
    };
    let mut flags = 0;
    if t.read == ReadMode::Element {
        // Without it, integer texels would be promoted to normalized floats.
        flags |= sys::CU_TRSF_READ_AS_INTEGER;
    }
    if t.normalized {
        flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
    }
    sys::CUDA_TEXTURE_DESC {
        addressMode: [address; 3],
        filterMode: filter,
        flags,
        maxAnisotropy: 0,
        mipmapFilterMode: sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        mipmapLevelBias: 0.0,
        minMipmapLevelClamp: 0.0,
        maxMipmapLevelClamp: 0.0,
        // Border addressing returns zero.
        borderColor: [0.0; 4],
        reserved: [0; 12],
    }
}

/// A CUDA array, destroyed on drop.
struct Array {
    handle: sys::CUarray,
    ctx: Arc<cudarc::driver::CudaContext>,
}

impl Drop for Array {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: the handle came from cuArray3DCreate and is destroyed once, here; the only
        // texture object reading it was destroyed before (TexObject's drop runs first).
        let _ = unsafe { sys::cuArrayDestroy(self.handle) };
    }
}

/// A texture object and the array it reads; its `handle` is the kernel argument.
pub struct TexObject {
    handle: sys::CUtexObject,
    // Dropped after `Drop::drop` has destroyed the object that reads it.
    array: Array,
}

impl TexObject {
    /// A `t.width × t.height` array filled from `texels` (row-major), and a texture over it.
    pub fn new<T: Plain>(
        gpu: &Gpu,
        t: &Texture,
        ty: ElemType,
        texels: &[T],
    ) -> Result<TexObject, CudaError> {
        let (w, h) = (t.width as usize, t.height as usize);
        if texels.len() != w * h || std::mem::size_of::<T>() != ty.size() {
            return Err(CudaError::Invalid(format!(
                "texture `{}`: {} texels for a {w} × {h} array",
                t.name,
                texels.len()
            )));
        }
        let ctx = gpu.context().clone();
        ctx.bind_to_thread()
            .map_err(|e| fail("binding the context", e))?;
        let array = create_array(&ctx, &array_desc(t, ty)?)?;
        fill(&array, texels, w * ty.size(), h)?;
        let res = resource_desc(array.handle);
        let tex = texture_desc(t);
        let mut handle: sys::CUtexObject = 0;
        // SAFETY: the descriptors are fully initialised values that live across the call,
        // the resource names a live array, and a null view descriptor means "the whole
        // array"; the handle is written before the call returns.
        unsafe { sys::cuTexObjectCreate(&mut handle, &res, &tex, std::ptr::null()) }
            .result()
            .map_err(|e| fail(&format!("creating texture `{}`", t.name), e))?;
        Ok(TexObject { handle, array })
    }

    /// The `cudaTextureObject_t` a kernel takes; valid while this object lives.
    pub fn handle(&self) -> u64 {
        self.handle
    }
}

impl Drop for TexObject {
    fn drop(&mut self) {
        let _ = self.array.ctx.bind_to_thread();
        // SAFETY: the handle came from cuTexObjectCreate and is destroyed once, here, before
        // `array` (a field) is dropped; launches that used it were synchronised by the
        // worker before the variant's textures are dropped.
        let _ = unsafe { sys::cuTexObjectDestroy(self.handle) };
    }
}

fn create_array(
    ctx: &Arc<cudarc::driver::CudaContext>,
    desc: &sys::CUDA_ARRAY3D_DESCRIPTOR,
) -> Result<Array, CudaError> {
    let mut handle: sys::CUarray = std::ptr::null_mut();
    // SAFETY: `desc` is a valid descriptor for the duration of the call, and the handle is
    // written by the driver before it returns success.
    unsafe { sys::cuArray3DCreate_v2(&mut handle, desc) }
        .result()
        .map_err(|e| fail("creating a CUDA array", e))?;
    Ok(Array {
        handle,
        ctx: ctx.clone(),
    })
}

/// Host rows (pitch = row bytes) into the array, synchronously.
fn fill<T: Plain>(
    array: &Array,
    texels: &[T],
    row_bytes: usize,
    rows: usize,
) -> Result<(), CudaError> {
    // Built field by field: its memory-type enums have no zero value, so an all-zero
    // CUDA_MEMCPY2D is not a valid Rust value (the H100 run aborted on exactly that).
    let copy = sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        srcHost: texels.as_ptr().cast(),
        srcDevice: 0,
        srcArray: std::ptr::null_mut(),
        srcPitch: row_bytes,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
        dstHost: std::ptr::null_mut(),
        dstDevice: 0,
        dstArray: array.handle,
        dstPitch: 0,
        WidthInBytes: row_bytes,
        Height: rows,
    };
    // SAFETY: the source holds rows × row_bytes bytes (checked by the caller: texels.len()
    // == width × height of this element size) and stays borrowed for the call, which is
    // synchronous for a host source; the destination array has exactly that shape.
    unsafe { sys::cuMemcpy2D_v2(&copy) }
        .result()
        .map_err(|e| fail("copying texels into a CUDA array", e))
}

fn resource_desc(array: sys::CUarray) -> sys::CUDA_RESOURCE_DESC {
    // SAFETY: the descriptor is plain C data for which all zeros is valid; resType and the
    // `array` member of the union are set below, the member that resType selects.
    let mut res: sys::CUDA_RESOURCE_DESC = unsafe { std::mem::zeroed() };
    res.resType = sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array;
    res
}

#[cfg(test)]
#[path = "texture_tests.rs"]
mod tests;
