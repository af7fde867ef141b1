//! The GPU, through cudarc's safe driver API. Used only inside the worker process: a fault
//! here poisons the CUDA context, and the worker is then thrown away whole.

use super::discover;
use super::error::{CudaError, fail};
use super::memory::DevBuf;
use super::module::Module;
use crate::model::results::DeviceInfo;
use cudarc::driver::{CudaContext, CudaEvent, CudaStream, result, sys};
use std::sync::Arc;

/// One opened device: its primary context, the default stream every call is queued on,
/// and what it is.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    info: DeviceInfo,
}

impl Gpu {
    /// Open device `ordinal`, or say in words why there is none.
    pub fn open(ordinal: u32) -> Result<Gpu, CudaError> {
        discover::ensure_driver().map_err(|e| CudaError::Unavailable(e.to_string()))?;
        result::init().map_err(|e| fail("CUDA init", e))?;
        let count = result::device::get_count().map_err(|e| fail("CUDA device count", e))?;
        if count == 0 {
            return Err(CudaError::Unavailable(
                "the NVIDIA driver is present but sees no GPU".into(),
            ));
        }
        if ordinal as i32 >= count {
            return Err(CudaError::Unavailable(format!(
                "--device {ordinal}: this machine has {count} GPU(s)"
            )));
        }
        let ctx = CudaContext::new(ordinal as usize).map_err(|e| fail("CUDA context", e))?;
        let info = describe(&ctx);
        // The null stream: every copy, launch and event is ordered on it, as the timings
        // assume.
        let stream = ctx.default_stream();
        let mut gpu = Gpu { ctx, stream, info };
        // NVML knows the device by its PCI address, which CUDA_VISIBLE_DEVICES leaves be.
        gpu.info.pcie = gpu.pci_bus_id().as_deref().and_then(super::nvml::pcie_link);
        Ok(gpu)
    }

    /// The lesson's second GPU: the next device after this one, opened with this context
    /// allowed to read and write its memory (peer access). A kernel of this GPU then takes
    /// the peer's buffers as arguments like its own (one unified address space).
    pub fn open_peer(&self) -> Result<Gpu, CudaError> {
        let count = self.device_count() as usize;
        if count < 2 {
            return Err(CudaError::Unavailable(format!(
                "a buffer on the peer GPU needs two GPUs; this machine has {count}"
            )));
        }
        let ordinal = (self.ctx.ordinal() + 1) % count;
        let peer = Gpu::open(ordinal as u32)?;
        let mut can = 0;
        // SAFETY: a valid out-pointer to a live local and two devices the driver gave us.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, self.ctx.cu_device(), peer.ctx.cu_device()) }
            .result()
            .map_err(|e| fail("asking whether the GPUs can reach each other", e))?;
        if can == 0 {
            return Err(CudaError::Unavailable(format!(
                "GPU {} cannot reach the memory of GPU {ordinal} (no peer access between them)",
                self.ctx.ordinal()
            )));
        }
        self.ctx
            .bind_to_thread()
            .map_err(|e| fail("binding the context", e))?;
        // SAFETY: the peer's context is live (held by `peer`); this context is bound.
        let r = unsafe { sys::cuCtxEnablePeerAccess(peer.ctx.cu_ctx(), 0) };
        if r != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
            r.result().map_err(|e| fail("enabling peer access", e))?;
        }
        if peer.ctx.has_async_alloc() {
            self.grant_pool_access(&peer)?;
        }
        Ok(peer)
    }

    /// Buffers come from the device's stream-ordered memory pool, which peer access does not
    /// open: the pool itself must let this device in, or its reads fault.
    fn grant_pool_access(&self, peer: &Gpu) -> Result<(), CudaError> {
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: a valid out-pointer to a live local and a device the driver gave us.
        unsafe { sys::cuDeviceGetMemPool(&mut pool, peer.ctx.cu_device()) }
            .result()
            .map_err(|e| fail("finding the peer's memory pool", e))?;
        let desc = sys::CUmemAccessDesc {
            location: sys::CUmemLocation {
                type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                id: self.ctx.cu_device(),
            },
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        // SAFETY: `pool` came from the driver just now; `desc` is one live descriptor.
        unsafe { sys::cuMemPoolSetAccess(pool, &desc, 1) }
            .result()
            .map_err(|e| fail("letting this GPU into the peer's memory pool", e))
    }

    /// The device's PCI address ("0000:17:00.0"): the name NVML and other processes know it
    /// by, whatever CUDA_VISIBLE_DEVICES renumbered. None if the driver does not say.
    pub fn pci_bus_id(&self) -> Option<String> {
        let mut buf = [0 as std::ffi::c_char; 32];
        // SAFETY: the driver writes at most `len` bytes, NUL included, into the live buffer.
        let r = unsafe {
            sys::cuDeviceGetPCIBusId(buf.as_mut_ptr(), buf.len() as i32, self.ctx.cu_device())
        };
        r.result().ok()?;
        // SAFETY: the driver NUL-terminated what it wrote within the buffer.
        let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        Some(s.to_string_lossy().into_owned())
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The SM clock's peak in kHz, as the driver gives it (None where it says nothing): no
    /// `clock64` reading can count faster.
    pub fn peak_sm_clock_khz(&self) -> Option<u32> {
        use sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE;
        (self.ctx.attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE).ok())
            .filter(|&k| k > 0)
            .map(|k| k as u32)
    }

    /// GPUs this machine has (a lesson may require two); at least this one.
    pub fn device_count(&self) -> u32 {
        result::device::get_count().map_or(1, |n| n.max(1) as u32)
    }

    pub fn free_memory(&self) -> usize {
        self.ctx.mem_get_info().map(|(free, _)| free).unwrap_or(0)
    }

    /// Wait for all queued work; a kernel's fault shows here.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.ctx.synchronize().map_err(|e| fail("synchronize", e))
    }

    /// Device memory of `bytes`, zeroed.
    pub fn alloc(&self, bytes: usize) -> Result<DevBuf, CudaError> {
        DevBuf::new(&self.stream, bytes)
    }

    /// Load a CUBIN, or NUL-terminated PTX (the driver then compiles it).
    pub fn load_module(&self, image: &[u8]) -> Result<Module, CudaError> {
        Module::load(&self.ctx, &self.stream, image)
    }

    /// Set aside `bytes` of L2 for persisting accesses (0 gives it back); more than the
    /// device allows is an invalid value to the driver, so callers clamp first. Lines already persisting are reset first, so one lesson's hot data does
    /// not stay resident into the next.
    pub fn set_persisting_l2(&self, bytes: usize) -> Result<(), CudaError> {
        self.reset_persisting_l2()?;
        self.ctx
            .set_limit(sys::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE, bytes)
            .map_err(|e| fail("setting the persisting-L2 size", e))
    }

    /// Turn every persisting L2 line back into an ordinary one (the set-aside stays).
    pub fn reset_persisting_l2(&self) -> Result<(), CudaError> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| fail("binding the context", e))?;
        // SAFETY: no arguments; it acts on the context just bound to this thread.
        unsafe { sys::cuCtxResetPersistingL2Cache() }
            .result()
            .map_err(|e| fail("resetting persisting L2 lines", e))
    }

    /// The stream everything is queued on, for the libraries that queue work too.
    pub(super) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context, for the raw driver calls of the texture layer.
    pub(super) fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    pub fn timer(&self) -> Result<EventTimer, CudaError> {
        EventTimer::new(&self.ctx, &self.stream)
    }
}

