//! What a kernel's compile may read: CUDA's headers and nothing else, held twice over. gpulab
//! reads a pack's kernel as the preprocessor would (a digraph `%:include`, a trigraph, a macro
//! behind one, `__has_include`, a splice, a comment after the `#`) and refuses every file name
//! that is absolute, climbs with `..` or comes from a macro, at its line and column, before
//! anything is compiled: that holds on any machine. And it compiles in a process of its own
//! that the kernel's Landlock confines to NVRTC's libraries and CUDA's header folders, with no
//! include path into the kernel's folder, so a name that slipped past the reading is refused
//! by the kernel of the machine; that layer is tested by compiling past the reading, and where
//! the machine's kernel has no Landlock the test says so and checks nothing (`gpulab doctor`
//! says the same to the learner). Either way the file's words never come back in an error.

use super::{gpulab_within, said};
use crate::support::common::{bin, nvrtc_or_skip};
use std::path::Path;
use std::time::Duration;

const SECRET: &str = "SECRET_WORDS_OF_THE_LEARNER int x";

/// Whether this machine confines a compile with Landlock (asked of gpulab itself).
fn landlock() -> bool {
    let out = std::process::Command::new(bin())
        .args(["__nvrtc", "--probe"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "landlock"
}

/// Whether `test` can run here: NVRTC to compile, and Landlock to confine it (else it says
/// why it skipped).
fn confined_or_skip(test: &str) -> bool {
    if !nvrtc_or_skip(test) {
        return false;
    }
    if !landlock() {
        eprintln!(
            "skipped {test}: this machine's kernel has no Landlock, so no compile is confined"
        );
        return false;
    }
    true
}

/// What a refused include prints: gpulab's own refusal of the name, or NVRTC's refused open,
/// and never the file's words.
fn assert_refused(what: &str, said: &str) {
    assert!(
        !said.contains("SECRET_WORDS"),
        "{what}: the file was read:\n{said}"
    );
    assert!(
        said.contains("cannot open source file") || refused_by_reading(said),
        "{what}: no refused open:\n{said}"
    );
}

/// Whether gpulab's own reading of the text refused a file name.
fn refused_by_reading(said: &str) -> bool {
    [
        "is an absolute path",
        "leads outside",
        "by a macro",
        "pastes tokens",
    ]
    .iter()
    .any(|w| said.contains(w))
}

/// `gpulab try --cpu` of `kernel` as `t.cu` in `dir`; what it printed.
fn try_kernel(dir: &Path, kernel: &str) -> String {
    let file = dir.join("t.cu");
    let text = format!(
        "// gpulab: n=32 out:f32[n] grid=1 block=32\n{kernel}\n\
         extern \"C\" __global__ void k(float* out) {{ out[threadIdx.x] = 1.0f; }}\n"
    );
    std::fs::write(&file, text).unwrap();
    let data = dir.join("data");
    let out = gpulab_within(
        Duration::from_secs(120),
        &data,
        &["try", "--cpu", "--json", file.to_str().unwrap()],
        &[],
    );
    said(&out)
}

/// On any machine, Landlock or not, NVRTC or not: every spelling of a file name outside is
/// refused by gpulab's own reading, at its line and column, before a compile.
#[test]
fn every_spelling_of_a_name_outside_is_refused_before_a_compile() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.h");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    let s = secret.display().to_string();
    let dir = tempfile::tempdir().unwrap();
    // Line 2 of t.cu is the kernel's first (line 1 is try's header).
    let cases = [
        (
            "a digraph include",
            format!("%:include \"{s}\""),
            "t.cu:2:11",
        ),
        (
            "a digraph include by a macro",
            format!("%:define P \"{s}\"\n%:include P"),
            "t.cu:3:11",
        ),
        (
            "a trigraph include",
            format!("??=include \"{s}\""),
            "t.cu:2:12",
        ),
        (
            "a spliced include",
            format!("#inc\\\nlude \"{s}\""),
            "t.cu:3:6",
        ),
        (
            "a comment after the hash",
            format!("# /* */ include \"{s}\""),
            "t.cu:2:17",
        ),
        (
            "__has_include",
            format!("#if __has_include(\"{s}\")\n#endif"),
            "t.cu:2:19",
        ),
        (
            "a pasted __has_include",
            format!("#define C(a, b) a ## b\n#if C(__has_, include)(\"{s}\")\n#endif"),
            "t.cu:3:7",
        ),
        (
            "a climb out of CUDA's folders",
            "#include \"../../../../../../../../etc/hostname\"".to_string(),
            "t.cu:2:10",
        ),
    ];
    for (what, kernel, place) in &cases {
        let said = try_kernel(dir.path(), kernel);
        assert_refused(what, &said);
        assert!(
            refused_by_reading(&said),
            "{what}: not refused by the reading:\n{said}"
        );
        assert!(
            said.contains(place),
            "{what}: not placed at {place}:\n{said}"
        );
    }
}

/// The second layer alone: a compile handed straight to the confined process, past gpulab's
/// reading of the text, still reads nothing outside CUDA's headers where Landlock holds.
#[test]
fn landlock_refuses_what_gets_past_the_reading() {
    if !confined_or_skip("landlock_refuses_what_gets_past_the_reading") {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.h");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    let s = secret.display().to_string();
    let arch = "sm_90".to_string();
    for (what, text) in [
        ("an absolute include", format!("#include \"{s}\"")),
        ("a digraph include", format!("%:include \"{s}\"")),
        (
            "__has_include",
            format!("#if __has_include(\"{s}\")\n#error THE_FILE_EXISTS\n#endif"),
        ),
    ] {
        let source =
            format!("{text}\nextern \"C\" __global__ void k(float* o) {{ o[0] = 1.0f; }}\n");
        let job = gpulab::cuda::nvrtc::CompileJob {
            file_name: "t.cu",
            source: &source,
            kernel: "k",
            defines: &[],
            options: &[],
            arch: &arch,
            output: gpulab::cuda::nvrtc::Output::Ptx,
        };
        let said = match gpulab::cuda::confined::compile_in(&bin(), &job) {
            Ok(_) => String::new(),
            Err(e) => format!("{e:?}"),
        };
        assert!(
            !said.contains("SECRET_WORDS"),
            "{what}: the file was read:\n{said}"
        );
        assert!(
            !said.contains("THE_FILE_EXISTS"),
            "{what}: its existence was told:\n{said}"
        );
        if what != "__has_include" {
            assert!(
                said.contains("open source file"),
                "{what}: no refused open:\n{said}"
            );
        }
    }
}

#[test]
fn a_compile_reads_nothing_outside_cudas_headers_however_the_include_is_spelled() {
    if !confined_or_skip("a_compile_reads_nothing_outside_cudas_headers") {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.h");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    let s = secret.display().to_string();
    let dir = tempfile::tempdir().unwrap();
    // A header in the kernel's own folder that includes the secret, and a link to it.
    std::fs::write(dir.path().join("near.h"), format!("#include \"{s}\"\n")).unwrap();
    std::os::unix::fs::symlink(&secret, dir.path().join("evil.h")).unwrap();
    let cases = [
        ("a digraph include", format!("%:include \"{s}\"")),
        (
            "a digraph include by a macro",
            format!("%:define P \"{s}\"\n%:include P"),
        ),
        (
            "a header of the kernel's folder",
            "#include \"near.h\"".to_string(),
        ),
        (
            "a link in the kernel's folder",
            "#include \"evil.h\"".to_string(),
        ),
    ];
    for (what, kernel) in &cases {
        assert_refused(what, &try_kernel(dir.path(), kernel));
    }
    // Whether the file exists is not told either.
    let probe = format!("#if __has_include(\"{s}\")\n#error THE_FILE_EXISTS\n#endif");
    let said = try_kernel(dir.path(), &probe);
    assert!(
        !said.contains("THE_FILE_EXISTS"),
        "__has_include saw it:\n{said}"
    );
    // The stand-ins are still there, and CUDA's own headers where this machine has them.
    let found = &gpulab::cuda::discover::find().include_dirs;
    let mut fine = "#include <cstdint>".to_string();
    if found.iter().any(|d| d.join("cuda_fp16.h").is_file()) {
        fine.push_str("\n#include <cuda_fp16.h>");
    }
    let said = try_kernel(dir.path(), &fine);
    assert!(!said.contains("cannot open"), "{said}");
}

/// A lesson `k` over `kernel` (kernels/k.cu), its variant compiled with `options`.
fn pack_with(kernel: &str, options: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    std::fs::create_dir_all(dir.path().join("kernels")).unwrap();
    let lesson = format!(
        "format_version: 1\nid: k\ntitle: \"A hostile kernel\"\nspace: global\npages:\n  \
         - title: Test only\n    text: test\nproblem: {{ n: 256 }}\n\
         buffers:\n  - {{ name: in, type: f32, len: n, init: random }}\n  \
         - {{ name: out, type: f32, len: n, init: poison }}\nvariants:\n  - name: v\n    \
         source: kernels/k.cu\n    kernel: k\n    options: [{options}]\n    \
         launch: {{ grid: 1, block: 256 }}\n    args: [in, out, n]\n\
         reference: {{ builtin: copy, from: in, to: out }}\n"
    );
    std::fs::write(dir.path().join("lessons/01-k.yaml"), lesson).unwrap();
    let body = "extern \"C\" __global__ void k(const float* in, float* out, int n) \
                { int i = threadIdx.x; if (i < n) out[i] = in[i]; }\n";
    std::fs::write(dir.path().join("kernels/k.cu"), format!("{kernel}\n{body}")).unwrap();
    dir
}

#[test]
fn a_trigraph_include_with_the_standard_that_reads_trigraphs_reads_nothing() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.h");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    // `??=` is `#` where the standard still reads trigraphs (C++11, an allowed option).
    let pack = pack_with(
        &format!("??=include \"{}\"", secret.display()),
        "\"--std=c++11\"",
    );
    let lessons = pack.path().join("lessons");
    let out = gpulab_within(
        Duration::from_secs(120),
        &pack.path().join("data"),
        &[
            "--lessons",
            lessons.to_str().unwrap(),
            "run",
            "k",
            "--cpu",
            "--json",
        ],
        &[],
    );
    assert_refused("a trigraph include", &said(&out));
    assert!(refused_by_reading(&said(&out)), "{}", said(&out));
}

#[test]
fn a_starter_whose_include_stays_in_the_pack_reads_nothing_once_copied_to_the_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    // Where the include leads once the starter lies in the workspace, four folders down.
    std::fs::write(tmp.path().join("secret.h"), format!("{SECRET}\n")).unwrap();
    let course = tmp.path().join("course");
    crate::support::ex_lab::copy_dir(&crate::support::common::fixture("expack"), &course);
    let old = "exercises/tiny/fix-copy/starter.cu";
    let new = "exercises/tiny/fix-copy/deep/starter.cu";
    std::fs::create_dir_all(course.join("exercises/tiny/fix-copy/deep")).unwrap();
    let starter = std::fs::read_to_string(course.join(old)).unwrap();
    // Four folders up from the starter is the course root: inside the pack, as written.
    let text = format!("#include \"../../../../secret.h\"\n{starter}");
    std::fs::write(course.join(new), text).unwrap();
    std::fs::write(course.join("secret.h"), "// the pack's own\n").unwrap();
    let yaml = course.join("lessons/01-tiny.yaml");
    let y = std::fs::read_to_string(&yaml).unwrap().replace(old, new);
    std::fs::write(&yaml, y).unwrap();
    let ws = tmp.path().join("w1/w2/w3/ws");
    let data = tmp.path().join("data");
    let lessons = course.join("lessons");
    let ex = |args: &[&str]| {
        let mut all = vec!["--lessons", lessons.to_str().unwrap(), "ex", "--workspace"];
        all.push(ws.to_str().unwrap());
        all.extend_from_slice(args);
        gpulab_within(Duration::from_secs(120), &data, &all, &[])
    };
    // gpulab's reading refuses the climb where the pack is read: nothing is copied.
    let started = ex(&["start", "fix-copy"]);
    let said_start = said(&started);
    assert_ne!(started.status.code(), Some(0), "{said_start}");
    assert!(refused_by_reading(&said_start), "{said_start}");
    assert!(said_start.contains("starter.cu:1:10"), "{said_start}");
    assert!(!ws.join("fix-copy.cu").exists(), "the starter was copied");
}
