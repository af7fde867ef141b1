//! Which other processes compute on a GPU, and how busy each kept it, and the clocks,
//! temperature, power and throttle reasons it runs at, from NVML (the driver's management
//! library, loaded at run time like the rest: a machine without it, or a driver without a
//! symbol, simply does not say).

use crate::analysis::clocks::{ClockLimits, ClockSample};
use crate::analysis::gpu_share::UtilSample;
use libloading::{Library, Symbol};
use std::ffi::{CString, c_char, c_int, c_uint, c_ulonglong, c_void};
use std::sync::OnceLock;

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

/// `nvmlProcessUtilizationSample_t`: one process's utilisation over one sampling period.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct ProcessSample {
    pid: c_uint,
    /// Wall-clock microseconds since the epoch at the end of the period.
    time_stamp: c_ulonglong,
    sm_util: c_uint,
    mem_util: c_uint,
    enc_util: c_uint,
    dec_util: c_uint,
}

const NVML_SUCCESS: Status = 0;
const NVML_ERROR_NOT_FOUND: Status = 6;
const NVML_ERROR_INSUFFICIENT_SIZE: Status = 7;

/// NVML, initialised once for the worker's life (an init and shutdown per question would
/// cost more than the question; the process's end releases it).
struct Nvml {
    lib: Library,
}

fn nvml() -> Option<&'static Nvml> {
    static NVML: OnceLock<Option<Nvml>> = OnceLock::new();
    NVML.get_or_init(|| {
        // SAFETY: loading the driver's own library, whose initialiser has no preconditions.
        let lib = unsafe { Library::new("libnvidia-ml.so.1") }.ok()?;
        // SAFETY: NVML's documented entry point, taking nothing.
        let ok = unsafe {
            let init: Symbol<unsafe extern "C" fn() -> Status> = lib.get(b"nvmlInit_v2\0").ok()?;
            init() == NVML_SUCCESS
        };
        ok.then_some(Nvml { lib })
    })
    .as_ref()
}

impl Nvml {
    /// The device at PCI address `bus_id`.
    fn device(&self, bus_id: &str) -> Option<Device> {
        let bus = CString::new(bus_id).ok()?;
        let mut dev: Device = std::ptr::null_mut();
        // SAFETY: NVML's documented entry point; `bus` is NUL-terminated and `dev` is a
        // live out-parameter.
        unsafe {
            let by_bus: Symbol<unsafe extern "C" fn(*const c_char, *mut Device) -> Status> =
                self.lib.get(b"nvmlDeviceGetHandleByPciBusId_v2\0").ok()?;
            (by_bus(bus.as_ptr(), &mut dev) == NVML_SUCCESS).then_some(dev)
        }
    }
}

/// The process ids computing on the GPU at PCI address `bus_id` ("0000:17:00.0"), or None
/// when NVML is missing or cannot tell. A process is listed as soon as it holds a context,
/// computing or not.
pub fn compute_processes(bus_id: &str) -> Option<Vec<u32>> {
    let nvml = nvml()?;
    let dev = nvml.device(bus_id)?;
    // SAFETY: NVML's documented entry point with this signature; `n` says how many
    // entries the live buffer has room for, and NVML writes at most that many.
    unsafe {
        let procs: Symbol<unsafe extern "C" fn(Device, *mut c_uint, *mut ProcessInfo) -> Status> =
            nvml.lib
                .get(b"nvmlDeviceGetComputeRunningProcesses_v3\0")
                .ok()?;
        // Asked with room for 64; NVML says how many there are when that is too few.
        let mut infos = vec![ProcessInfo::default(); 64];
        let mut n = infos.len() as c_uint;
        let mut st = procs(dev, &mut n, infos.as_mut_ptr());
        if st == NVML_ERROR_INSUFFICIENT_SIZE {
            infos = vec![ProcessInfo::default(); n as usize + 16];
            n = infos.len() as c_uint;
            st = procs(dev, &mut n, infos.as_mut_ptr());
        }
        let n = (n as usize).min(infos.len());
        (st == NVML_SUCCESS).then(|| infos[..n].iter().map(|p| p.pid).collect())
    }
}

