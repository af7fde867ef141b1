//! What a variant is for the compiler: the NVRTC job that builds it, and the check that
//! the lesson's `args:` fit the parameters of the kernel it built.

use super::disk_cache;
use crate::cuda::discover;
use crate::cuda::nvrtc::{self, CompileJob, Compiled, Output};
use crate::model::results::PtxasReport;
use crate::model::{Arg, Lesson, Variant};
use serde::{Deserialize, Serialize};
use std::sync::{Condvar, Mutex};

pub fn compile_job<'a>(v: &'a Variant, arch: &'a str, output: Output) -> CompileJob<'a> {
    CompileJob {
        file_name: &v.source_path,
        source: &v.source,
        kernel: &v.kernel,
        defines: &v.defines,
        options: &v.options,
        arch,
        output,
    }
}

/// Builds this worker made, by everything the job names (text, kernel, defines, options,
/// target, output), newest last. A learner's save then rebuilds only their kernel, and the
/// checks at other sizes rebuild nothing: NVRTC is most of the time from save to figures.
/// Headers a kernel includes are not part of the key; a lab session that must see a
/// changed header starts a fresh worker.
static BUILT: Mutex<Vec<(String, Compiled)>> = Mutex::new(Vec::new());
const BUILT_KEPT: usize = 64;

/// `nvrtc::compile`, once per distinct job in this process. Failures are not kept.
///
/// A PTX job is answered from the CUBIN build of the same job: NVRTC makes that PTX on the
/// way to the CUBIN, the same text a compile for the virtual architecture gives (a test
/// compares them over the course), and a run builds the CUBIN anyway for the ptxas report,
/// so one compile serves both. Where the CUBIN does not build, the PTX is compiled alone.
pub fn compile_cached(job: &CompileJob) -> Result<Compiled, nvrtc::CompileError> {
    if job.output == Output::Ptx {
        let cubin = CompileJob {
            output: Output::Cubin,
            ..job.clone()
        };
        if let Ok(built) = built_once(&cubin)
            && let Some(ptx) = built.ptx.clone()
        {
            return Ok(Compiled {
                image: ptx,
                report: None,
                ptx: None,
                ..built
            });
        }
    }
    built_once(job)
}

/// Keys of the builds under way, and the signal that one ended: a build asked for while
/// the same one is under way (the worker compiles a lesson's variants ahead, on a thread of
/// their own, while the GPU makes the inputs) waits for it rather than compiling twice.
static BUILDING: Mutex<Vec<String>> = Mutex::new(Vec::new());
static BUILT_ONE: Condvar = Condvar::new();

fn built_once(job: &CompileJob) -> Result<Compiled, nvrtc::CompileError> {
    let key = format!("{job:?}");
    let lock = || BUILT.lock().unwrap_or_else(|p| p.into_inner());
    {
        let mut building = BUILDING.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some((_, c)) = lock().iter().find(|(k, _)| *k == key) {
                return Ok(c.clone());
            }
            if !building.contains(&key) {
                building.push(key.clone());
                break;
            }
            building = BUILT_ONE.wait(building).unwrap_or_else(|p| p.into_inner());
        }
    }
    // Whatever the build gives, it is no longer under way, even if NVRTC panics.
    struct Done<'a>(&'a str);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            let mut building = BUILDING.lock().unwrap_or_else(|p| p.into_inner());
            building.retain(|k| k != self.0);
            BUILT_ONE.notify_all();
        }
    }
    let _done = Done(&key);
    let compiled = match kept_build(job) {
        Some((_, Some(c))) => c,
        Some((at, None)) => {
            let c = nvrtc::compile(job)?;
            disk_cache::BUILDS.write(&at, &build_bytes(&c));
            c
        }
        None => nvrtc::compile(job)?,
    };
    let mut built = lock();
    if built.len() >= BUILT_KEPT {
        built.remove(0);
    }
    built.push((key.clone(), compiled.clone()));
    Ok(compiled)
}

