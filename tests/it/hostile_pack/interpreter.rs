//! The CPU interpreter against a hostile pack: what the modelled GPU could not give (a
//! buffer past its memory, shared memory past its limit per block, local memory past its
//! limit per thread, a printf flood past its buffer) and what the run's memory budget
//! cannot, refused before anything is allocated and with the figure; what a GPU faults on
//! faults here too, in the GPU's words, stopping the whole kernel; out-of-bounds words name
//! the buffer read past. Each run bounded in time. They need NVRTC.

use super::{copy_dir, gpulab_within, said, snapshot_pack};
use crate::support::common::{fixture, nvrtc_or_skip};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(240);

/// A course of one lesson, `lesson` (its YAML) over `kernel` (kernels/k.cu).
fn one_lesson(lesson: &str, kernel: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    std::fs::write(dir.path().join("lessons/01-k.yaml"), lesson).unwrap();
    std::fs::write(dir.path().join("kernels/k.cu"), kernel).unwrap();
    dir
}

/// A lesson `k` of `n` (`problem_cpu` 1024) floats copied from `in` to `out` by `kernel`,
/// one thread each, with `launch` extra (`, smem: 4`).
fn lesson(n: &str, kernel: &str, launch: &str) -> String {
    format!(
        "format_version: 1\nid: k\ntitle: \"A hostile kernel\"\nspace: global\npages:\n  \
         - title: Test only\n    text: test\nproblem: {{ n: {n} }}\nproblem_cpu: {{ n: 1024 }}\n\
         buffers:\n  - {{ name: in, type: f32, len: n, init: random }}\n  \
         - {{ name: out, type: f32, len: n, init: poison }}\nvariants:\n  - name: v\n    \
         source: kernels/k.cu\n    kernel: {kernel}\n    \
         launch: {{ grid: \"ceil_div(n, 256)\", block: 256{launch} }}\n    args: [in, out, n]\n\
         reference: {{ builtin: copy, from: in, to: out }}\n"
    )
}

/// `gpulab run LESSON --cpu --json` in `course`, with `env`: its exit code, its words, and
/// the result.
fn run_cpu(course: &Path, lesson: &str, env: &[(&str, &str)]) -> (Option<i32>, String, Value) {
    let lessons = course.join("lessons");
    let args = [
        "--lessons",
        lessons.to_str().unwrap(),
        "run",
        lesson,
        "--cpu",
        "--json",
    ];
    let out = gpulab_within(LIMIT, &course.join("data"), &args, env);
    let words = said(&out);
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), words, json)
}

fn variant<'a>(result: &'a Value, name: &str) -> &'a Value {
    (result["variants"].as_array().into_iter().flatten())
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variant {name} in {result}"))
}

