//! Host memory the GPU reaches: page-locked (pinned) memory, mapped into the GPU's address
//! space or not, and managed memory, which the driver migrates between host and GPU page by
//! page. Raw driver calls through cudarc's bindings: cudarc's safe layer has no managed
//! memory and no mapped host memory.

use super::error::{CudaError, fail};
use super::gpu::Gpu;
use super::memory::DevBuf;
use cudarc::driver::{CudaContext, sys};
use std::ffi::c_void;
use std::sync::Arc;

/// Page-locked host memory of `bytes`, freed on drop. With `mapped`, the GPU reaches it
/// at `device_address` (every load a kernel makes there crosses the PCIe link).
pub struct PinnedHost {
    ctx: Arc<CudaContext>,
    ptr: *mut c_void,
    bytes: usize,
    device: u64,
}

impl PinnedHost {
    pub fn new(gpu: &Gpu, bytes: usize, mapped: bool) -> Result<PinnedHost, CudaError> {
        let ctx = gpu.context().clone();
        ctx.bind_to_thread()
            .map_err(|e| fail("binding the context", e))?;
        let flags = if mapped {
            sys::CU_MEMHOSTALLOC_DEVICEMAP
        } else {
            0
        };
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: a live out-pointer; the context is bound to this thread. At least one
        // word, so every buffer has an address.
        unsafe { sys::cuMemHostAlloc(&mut ptr, bytes.max(4), flags) }
            .result()
            .map_err(|e| {
                fail(
                    &format!("allocating {} MiB of pinned host memory", bytes >> 20),
                    e,
                )
            })?;
        let mut host = PinnedHost {
            ctx,
            ptr,
            bytes,
            device: 0,
        };
        if mapped {
            let mut d: sys::CUdeviceptr = 0;
            // SAFETY: `ptr` was allocated just now with DEVICEMAP; `d` is a live out-pointer.
            unsafe { sys::cuMemHostGetDevicePointer_v2(&mut d, host.ptr, 0) }
                .result()
                .map_err(|e| fail("mapping pinned host memory into the GPU", e))?;
            host.device = d;
        }
        Ok(host)
    }

    /// The address a kernel reads it at (0 where it is not mapped).
    pub fn device_address(&self) -> u64 {
        self.device
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `bytes` bytes from `ptr` are this allocation's, live while `self` is;
        // callers synchronize before reading what a copy wrote.
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.bytes) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast::<u8>(), self.bytes) }
    }
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        // Work queued on it may still run: wait for it before the memory goes.
        let _ = self.ctx.bind_to_thread();
        let _ = self.ctx.synchronize();
        // SAFETY: allocated by cuMemHostAlloc and freed once, here.
        unsafe { sys::cuMemFreeHost(self.ptr) };
    }
}

/// Managed memory (`cuMemAllocManaged`, attached globally): one address the host and the
/// GPU both use, its pages wherever they were last touched or sent.
pub struct Managed {
    ctx: Arc<CudaContext>,
    ptr: sys::CUdeviceptr,
    bytes: usize,
    device: i32,
}

/// Where managed pages are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Host,
    Gpu,
}

impl Managed {
    pub fn new(gpu: &Gpu, bytes: usize) -> Result<Managed, CudaError> {
        let ctx = gpu.context().clone();
        ctx.bind_to_thread()
            .map_err(|e| fail("binding the context", e))?;
        let mut ptr: sys::CUdeviceptr = 0;
        let global = sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32;
        // SAFETY: a live out-pointer; the context is bound to this thread.
        unsafe { sys::cuMemAllocManaged(&mut ptr, bytes.max(4), global) }
            .result()
            .map_err(|e| {
                fail(
                    &format!("allocating {} MiB of managed memory", bytes >> 20),
                    e,
                )
            })?;
        Ok(Managed {
            device: ctx.cu_device(),
            ctx,
            ptr,
            bytes,
        })
    }

    pub fn device_address(&self) -> u64 {
        self.ptr
    }