/// Every process's latest utilisation sample on the GPU at `bus_id`: NVML keeps no older
/// ones (on an H100 with driver 580, one a second per process, covering the second before
/// its stamp), so whoever wants them all asks again within each second. Only processes
/// that computed lately appear; none at all is an empty list. None when NVML is missing
/// or this driver or GPU does not keep them.
pub fn latest_process_samples(bus_id: &str) -> Option<Vec<UtilSample>> {
    let nvml = nvml()?;
    let dev = nvml.device(bus_id)?;
    type GetUtil =
        unsafe extern "C" fn(Device, *mut ProcessSample, *mut c_uint, c_ulonglong) -> Status;
    // SAFETY: NVML's documented entry point with this signature, resolved once per call.
    let get: Symbol<GetUtil> =
        unsafe { nvml.lib.get(b"nvmlDeviceGetProcessUtilization\0") }.ok()?;
    // Room for 64 processes first; when that is too few NVML says how many it has (72 was
    // seen in a busy workshop), and more may start before the next ask.
    let mut room = 64usize;
    for _ in 0..3 {
        let mut buf = vec![ProcessSample::default(); room];
        let mut n = buf.len() as c_uint;
        // SAFETY: `n` is the live buffer's length and NVML writes at most that many
        // entries; `lastSeenTimeStamp` 0 asks for every process's latest sample.
        let st = unsafe { get(dev, buf.as_mut_ptr(), &mut n, 0) };
        match st {
            NVML_SUCCESS => {
                let n = (n as usize).min(buf.len());
                return Some(buf[..n].iter().map(to_sample).collect());
            }
            // No process has a sample: nobody computed lately.
            NVML_ERROR_NOT_FOUND => return Some(Vec::new()),
            NVML_ERROR_INSUFFICIENT_SIZE => room = (n as usize).max(room) + 16,
            _ => return None,
        }
    }
    None
}

fn to_sample(s: &ProcessSample) -> UtilSample {
    UtilSample {
        pid: s.pid,
        at_us: s.time_stamp,
        sm_pct: s.sm_util,
        mem_pct: s.mem_util,
    }
}

/// `nvmlClockType_t`.
const NVML_CLOCK_SM: c_uint = 1;
const NVML_CLOCK_MEM: c_uint = 2;
/// `nvmlTemperatureSensors_t`: the GPU die.
const NVML_TEMPERATURE_GPU: c_uint = 0;

impl Nvml {
    /// A `fn(device, c_uint, *mut c_uint)` query (a clock by type, the temperature by
    /// sensor), None where the symbol is missing or NVML does not say.
    fn uint_by(&self, dev: Device, name: &[u8], which: c_uint) -> Option<u32> {
        type Get = unsafe extern "C" fn(Device, c_uint, *mut c_uint) -> Status;
        let mut out: c_uint = 0;
        // SAFETY: one of NVML's documented entry points with this signature (named by the
        // callers below); `out` is a live out-parameter.
        unsafe {
            let get: Symbol<Get> = self.lib.get(name).ok()?;
            (get(dev, which, &mut out) == NVML_SUCCESS).then_some(out)
        }
    }

    /// The board's power draw in milliwatts.
    fn power_mw(&self, dev: Device) -> Option<u32> {
        type Get = unsafe extern "C" fn(Device, *mut c_uint) -> Status;
        let mut out: c_uint = 0;
        // SAFETY: `nvmlDeviceGetPowerUsage` has this signature; `out` is live.
        unsafe {
            let get: Symbol<Get> = self.lib.get(b"nvmlDeviceGetPowerUsage\0").ok()?;
            (get(dev, &mut out) == NVML_SUCCESS).then_some(out)
        }
    }

