//! Compiling a variant with NVRTC: CUBIN for the timed build (the report then describes
//! exactly the code that runs), PTX with line info for the traced build.

use super::discover;
use crate::model::results::PtxasReport;
use cudarc::nvrtc::{result as nv, sys};
use std::ffi::{CStr, CString, c_char};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Machine code for `arch` (sm_XX): what the timed run loads.
    Cubin,
    /// PTX for the matching virtual architecture (compute_XX): what the tracer instruments.
    Ptx,
}

#[derive(Debug, Clone)]
pub struct CompileJob<'a> {
    /// Shown in diagnostics, e.g. "kernels/shared-banks/stride.cu".
    pub file_name: &'a str,
    pub source: &'a str,
    pub kernel: &'a str,
    pub defines: &'a [(String, String)],
    pub options: &'a [String],
    /// "sm_90".
    pub arch: &'a str,
    pub output: Output,
}

#[derive(Debug, Clone)]
pub struct Compiled {
    pub image: Vec<u8>,
    /// The name to look the kernel up by in the loaded module.
    pub lowered_name: String,
    pub log: String,
    /// Present for CUBIN builds (ptxas runs then).
    pub report: Option<PtxasReport>,
    /// The kernel's parameter sizes in bytes, when NVRTC gave the PTX to read them from.
    pub params: Option<Vec<u32>>,
    /// A CUBIN build's PTX, as NVRTC made it on the way (NUL-terminated).
    pub ptx: Option<Vec<u8>>,
}

/// One diagnostic of the compiler, tied to a line of the kernel's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub line: u32,
    pub severity: String,
    pub message: String,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum CompileError {
    #[error(transparent)]
    NvrtcMissing(#[from] discover::LoadError),
    #[error("{}", render_failure(.file, .source_text, .diagnostics, .log))]
    Failed {
        file: String,
        source_text: String,
        diagnostics: Vec<Diagnostic>,
        log: String,
    },
    #[error("NVRTC: {0}")]
    Internal(String),
}

/// The compiler's message under the source line it is about, as a learner reads it.
fn render_failure(file: &str, source: &str, diags: &[Diagnostic], log: &str) -> String {
    if diags.is_empty() {
        return format!("{file}: compile failed:\n{}", log.trim_end());
    }
    let lines: Vec<&str> = source.lines().collect();
    let mut out = String::new();
    for d in diags {
        // Line 0: the message is about a header the file includes (`parse_diagnostics`),
        // and no line of the file is the one to show.
        if d.line == 0 {
            out.push_str(&format!("{file}: {}: {}\n", d.severity, d.message));
            continue;
        }
        out.push_str(&format!(
            "{file}:{}: {}: {}\n",
            d.line, d.severity, d.message
        ));
        if let Some(text) = lines.get(d.line.saturating_sub(1) as usize) {
            out.push_str(&format!("{:>5} | {}\n", d.line, text));
        }
    }
    out.trim_end().to_string()
}

/// Pull "file(LINE): error: message" lines out of an NVRTC log, where `own` is the name
/// the program was compiled under. A message about another file (a header the program
/// includes, which cannot open one of its own) is at line 0, the header and its line in
/// the message: read as the program's, it quoted the learner's line of that number.
pub fn parse_diagnostics(log: &str, own: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for l in log.lines() {
        let Some(close) = l.find("): ") else { continue };
        let Some(open) = l[..close].rfind('(') else {
            continue;
        };
        let Ok(at) = l[open + 1..close].parse::<u32>() else {
            continue;
        };
        let rest = &l[close + 3..];
        let header = Some(&l[..open]).filter(|f| *f != own);
        // NVRTC calls an include it cannot open a "catastrophic error".
        for (word, sev) in [
            ("catastrophic error", "error"),
            ("error", "error"),
            ("warning", "warning"),
        ] {
            if let Some(msg) = rest.strip_prefix(word) {
                // Newer NVRTC writes "error #20-D: message".
                let msg = msg.trim_start();
                let msg = match msg.strip_prefix('#') {
                    Some(r) => r.split_once(": ").map_or(r, |(_, m)| m),
                    None => msg.strip_prefix(':').unwrap_or(msg),
                };
                let msg = msg.trim();
                let (line, message) = match header {
                    Some(h) => (
                        0,
                        format!("{msg} (in {h}, line {at}, which the file includes)"),
                    ),
                    None => (at, msg.to_string()),
                };
                out.push(Diagnostic {
                    line,
                    severity: sev.to_string(),
                    message,
                });
            }
        }
    }
    out
}

pub fn options_for(job: &CompileJob) -> Vec<String> {
    let mut opts = Vec::new();
    match job.output {
        Output::Cubin => {
            opts.push(format!("--gpu-architecture={}", job.arch));
            opts.push("--ptxas-options=-v".to_string());
        }
        Output::Ptx => {
            opts.push(format!(
                "--gpu-architecture={}",
                job.arch.replace("sm_", "compute_")
            ));
        }
    }
    opts.push("-lineinfo".to_string());
    for (k, v) in job.defines {
        opts.push(format!("-D{k}={v}"));
    }
    opts.extend(job.options.iter().cloned());
    opts
}

/// NVRTC's version, "13.0", when it can be loaded.
pub fn version() -> Result<String, CompileError> {
    discover::ensure_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is loaded; the out-pointers are valid.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| CompileError::Internal(format!("{e:?}")))?;
    Ok(format!("{major}.{minor}"))
}

