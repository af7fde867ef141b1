//! The GPU, through the driver API. Used only inside the worker process: a fault here
//! poisons the CUDA context, and the worker is then thrown away whole.

use super::discover;
use crate::model::results::DeviceInfo;
use cudarc::driver::{DriverError, result, sys};
use std::ffi::{CString, c_void};

/// A CUDA error, in words, and whether it leaves the context unusable.
#[derive(Debug, Clone)]
pub struct CudaFail {
    pub message: String,
    /// The context is poisoned (illegal address, launch failure ...): the worker must exit.
    pub sticky: bool,
}

impl std::fmt::Display for CudaFail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

pub fn fail(what: &str, e: DriverError) -> CudaFail {
    let name = e
        .error_name()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    use sys::CUresult::*;
    let sticky = matches!(
        e.0,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_CONTEXT_IS_DESTROYED
    );
    CudaFail {
        message: format!("{what}: {text} ({name})"),
        sticky,
    }
}

pub struct Gpu {
    pub dev: sys::CUdevice,
    pub info: DeviceInfo,
}

fn attr(dev: sys::CUdevice, a: sys::CUdevice_attribute) -> i64 {
    // SAFETY: dev is a valid device handle; unknown attributes just fail.
    unsafe { result::device::get_attribute(dev, a) }.unwrap_or(0) as i64
}

impl Gpu {
    /// Open device `ordinal`, or say in words why there is none.
    pub fn open(ordinal: u32) -> Result<Gpu, String> {
        discover::ensure_driver()?;
        result::init().map_err(|e| fail("CUDA init", e).message)?;
        let count =
            result::device::get_count().map_err(|e| fail("CUDA device count", e).message)?;
        if count == 0 {
            return Err("the NVIDIA driver is present but sees no GPU".into());
        }
        if ordinal as i32 >= count {
            return Err(format!(
                "--device {ordinal}: this machine has {count} GPU(s)"
            ));
        }
        let dev =
            result::device::get(ordinal as i32).map_err(|e| fail("CUDA device", e).message)?;
        // SAFETY: dev is valid; the primary context is retained for the process's life.
        let ctx = unsafe { result::primary_ctx::retain(dev) }
            .map_err(|e| fail("CUDA context", e).message)?;
        unsafe { result::ctx::set_current(ctx) }.map_err(|e| fail("CUDA context", e).message)?;
        use sys::CUdevice_attribute::*;
        let mut drv = 0;
        // SAFETY: valid out-pointer.
        unsafe { sys::cuDriverGetVersion(&mut drv) };
        let driver = discover::kernel_driver_version()
            .unwrap_or_else(|| format!("CUDA {}.{}", drv / 1000, (drv % 1000) / 10));
        let info = DeviceInfo {
            name: result::device::get_name(dev).unwrap_or_else(|_| "unknown GPU".into()),
            cc: format!(
                "{}.{}",
                attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
            ),
            driver,
            sms: attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) as u32,
            max_threads_per_sm: attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)
                as u32,
            regs_per_sm: attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) as u32,
            smem_per_sm: attr(
                dev,
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            ) as u32,
            smem_per_block_optin: attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                as u32,
            l2_bytes: attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) as u64,
            recorded_at: None,
        };
        Ok(Gpu { dev, info })
    }

    pub fn free_memory(&self) -> usize {
        result::mem_get_info().map(|(free, _)| free).unwrap_or(0)
    }

    pub fn synchronize(&self) -> Result<(), CudaFail> {
        result::ctx::synchronize().map_err(|e| fail("synchronize", e))
    }
}

/// Device memory, freed on drop.
pub struct DevBuf {
    pub ptr: sys::CUdeviceptr,
    pub bytes: usize,
}

impl DevBuf {
    pub fn new(bytes: usize) -> Result<DevBuf, CudaFail> {
        // SAFETY: plain allocation; a zero-byte request is bumped to one element.
        let ptr = unsafe { result::malloc_sync(bytes.max(4)) }
            .map_err(|e| fail(&format!("allocating {} MiB", bytes >> 20), e))?;
        Ok(DevBuf { ptr, bytes })
    }

