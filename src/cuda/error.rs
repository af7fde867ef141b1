//! What can go wrong on the GPU, in words, and whether it leaves the context unusable.

use cudarc::driver::{DriverError, sys};

#[derive(Debug, Clone, thiserror::Error)]
pub enum CudaError {
    /// A driver call failed; `sticky` when the context is poisoned (illegal address, launch
    /// failure ...) and the worker must exit.
    #[error("{what}: {text} ({name})")]
    Driver {
        what: String,
        text: String,
        name: String,
        sticky: bool,
    },
    /// There is no GPU to open here, and why.
    #[error("{0}")]
    Unavailable(String),
    /// A request the GPU layer refuses (a symbol of the wrong size, a name with a NUL).
    #[error("{0}")]
    Invalid(String),
}

impl CudaError {
    /// The context is unusable after this error: only a fresh process can go on.
    pub fn is_sticky(&self) -> bool {
        matches!(self, CudaError::Driver { sticky: true, .. })
    }

    /// The driver's name for the error, "CUDA_ERROR_INVALID_VALUE".
    pub fn code(&self) -> Option<&str> {
        match self {
            CudaError::Driver { name, .. } => Some(name),
            _ => None,
        }
    }
}

/// A driver error, named after what we were doing when it happened.
pub(super) fn fail(what: &str, e: DriverError) -> CudaError {
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
    CudaError::Driver {
        what: what.to_string(),
        text,
        name,
        sticky,
    }
}