fn to_string(bytes: Vec<c_char>) -> String {
    let bytes: Vec<u8> = bytes.into_iter().map(|c| c as u8).collect();
    String::from_utf8_lossy(&bytes)
        .trim_end_matches('\0')
        .to_string()
}

/// Compile `job`: in a confined process of this program where it serves them
/// (`confined`), else here.
pub fn compile(job: &CompileJob) -> Result<Compiled, CompileError> {
    discover::ensure_nvrtc()?;
    match super::confined::helper() {
        Some(exe) => super::confined::compile_in(exe, job),
        None => compile_here(job, &discover::find().include_dirs),
    }
}

/// Compile `job` with NVRTC in this process, CUDA's headers from `includes`.
pub fn compile_here(job: &CompileJob, includes: &[PathBuf]) -> Result<Compiled, CompileError> {
    // On the GPU machine NVRTC returned an empty log for a successful compile when an
    // identical kernel had been compiled before (the second kernel of a two-kernel file,
    // whose code does not depend on the variant's defines): no report could be read. A
    // compile that differs by a unique unused define is asked for then. Unique in the
    // process, not per call: a third identical kernel must not repeat an earlier retry's
    // text, or its log comes back empty too.
    static FRESH: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let mut last = compile_once(job, None, includes)?;
    // The PTX of the source as written, not of one with the retry's extra kernel.
    let ptx = last.ptx.clone();
    for _ in 0..2 {
        if job.output != Output::Cubin || last.report.is_some() {
            break;
        }
        let nonce = FRESH.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        last = compile_once(job, Some(nonce), includes)?;
    }
    Ok(Compiled { ptx, ..last })
}

fn compile_once(
    job: &CompileJob,
    nonce: Option<u32>,
    includes: &[PathBuf],
) -> Result<Compiled, CompileError> {
    let source = match nonce {
        // A distinct module: an unused kernel whose name no earlier compile had.
        Some(n) => format!(
            "{}\nextern \"C\" __global__ void gpulab_fresh_{}_{n}() {{}}\n",
            job.source,
            std::process::id()
        ),
        None => job.source.to_string(),
    };
    let src = CString::new(source).map_err(|e| CompileError::Internal(e.to_string()))?;
    let name = CString::new(job.file_name).map_err(|e| CompileError::Internal(e.to_string()))?;
    let kernel = CString::new(job.kernel).map_err(|e| CompileError::Internal(e.to_string()))?;
    let prog = super::headers::create_program(&src, &name)?;
    // The toolkit's and the wheels' headers, before the lesson's own options; not the
    // kernel file's folder (NVRTC would add it): a kernel includes CUDA's headers and the
    // stand-ins, nothing of the pack's or the working folder's.
    let mut extra = include_flags(includes);
    extra.push("--no-source-include".to_string());
    extra.extend(job.options.iter().cloned());
    if let Some(n) = nonce {
        extra.push(format!("-DGPULAB_FRESH_{}_{n}=1", std::process::id()));
    }
    let job = CompileJob {
        options: &extra,
        ..job.clone()
    };
    let result = compile_program(prog, &job, &kernel);
    // SAFETY: prog came from create_program and is destroyed once.
    unsafe {
        let _ = nv::destroy_program(prog);
    }
    result
}

/// `-I` for each header folder. `--no-source-include` (so that a kernel's own folder is never
/// searched) also stops NVRTC from searching a header's own folder for what it includes by
/// a quoted name; cooperative groups' headers include their siblings so ("info.h"), so
/// their folder is named too where a header folder has it.
fn include_flags(includes: &[PathBuf]) -> Vec<String> {
    let siblings = |d: &PathBuf| {
        let cg = d.join("cooperative_groups/details");
        cg.is_dir().then_some(cg)
    };
    (includes.iter())
        .flat_map(|d| std::iter::once(d.clone()).chain(siblings(d)))
        .map(|d| format!("-I{}", d.display()))
        .collect()
}

fn internal(e: impl std::fmt::Debug) -> CompileError {
    CompileError::Internal(format!("{e:?}"))
}

