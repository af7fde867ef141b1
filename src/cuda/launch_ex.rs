//! Launches with attributes (thread-block clusters, an L2 access-policy window) through
//! `cuLaunchKernelEx`, which cudarc 0.19 has only in `driver::sys`. The attribute list is
//! built as plain data first, so what is asked of the driver can be checked without a GPU.

use super::error::{CudaError, fail};
use super::module::{ArgValue, Launch};
use crate::model::L2Access;
use cudarc::driver::sys;
use std::ffi::c_void;

/// One launch attribute, with a buffer already turned into its device address.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Attr {
    Cluster([u32; 3]),
    L2Window {
        base: u64,
        bytes: usize,
        hit_ratio: f32,
        hit: L2Access,
        miss: L2Access,
    },
}

fn property(a: L2Access) -> sys::CUaccessProperty {
    match a {
        L2Access::Normal => sys::CUaccessProperty::CU_ACCESS_PROPERTY_NORMAL,
        L2Access::Streaming => sys::CUaccessProperty::CU_ACCESS_PROPERTY_STREAMING,
        L2Access::Persisting => sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING,
    }
}

/// The driver's records for `attrs`, in the same order.
pub fn attributes(attrs: &[Attr]) -> Vec<sys::CUlaunchAttribute> {
    attrs.iter().map(|a| attribute(*a)).collect()
}

fn attribute(a: Attr) -> sys::CUlaunchAttribute {
    // The union is zeroed whole first, so the bytes past the member set are defined.
    let mut value = sys::CUlaunchAttributeValue { pad: [0; 64] };
    let id = match a {
        Attr::Cluster([x, y, z]) => {
            value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x, y, z };
            sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        }
        Attr::L2Window {
            base,
            bytes,
            hit_ratio,
            hit,
            miss,
        } => {
            value.accessPolicyWindow = sys::CUaccessPolicyWindow {
                base_ptr: base as usize as *mut c_void,
                num_bytes: bytes,
                hitRatio: hit_ratio,
                hitProp: property(hit),
                missProp: property(miss),
            };
            sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
        }
    };
    sys::CUlaunchAttribute {
        id,
        pad: [0; 4],
        value,
    }
}

/// Each argument's value as the kernel's parameter takes it (a buffer: its address).
enum Param {
    U64(u64),
    I32(i32),
    U32(u32),
    I64(i64),
    F32(f32),
}

impl Param {
    fn of(a: &ArgValue<'_>) -> Param {
        match *a {
            ArgValue::Buffer(d) => Param::U64(d.device_address()),
            ArgValue::I32(v) => Param::I32(v),
            ArgValue::U32(v) => Param::U32(v),
            ArgValue::I64(v) => Param::I64(v),
            ArgValue::U64(v) => Param::U64(v),
            ArgValue::F32(v) => Param::F32(v),
        }
    }

    fn ptr(&mut self) -> *mut c_void {
        match self {
            Param::U64(v) => (v as *mut u64).cast(),
            Param::I32(v) => (v as *mut i32).cast(),
            Param::U32(v) => (v as *mut u32).cast(),
            Param::I64(v) => (v as *mut i64).cast(),
            Param::F32(v) => (v as *mut f32).cast(),
        }
    }
}

/// Queue `launch` with `attrs` through `cuLaunchKernelEx` (asynchronous, like `enqueue`).
pub(super) fn enqueue_ex(
    launch: &Launch<'_>,
    func: sys::CUfunction,
    stream: sys::CUstream,
    attrs: &[Attr],
) -> Result<(), CudaError> {
    let mut params: Vec<Param> = launch.args.iter().map(Param::of).collect();
    let mut ptrs: Vec<*mut c_void> = params.iter_mut().map(Param::ptr).collect();
    let mut records = attributes(attrs);
    let config = sys::CUlaunchConfig {
        gridDimX: launch.grid[0],
        gridDimY: launch.grid[1],
        gridDimZ: launch.grid[2],
        blockDimX: launch.block[0],
        blockDimY: launch.block[1],
        blockDimZ: launch.block[2],
        sharedMemBytes: launch.smem,
        hStream: stream,
        attrs: records.as_mut_ptr(),
        numAttrs: records.len() as u32,
    };
    // SAFETY: `config`, its attribute records and every parameter value live on this frame
    // for the whole call, and the driver copies them before it returns. `func` and `stream`
    // come from a kernel whose module and stream the borrowed `Launch` keeps alive. Buffers
    // are borrowed by `launch` and freed later on the same stream, after the kernel. That
    // the values match the kernel's parameters is the lesson's promise, as in `enqueue`: a
    // mismatch can only misbehave on the GPU, where a fault ends the worker.
    let r =
        unsafe { sys::cuLaunchKernelEx(&config, func, ptrs.as_mut_ptr(), std::ptr::null_mut()) };
    r.result()
        .map_err(|e| fail("launching the kernel with attributes", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_and_window_become_driver_records() {
        let recs = attributes(&[
            Attr::Cluster([2, 1, 1]),
            Attr::L2Window {
                base: 0x7000_0000,
                bytes: 1 << 20,
                hit_ratio: 0.5,
                hit: L2Access::Persisting,
                miss: L2Access::Streaming,
            },
        ]);
        assert_eq!(recs.len(), 2);
        assert_eq!(
            recs[0].id,
            sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        );
        // SAFETY: the member read is the one `attribute` wrote for this id.
        let c = unsafe { recs[0].value.clusterDim };
        assert_eq!((c.x, c.y, c.z), (2, 1, 1));
        assert_eq!(
            recs[1].id,
            sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
        );
        // SAFETY: as above.
        let w = unsafe { recs[1].value.accessPolicyWindow };
        assert_eq!(w.base_ptr as usize, 0x7000_0000);
        assert_eq!(w.num_bytes, 1 << 20);
        assert_eq!(w.hitRatio, 0.5);
        assert_eq!(
            w.hitProp,
            sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING
        );
        assert_eq!(
            w.missProp,
            sys::CUaccessProperty::CU_ACCESS_PROPERTY_STREAMING
        );
    }

    #[test]
    fn no_attributes_no_records() {
        assert!(attributes(&[]).is_empty());
    }
}
