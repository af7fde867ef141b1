//! What a run on the interpreter may have, checked before anything is allocated: the
//! modelled GPU's own limits (threads and shared memory per block for the architecture,
//! local memory per thread, the GPU's memory for the buffers, the printf buffer) and a
//! budget of host memory that the whole run (every variant's memory, the reference's too)
//! draws from. A refusal names the limit and the figures.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::analysis::limits::{self, size};
use crate::model::protocol::FALLBACK_ARCH;

/// Host memory an interpreted run may take unless told otherwise: what a laptop can spare.
pub const DEFAULT_BUDGET: u64 = 4 << 30;

/// Local memory one thread may have on every GPU the lab supports (CUDA's limit since
/// compute capability 2.0).
pub const LOCAL_PER_THREAD: u64 = 512 << 10;

/// The device buffer `printf` writes into (CUDA's default `cudaLimitPrintfFifoSize`): what
/// does not fit is lost, as on a GPU.
pub const PRINTF_BUFFER: usize = 1 << 20;

/// The memory of the GPU the interpreter models, an H100 (80 GiB): a lesson's buffers
/// together may not pass it, as they could not be allocated there.
pub const GPU_MEMORY: u64 = 80 << 30;

/// Threads a block may have, and per dimension (x, y, z).
pub const MAX_THREADS: u32 = 1024;
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];

/// Bytes of host memory left to a run; clones share them. Memory taken is given back when
/// what holds it is dropped.
#[derive(Debug, Clone)]
pub struct Budget {
    total: u64,
    left: Arc<AtomicU64>,
}

impl Budget {
    pub fn new(total: u64) -> Budget {
        Budget {
            total,
            left: Arc::new(AtomicU64::new(total)),
        }
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn left(&self) -> u64 {
        self.left.load(Ordering::SeqCst)
    }

    /// Take `n` bytes; false, and nothing taken, when fewer are left.
    pub fn take(&self, n: u64) -> bool {
        (self.left)
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| l.checked_sub(n))
            .is_ok()
    }

    pub fn give(&self, n: u64) {
        self.left.fetch_add(n, Ordering::SeqCst);
    }

    /// Why `need` bytes for `what` cannot be had, with the figures.
    pub fn over(&self, what: &str, need: u64) -> String {
        format!(
            "{what} needs {}, and the interpreter's memory budget has {} left of {} \
             (GPULAB_CPU_MEMORY sets the budget)",
            size(need),
            size(self.left()),
            size(self.total)
        )
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(DEFAULT_BUDGET)
    }
}

/// The limits of one run: the architecture's and the budget.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The architecture the kernel was compiled for, as messages name it.
    pub arch: String,
    /// Shared memory a block may have, static and dynamic together.
    pub smem_per_block: u32,
    pub budget: Budget,
}

impl Limits {
    /// The limits of `arch`; one CUDA does not list is given the fallback architecture's.
    pub fn for_arch(arch: &str, budget: Budget) -> Limits {
        let smem = limits::smem_per_block(arch).or_else(|| limits::smem_per_block(FALLBACK_ARCH));
        Limits {
            arch: arch.to_string(),
            smem_per_block: smem.unwrap_or(227 << 10),
            budget,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::for_arch(FALLBACK_ARCH, Budget::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_shared_by_its_clones_and_never_overdrawn() {
        let b = Budget::new(100);
        let c = b.clone();
        assert!(b.take(60));
        assert!(!c.take(41), "only 40 left");
        assert_eq!(c.left(), 40);
        c.give(60);
        assert!(b.take(100));
        assert!(b.over("a page", 4096).contains("a page needs 4 KiB"));
    }
}
