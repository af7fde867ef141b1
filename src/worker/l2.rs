//! A lesson's persisting-L2 set-aside (`l2_persisting_bytes`), given back when the lesson
//! ends, however it ends, so the next lesson starts with the whole L2 ordinary again.

use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;

/// Holds the set-aside while it lives.
pub struct PersistingL2<'g> {
    gpu: Option<&'g Gpu>,
}

impl<'g> PersistingL2<'g> {
    /// Set aside `bytes` (none asked: nothing is changed), at most what the device allows;
    /// the bytes actually set aside come back with it.
    pub fn set(gpu: &'g Gpu, bytes: Option<u64>) -> Result<(PersistingL2<'g>, u64), CudaError> {
        let Some(asked) = bytes else {
            return Ok((PersistingL2 { gpu: None }, 0));
        };
        let b = clamp(asked, gpu.info().max_persisting_l2);
        gpu.set_persisting_l2(usize::try_from(b).unwrap_or(usize::MAX))?;
        Ok((PersistingL2 { gpu: Some(gpu) }, b))
    }

    /// Before each variant: what the last variant made persist goes back to ordinary lines,
    /// so a variant without a window is never measured on another's resident data.
    pub fn fresh(&self) -> Result<(), CudaError> {
        match self.gpu {
            Some(gpu) => gpu.reset_persisting_l2(),
            None => Ok(()),
        }
    }
}

/// `max` 0 means the driver did not say: the request goes as asked, and the driver judges.
fn clamp(asked: u64, max: u64) -> u64 {
    if max == 0 { asked } else { asked.min(max) }
}

/// What the learner is told while the lesson starts.
pub fn stage_text(asked: u64, set: u64, max: u64) -> String {
    let mib = |b: u64| b as f64 / 1048576.0;
    if set < asked {
        format!(
            "L2 set-aside for persisting lines: {:.1} MiB (asked {:.1}; this GPU allows at most {:.1})",
            mib(set),
            mib(asked),
            mib(max)
        )
    } else {
        format!("L2 set-aside for persisting lines: {:.1} MiB", mib(set))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_more_than_the_device_allows_gets_the_maximum_and_says_so() {
        assert_eq!(clamp(32 << 20, 30 << 20), 30 << 20);
        assert_eq!(clamp(16 << 20, 30 << 20), 16 << 20);
        assert_eq!(clamp(16 << 20, 0), 16 << 20);
        let t = stage_text(32 << 20, 30 << 20, 30 << 20);
        assert!(t.contains("30.0 MiB (asked 32.0"), "{t}");
        assert!(!stage_text(16 << 20, 16 << 20, 30 << 20).contains("asked"));
    }
}
