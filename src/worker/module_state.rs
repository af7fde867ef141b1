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
/// GiB aside would wait on its copy): such a kernel's trace is not judged, as one that
/// started from the program's values would describe a launch that was never timed.
const MOST_BYTES: usize = 256 << 20;

/// Each variable's bytes, by name; or, where they were too many to carry, how many.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ModuleState {
    vars: Vec<(String, Vec<u8>)>,
    uncarried: Option<usize>,
}

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
            // Past the limit the rest are only counted, for the words that say so.
            if bytes <= MOST_BYTES {
                vars.push((name, g.read_bytes()?));
            }
        }
        Ok(match bytes > MOST_BYTES {
            true => ModuleState {
                vars: Vec::new(),
                uncarried: Some(bytes),
            },
            false => ModuleState {
                vars,
                uncarried: None,
            },
        })
    }

    /// Why a trace cannot start where the checked launches ended: None when it can.
    pub fn not_carried(&self) -> Option<String> {
        self.uncarried.map(|bytes| {
            format!(
                "the kernel keeps {} MiB in its `__device__` variables, more than the {} MiB a \
                 trace carries over from the launches before it: its trace is not judged",
                bytes >> 20,
                MOST_BYTES >> 20
            )
        })
    }

    /// Put each variable into the same-named one of `module` (where its size is the same:
    /// the traced build declares the program's variables as the program does).
    pub fn write(&self, module: &Module) -> Result<(), CudaError> {
        for (name, data) in &self.vars {
            if let Ok(mut g) = module.global(name)
                && g.bytes() == data.len()
            {
                g.set_bytes(data)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_too_large_to_carry_says_its_trace_is_not_judged() {
        assert_eq!(ModuleState::default().not_carried(), None);
        let big = ModuleState {
            vars: Vec::new(),
            uncarried: Some(300 << 20),
        };
        let why = big.not_carried().expect("said");
        assert!(
            why.contains("300 MiB") && why.contains("not judged"),
            "{why}"
        );
    }
}
