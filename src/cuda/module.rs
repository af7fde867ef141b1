//! Loaded code: a module, the kernels it holds (each keeps its module alive) and its
//! `__device__` variables (each borrows its module), and launching a kernel.

use super::error::{CudaError, fail};
use super::launch_ex::{self, Attr};
use super::memory::{DevBuf, Plain};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaStream, CudaViewMut, LaunchConfig, PushKernelArg,
    sys,
};
use cudarc::nvrtc::Ptx;
use std::sync::Arc;

/// A loaded module (CUBIN or PTX), unloaded when it and every kernel from it are gone.
pub struct Module {
    module: Arc<CudaModule>,
    stream: Arc<CudaStream>,
}

fn check_name(name: &str) -> Result<(), CudaError> {
    if name.contains('\0') {
        return Err(CudaError::Invalid(format!("{name:?} holds a NUL byte")));
    }
    Ok(())
}

impl Module {
    pub(super) fn load(
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        image: &[u8],
    ) -> Result<Module, CudaError> {
        let module = ctx
            .load_module(Ptx::from_binary(image.to_vec()))
            .map_err(|e| fail("loading the module", e))?;
        Ok(Module {
            module,
            stream: stream.clone(),
        })
    }

    pub fn kernel(&self, name: &str) -> Result<Kernel, CudaError> {
        check_name(name)?;
        let func = self
            .module
            .load_function(name)
            .map_err(|e| fail(&format!("finding kernel {name}"), e))?;
        Ok(Kernel {
            func,
            stream: self.stream.clone(),
        })
    }

    /// A `__device__` / `.global` variable of the module, valid while the module is.
    pub fn global(&self, name: &str) -> Result<Global<'_>, CudaError> {
        check_name(name)?;
        let view = self
            .module
            .get_global(name, &self.stream)
            .map_err(|e| fail(&format!("finding {name}"), e))?;
        Ok(Global {
            name: name.to_string(),
            view,
            stream: &self.stream,
        })
    }
}

/// A variable that lives in a module's memory.
pub struct Global<'m> {
    name: String,
    view: CudaViewMut<'m, u8>,
    stream: &'m Arc<CudaStream>,
}

impl Global<'_> {
    /// The variable's size in bytes, as the module declares it.
    pub fn bytes(&self) -> usize {
        self.view.len()
    }

    /// Fill the whole variable from `data`, which must be exactly its size: a `__constant__`
    /// table filled short would leave the kernel reading zeros it was not given.
    pub fn set_bytes(&mut self, data: &[u8]) -> Result<(), CudaError> {
        if data.len() != self.view.len() {
            return Err(CudaError::Invalid(format!(
                "{} is {} bytes, not {}",
                self.name,
                self.view.len(),
                data.len()
            )));
        }
        self.stream
            .memcpy_htod(data, &mut self.view)
            .and_then(|_| self.stream.synchronize())
            .map_err(|e| fail("copy to GPU", e))
    }

    /// The whole variable as it is on the GPU now.
    pub fn read_bytes(&self) -> Result<Vec<u8>, CudaError> {
        let mut out = vec![0u8; self.view.len()];
        self.stream
            .memcpy_dtoh(&self.view, &mut out)
            .and_then(|_| self.stream.synchronize())
            .map_err(|e| fail("copy from GPU", e))?;
        Ok(out)
    }

    pub fn set<T: Plain>(&mut self, value: T) -> Result<(), CudaError> {
        let size = self.view.len();
        let name = &self.name;
        // SAFETY: T is Plain, and transmute_mut checks one T fits in the variable.
        let mut typed = unsafe { self.view.transmute_mut::<T>(1) }
            .ok_or_else(|| CudaError::Invalid(format!("{name} is {size} bytes")))?;
        self.stream
            .memcpy_htod(&[value], &mut typed)
            .map_err(|e| fail("copy to GPU", e))
    }

    pub fn get<T: Plain>(&self) -> Result<T, CudaError> {
        let size = self.view.len();
        let name = &self.name;
        // SAFETY: as in `set`, the other way.
        let typed = unsafe { self.view.transmute::<T>(1) }
            .ok_or_else(|| CudaError::Invalid(format!("{name} is {size} bytes")))?;
        let mut out = [T::default()];
        self.stream
            .memcpy_dtoh(&typed, &mut out)
            .and_then(|_| self.stream.synchronize())
            .map_err(|e| fail("copy from GPU", e))?;
        let [v] = out;
        Ok(v)
    }
}

