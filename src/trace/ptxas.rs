//! Finding `ptxas`, to check instrumented PTX where a toolkit or the `nvidia-cuda-nvcc`
//! Python wheel is installed. The lab itself never needs it: NVRTC compiles the sources.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The first `ptxas` found in PATH, `GPULAB_CUDA`/`CUDA_HOME`/`CUDA_PATH`, /usr/local/cuda
/// or the Python site-packages `nvidia/cu13` folder.
pub fn find_ptxas() -> Option<PathBuf> {
    let name = if cfg!(windows) { "ptxas.exe" } else { "ptxas" };
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for var in ["GPULAB_CUDA", "CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var) {
            dirs.push(Path::new(&root).join("bin"));
        }
    }
    dirs.push(PathBuf::from("/usr/local/cuda/bin"));
    dirs.extend(
        python_site_packages()
            .into_iter()
            .map(|p| p.join("nvidia").join("cu13").join("bin")),
    );
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

/// Ask the Python on PATH where its packages live, as the wheels put their tools there.
fn python_site_packages() -> Vec<PathBuf> {
    let script =
        "import site; print('\\n'.join(site.getsitepackages() + [site.getusersitepackages()]))";
    ["python3", "python"]
        .iter()
        .find_map(|py| Command::new(py).args(["-c", script]).output().ok())
        .filter(|out| out.status.success())
        .map(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default()
}