    pub fn upload<T>(&self, data: &[T]) -> Result<(), CudaFail> {
        assert!(std::mem::size_of_val(data) <= self.bytes);
        // SAFETY: the destination holds at least as many bytes as the source.
        unsafe { result::memcpy_htod_sync(self.ptr, data) }.map_err(|e| fail("copy to GPU", e))
    }

    pub fn download<T: Default + Clone>(&self, len: usize) -> Result<Vec<T>, CudaFail> {
        let mut out = vec![T::default(); len];
        assert!(std::mem::size_of_val(out.as_slice()) <= self.bytes);
        // SAFETY: as above, the other way.
        unsafe { result::memcpy_dtoh_sync(&mut out, self.ptr) }
            .map_err(|e| fail("copy from GPU", e))?;
        Ok(out)
    }

    /// Fill with a 32-bit pattern (the poison for outputs).
    pub fn fill_u32(&self, pattern: u32) -> Result<(), CudaFail> {
        // SAFETY: writes exactly the buffer's words.
        unsafe { sys::cuMemsetD32_v2(self.ptr, pattern, self.bytes / 4) }
            .result()
            .map_err(|e| fail("poisoning an output", e))
    }
}

impl Drop for DevBuf {
    fn drop(&mut self) {
        // SAFETY: ptr came from malloc_sync and is freed once.
        unsafe {
            let _ = result::free_sync(self.ptr);
        }
    }
}

/// A loaded module (CUBIN or PTX), unloaded on drop.
pub struct Module {
    m: sys::CUmodule,
}

impl Module {
    /// `image` is a CUBIN, or NUL-terminated PTX (the driver then compiles it).
    pub fn load(image: &[u8]) -> Result<Module, CudaFail> {
        // SAFETY: the image outlives the call; the driver copies what it needs.
        let m = unsafe { result::module::load_data(image.as_ptr() as *const c_void) }
            .map_err(|e| fail("loading the module", e))?;
        Ok(Module { m })
    }

    pub fn function(&self, name: &str) -> Result<Kernel, CudaFail> {
        let c = CString::new(name).map_err(|e| CudaFail {
            message: e.to_string(),
            sticky: false,
        })?;
        // SAFETY: the module is loaded.
        unsafe { result::module::get_function(self.m, c) }
            .map(Kernel)
            .map_err(|e| fail(&format!("finding kernel {name}"), e))
    }

    /// Address and size of a `__device__` / `.global` variable of the module.
    pub fn global(&self, name: &str) -> Result<(sys::CUdeviceptr, usize), CudaFail> {
        let c = CString::new(name).map_err(|e| CudaFail {
            message: e.to_string(),
            sticky: false,
        })?;
        let (mut ptr, mut size) = (0, 0);
        // SAFETY: valid out-pointers, live module.
        unsafe { sys::cuModuleGetGlobal_v2(&mut ptr, &mut size, self.m, c.as_ptr()) }
            .result()
            .map_err(|e| fail(&format!("finding {name}"), e))?;
        Ok((ptr, size))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded once, unloaded once.
        unsafe {
            let _ = result::module::unload(self.m);
        }
    }
}

/// A kernel of a loaded module; valid while its module is.
#[derive(Debug, Clone, Copy)]
pub struct Kernel(sys::CUfunction);

/// A kernel argument, laid out as the kernel expects it.
#[derive(Debug, Clone, Copy)]
pub enum ArgValue {
    Ptr(u64),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
}

pub struct Launch {
    pub func: Kernel,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub smem: u32,
    pub args: Vec<ArgValue>,
}

