//! Kernels a learner writes include <cstdint>, <cstdio> and <cuda_fp16.h>; NVRTC alone has
//! none of them. The lab hands NVRTC small stand-ins for the standard ones, and the
//! toolkit's or the wheels' folder for CUDA's own.

use crate::support::common;

use gpulab::cuda::discover;
use gpulab::cuda::nvrtc::{self, CompileJob, Output};

fn compile(file: &str, source: &str) -> Result<(), String> {
    let job = CompileJob {
        file_name: file,
        source,
        kernel: "k",
        defines: &[],
        options: &[],
        arch: "sm_90",
        output: Output::Cubin,
    };
    nvrtc::compile(&job).map(|_| ()).map_err(|e| e.to_string())
}

const BODY: &str = r#"
extern "C" __global__ void k(float* out, int n) {
    std::uint32_t i = threadIdx.x;
    int64_t wide = INT32_MAX;
    if (i < (uint32_t)n) out[i] = (float)(wide > 0);
    if (i == 0) printf("hello %d\n", n);
}
"#;

#[test]
fn the_standard_integer_and_io_headers_compile_without_a_toolkit() {
    if !common::nvrtc_or_skip("the_standard_integer_and_io_headers_compile_without_a_toolkit") {
        return;
    }
    for inc in [
        "#include <cstdint>\n#include <cstdio>",
        "#include <stdint.h>\n#include <stdio.h>\nnamespace std { using ::uint32_t; }",
    ] {
        let src = format!("{inc}\n{BODY}");
        compile("k.cu", &src).unwrap_or_else(|e| panic!("{inc}: {e}"));
    }
}

#[test]
fn cuda_fp16_compiles_where_the_toolkit_or_the_wheels_have_it() {
    if !common::nvrtc_or_skip("cuda_fp16_compiles_where_the_toolkit_or_the_wheels_have_it") {
        return;
    }
    let found = &discover::find().include_dirs;
    if !found.iter().any(|d| d.join("cuda_fp16.h").is_file()) {
        eprintln!("skipped: no cuda_fp16.h in {found:?} (pip install nvidia-cuda-runtime has it)");
        return;
    }
    let src = "#include <cuda_fp16.h>\nextern \"C\" __global__ void k(__half* o) { o[0] = __float2half(1.0f); }";
    compile("h.cu", src).unwrap();
}