    /// What holds the clocks back now, as `nvmlClocksEventReasons` bits: the newer name
    /// first (NVML 12.2 and later), the older one where the driver predates it.
    fn reasons(&self, dev: Device) -> Option<u64> {
        type Get = unsafe extern "C" fn(Device, *mut c_ulonglong) -> Status;
        for name in [
            &b"nvmlDeviceGetCurrentClocksEventReasons\0"[..],
            &b"nvmlDeviceGetCurrentClocksThrottleReasons\0"[..],
        ] {
            let mut out: c_ulonglong = 0;
            // SAFETY: both names are NVML's documented entry point with this signature;
            // `out` is a live out-parameter.
            unsafe {
                let Ok(get) = self.lib.get::<Get>(name) else {
                    continue;
                };
                return (get(dev, &mut out) == NVML_SUCCESS).then_some(out);
            }
        }
        None
    }
}

/// The GPU at `bus_id`'s clocks, temperature, power and throttle reasons now, stamped with
/// `at_us`; None when NVML is missing or does not know the device.
pub fn clock_sample(bus_id: &str, at_us: u64) -> Option<ClockSample> {
    let nvml = nvml()?;
    let dev = nvml.device(bus_id)?;
    Some(ClockSample {
        at_us,
        sm_mhz: nvml.uint_by(dev, b"nvmlDeviceGetClockInfo\0", NVML_CLOCK_SM),
        mem_mhz: nvml.uint_by(dev, b"nvmlDeviceGetClockInfo\0", NVML_CLOCK_MEM),
        temp_c: nvml.uint_by(dev, b"nvmlDeviceGetTemperature\0", NVML_TEMPERATURE_GPU),
        power_mw: nvml.power_mw(dev),
        reasons: nvml.reasons(dev),
    })
}

/// The clock the applications setting asks of the GPU at `bus_id` (what a steady run
/// reaches); nothing known where NVML does not say.
pub fn clock_limits(bus_id: &str) -> ClockLimits {
    let app = nvml().and_then(|nvml| {
        let dev = nvml.device(bus_id)?;
        nvml.uint_by(dev, b"nvmlDeviceGetApplicationsClock\0", NVML_CLOCK_SM)
    });
    ClockLimits { app_sm_mhz: app }
}

impl Nvml {
    /// A `fn(device, *mut c_uint)` query, None where the symbol is missing or NVML does
    /// not say.
    fn uint(&self, dev: Device, name: &[u8]) -> Option<u32> {
        type Get = unsafe extern "C" fn(Device, *mut c_uint) -> Status;
        let mut out: c_uint = 0;
        // SAFETY: one of NVML's documented entry points with this signature (named by the
        // caller below); `out` is a live out-parameter.
        unsafe {
            let get: Symbol<Get> = self.lib.get(name).ok()?;
            (get(dev, &mut out) == NVML_SUCCESS).then_some(out)
        }
    }
}

/// The PCIe link of the GPU at `bus_id`: the generation and width it runs at now and the
/// most the GPU and its slot allow (`nvmlDeviceGet{Curr,Max}PcieLink{Generation,Width}`).
/// None when NVML is missing or does not say (a GPU on another bus, say).
pub fn pcie_link(bus_id: &str) -> Option<crate::model::host::PcieLink> {
    let nvml = nvml()?;
    let dev = nvml.device(bus_id)?;
    Some(crate::model::host::PcieLink {
        gen_now: u8::try_from(nvml.uint(dev, b"nvmlDeviceGetCurrPcieLinkGeneration\0")?).ok()?,
        width_now: u8::try_from(nvml.uint(dev, b"nvmlDeviceGetCurrPcieLinkWidth\0")?).ok()?,
        gen_max: u8::try_from(nvml.uint(dev, b"nvmlDeviceGetMaxPcieLinkGeneration\0")?).ok()?,
        width_max: u8::try_from(nvml.uint(dev, b"nvmlDeviceGetMaxPcieLinkWidth\0")?).ok()?,
    })
}
