//! A lesson's persisting-L2 set-aside (`l2_persisting_bytes`), given back when the lesson
//! ends, however it ends, so the next lesson starts with the whole L2 ordinary again.

use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;

/// Holds the set-aside while it lives.
pub struct PersistingL2<'g> {
    gpu: Option<&'g Gpu>,
}

impl<'g> PersistingL2<'g> {
    /// Set aside `bytes` (none asked: nothing is changed).
    pub fn set(gpu: &'g Gpu, bytes: Option<u64>) -> Result<PersistingL2<'g>, CudaError> {
        let Some(b) = bytes else {
            return Ok(PersistingL2 { gpu: None });
        };
        gpu.set_persisting_l2(usize::try_from(b).unwrap_or(usize::MAX))?;
        Ok(PersistingL2 { gpu: Some(gpu) })
    }
}

impl Drop for PersistingL2<'_> {
    fn drop(&mut self) {
        if let Some(gpu) = self.gpu {
            // After a fault the context is gone with its limit; nothing to give back then.
            let _ = gpu.set_persisting_l2(0);
        }
    }
}
