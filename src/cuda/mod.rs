//! Everything that touches CUDA libraries: finding them, compiling with NVRTC, and (in the
//! worker process only) running kernels through a small safe layer over cudarc. The calls
//! into CUDA's libraries are this folder's `unsafe`, each block with the reason it is sound;
//! the crate's few others (process and file calls, the interpreter's FMA row) are listed in
//! docs/architecture.md.

pub mod blas;
pub mod confined;
pub mod discover;
pub mod entry;
pub mod error;
pub mod gpu;
pub mod headers;
pub mod host_memory;
pub mod launch_ex;
pub mod memory;
pub mod module;
pub mod nvml;
pub mod nvrtc;
pub mod stdout;
pub mod texture;
