//! cuBLAS SGEMM, the yardstick of the GEMM capstone: FP32 in, FP32 out, with TF32 tensor
//! cores ruled out (pedantic math), so it does the arithmetic our kernels do.

use super::discover;
use super::error::CudaError;
use super::gpu::Gpu;
use super::memory::DevBuf;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, sys};

/// One cuBLAS handle on the GPU's stream.
pub struct Blas {
    blas: CudaBlas,
}

impl Blas {
    pub fn new(gpu: &Gpu) -> Result<Blas, CudaError> {
        discover::ensure_cublas().map_err(|e| CudaError::Unavailable(e.to_string()))?;
        let blas = CudaBlas::new(gpu.stream().clone())
            .map_err(|e| CudaError::Invalid(format!("creating a cuBLAS handle: {e}")))?;
        // SAFETY: the handle is live (owned by `blas`); the mode is one of cuBLAS's own.
        let st = unsafe {
            sys::cublasSetMathMode(*blas.handle(), sys::cublasMath_t::CUBLAS_PEDANTIC_MATH)
        };
        if st != sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            return Err(CudaError::Invalid(format!(
                "setting cuBLAS's math mode: {st:?}"
            )));
        }
        Ok(Blas { blas })
    }

    /// C = A B for row-major f32 matrices, A m x k, B k x n, C m x n, queued on the GPU's
    /// stream. cuBLAS is column-major: a row-major C is a column-major C^T = B^T A^T, so B
    /// goes first.
    pub fn sgemm_row_major(
        &self,
        a: &DevBuf,
        b: &DevBuf,
        c: &mut DevBuf,
        (m, n, k): (usize, usize, usize),
    ) -> Result<(), CudaError> {
        let need = |x: usize, y: usize| x * y * 4;
        if a.bytes() < need(m, k) || b.bytes() < need(k, n) || c.bytes() < need(m, n) {
            return Err(CudaError::Invalid(format!(
                "sgemm {m} x {n} x {k}: a buffer is smaller than the matrix it holds"
            )));
        }
        let dim = |x: usize| {
            i32::try_from(x).map_err(|_| CudaError::Invalid(format!("{x} is too large for cuBLAS")))
        };
        let cfg = GemmConfig {
            transa: sys::cublasOperation_t::CUBLAS_OP_N,
            transb: sys::cublasOperation_t::CUBLAS_OP_N,
            m: dim(n)?,
            n: dim(m)?,
            k: dim(k)?,
            alpha: 1.0f32,
            lda: dim(n)?,
            ldb: dim(k)?,
            beta: 0.0f32,
            ldc: dim(n)?,
        };
        let (bv, av, mut cv) = (b.as_f32(k * n)?, a.as_f32(m * k)?, c.as_f32_mut(m * n)?);
        // SAFETY: the sizes were checked against each buffer above, and every view lives
        // until the call is queued; cuBLAS runs on the stream that owns the buffers.
        unsafe { self.blas.gemm(cfg, &bv, &av, &mut cv) }
            .map_err(|e| CudaError::Invalid(format!("cuBLAS sgemm: {e:?}")))
    }
}
