//! What a kernel keeps in its module's own variables (`__device__` globals) from one launch
//! to the next, carried from the build that was checked and timed into the traced build.
//!
//! The traced build is a module of its own, loaded fresh: its variables hold what the
//! program gave them, not what the timed launches left. A kernel that keeps sums there
//! between launches, keyed by a few input words, reads a fifth less on every timed launch
//! and all of it on a traced one, so its counts would describe a launch that was never
//! timed. Copied over, the traced launch starts where the last launch of the checked build
//! ended: the launch after the timed ones, as a program would make it.

use crate::cuda::error::CudaError;
use crate::cuda::module::Module;

/// More than this in a module's variables is not carried (a trace of a kernel that keeps a
/// GiB aside would wait on its copy); the trace then starts from the program's values.
const MOST_BYTES: usize = 256 << 20;

/// Each variable's bytes, by name.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ModuleState(Vec<(String, Vec<u8>)>);

impl ModuleState {
    /// The variables `ptx` defines in global memory, as they are in `module` now. One the
    /// driver cannot find by name (an internal one it renamed) is left out.
    pub fn read(module: &Module, ptx: &str) -> Result<ModuleState, CudaError> {
        let mut vars = Vec::new();
        let mut bytes = 0;
        for name in crate::trace::instrument::module_globals(ptx) {
            let Ok(g) = module.global(&name) else {
                continue;
            };
            bytes += g.bytes();
            if bytes > MOST_BYTES {
                return Ok(ModuleState::default());
            }
            vars.push((name, g.read_bytes()?));
        }
        Ok(ModuleState(vars))
    }

    /// Put each variable into the same-named one of `module` (where its size is the same:
    /// the traced build declares the program's variables as the program does).
    pub fn write(&self, module: &Module) -> Result<(), CudaError> {
        for (name, data) in &self.0 {
            if let Ok(mut g) = module.global(name)
                && g.bytes() == data.len()
            {
                g.set_bytes(data)?;
            }
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