    /// Write `data` from the host: its pages are then the host's, as after a program
    /// fills its input on the CPU.
    pub fn write(&mut self, data: &[u8]) -> Result<(), CudaError> {
        if data.len() > self.bytes {
            return Err(CudaError::Invalid("write larger than the buffer".into()));
        }
        // Nothing the GPU queued may still touch it while the host writes.
        self.ctx.synchronize().map_err(|e| fail("synchronize", e))?;
        // SAFETY: managed memory is host-accessible at its address for `bytes` bytes, no
        // GPU work is in flight (synchronized above), and `data` fits.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr as *mut u8, data.len());
        }
        Ok(())
    }

    /// Queue a move of every page to `to` on `gpu`'s stream (`cuMemPrefetchAsync_v2`, the
    /// form that takes a `CUmemLocation`: CUDA 13 made it the only `cuMemPrefetchAsync`,
    /// and drivers since 12.2 export it under this name).
    pub fn prefetch(&self, gpu: &Gpu, to: Place) -> Result<(), CudaError> {
        use sys::CUmemLocationType::*;
        let location = match to {
            Place::Gpu => sys::CUmemLocation {
                type_: CU_MEM_LOCATION_TYPE_DEVICE,
                id: self.device,
            },
            Place::Host => sys::CUmemLocation {
                type_: CU_MEM_LOCATION_TYPE_HOST,
                id: 0,
            },
        };
        self.ctx
            .bind_to_thread()
            .map_err(|e| fail("binding the context", e))?;
        let stream = gpu.stream().cu_stream();
        // SAFETY: the range is this live managed allocation; the stream is the GPU's own.
        unsafe { sys::cuMemPrefetchAsync_v2(self.ptr, self.bytes.max(4), location, 0, stream) }
            .result()
            .map_err(|e| fail("prefetching managed memory", e))
    }
}

impl Drop for Managed {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        let _ = self.ctx.synchronize();
        // SAFETY: allocated by cuMemAllocManaged and freed once, here.
        unsafe { sys::cuMemFree_v2(self.ptr) };
    }
}

/// The host end of a timed copy: ordinary (pageable) memory, or pinned.
pub enum HostStage {
    Pageable(Vec<u8>),
    Pinned(PinnedHost),
}

impl HostStage {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            HostStage::Pageable(v) => v,
            HostStage::Pinned(p) => p.as_slice(),
        }
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        match self {
            HostStage::Pageable(v) => v.as_mut_ptr(),
            HostStage::Pinned(p) => p.as_mut_slice().as_mut_ptr(),
        }
    }
}

/// Queue a copy of all of `src` into the start of `dst` on `gpu`'s stream. From pageable
/// memory the driver returns only once it has staged the bytes (it copies them through a
/// pinned buffer of its own, a piece at a time); from pinned memory the copy engine reads
/// them directly and the call returns at once.
pub fn copy_to_device(gpu: &Gpu, dst: &DevBuf, src: &HostStage) -> Result<(), CudaError> {
    let bytes = src.as_slice().len();
    if bytes > dst.bytes() {
        return Err(CudaError::Invalid("copy larger than the buffer".into()));
    }
    gpu.context()
        .bind_to_thread()
        .map_err(|e| fail("binding the context", e))?;
    let stream = gpu.stream().cu_stream();
    let from = src.as_slice().as_ptr().cast::<c_void>();
    // SAFETY: `bytes` fit in both live allocations; `src` is borrowed for the call and
    // its owner synchronizes before it changes or goes.
    unsafe { sys::cuMemcpyHtoDAsync_v2(dst.device_address(), from, bytes, stream) }
        .result()
        .map_err(|e| fail("copy to GPU", e))
}

/// Queue a copy of the start of `src` into all of `dst`, the other way.
pub fn copy_to_host(gpu: &Gpu, dst: &mut HostStage, src: &DevBuf) -> Result<(), CudaError> {
    let bytes = dst.as_slice().len();
    if bytes > src.bytes() {
        return Err(CudaError::Invalid("copy larger than the buffer".into()));
    }
    gpu.context()
        .bind_to_thread()
        .map_err(|e| fail("binding the context", e))?;
    let stream = gpu.stream().cu_stream();
    let to = dst.as_mut_ptr().cast::<c_void>();
    // SAFETY: as in `copy_to_device`; `dst` is borrowed mutably for the call and read only
    // after a synchronize.
    unsafe { sys::cuMemcpyDtoHAsync_v2(to, src.device_address(), bytes, stream) }
        .result()
        .map_err(|e| fail("copy from GPU", e))
}
