//! The few standard headers a learner's kernel includes that NVRTC cannot find on its own:
//! NVRTC has no C or C++ library, and <cstdint> / <cstdio> come from the host compiler's,
//! which NVRTC does not read. Small stand-ins are handed to every program instead, so
//! those includes work with or without a toolkit. <cuda_fp16.h> and <cuda/std/...> are
//! real CUDA headers: they come from the toolkit or the wheels (`discover`).

use super::nvrtc::CompileError;
use cudarc::nvrtc::sys;
use std::ffi::{CStr, CString, c_char};

/// Fixed-width integers as glibc on 64-bit Linux spells them (so C++ names mangle alike),
/// in the global namespace and in std.
const STDINT: &str = r#"#pragma once
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long intmax_t;
typedef unsigned long uintmax_t;
#define INT8_MIN (-128)
#define INT16_MIN (-32767-1)
#define INT32_MIN (-2147483647-1)
#define INT64_MIN (-9223372036854775807L-1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807L
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615UL
#ifdef __cplusplus
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}
#endif
"#;

/// NVRTC declares the device `printf` itself; the header only has to exist.
const STDIO: &str = "#pragma once\n";

const SHIMS: [(&str, &str); 4] = [
    ("cstdint", STDINT),
    ("stdint.h", STDINT),
    ("cstdio", STDIO),
    ("stdio.h", STDIO),
];

fn cstring(s: &str) -> Result<CString, CompileError> {
    CString::new(s).map_err(|e| CompileError::Internal(e.to_string()))
}

/// An NVRTC program of `source` named `name`, with the stand-in headers.
pub fn create_program(source: &CStr, name: &CStr) -> Result<sys::nvrtcProgram, CompileError> {
    let bodies: Vec<CString> = SHIMS
        .iter()
        .map(|(_, b)| cstring(b))
        .collect::<Result<_, _>>()?;
    let names: Vec<CString> = SHIMS
        .iter()
        .map(|(n, _)| cstring(n))
        .collect::<Result<_, _>>()?;
    let body_ptrs: Vec<*const c_char> = bodies.iter().map(|c| c.as_ptr()).collect();
    let name_ptrs: Vec<*const c_char> = names.iter().map(|c| c.as_ptr()).collect();
    let mut prog = std::mem::MaybeUninit::uninit();
    // SAFETY: every pointer is to a NUL-terminated string that outlives the call (NVRTC
    // copies them), and the two arrays hold SHIMS.len() entries each.
    unsafe {
        sys::nvrtcCreateProgram(
            prog.as_mut_ptr(),
            source.as_ptr(),
            name.as_ptr(),
            SHIMS.len() as i32,
            body_ptrs.as_ptr(),
            name_ptrs.as_ptr(),
        )
        .result()
        .map_err(|e| CompileError::Internal(format!("{e:?}")))?;
        Ok(prog.assume_init())
    }
}