#[test]
fn a_buffer_of_ten_to_the_fifteen_elements_is_refused_not_a_crash() {
    if !nvrtc_or_skip("a_buffer_of_ten_to_the_fifteen_elements_is_refused_not_a_crash") {
        return;
    }
    let pack = snapshot_pack();
    let yaml = pack.path().join("lessons/01-copy-basics.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let edited = text.replace("len: 4, init: const", "len: 1000000000000000, init: const");
    assert_ne!(edited, text, "the fixture moved");
    std::fs::write(&yaml, edited).unwrap();
    let (code, words, json) = run_cpu(pack.path(), "copy-basics", &[]);
    assert_eq!(code, Some(1), "{words}");
    assert!(!words.contains("ended unexpectedly"), "{words}");
    let v = variant(&json, "stride-1");
    let e = v["error"].as_str().unwrap_or_default();
    assert!(
        e.contains("buffer `scale` needs 3.6 PiB") && e.contains("80 GiB"),
        "{e}"
    );
    assert_eq!(v["failure"], "out of memory", "{v}");
}

#[test]
fn a_check_past_the_memory_budget_is_refused_with_the_figure() {
    if !nvrtc_or_skip("a_check_past_the_memory_budget_is_refused_with_the_figure") {
        return;
    }
    let kernel = "extern \"C\" __global__ void copy(const float* in, float* out, int n) {\n\
                  int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                  if (i < n) out[i] = in[i];\n}\n";
    let text = lesson("4096", "copy", "")
        .replace("problem_cpu: { n: 1024 }", "problem_cpu: { n: 1048576 }");
    let course = one_lesson(&text, kernel);
    // 4 MiB a buffer: their data, kept as a check keeps it, is 36 MiB.
    let (code, words, json) = run_cpu(course.path(), "k", &[("GPULAB_CPU_MEMORY", "16M")]);
    assert_eq!(code, Some(1), "{words}");
    let e = variant(&json, "v")["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(e.contains("needs about 36 MiB of host memory"), "{e}");
    assert!(
        e.contains("memory budget of 16 MiB") && e.contains("GPULAB_CPU_MEMORY"),
        "{e}"
    );
    // Within the budget the same check runs and passes.
    let (code, words, _) = run_cpu(course.path(), "k", &[("GPULAB_CPU_MEMORY", "1G")]);
    assert_eq!(code, Some(0), "{words}");
    // A budget that is not a size is said, and the run fails: nothing ran.
    let (code, words, json) = run_cpu(course.path(), "k", &[("GPULAB_CPU_MEMORY", "lots")]);
    assert_eq!(code, Some(1), "{words}");
    let e = variant(&json, "v")["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        e.contains("not run") && e.contains("GPULAB_CPU_MEMORY=`lots` is not a size"),
        "{e}"
    );
}

#[test]
fn shared_memory_past_the_arch_limit_is_refused_by_check_and_by_the_interpreter() {
    if !nvrtc_or_skip(
        "shared_memory_past_the_arch_limit_is_refused_by_check_and_by_the_interpreter",
    ) {
        return;
    }
    let pack = snapshot_pack();
    let yaml = pack.path().join("lessons/01-copy-basics.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let edited = text.replace(r#"smem: "STRIDE * 4""#, "smem: 300000");
    assert_ne!(edited, text, "the fixture moved");
    std::fs::write(&yaml, edited).unwrap();
    let lessons = pack.path().join("lessons");
    let args = ["--lessons", lessons.to_str().unwrap(), "check"];
    let out = gpulab_within(LIMIT, &pack.path().join("data"), &args, &[]);
    let words = said(&out);
    assert_eq!(out.status.code(), Some(1), "{words}");
    assert!(
        words.contains("01-copy-basics.yaml:27:50: variant `wide` asks for 293 KiB (300000 bytes)"),
        "{words}"
    );
    assert!(words.contains("at most 227 KiB on sm_90"), "{words}");
    let (code, words, json) = run_cpu(pack.path(), "copy-basics", &[]);
    assert_eq!(code, Some(1), "{words}");
    let v = variant(&json, "wide");
    assert_eq!(v["failure"], "launch limits", "{v}");
    let e = v["error"].as_str().unwrap_or_default();
    assert!(
        e.contains("293 KiB of dynamic shared memory") && e.contains("227 KiB (sm_90)"),
        "{e}"
    );
}

#[test]
fn a_local_array_of_64_mib_a_thread_is_refused_before_allocating() {
    if !nvrtc_or_skip("a_local_array_of_64_mib_a_thread_is_refused_before_allocating") {
        return;
    }
    let kernel = "extern \"C\" __global__ void big(const float* in, float* out, int n) {\n\
                  volatile float a[16 << 20];\n\
                  int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                  if (i < n) { a[(i * 7919) & ((16 << 20) - 1)] = in[i];\n\
                  out[i] = a[(i * 7919) & ((16 << 20) - 1)]; }\n}\n";
    let course = one_lesson(&lesson("4096", "big", ""), kernel);
    let (code, words, json) = run_cpu(course.path(), "k", &[]);
    assert_eq!(code, Some(1), "{words}");
    let v = variant(&json, "v");
    let e = v["error"].as_str().unwrap_or_default();
    assert!(
        e.contains("64 MiB of local memory") && e.contains("at most 512 KiB"),
        "{e}"
    );
    assert_eq!(v["failure"], "launch limits", "{v}");
}

#[test]
fn a_printf_flood_keeps_what_the_gpus_printf_buffer_holds() {
    if !nvrtc_or_skip("a_printf_flood_keeps_what_the_gpus_printf_buffer_holds") {
        return;
    }
    // 1024 threads × 2000 lines of about 50 bytes: 100 MiB asked for, 1 MiB kept.
    let kernel = "#include <cstdio>\n\
                  extern \"C\" __global__ void loud(const float* in, float* out, int n) {\n\
                  int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                  for (int k = 0; k < 2000; ++k)\n\
                  printf(\"flood %d %d ..................................\\n\", i, k);\n\
                  if (i < n) out[i] = in[i];\n}\n";
    let course = one_lesson(&lesson("256", "loud", ""), kernel);
    let (_, words, json) = run_cpu(course.path(), "k", &[("GPULAB_WORKER_STDERR", "1")]);
    // The lines' bytes, but the last's, which the buffer's end may cut.
    let lines: Vec<usize> = (words.lines())
        .filter(|l| l.starts_with("flood "))
        .map(|l| l.len() + 1)
        .collect();
    let kept: usize = lines.iter().rev().skip(1).sum();
    // What the check at the CPU size printed: the 1 MiB buffer full, no more (the trace's
    // prints are not kept).
    assert!(
        kept > (1 << 20) - 200 && kept <= 1 << 20,
        "{kept} bytes kept"
    );
    assert!(words.contains("printf buffer is full"), "the loss is said");
    assert_eq!(variant(&json, "v")["correct"], true, "{json}");
}

/// The fault corpus, checked on the CPU at a small size, without the endless variant.
fn fault_corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("faultpack"), dir.path());
    std::fs::remove_file(dir.path().join("lessons/02-too-big.yaml")).unwrap();
    let yaml = dir.path().join("lessons/01-corpus.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let edited = text
        .replace(
            "problem: { n: 1048576 }",
            "problem: { n: 1048576 }\nproblem_cpu: { n: 4096 }",
        )
        .replace(
            "  - { name: endless, like: fine, defines: { MODE: 2 } }\n",
            "",
        );
    assert_eq!(
        edited.matches("problem_cpu").count(),
        1,
        "the fixture moved"
    );
    std::fs::write(&yaml, edited).unwrap();
    dir
}

#[test]
fn what_a_gpu_faults_on_faults_on_the_cpu_in_the_gpus_words() {
    if !nvrtc_or_skip("what_a_gpu_faults_on_faults_on_the_cpu_in_the_gpus_words") {
        return;
    }
    let corpus = fault_corpus();
    let (code, words, json) = run_cpu(corpus.path(), "corpus", &[]);
    assert_eq!(code, Some(1), "{words}");
    for (name, failure, phrase) in [
        (
            "out-of-bounds",
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "of `out`, which has 16388 bytes",
        ),
        (
            "misaligned",
            "CUDA_ERROR_MISALIGNED_ADDRESS",
            "16-byte `st.global.v4.f32`",
        ),
        ("trap", "CUDA_ERROR_LAUNCH_FAILED", "`trap`"),
        ("assert", "CUDA_ERROR_ASSERT", "Assertion `i != 7` failed"),
        (
            "too-much-shared",
            "launch limits",
            "1 MiB of dynamic shared memory",
        ),
    ] {
        let v = variant(&json, name);
        assert_eq!(v["failure"], failure, "{name}: {v}");
        assert_eq!(v["correct"], false, "{name}: {v}");
        let e = v["error"].as_str().unwrap_or_default();
        assert!(e.contains(phrase), "{name}: {e}");
        // Each failing variant's successor runs, and is right.
        let after = variant(&json, &format!("after-{name}"));
        assert_eq!(after["correct"], true, "after-{name}: {after}");
    }
}

#[test]
fn a_misaligned_atomic_faults_and_an_aligned_one_runs() {
    if !nvrtc_or_skip("a_misaligned_atomic_faults_and_an_aligned_one_runs") {
        return;
    }
    let kernel = "#ifndef SKEW\n#define SKEW 2\n#endif\n\
                  extern \"C\" __global__ void bump(const float* in, float* out, int n) {\n\
                  int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                  if (i < n) out[i] = in[i];\n\
                  if (i == 5 && atomicAdd((int*)((char*)(out + n - 2) + SKEW), 0) == 0x7fffffff)\n\
                  out[0] = 0.0f;\n}\n";
    let text = lesson("4096", "bump", "");
    let aligned = text.replace(
        "    args: [in, out, n]\n",
        "    args: [in, out, n]\n  - { name: w, like: v, defines: { SKEW: 4 } }\n",
    );
    let course = one_lesson(&aligned, kernel);
    let (code, words, json) = run_cpu(course.path(), "k", &[]);
    assert_eq!(code, Some(1), "{words}");
    let v = variant(&json, "v");
    assert_eq!(v["failure"], "CUDA_ERROR_MISALIGNED_ADDRESS", "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap_or_default()
            .contains("4-byte `atom"),
        "{v}"
    );
    assert_eq!(variant(&json, "w")["correct"], true, "{json}");
}

#[test]
fn out_of_bounds_words_name_the_memory_read_past_and_its_size() {
    if !nvrtc_or_skip("out_of_bounds_words_name_the_memory_read_past_and_its_size") {
        return;
    }
    // Reads 4 MiB past the start of `in` (16 KiB): past `out` too where buffers lie close.
    let far = "extern \"C\" __global__ void far(const float* in, float* out, int n) {\n\
               int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
               if (i < n) out[i] = in[i + (1 << 20)];\n}\n";
    let course = one_lesson(&lesson("4096", "far", ""), far);
    let (_, _, json) = run_cpu(course.path(), "k", &[]);
    let e = variant(&json, "v")["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        e.contains("(byte 4194304 of `in`, which has 4096 bytes)"),
        "{e}"
    );
    // Dynamic shared memory that was never given: the block's shared memory is named.
    let shared = "extern \"C\" __global__ void sh(const float* in, float* out, int n) {\n\
                  extern __shared__ float s[];\n\
                  int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
                  if (i < n) out[i] = in[i] + s[threadIdx.x];\n}\n";
    let course = one_lesson(&lesson("4096", "sh", ""), shared);
    let (_, _, json) = run_cpu(course.path(), "k", &[]);
    let e = variant(&json, "v")["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(e.contains("out-of-bounds shared access"), "{e}");
    assert!(
        e.contains("the block's shared memory") && !e.contains("(it has"),
        "{e}"
    );
}

/// The exercise pack with a CPU size, whose checks the interpreter can all judge.
fn cpu_expack() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture("expack"), &dir.path().join("course"));
    let yaml = dir.path().join("course/lessons/01-tiny.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let edited = text.replace(
        "problem: { n: 4096, threads: 256 }",
        "problem: { n: 4096, threads: 256 }\nproblem_cpu: { n: 1024 }",
    );
    assert_ne!(edited, text, "the fixture moved");
    std::fs::write(&yaml, edited).unwrap();
    let lessons = dir.path().join("course/lessons");
    (dir, lessons)
}

