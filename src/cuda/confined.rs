//! NVRTC confined by construction: a lesson pack's kernel is compiled in a process of its own
//! that the kernel's Landlock LSM lets read only NVRTC's libraries and CUDA's header folders.
//! A checker over the kernel's text cannot see every way C's preprocessor names a file
//! (digraphs, trigraphs, macros, line splices, `__has_include`, nested headers, links), and
//! NVRTC opens whatever it is named, quoting the file back in its errors; the kernel of the
//! machine refuses those opens instead. The stand-in headers (`headers`) are handed over in
//! memory. On a kernel without Landlock the compile runs confined by nothing, and `status`
//! says so.

use super::discover;
use super::nvrtc::{self, CompileError, CompileJob, Compiled, Diagnostic, Output};
use crate::model::results::PtxasReport;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The hidden command that compiles one request from its standard input.
pub const HELPER_ARG: &str = "__nvrtc";

/// A compile as it crosses to the confined process.
#[derive(Serialize, Deserialize)]
struct Request {
    file_name: String,
    source: String,
    kernel: String,
    defines: Vec<(String, String)>,
    options: Vec<String>,
    arch: String,
    ptx: bool,
    /// NVRTC and its builtins, by the paths the parent found them at.
    nvrtc: Option<PathBuf>,
    builtins: Option<PathBuf>,
    /// CUDA's header folders (`-I`).
    includes: Vec<PathBuf>,
    /// What the confined process may read: the folders of NVRTC's libraries and CUDA's
    /// headers.
    readable: Vec<PathBuf>,
}

/// What came back: the build, or the compiler's failure.
#[derive(Serialize, Deserialize)]
enum Response {
    Built {
        image: Vec<u8>,
        lowered_name: String,
        log: String,
        report: Option<PtxasReport>,
        params: Option<Vec<u32>>,
        ptx: Option<Vec<u8>>,
    },
    Failed {
        file: String,
        source_text: String,
        diagnostics: Vec<(u32, String, String)>,
        log: String,
    },
    Internal(String),
}

/// How NVRTC is confined on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confinement {
    /// Landlock enforces every rule: NVRTC reads CUDA's headers and nothing else.
    Landlock,
    /// Landlock enforces some of the rules (an older kernel's ABI).
    Partly,
    /// The kernel has no Landlock (or it is turned off): nothing but the text checks.
    None,
}

impl Confinement {
    pub fn words(self) -> &'static str {
        match self {
            Confinement::Landlock => {
                "Landlock: a kernel's compile reads CUDA's headers and nothing else"
            }
            Confinement::Partly => {
                "Landlock, partly (an older kernel): some reads of a kernel's compile are \
                 not refused"
            }
            Confinement::None => {
                "none: this kernel has no Landlock, so a kernel's compile may open any file \
                 an #include names that the text checks miss"
            }
        }
    }
}

static HELPER: OnceLock<PathBuf> = OnceLock::new();

/// Compile in a confined process of `exe` (this program) from now on. Without it (the
/// library in another program, its unit tests) NVRTC runs in this process.
pub fn use_helper(exe: PathBuf) {
    let _ = HELPER.set(exe);
}

/// The program compiles run in, when they run confined.
pub fn helper() -> Option<&'static Path> {
    HELPER.get().map(PathBuf::as_path)
}

