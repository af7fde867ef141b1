//! Everything that touches CUDA libraries: finding them, compiling with NVRTC, and (in the
//! worker process only) running kernels.

pub mod discover;
pub mod gpu;
pub mod nvrtc;
