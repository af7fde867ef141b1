//! What a variant is for the compiler: the NVRTC job that builds it, and the check that
//! the lesson's `args:` fit the parameters of the kernel it built.

use crate::cuda::nvrtc::{self, CompileJob, Compiled, Output};
use crate::model::{Arg, Lesson, Variant};

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

/// Compile `v`, a mismatch between its `args:` and the kernel's parameters counting as
/// a compile error: launched, it would read garbage or fault.
pub fn compile_checked(lesson: &Lesson, v: &Variant, arch: &str) -> Result<Compiled, String> {
    let compiled =
        nvrtc::compile(&compile_job(v, arch, Output::Cubin)).map_err(|e| e.to_string())?;
    check_args(lesson, v, compiled.params.as_deref())?;
    Ok(compiled)
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
pub fn check_args(lesson: &Lesson, v: &Variant, params: Option<&[u32]>) -> Result<(), String> {
    let Some(params) = params else { return Ok(()) };
    let sizes = |p: &[u32]| {
        p.iter()
            .map(|s| format!("{s}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let head = format!("{}: `args:`", lesson.file);
    if params.len() != v.args.len() {
        return Err(format!(
            "{head} lists {} value(s), but kernel `{}` takes {} parameter(s) (of {} bytes)",
            v.args.len(),
            v.kernel,
            params.len(),
            sizes(params)
        ));
    }
    for (i, (a, p)) in v.args.iter().zip(params).enumerate() {
        if arg_size(a) != *p {
            return Err(format!(
                "{head} value {} is {}, but parameter {} of kernel `{}` is {p} bytes",
                i + 1,
                arg_words(lesson, a),
                i + 1,
                v.kernel
            ));
        }
    }
    Ok(())
}

/// `arch`, raised to the compute capability the lesson requires: code written for a newer
/// GPU (clusters need sm_90) would not compile for an older target, and a compile without
/// a GPU (`gpulab check`, compile reports beside a recording) is about the GPU it needs.
pub fn arch_for(lesson: &Lesson, arch: &str) -> String {
    let Some((maj, min)) = lesson.requires.cc else {
        return arch.to_string();
    };
    let digits: String = (arch.strip_prefix("sm_").unwrap_or(arch).chars())
        .take_while(char::is_ascii_digit)
        .collect();
    match digits.parse::<u32>() {
        Ok(n) if n >= maj * 10 + min => arch.to_string(),
        _ => format!("sm_{maj}{min}"),
    }
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
        let why = check_args(&l, &v, Some(&[8, 4])).unwrap_err();
        assert!(why.starts_with("a.yaml: `args:` lists 1 value(s)"), "{why}");
        assert!(why.contains("kernel `k` takes 2 parameter(s)"), "{why}");
        v.args = vec![Arg::I32(3)];
        let why = check_args(&l, &v, Some(&[8])).unwrap_err();
        assert!(why.contains("value 1 is I32(3) (4 bytes)"), "{why}");
    }

    #[test]
    fn a_compile_targets_at_least_the_capability_the_lesson_requires() {
        let mut l = LessonBuilder::new("a").variant("v").build();
        assert_eq!(arch_for(&l, "sm_80"), "sm_80");
        l.requires.cc = Some((9, 0));
        assert_eq!(arch_for(&l, "sm_80"), "sm_90");
        assert_eq!(arch_for(&l, "sm_90"), "sm_90");
        assert_eq!(arch_for(&l, "sm_90a"), "sm_90a");
        assert_eq!(arch_for(&l, "sm_100"), "sm_100");
        l.requires.cc = Some((10, 0));
        assert_eq!(arch_for(&l, "sm_90"), "sm_100");
    }
}