fn describe(ctx: &CudaContext) -> DeviceInfo {
    use sys::CUdevice_attribute::*;
    let attr = |a| ctx.attribute(a).unwrap_or(0) as i64;
    let mut drv = 0;
    // SAFETY: a valid out-pointer to a live local; the driver library is loaded (the
    // context above exists).
    unsafe { sys::cuDriverGetVersion(&mut drv) };
    let driver = discover::kernel_driver_version()
        .unwrap_or_else(|| format!("CUDA {}.{}", drv / 1000, (drv % 1000) / 10));
    DeviceInfo {
        name: ctx.name().unwrap_or_else(|_| "unknown GPU".into()),
        cc: format!(
            "{}.{}",
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
        ),
        driver,
        sms: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) as u32,
        max_threads_per_sm: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) as u32,
        regs_per_sm: attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) as u32,
        smem_per_sm: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) as u32,
        smem_per_block_optin: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) as u32,
        l2_bytes: attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE) as u64,
        max_persisting_l2: attr(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE) as u64,
        total_mem: ctx
            .mem_get_info()
            .map(|(_, total)| total as u64)
            .unwrap_or(0),
        pcie: None,
        recorded_at: None,
    }
}

/// A pair of CUDA events around work on the default stream.
pub struct EventTimer {
    start: CudaEvent,
    stop: CudaEvent,
    stream: Arc<CudaStream>,
}

impl EventTimer {
    fn new(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>) -> Result<EventTimer, CudaError> {
        let mk = || {
            ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| fail("creating an event", e))
        };
        Ok(EventTimer {
            start: mk()?,
            stop: mk()?,
            stream: stream.clone(),
        })
    }

    /// Milliseconds the GPU spent on `work`, measured with events.
    pub fn time(&self, work: impl FnOnce() -> Result<(), CudaError>) -> Result<f64, CudaError> {
        self.start
            .record(&self.stream)
            .map_err(|e| fail("recording an event", e))?;
        work()?;
        self.stop
            .record(&self.stream)
            .map_err(|e| fail("recording an event", e))?;
        self.stop
            .synchronize()
            .map_err(|e| fail("running the kernel", e))?;
        let ms = self
            .start
            .elapsed_ms(&self.stop)
            .map_err(|e| fail("reading an event", e))?;
        Ok(ms as f64)
    }
}

/// Device-to-device copy bandwidth, counting bytes read plus bytes written: the ceiling a
/// memory-bound kernel is compared with.
pub fn measure_copy_gbps(gpu: &Gpu) -> Result<f64, CudaError> {
    let bytes = (1usize << 30).min(gpu.free_memory() / 4).max(64 << 20);
    let mut a = gpu.alloc(bytes)?;
    let mut b = gpu.alloc(bytes)?;
    a.fill_u32(0x3f80_0000)?;
    let timer = gpu.timer()?;
    let mut copy = || b.copy_from(&a);
    for _ in 0..3 {
        timer.time(&mut copy)?;
    }
    let mut samples: Vec<f64> = (0..20)
        .map(|_| timer.time(&mut copy))
        .collect::<Result<_, _>>()?;
    samples.sort_by(f64::total_cmp);
    let median = samples[samples.len() / 2];
    Ok(2.0 * bytes as f64 / (median * 1e-3) / 1e9)
}
