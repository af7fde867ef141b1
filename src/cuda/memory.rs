//! Device memory that owns its allocation (freed on drop by cudarc), typed on the way in
//! and out by the plain number types a lesson buffer holds.

use super::error::{CudaError, fail};
use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, sys,
};
use std::sync::Arc;

/// A number type for which every bit pattern is a valid value, so device bytes may be read
/// as it. Sealed: only the types below.
pub trait Plain: DeviceRepr + Default + Clone + private::Sealed {}

mod private {
    pub trait Sealed {}
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl private::Sealed for $t {}
        impl Plain for $t {}
    )*};
}
plain!(u8, u32, i32, u64, f32, f64);

/// Device memory, freed on drop.
pub struct DevBuf {
    slice: CudaSlice<u8>,
    /// What was asked for; the allocation may be larger (never empty).
    bytes: usize,
}

impl DevBuf {
    pub(super) fn new(stream: &Arc<CudaStream>, bytes: usize) -> Result<DevBuf, CudaError> {
        // A zero-byte request is bumped to one word, so every buffer has an address.
        let slice = stream
            .alloc_zeros::<u8>(bytes.max(4))
            .map_err(|e| fail(&format!("allocating {} MiB", bytes >> 20), e))?;
        Ok(DevBuf { slice, bytes })
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The address a kernel sees, for storing in device memory (a trace module's pointer to
    /// its record buffer). Valid while this buffer lives.
    pub fn device_address(&self) -> u64 {
        let (ptr, _sync) = self.slice.device_ptr(self.slice.stream());
        ptr
    }

    pub(super) fn slice(&self) -> &CudaSlice<u8> {
        &self.slice
    }

    pub fn upload<T: Plain>(&mut self, data: &[T]) -> Result<(), CudaError> {
        assert!(std::mem::size_of_val(data) <= self.bytes);
        let stream = self.slice.stream().clone();
        // SAFETY: T is Plain (any bit pattern is a value), and transmute_mut checks that
        // `data.len()` values fit in the allocation.
        let mut view = unsafe { self.slice.transmute_mut::<T>(data.len()) }
            .ok_or_else(|| CudaError::Invalid("upload larger than the buffer".into()))?;
        stream
            .memcpy_htod(data, &mut view)
            .map_err(|e| fail("copy to GPU", e))
    }

    pub fn download<T: Plain>(&self, len: usize) -> Result<Vec<T>, CudaError> {
        let mut out = vec![T::default(); len];
        assert!(std::mem::size_of_val(out.as_slice()) <= self.bytes);
        let stream = self.slice.stream();
        // SAFETY: as in `upload`, the other way.
        let view = unsafe { self.slice.transmute::<T>(len) }
            .ok_or_else(|| CudaError::Invalid("download larger than the buffer".into()))?;
        stream
            .memcpy_dtoh(&view, &mut out)
            .and_then(|_| stream.synchronize())
            .map_err(|e| fail("copy from GPU", e))?;
        Ok(out)
    }

    /// `len` values of T from byte `offset` on: the guard zone past an output's end, read
    /// without copying the output itself.
    pub fn download_at<T: Plain>(&self, offset: usize, len: usize) -> Result<Vec<T>, CudaError> {
        let mut out = vec![T::default(); len];
        assert!(offset + std::mem::size_of_val(out.as_slice()) <= self.bytes);
        let stream = self.slice.stream();
        let part = self
            .slice
            .try_slice(offset..)
            .ok_or_else(|| CudaError::Invalid("download past the buffer".into()))?;
        // SAFETY: as in `download`, over the part of the allocation from `offset` on.
        let view = unsafe { part.transmute::<T>(len) }
            .ok_or_else(|| CudaError::Invalid("download larger than the buffer".into()))?;
        stream
            .memcpy_dtoh(&view, &mut out)
            .and_then(|_| stream.synchronize())
            .map_err(|e| fail("copy from GPU", e))?;
        Ok(out)
    }

    /// The first `len` f32s, for a library call that reads them.
    pub(super) fn as_f32(&self, len: usize) -> Result<CudaView<'_, f32>, CudaError> {
        // SAFETY: f32 is Plain; transmute checks that `len` values fit in the allocation.
        unsafe { self.slice.transmute::<f32>(len) }
            .ok_or_else(|| CudaError::Invalid("view larger than the buffer".into()))
    }

    /// The first `len` f32s, for a library call that writes them.
    pub(super) fn as_f32_mut(&mut self, len: usize) -> Result<CudaViewMut<'_, f32>, CudaError> {
        // SAFETY: as in `as_f32`.
        unsafe { self.slice.transmute_mut::<f32>(len) }
            .ok_or_else(|| CudaError::Invalid("view larger than the buffer".into()))
    }

    /// Fill with a 32-bit pattern (the poison for outputs, an input of one value).
    pub fn fill_u32(&mut self, pattern: u32) -> Result<(), CudaError> {
        let words = self.bytes / 4;
        let stream = self.slice.stream().clone();
        let (ptr, _sync) = self.slice.device_ptr_mut(&stream);
        // SAFETY: writes `words` whole words from the start of a live allocation of at least
        // `bytes` bytes, queued on the stream that owns it.
        unsafe { sys::cuMemsetD32Async(ptr, pattern, words, stream.cu_stream()) }
            .result()
            .map_err(|e| fail("filling a buffer with one word", e))
    }

    /// Copy all of `src` (as many bytes as this buffer holds) on the GPU.
    pub fn copy_from(&mut self, src: &DevBuf) -> Result<(), CudaError> {
        let stream = self.slice.stream().clone();
        stream
            .memcpy_dtod(&src.slice, &mut self.slice)
            .map_err(|e| fail("device copy", e))
    }
}
