//! What a variant is, for the compiler and for recordings: the NVRTC job that builds it,
//! and the hash that says whether a recording still describes it.

use crate::cuda::nvrtc::{CompileJob, Output};
use crate::model::{Lesson, Variant};

/// Hash of everything that decides what a variant computes and how it is launched: a
/// recording whose hash differs from the lesson's is stale.
pub fn variant_hash(lesson: &Lesson, v: &Variant) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(v.source.as_bytes());
    let key = serde_json::json!({
        "kernel": v.kernel, "defines": v.defines, "options": v.options,
        "grid": v.grid, "block": v.block, "smem": v.smem, "args": v.args,
        "buffers": lesson.buffers.iter().map(|b| (&b.name, b.len)).collect::<Vec<_>>(),
    });
    h.update(key.to_string().as_bytes());
    h.finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

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