impl Launch {
    /// Queue the launch on the default stream (asynchronous).
    pub fn enqueue(&self) -> Result<(), CudaFail> {
        let mut storage: Vec<[u8; 8]> = self
            .args
            .iter()
            .map(|a| {
                let mut b = [0u8; 8];
                match *a {
                    ArgValue::Ptr(v) | ArgValue::U64(v) => b = v.to_ne_bytes(),
                    ArgValue::I64(v) => b = v.to_ne_bytes(),
                    ArgValue::I32(v) => b[..4].copy_from_slice(&v.to_ne_bytes()),
                    ArgValue::U32(v) => b[..4].copy_from_slice(&v.to_ne_bytes()),
                    ArgValue::F32(v) => b[..4].copy_from_slice(&v.to_ne_bytes()),
                }
                b
            })
            .collect();
        let mut ptrs: Vec<*mut c_void> = storage
            .iter_mut()
            .map(|b| b.as_mut_ptr() as *mut c_void)
            .collect();
        // SAFETY: each pointer addresses storage that lives until the call returns (the
        // driver copies kernel parameters at launch).
        unsafe {
            result::launch_kernel(
                self.func.0,
                (self.grid[0], self.grid[1], self.grid[2]),
                (self.block[0], self.block[1], self.block[2]),
                self.smem,
                std::ptr::null_mut(),
                &mut ptrs,
            )
        }
        .map_err(|e| fail("launching the kernel", e))
    }
}

/// A pair of CUDA events around work on the default stream.
pub struct EventTimer {
    start: sys::CUevent,
    stop: sys::CUevent,
}

impl EventTimer {
    pub fn new() -> Result<EventTimer, CudaFail> {
        let mk = || {
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
                .map_err(|e| fail("creating an event", e))
        };
        Ok(EventTimer {
            start: mk()?,
            stop: mk()?,
        })
    }

    /// Milliseconds the GPU spent on `work`, measured with events.
    pub fn time(&self, work: impl FnOnce() -> Result<(), CudaFail>) -> Result<f64, CudaFail> {
        // SAFETY: both events are live; the default stream is used throughout.
        unsafe {
            result::event::record(self.start, std::ptr::null_mut())
                .map_err(|e| fail("recording an event", e))?;
            work()?;
            result::event::record(self.stop, std::ptr::null_mut())
                .map_err(|e| fail("recording an event", e))?;
            result::event::synchronize(self.stop).map_err(|e| fail("running the kernel", e))?;
            let ms = result::event::elapsed(self.start, self.stop)
                .map_err(|e| fail("reading an event", e))?;
            Ok(ms as f64)
        }
    }
}

impl Drop for EventTimer {
    fn drop(&mut self) {
        // SAFETY: created once, destroyed once.
        unsafe {
            let _ = result::event::destroy(self.start);
            let _ = result::event::destroy(self.stop);
        }
    }
}

/// Blocks of `func` that fit on one SM at once, from CUDA's occupancy calculator.
pub fn active_blocks_per_sm(func: Kernel, threads: u32, dyn_smem: u32) -> Result<u32, CudaFail> {
    // SAFETY: func is a live kernel handle.
    unsafe {
        result::occupancy::max_active_block_per_multiprocessor(
            func.0,
            threads as i32,
            dyn_smem as usize,
        )
    }
    .map(|n| n as u32)
    .map_err(|e| fail("occupancy", e))
}

/// Let a kernel use more than 48 KiB of dynamic shared memory.
pub fn allow_dynamic_smem(func: Kernel, bytes: u32) -> Result<(), CudaFail> {
    // SAFETY: func is a live kernel handle.
    unsafe {
        result::function::set_function_attribute(
            func.0,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }
    .map_err(|e| fail("raising the shared-memory limit", e))
}

/// Device-to-device copy bandwidth, counting bytes read plus bytes written: the ceiling a
/// memory-bound kernel is compared with.
pub fn measure_copy_gbps(gpu: &Gpu) -> Result<f64, CudaFail> {
    let bytes = (1usize << 30).min(gpu.free_memory() / 4).max(64 << 20);
    let a = DevBuf::new(bytes)?;
    let b = DevBuf::new(bytes)?;
    a.fill_u32(0x3f80_0000)?;
    let timer = EventTimer::new()?;
    let copy = || {
        // SAFETY: both buffers hold `bytes`.
        unsafe { result::memcpy_dtod_async(b.ptr, a.ptr, bytes, std::ptr::null_mut()) }
            .map_err(|e| fail("device copy", e))
    };
    for _ in 0..3 {
        timer.time(copy)?;
    }
    let mut samples: Vec<f64> = (0..20)
        .map(|_| timer.time(copy))
        .collect::<Result<_, _>>()?;
    samples.sort_by(f64::total_cmp);
    let median = samples[samples.len() / 2];
    Ok(2.0 * bytes as f64 / (median * 1e-3) / 1e9)
}