/// `job` compiled by NVRTC in a confined process of `exe`.
pub fn compile_in(exe: &Path, job: &CompileJob) -> Result<Compiled, CompileError> {
    let found = discover::find();
    discover::ensure_nvrtc()?;
    let mut readable: Vec<PathBuf> = found.include_dirs.clone();
    for lib in [&found.nvrtc, &found.nvrtc_builtins].into_iter().flatten() {
        if let Some(dir) = lib.parent() {
            readable.push(dir.to_path_buf());
        }
    }
    let request = Request {
        file_name: job.file_name.to_string(),
        source: job.source.to_string(),
        kernel: job.kernel.to_string(),
        defines: job.defines.to_vec(),
        options: job.options.to_vec(),
        arch: job.arch.to_string(),
        ptx: job.output == Output::Ptx,
        nvrtc: found.nvrtc.clone(),
        builtins: found.nvrtc_builtins.clone(),
        includes: found.include_dirs.clone(),
        readable,
    };
    let body = serde_json::to_vec(&request).map_err(internal)?;
    let mut child = Command::new(exe)
        .arg(HELPER_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| CompileError::Internal(format!("starting the compiler's process: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    // Written on a thread of its own: a large source must not wait on a full pipe while the
    // child waits for us to read its answer.
    let writer = std::thread::spawn(move || stdin.write_all(&body));
    let out = child.wait_with_output().map_err(internal)?;
    let _ = writer.join();
    let response: Response = serde_json::from_slice(&out.stdout).map_err(|e| {
        CompileError::Internal(format!(
            "the compiler's process answered nothing readable ({e}; exit {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    })?;
    match response {
        Response::Built {
            image,
            lowered_name,
            log,
            report,
            params,
            ptx,
        } => Ok(Compiled {
            image,
            lowered_name,
            log,
            report,
            params,
            ptx,
        }),
        Response::Failed {
            file,
            source_text,
            diagnostics,
            log,
        } => Err(CompileError::Failed {
            file,
            source_text,
            diagnostics: (diagnostics.into_iter())
                .map(|(line, severity, message)| Diagnostic {
                    line,
                    severity,
                    message,
                })
                .collect(),
            log,
        }),
        Response::Internal(e) => Err(CompileError::Internal(e)),
    }
}

fn internal(e: impl std::fmt::Display) -> CompileError {
    CompileError::Internal(e.to_string())
}

/// The confined process: read one request, load NVRTC, confine this process to reading
/// what the request names, compile, answer. Exit 0 whenever an answer was written.
pub fn serve() -> i32 {
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() {
        return 2;
    }
    let response = match serde_json::from_slice::<Request>(&input) {
        Ok(r) => answer(&r),
        Err(e) => Response::Internal(format!("an unreadable compile request: {e}")),
    };
    let out = serde_json::to_vec(&response).unwrap_or_default();
    match std::io::stdout().write_all(&out) {
        Ok(()) => 0,
        Err(_) => 2,
    }
}

fn answer(r: &Request) -> Response {
    // NVRTC and its builtins are loaded before the rules: afterwards only their folders and
    // the headers' may be read.
    if let Err(e) = discover::load_nvrtc_from(r.nvrtc.as_deref(), r.builtins.as_deref()) {
        return Response::Internal(e.to_string());
    }
    // A kernel that refuses the rules (no Landlock, or a container's filter on its calls)
    // leaves the compile as confined as the text checks make it, as `status` tells: the
    // learner's kernel still compiles.
    let _ = restrict(&r.readable);
    let job = CompileJob {
        file_name: &r.file_name,
        source: &r.source,
        kernel: &r.kernel,
        defines: &r.defines,
        options: &r.options,
        arch: &r.arch,
        output: if r.ptx { Output::Ptx } else { Output::Cubin },
    };
    match nvrtc::compile_here(&job, &r.includes) {
        Ok(c) => Response::Built {
            image: c.image,
            lowered_name: c.lowered_name,
            log: c.log,
            report: c.report,
            params: c.params,
            ptx: c.ptx,
        },
        Err(CompileError::Failed {
            file,
            source_text,
            diagnostics,
            log,
        }) => Response::Failed {
            file,
            source_text,
            diagnostics: (diagnostics.into_iter())
                .map(|d| (d.line, d.severity, d.message))
                .collect(),
            log,
        },
        Err(e) => Response::Internal(e.to_string()),
    }
}

/// Let this process read (and map) files under `readable` only, and write nowhere, as far
/// as the kernel's Landlock allows. A kernel without it is no error: `status` tells.
fn restrict(readable: &[PathBuf]) -> Result<Confinement, landlock::RulesetError> {
    use landlock::{
        ABI, Access, AccessFs, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
        path_beneath_rules,
    };
    let abi = ABI::V3;
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))?
        .create()?
        .add_rules(path_beneath_rules(readable, AccessFs::from_read(abi)))?
        .restrict_self()?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => Confinement::Landlock,
        RulesetStatus::PartiallyEnforced => Confinement::Partly,
        RulesetStatus::NotEnforced => Confinement::None,
    })
}

/// How a compile is confined on this machine: tried once, in a child process of this
/// program's, since the rules cannot be lifted once made.
pub fn status() -> Confinement {
    static STATUS: OnceLock<Confinement> = OnceLock::new();
    *STATUS.get_or_init(|| {
        let Some(exe) = helper() else {
            return Confinement::None;
        };
        let probe = Command::new(exe)
            .arg(HELPER_ARG)
            .arg("--probe")
            .stdin(Stdio::null())
            .output();
        match probe
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        {
            Some(s) if s.trim() == "landlock" => Confinement::Landlock,
            Some(s) if s.trim() == "partly" => Confinement::Partly,
            _ => Confinement::None,
        }
    })
}

/// `__nvrtc --probe`: confine this process to nothing, and say how far that held.
pub fn probe() -> i32 {
    let words = match restrict(&[]) {
        Ok(Confinement::Landlock) => "landlock",
        Ok(Confinement::Partly) => "partly",
        _ => "none",
    };
    println!("{words}");
    0
}
