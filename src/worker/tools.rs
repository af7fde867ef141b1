//! What the worker reports of the CUDA toolkit here, for `doctor` and `check`: the parent
//! never loads a CUDA library itself.

use crate::cuda::confined::{self, Confinement};
use crate::cuda::{discover, nvrtc};
use crate::model::protocol::{CompileConfinement, NvrtcFound, SearchedDir, Toolkit};

pub fn toolkit() -> Toolkit {
    let found = discover::find();
    let nvrtc = discover::ensure_nvrtc()
        .map(|from| NvrtcFound {
            version: nvrtc::version().unwrap_or_default(),
            from,
        })
        .map_err(|e| e.to_string());
    let confined = nvrtc.is_ok().then(|| {
        let c = confined::status();
        CompileConfinement {
            enforced: c == Confinement::Landlock,
            words: c.words().to_string(),
        }
    });
    Toolkit {
        searched: found
            .searched
            .iter()
            .map(|(why, dir)| SearchedDir {
                why: why.clone(),
                dir: dir.clone(),
                present: dir.is_dir(),
            })
            .collect(),
        nvrtc,
        nvdisasm: found.nvdisasm.clone(),
        ncu: found.ncu.clone(),
        compute_sanitizer: found.compute_sanitizer.clone(),
        cublas: found.cublas.clone(),
        include_dirs: found.include_dirs.clone(),
        confined,
    }
}
