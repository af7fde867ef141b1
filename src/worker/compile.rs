//! What a variant is for the compiler: the NVRTC job that builds it.

use crate::cuda::nvrtc::{CompileJob, Output};
use crate::model::Variant;

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