fn compile_program(
    prog: sys::nvrtcProgram,
    job: &CompileJob,
    kernel: &CStr,
) -> Result<Compiled, CompileError> {
    let opts = options_for(job);
    // SAFETY: prog is live for this whole function (the caller destroys it after), and
    // `kernel` is a NUL-terminated string that outlives the call.
    let (status, log) = unsafe {
        // Asking for the lowered name lets C++ (mangled) kernels be found as written.
        let _ = sys::nvrtcAddNameExpression(prog, kernel.as_ptr());
        let status = nv::compile_program(prog, &opts);
        let log = nv::get_program_log(prog).map(to_string).unwrap_or_default();
        (status, log)
    };
    if status.is_err() {
        return Err(CompileError::Failed {
            file: job.file_name.to_string(),
            source_text: job.source.to_string(),
            diagnostics: parse_diagnostics(&log, job.file_name),
            log,
        });
    }
    let lowered_name = lowered_name(prog, kernel).unwrap_or_else(|| job.kernel.to_string());
    let image = match job.output {
        Output::Cubin => cubin(prog)?,
        Output::Ptx => ptx(prog)?,
    };
    // The PTX beside a CUBIN build, only to read the entry's parameters from.
    let text = match job.output {
        Output::Ptx => Some(image.clone()),
        Output::Cubin => ptx(prog).ok(),
    };
    let params = (text.as_ref())
        .and_then(|t| super::entry::entry_params(&String::from_utf8_lossy(t), &lowered_name));
    let report = match job.output {
        Output::Cubin => crate::analysis::ptxas_log::report_for(&log, job.kernel)
            .or_else(|| crate::analysis::ptxas_log::report_for(&log, &lowered_name)),
        Output::Ptx => None,
    };
    Ok(Compiled {
        image,
        lowered_name,
        log,
        report,
        params,
        ptx: text.filter(|_| job.output == Output::Cubin),
    })
}

/// The name the compiled module knows the kernel by (mangled for C++ kernels).
fn lowered_name(prog: sys::nvrtcProgram, kernel: &CStr) -> Option<String> {
    let mut lowered: *const c_char = std::ptr::null();
    // SAFETY: prog is compiled and live; NVRTC points `lowered` at a string it owns for as
    // long as prog lives, which we copy before returning.
    unsafe {
        let ok = sys::nvrtcGetLoweredName(prog, kernel.as_ptr(), &mut lowered)
            .result()
            .is_ok();
        (ok && !lowered.is_null()).then(|| CStr::from_ptr(lowered).to_string_lossy().into_owned())
    }
}

fn cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>, CompileError> {
    let mut size = 0usize;
    // SAFETY: prog is compiled and live; the buffer holds the size NVRTC just gave.
    let buf = unsafe {
        sys::nvrtcGetCUBINSize(prog, &mut size)
            .result()
            .map_err(internal)?;
        let mut buf = vec![0 as c_char; size];
        sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr())
            .result()
            .map_err(internal)?;
        buf
    };
    Ok(buf.into_iter().map(|c| c as u8).collect())
}

fn ptx(prog: sys::nvrtcProgram) -> Result<Vec<u8>, CompileError> {
    // SAFETY: prog is compiled and live.
    let mut p = unsafe { nv::get_ptx(prog) }.map_err(internal)?;
    // The driver wants the PTX NUL-terminated; keep exactly one NUL.
    while p.last() == Some(&0) {
        p.pop();
    }
    let mut bytes: Vec<u8> = p.into_iter().map(|c| c as u8).collect();
    bytes.push(0);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An include that a header cannot open is said as the header's, with no line of the
    /// learner's file under it: read as the file's own, it quoted the learner's line 50.
    #[test]
    fn a_message_about_an_included_header_is_not_put_at_the_files_line() {
        let log = "/opt/cuda/include/cooperative_groups/details/info.h(50): catastrophic \
                   error: cannot open source file \"nv/target\"\n  #include <nv/target>\n\n\
                   mine (1).cu(3): error: identifier \"x\" is undefined\n";
        let d = parse_diagnostics(log, "mine (1).cu");
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].line, 0);
        assert!(
            d[0].message
                .starts_with("cannot open source file \"nv/target\" (in ")
        );
        assert!(d[0].message.contains("info.h, line 50"), "{}", d[0].message);
        assert_eq!(
            (d[1].line, d[1].message.as_str()),
            (3, "identifier \"x\" is undefined")
        );
        let src = "a\nb\nint y = x;\n";
        let shown = render_failure("mine (1).cu", src, &d, log);
        assert!(
            shown.starts_with("mine (1).cu: error: cannot open"),
            "{shown}"
        );
        assert!(
            shown.contains("mine (1).cu:3: error: identifier"),
            "{shown}"
        );
        assert_eq!(shown.matches(" | ").count(), 1, "{shown}");
    }

    #[test]
    fn a_header_folder_with_cooperative_groups_names_the_folder_its_headers_include_from() {
        let root = tempfile::tempdir().unwrap();
        let inc = root.path().join("include");
        let cg = inc.join("cooperative_groups/details");
        std::fs::create_dir_all(&cg).unwrap();
        let flag = |d: &std::path::Path| format!("-I{}", d.display());
        assert_eq!(
            super::include_flags(std::slice::from_ref(&inc)),
            vec![flag(&inc), flag(&cg)]
        );
        // Without it, only the folder itself.
        std::fs::remove_dir_all(inc.join("cooperative_groups")).unwrap();
        assert_eq!(
            super::include_flags(std::slice::from_ref(&inc)),
            vec![flag(&inc)]
        );
    }
}
