//! What a variant is for the compiler: the NVRTC job that builds it, and the check that
//! the lesson's `args:` fit the parameters of the kernel it built.

use crate::cuda::nvrtc::{self, CompileJob, Compiled, Output};
use crate::model::{Arg, Lesson, Variant};
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
    let compiled = nvrtc::compile(job)?;
    let mut built = lock();
    if built.len() >= BUILT_KEPT {
        built.remove(0);
    }
    built.push((key.clone(), compiled.clone()));
    Ok(compiled)
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
}
