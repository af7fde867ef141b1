//! Finding the CUDA pieces: the driver (a GPU is there), NVRTC (kernels compile, with or
//! without a GPU), nvdisasm, ncu and compute-sanitizer. Nothing here panics when a piece is
//! missing: every absence is a value that `doctor` explains.

use crate::model::protocol::PIP_HINT;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A CUDA library that could not be loaded, in words a learner can act on.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: {reason}")]
    Open { path: String, reason: String },
    #[error("NVRTC not found; get it with: {PIP_HINT}")]
    NoNvrtc,
    #[error("no NVIDIA driver (libcuda.so.1 not found)")]
    NoDriver,
    #[error("cuBLAS not found (libcublas.so from the CUDA toolkit, or: pip install nvidia-cublas)")]
    NoCublas,
}

#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Folders searched, in order, with the reason each was searched.
    pub searched: Vec<(String, PathBuf)>,
    pub nvrtc: Option<PathBuf>,
    pub nvrtc_builtins: Option<PathBuf>,
    /// cuBLAS and the cuBLASLt it loads, for a lesson measured against cuBLAS.
    pub cublas: Option<PathBuf>,
    pub cublas_lt: Option<PathBuf>,
    pub nvdisasm: Option<PathBuf>,
    pub ptxas: Option<PathBuf>,
    pub ncu: Option<PathBuf>,
    pub compute_sanitizer: Option<PathBuf>,
    /// Header folders NVRTC is given (`-I`): the toolkit's, and the Python wheels'
    /// (`nvidia-cuda-runtime` has cuda_fp16.h, `nvidia-cuda-cccl` has cuda/std/...).
    pub include_dirs: Vec<PathBuf>,
}

/// The toolkit-like folders to search: explicit settings first, then the usual install
/// place, then the pip wheels (which put a toolkit-shaped folder under site-packages).
fn roots() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for var in ["GPULAB_CUDA", "CUDA_HOME", "CUDA_PATH"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            out.push((format!("${var}"), PathBuf::from(v)));
        }
    }
    out.push(("default toolkit".into(), PathBuf::from("/usr/local/cuda")));
    for sp in python_site_packages() {
        out.push(("Python wheels".into(), sp.join("nvidia").join("cu13")));
    }
    out
}

/// Python's site-packages folders, where `pip install nvidia-cuda-nvrtc` puts NVRTC. Asked of
/// python3 itself because virtual environments and user installs put them anywhere.
fn python_site_packages() -> Vec<PathBuf> {
    static CACHE: OnceLock<Vec<PathBuf>> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            let script = "import site,sys\n\
                          p=list(site.getsitepackages())\n\
                          u=site.getusersitepackages()\n\
                          p.append(u) if isinstance(u,str) else None\n\
                          print('\\n'.join(p))";
            let out = std::process::Command::new("python3")
                .arg("-c")
                .arg(script)
                .stderr(std::process::Stdio::null())
                .output();
            match out {
                Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .map(PathBuf::from)
                    .filter(|p| p.is_dir())
                    .collect(),
                _ => Vec::new(),
            }
        })
        .clone()
}

/// The header folders under a toolkit-shaped root that exist: its own headers and CCCL's
/// (which CUDA 13 keeps in include/cccl).
fn include_dirs(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for inc in [
        root.join("include"),
        root.join("targets/x86_64-linux/include"),
    ] {
        if inc.join("cuda_runtime.h").is_file() || inc.join("cuda_fp16.h").is_file() {
            out.push(inc.clone());
        }
        if inc.join("cccl/cuda/std").is_dir() {
            out.push(inc.join("cccl"));
        }
    }
    out
}

fn lib_dirs(root: &Path) -> Vec<PathBuf> {
    vec![
        root.join("lib64"),
        root.join("lib"),
        root.join("targets/x86_64-linux/lib"),
        root.join("targets/sbsa-linux/lib"),
    ]
}

/// The newest-looking file in `dir` whose name starts with `stem` and continues with ".so".
fn find_lib(dir: &Path, stem: &str) -> Option<PathBuf> {
    let mut hits: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{stem}.so")))
        })
        .collect();
    // Prefer the versioned soname (libnvrtc.so.13) over the bare dev link and the longer
    // patch-level names, which are the same file.
    hits.sort_by_key(|p| {
        let n = p.file_name().unwrap().to_string_lossy().into_owned();
        (n == format!("{stem}.so"), n.len())
    });
    hits.into_iter().next()
}