/// Where `job`'s build is kept on disk, and the build when it is there; None where nothing
/// can be kept (no cache folder, or NVRTC not found to name it by). The name covers the
/// whole job (text, kernel, defines, options, target, output), the NVRTC that builds it
/// and the CUDA headers it reads (a kernel includes nothing else: there is no include path
/// into the pack), and this gpulab (which reads the ptxas report out of the log).
fn kept_build(job: &CompileJob) -> Option<(std::path::PathBuf, Option<Compiled>)> {
    let found = discover::find();
    let nvrtc = found.nvrtc.as_deref()?;
    let mut tools = disk_cache::identity(nvrtc);
    if let Some(b) = &found.nvrtc_builtins {
        tools.extend(disk_cache::identity(b));
    }
    for dir in &found.include_dirs {
        tools.extend(disk_cache::identity(dir));
    }
    if let Ok(me) = std::env::current_exe() {
        tools.extend(disk_cache::identity(&me));
    }
    let at = disk_cache::BUILDS.path(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        &tools,
        format!("{job:?}").as_bytes(),
    ])?;
    let kept = disk_cache::BUILDS.read(&at).and_then(|b| build_from(&b));
    Some((at, kept))
}

/// A kept build's words; its image and PTX follow the line, as bytes.
#[derive(Serialize, Deserialize)]
struct BuildHead {
    lowered_name: String,
    log: String,
    report: Option<PtxasReport>,
    params: Option<Vec<u32>>,
    image: usize,
    ptx: Option<usize>,
}

fn build_bytes(c: &Compiled) -> Vec<u8> {
    let head = BuildHead {
        lowered_name: c.lowered_name.clone(),
        log: c.log.clone(),
        report: c.report.clone(),
        params: c.params.clone(),
        image: c.image.len(),
        ptx: c.ptx.as_ref().map(Vec::len),
    };
    let mut out = serde_json::to_vec(&head).unwrap_or_default();
    out.push(b'\n');
    out.extend(&c.image);
    out.extend(c.ptx.iter().flatten());
    out
}

/// A kept build read back; None when it is not whole (the sizes its words give must be the
/// bytes that follow, to the byte).
fn build_from(bytes: &[u8]) -> Option<Compiled> {
    let line = bytes.iter().position(|&b| b == b'\n')?;
    let head: BuildHead = serde_json::from_slice(&bytes[..line]).ok()?;
    let rest = &bytes[line + 1..];
    if rest.len() != head.image + head.ptx.unwrap_or(0) {
        return None;
    }
    let (image, ptx) = rest.split_at(head.image);
    Some(Compiled {
        image: image.to_vec(),
        lowered_name: head.lowered_name,
        log: head.log,
        report: head.report,
        params: head.params,
        ptx: head.ptx.map(|_| ptx.to_vec()),
    })
}

/// Build `variants` for `arch` into the cache on a thread of their own, in order, so that
/// the run that needs them finds them built (or waits for the one under way). Errors are
/// not kept: the run's own compile says them.
pub fn build_ahead(variants: Vec<Variant>, arch: String) {
    std::thread::spawn(move || {
        for v in variants.iter().filter(|v| v.transfer.is_none()) {
            let _ = compile_cached(&compile_job(v, &arch, Output::Cubin));
        }
    });
}

/// Compile `v`, a mismatch between its `args:` and the kernel's parameters counting as
/// a compile error: launched, it would read garbage or fault.
pub fn compile_checked(lesson: &Lesson, v: &Variant, arch: &str) -> Result<Compiled, BuildError> {
    let compiled = compile_cached(&compile_job(v, arch, Output::Cubin))?;
    check_args(lesson, v, compiled.params.as_deref())?;
    Ok(compiled)
}

/// Why a variant could not be built: the compiler's words, or arguments that do not fit.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Compile(#[from] nvrtc::CompileError),
    #[error(transparent)]
    Args(#[from] ArgsMismatch),
}

