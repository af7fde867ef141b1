//! Which other processes compute on a GPU, from NVML (the driver's management library,
//! loaded at run time like the rest: a machine without it simply does not say).

use libloading::{Library, Symbol};
use std::ffi::{CString, c_char, c_int, c_uint, c_ulonglong, c_void};

type Status = c_int;
type Device = *mut c_void;

/// `nvmlProcessInfo_t` as NVML 11.6 and later lay it out.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct ProcessInfo {
    pid: c_uint,
    used_gpu_memory: c_ulonglong,
    gpu_instance_id: c_uint,
    compute_instance_id: c_uint,
}

const NVML_SUCCESS: Status = 0;
const NVML_ERROR_INSUFFICIENT_SIZE: Status = 7;

/// The process ids computing on the GPU at PCI address `bus_id` ("0000:17:00.0"), or None
/// when NVML is missing or cannot tell.
pub fn compute_processes(bus_id: &str) -> Option<Vec<u32>> {
    // SAFETY: loading the driver's own library, whose initialiser has no preconditions.
    let lib = unsafe { Library::new("libnvidia-ml.so.1") }.ok()?;
    // SAFETY: the symbols are NVML's documented C entry points, with these signatures.
    unsafe {
        let init: Symbol<unsafe extern "C" fn() -> Status> = lib.get(b"nvmlInit_v2\0").ok()?;
        let shutdown: Symbol<unsafe extern "C" fn() -> Status> = lib.get(b"nvmlShutdown\0").ok()?;
        let by_bus: Symbol<unsafe extern "C" fn(*const c_char, *mut Device) -> Status> =
            lib.get(b"nvmlDeviceGetHandleByPciBusId_v2\0").ok()?;
        let procs: Symbol<unsafe extern "C" fn(Device, *mut c_uint, *mut ProcessInfo) -> Status> =
            lib.get(b"nvmlDeviceGetComputeRunningProcesses_v3\0").ok()?;
        if init() != NVML_SUCCESS {
            return None;
        }
        let out = (|| {
            let bus = CString::new(bus_id).ok()?;
            let mut dev: Device = std::ptr::null_mut();
            if by_bus(bus.as_ptr(), &mut dev) != NVML_SUCCESS {
                return None;
            }
            // Asked with room for 64; NVML says how many there are when that is too few.
            let mut infos = vec![ProcessInfo::default(); 64];
            let mut n = infos.len() as c_uint;
            let mut st = procs(dev, &mut n, infos.as_mut_ptr());
            if st == NVML_ERROR_INSUFFICIENT_SIZE {
                infos = vec![ProcessInfo::default(); n as usize + 16];
                n = infos.len() as c_uint;
                st = procs(dev, &mut n, infos.as_mut_ptr());
            }
            (st == NVML_SUCCESS).then(|| infos[..n as usize].iter().map(|p| p.pid).collect())
        })();
        shutdown();
        out
    }
}