#[test]
fn a_pass_on_the_cpu_is_kept_as_one_and_never_as_a_gpu_pass() {
    if !nvrtc_or_skip("a_pass_on_the_cpu_is_kept_as_one_and_never_as_a_gpu_pass") {
        return;
    }
    let (dir, lessons) = cpu_expack();
    let data = dir.path().join("data");
    let ws = dir.path().join("ws");
    let ex = |args: &[&str]| {
        let mut all = vec![
            "--lessons",
            lessons.to_str().unwrap(),
            "ex",
            "--workspace",
            ws.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        gpulab_within(LIMIT, &data, &all, &[])
    };
    let out = ex(&["start", "fix-copy"]);
    assert_eq!(out.status.code(), Some(0), "{}", said(&out));
    let solution = dir
        .path()
        .join("course/exercises/tiny/fix-copy/solution.cu");
    std::fs::copy(solution, ws.join("fix-copy.cu")).unwrap();
    let out = ex(&["check", "fix-copy", "--cpu"]);
    let words = said(&out);
    assert!(words.contains('✓') && !words.contains('✗'), "{words}");
    let book: Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("exercises.json")).unwrap())
            .unwrap();
    let p = &book["exercises"]["fix-copy"];
    assert_eq!(
        (&p["passed"], &p["passed_cpu"]),
        (&Value::Bool(false), &Value::Bool(true)),
        "{p}"
    );
}