/// A kernel of a loaded module; it keeps the module loaded.
#[derive(Clone)]
pub struct Kernel {
    func: CudaFunction,
    stream: Arc<CudaStream>,
}

impl Kernel {
    /// Blocks that fit on one SM at once, from CUDA's occupancy calculator.
    pub fn active_blocks_per_sm(&self, threads: u32, dyn_smem: u32) -> Result<u32, CudaError> {
        self.func
            .occupancy_max_active_blocks_per_multiprocessor(threads, dyn_smem as usize, None)
            .map_err(|e| fail("occupancy", e))
    }

    /// Let the kernel use more than 48 KiB of dynamic shared memory.
    pub fn allow_dynamic_smem(&self, bytes: u32) -> Result<(), CudaError> {
        self.func
            .set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
            .map_err(|e| fail("raising the shared-memory limit", e))
    }

    /// Ask for `percent` of the SM's most shared memory as shared memory, the rest of the
    /// L1 + shared pool being L1 (`CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`). A
    /// preference the driver may round up, and overrides where a block needs more; it holds
    /// for this function's later launches and for the occupancy calculator's answer.
    pub fn prefer_carveout(&self, percent: u8) -> Result<(), CudaError> {
        self.func
            .set_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                i32::from(percent),
            )
            .map_err(|e| fail("setting the shared-memory carve-out", e))
    }
}

/// A kernel argument, laid out as the kernel expects it.
#[derive(Clone, Copy)]
pub enum ArgValue<'a> {
    Buffer(&'a DevBuf),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
}

/// One launch of a kernel over buffers it borrows.
pub struct Launch<'a> {
    pub kernel: &'a Kernel,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub smem: u32,
    pub args: Vec<ArgValue<'a>>,
    /// Launch attributes; empty: an ordinary launch.
    pub attrs: Vec<Attr>,
}

impl Launch<'_> {
    /// Queue the launch on the default stream (asynchronous).
    pub fn enqueue(&self) -> Result<(), CudaError> {
        if !self.attrs.is_empty() {
            // The raw driver call acts on the thread's current context.
            let ctx = self.kernel.stream.context();
            ctx.bind_to_thread()
                .map_err(|e| fail("binding the context", e))?;
            let (func, stream) = (
                self.kernel.func.cu_function(),
                self.kernel.stream.cu_stream(),
            );
            return launch_ex::enqueue_ex(self, func, stream, &self.attrs);
        }
        let mut builder = self.kernel.stream.launch_builder(&self.kernel.func);
        for a in &self.args {
            match a {
                ArgValue::Buffer(d) => builder.arg(d.slice()),
                ArgValue::I32(v) => builder.arg(v),
                ArgValue::U32(v) => builder.arg(v),
                ArgValue::I64(v) => builder.arg(v),
                ArgValue::U64(v) => builder.arg(v),
                ArgValue::F32(v) => builder.arg(v),
            };
        }
        let cfg = LaunchConfig {
            grid_dim: (self.grid[0], self.grid[1], self.grid[2]),
            block_dim: (self.block[0], self.block[1], self.block[2]),
            shared_mem_bytes: self.smem,
        };
        // SAFETY: every argument is a live value or buffer borrowed for the whole call, and
        // the driver copies parameter values at launch; a buffer dropped later is freed on
        // the same stream, after the kernel. That the list matches the kernel's parameters
        // is the lesson's promise: a mismatch can only misbehave on the GPU, where a fault
        // ends the worker, not this process's memory.
        unsafe { builder.launch(cfg) }
            .map(|_| ())
            .map_err(|e| fail("launching the kernel", e))
    }
}