fn find_bin(root: &Path, name: &str) -> Option<PathBuf> {
    [
        root.join("bin").join(name),
        root.join(name).join(name),
        root.join("bin").join(format!("{name}.bat")),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Look in every folder `roots` names, then on the loader path and $PATH. Cached: the
/// answer does not change while we run.
pub fn find() -> &'static Found {
    static FOUND: OnceLock<Found> = OnceLock::new();
    FOUND.get_or_init(|| {
        let mut f = Found {
            searched: roots(),
            ..Found::default()
        };
        for (_, root) in f.searched.clone() {
            for dir in lib_dirs(&root) {
                if f.nvrtc.is_none()
                    && let Some(lib) = find_lib(&dir, "libnvrtc")
                {
                    f.nvrtc_builtins = find_lib(&dir, "libnvrtc-builtins");
                    f.nvrtc = Some(lib);
                }
                if f.cublas.is_none()
                    && let Some(lib) = find_lib(&dir, "libcublas")
                {
                    f.cublas_lt = find_lib(&dir, "libcublasLt");
                    f.cublas = Some(lib);
                }
            }
            for inc in include_dirs(&root) {
                if !f.include_dirs.contains(&inc) {
                    f.include_dirs.push(inc);
                }
            }
            f.nvdisasm = f.nvdisasm.take().or_else(|| find_bin(&root, "nvdisasm"));
            f.ptxas = f.ptxas.take().or_else(|| find_bin(&root, "ptxas"));
            f.ncu = f.ncu.take().or_else(|| find_bin(&root, "ncu"));
            f.compute_sanitizer = f
                .compute_sanitizer
                .take()
                .or_else(|| find_bin(&root, "compute-sanitizer"));
        }
        f.nvdisasm = f.nvdisasm.take().or_else(|| on_path("nvdisasm"));
        f.ptxas = f.ptxas.take().or_else(|| on_path("ptxas"));
        f.ncu = f.ncu.take().or_else(|| on_path("ncu"));
        f.compute_sanitizer = f
            .compute_sanitizer
            .take()
            .or_else(|| on_path("compute-sanitizer"));
        f
    })
}

/// Libraries we opened and keep open for the life of the process, so that cudarc's own
/// `dlopen` by soname finds them already loaded.
static NVRTC_LOADED: OnceLock<Result<String, LoadError>> = OnceLock::new();
static DRIVER_LOADED: OnceLock<Result<(), LoadError>> = OnceLock::new();
static CUBLAS_LOADED: OnceLock<Result<String, LoadError>> = OnceLock::new();

fn open_global(path: &Path) -> Result<(), LoadError> {
    // SAFETY: loading a shared library runs its initialisers; NVIDIA's libraries are
    // well-behaved, and we never unload them.
    let lib = unsafe {
        libloading::os::unix::Library::open(
            Some(path),
            libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_GLOBAL,
        )
    }
    .map_err(|e| LoadError::Open {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    // Kept loaded for the life of the process: cudarc finds it by soname later.
    std::mem::forget(lib);
    Ok(())
}

/// The first of `names` the system loader can open, kept open.
fn open_by_name<'a>(names: &[&'a str]) -> Option<&'a str> {
    names.iter().copied().find(|n| {
        // SAFETY: as above.
        match unsafe { libloading::Library::new(*n) } {
            Ok(lib) => {
                std::mem::forget(lib);
                true
            }
            Err(_) => false,
        }
    })
}

/// Load NVRTC (and its builtins first) from where another process found them, without
/// searching: the confined compiler's process can start nothing, python3 included.
pub fn load_nvrtc_from(lib: Option<&Path>, builtins: Option<&Path>) -> Result<String, LoadError> {
    let Some(lib) = lib else {
        return ensure_nvrtc();
    };
    NVRTC_LOADED
        .get_or_init(|| {
            if let Some(b) = builtins {
                open_global(b)?;
            }
            open_global(lib)?;
            Ok(lib.display().to_string())
        })
        .clone()
}

/// Make NVRTC loadable by cudarc. Returns where it came from, or why it is missing.
pub fn ensure_nvrtc() -> Result<String, LoadError> {
    NVRTC_LOADED
        .get_or_init(|| {
            let f = find();
            if let Some(lib) = &f.nvrtc {
                // NVRTC opens its builtins library by name at compile time: load it first by
                // full path so that lookup succeeds outside the loader path too.
                if let Some(b) = &f.nvrtc_builtins {
                    open_global(b)?;
                }
                open_global(lib)?;
                return Ok(lib.display().to_string());
            }
            open_by_name(&["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"])
                .map(|n| format!("{n} (system loader path)"))
                .ok_or(LoadError::NoNvrtc)
        })
        .clone()
}

/// Make cuBLAS loadable by cudarc. Returns where it came from, or why it is missing.
pub fn ensure_cublas() -> Result<String, LoadError> {
    CUBLAS_LOADED
        .get_or_init(|| {
            let f = find();
            if let Some(lib) = &f.cublas {
                // cuBLAS needs cuBLASLt; loaded first by full path, it is found outside the
                // loader path too.
                if let Some(lt) = &f.cublas_lt {
                    open_global(lt)?;
                }
                open_global(lib)?;
                return Ok(lib.display().to_string());
            }
            open_by_name(&["libcublas.so.13", "libcublas.so.12", "libcublas.so"])
                .map(|n| format!("{n} (system loader path)"))
                .ok_or(LoadError::NoCublas)
        })
        .clone()
}

/// Make the driver library loadable. A machine without an NVIDIA driver has no GPU for us.
pub fn ensure_driver() -> Result<(), LoadError> {
    DRIVER_LOADED
        .get_or_init(|| {
            open_by_name(&["libcuda.so.1", "libcuda.so"])
                .map(|_| ())
                .ok_or(LoadError::NoDriver)
        })
        .clone()
}

/// The NVIDIA kernel driver's version, e.g. "580.159.04", where Linux exposes it.
pub fn kernel_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..."
    text.lines()
        .next()?
        .split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        .map(str::to_string)
}