/// The lesson's `args:` against the parameters of the kernel NVRTC built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArgsMismatch {
    #[error(
        "{file}: `args:` lists {given} value(s), but kernel `{kernel}` takes {takes} \
         parameter(s) (of {sizes} bytes)"
    )]
    Count {
        file: String,
        given: usize,
        kernel: String,
        takes: usize,
        sizes: String,
    },
    #[error(
        "{file}: `args:` value {index} is {value}, but parameter {index} of kernel `{kernel}` \
         is {bytes} bytes"
    )]
    Size {
        file: String,
        index: usize,
        value: String,
        kernel: String,
        bytes: u32,
    },
}

fn arg_size(a: &Arg) -> u32 {
    match a {
        Arg::Buffer(_) | Arg::I64(_) | Arg::U64(_) | Arg::Texture(_) => 8,
        Arg::I32(_) | Arg::U32(_) | Arg::F32(_) => 4,
    }
}

fn arg_words(lesson: &Lesson, a: &Arg) -> String {
    match a {
        Arg::Buffer(i) => format!(
            "`{}` (a pointer, 8 bytes)",
            lesson.buffers.get(*i).map_or("?", |b| b.name.as_str())
        ),
        other => format!("{other:?} ({} bytes)", arg_size(other)),
    }
}

/// The lesson's arguments against the sizes of the kernel's parameters (None: unknown).
pub fn check_args(
    lesson: &Lesson,
    v: &Variant,
    params: Option<&[u32]>,
) -> Result<(), ArgsMismatch> {
    let Some(params) = params else { return Ok(()) };
    if params.len() != v.args.len() {
        return Err(ArgsMismatch::Count {
            file: lesson.file.clone(),
            given: v.args.len(),
            kernel: v.kernel.clone(),
            takes: params.len(),
            sizes: params
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    for (i, (a, p)) in v.args.iter().zip(params).enumerate() {
        if arg_size(a) != *p {
            return Err(ArgsMismatch::Size {
                file: lesson.file.clone(),
                index: i + 1,
                value: arg_words(lesson, a),
                kernel: v.kernel.clone(),
                bytes: *p,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::{LessonBuilder, variant};

    #[test]
    fn a_wrong_count_or_size_names_the_lesson_file_and_the_kernel() {
        let mut v = variant("v");
        v.args = vec![Arg::Buffer(0)];
        let l = LessonBuilder::new("a").with_variant(v.clone()).build();
        assert!(check_args(&l, &v, None).is_ok());
        assert!(check_args(&l, &v, Some(&[8])).is_ok());
        let why = check_args(&l, &v, Some(&[8, 4])).unwrap_err().to_string();
        assert!(why.starts_with("a.yaml: `args:` lists 1 value(s)"), "{why}");
        assert!(why.contains("kernel `k` takes 2 parameter(s)"), "{why}");
        v.args = vec![Arg::I32(3)];
        let why = check_args(&l, &v, Some(&[8])).unwrap_err().to_string();
        assert!(why.contains("value 1 is I32(3) (4 bytes)"), "{why}");
    }

    #[test]
    fn a_kept_build_reads_back_whole_and_a_cut_one_is_no_build() {
        let c = Compiled {
            image: vec![0, 1, 2, 255, b'\n'],
            lowered_name: "histogram".into(),
            log: "ptxas info: Used 12 registers\n".into(),
            report: Some(PtxasReport {
                registers: 12,
                smem: 1024,
                ..Default::default()
            }),
            params: Some(vec![8, 8, 4]),
            ptx: Some(b".version 8.5\n\0".to_vec()),
        };
        let bytes = build_bytes(&c);
        let back = build_from(&bytes).expect("read back");
        assert_eq!(
            (back.image, back.ptx, back.report, back.params),
            (c.image, c.ptx, c.report, c.params)
        );
        assert_eq!((back.lowered_name, back.log), (c.lowered_name, c.log));
        // A file cut short, or with bytes after, is made again rather than half-read.
        assert!(build_from(&bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(build_from(&longer).is_none());
        // A build with no PTX stays without.
        let plain = Compiled {
            ptx: None,
            ..back_of(&bytes)
        };
        assert_eq!(build_from(&build_bytes(&plain)).unwrap().ptx, None);
    }

    fn back_of(bytes: &[u8]) -> Compiled {
        build_from(bytes).unwrap()
    }
}
