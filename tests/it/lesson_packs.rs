//! Lesson packs from authors and from others: empty folders, bad bytes, paths that leave the
//! pack, arguments that do not fit the kernel, duplicate keys, enum values, kernels named
//! only in comments, and packs large enough to show a loader that is not linear.

use crate::support::common;

use gpulab::course::bundle::CourseRoot;
use gpulab::course::{check_paths, load_course, load_file};
use std::path::PathBuf;

const KERNEL: &str = "extern \"C\" __global__ void scale(float* x, int n) { }\n";

const BASE: &str = "\
format_version: 1
id: base
title: Base
space: global
pages:
  - { title: P, text: T }
problem: { n: 1024 }
buffers:
  - { name: x, type: f32, len: n, init: poison }
variants:
  - name: a
    source: kernels/k.cu
    kernel: scale
    launch: { grid: \"n / 256\", block: 256 }
    args: [x, n]
reference: a
";

/// A course folder `course/` (inside a temporary folder, so that there is an outside to
/// point at) holding `kernels/k.cu` and an empty `lessons/`.
struct Pack {
    tmp: tempfile::TempDir,
}

impl Pack {
    fn new(kernel: &str) -> Pack {
        let tmp = tempfile::tempdir().unwrap();
        let course = tmp.path().join("course");
        std::fs::create_dir_all(course.join("kernels")).unwrap();
        std::fs::create_dir_all(course.join("lessons")).unwrap();
        std::fs::write(course.join("kernels/k.cu"), kernel).unwrap();
        Pack { tmp }
    }

    fn course(&self) -> PathBuf {
        self.tmp.path().join("course")
    }

    fn lessons(&self) -> PathBuf {
        self.course().join("lessons")
    }

    fn root(&self) -> CourseRoot {
        CourseRoot::Dir(self.lessons())
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) {
        std::fs::write(self.lessons().join(name), bytes).unwrap();
    }

    /// `text` loaded as `03-base.yaml`; errors as `line:col: message`.
    fn load(&self, text: &str) -> Result<gpulab::model::Lesson, Vec<String>> {
        load_file(&self.root(), "03-base.yaml", text).map_err(|errs| {
            errs.iter()
                .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
                .collect()
        })
    }
}

/// BASE with `from` replaced by `to`, which must occur in it.
fn base_with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

/// Exactly one error, at `pos` ("line:col"), containing each of `phrases`.
fn one_error(result: Result<gpulab::model::Lesson, Vec<String>>, pos: &str, phrases: &[&str]) {
    let errs = result.expect_err("should fail");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].starts_with(&format!("{pos}: ")), "{errs:#?}");
    for p in phrases {
        assert!(errs[0].contains(p), "{p} in {errs:#?}");
    }
}

// 16. A folder without lessons is refused, named once.

#[test]
fn load_course_refuses_a_folder_without_lessons() {
    let pack = Pack::new(KERNEL);
    let (lessons, errors) = load_course(&pack.root());
    assert!(lessons.is_empty());
    let dir = pack.lessons().display().to_string();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        errors[0].to_string(),
        format!("no lesson files (NN-<id>.yaml) in {dir}")
    );
}

#[test]
fn check_paths_names_a_folder_without_lessons_once() {
    let pack = Pack::new(KERNEL);
    let (_, errors) = check_paths(&[pack.lessons()]);
    let dir = pack.lessons().display().to_string();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        errors[0].to_string(),
        format!("no lesson files (NN-<id>.yaml) in {dir}")
    );
}

#[test]
fn list_refuses_a_folder_without_lessons() {
    let pack = Pack::new(KERNEL);
    let out = std::process::Command::new(common::bin())
        .arg("--lessons")
        .arg(pack.lessons())
        .arg("list")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("no lesson files (NN-<id>.yaml) in"),
        "{stderr}"
    );
}

// 17. Bytes that are not UTF-8 are named at their file, line and column.

#[test]
fn invalid_utf8_names_file_line_and_column_and_spares_other_lessons() {
    let pack = Pack::new(KERNEL);
    pack.write("01-base.yaml", BASE);
    let mut bad = BASE.replace("id: base", "id: other").into_bytes();
    // Line 3 is `title: Base`; put the bad byte after `title: B`, at column 9.
    let at = bad.iter().position(|&b| b == b'B').unwrap() + 1;
    bad.insert(at, 0xff);
    pack.write("02-other.yaml", &bad);
    let (lessons, errors) = load_course(&pack.root());
    let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["base"]);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let e = &errors[0];
    assert!(e.file.ends_with("02-other.yaml"), "{e}");
    assert_eq!((e.line, e.col), (3, 9), "{e}");
    assert!(e.message.contains("UTF-8"), "{e}");
    assert!(e.message.contains("0xFF"), "{e}");
}

#[test]
fn invalid_utf8_is_named_by_check_paths_too() {
    let pack = Pack::new(KERNEL);
    let mut bad = BASE.as_bytes().to_vec();
    bad.splice(0..0, *b"# \xc3(\n");
    pack.write("03-base.yaml", &bad);
    let file = pack.lessons().join("03-base.yaml");
    for path in [pack.lessons(), file] {
        let (_, errors) = check_paths(&[path]);
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert_eq!((errors[0].line, errors[0].col), (1, 3), "{}", errors[0]);
    }
}

#[test]
fn a_utf8_byte_order_mark_is_accepted() {
    let pack = Pack::new(KERNEL);
    pack.write("03-base.yaml", format!("\u{feff}{BASE}"));
    let (lessons, errors) = load_course(&pack.root());
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(lessons.len(), 1);
    // Columns on the first line count from after the mark, as editors show them.
    let bom = format!(
        "\u{feff}{}",
        base_with("format_version: 1", "format_version: 2")
    );
    one_error(pack.load(&bom), "1:17", &["format_version 2"]);
}

// 18. `source:` stays inside the course.

#[test]
fn source_outside_the_course_is_refused_at_the_source() {
    let pack = Pack::new(KERNEL);
    let outside = pack.tmp.path().join("outside.cu");
    std::fs::write(&outside, KERNEL).unwrap();
    let absolute = pack.course().join("kernels/k.cu").display().to_string();
    for (source, phrase) in [
        (absolute.as_str(), "absolute"),
        ("../outside.cu", "outside the course"),
        ("kernels/../../outside.cu", "outside the course"),
    ] {
        let text = base_with("kernels/k.cu", source);
        one_error(pack.load(&text), "12:13", &[phrase]);
    }
    // A way round that comes back inside is fine.
    assert!(
        pack.load(&base_with("kernels/k.cu", "kernels/../kernels/k.cu"))
            .is_ok()
    );
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_course_is_refused() {
    let pack = Pack::new(KERNEL);
    let outside = pack.tmp.path().join("outside.cu");
    std::fs::write(&outside, KERNEL).unwrap();
    std::os::unix::fs::symlink(&outside, pack.course().join("kernels/link.cu")).unwrap();
    std::os::unix::fs::symlink(pack.tmp.path(), pack.course().join("up")).unwrap();
    for source in ["kernels/link.cu", "up/outside.cu"] {
        let text = base_with("kernels/k.cu", source);
        one_error(pack.load(&text), "12:13", &["outside the course"]);
    }
    // A link that stays inside is fine.
    std::os::unix::fs::symlink("k.cu", pack.course().join("kernels/same.cu")).unwrap();
    assert!(
        pack.load(&base_with("kernels/k.cu", "kernels/same.cu"))
            .is_ok()
    );
}

// 19. The arguments fit the kernel's parameters.

#[test]
fn argument_count_is_checked_against_the_kernel_signature() {
    let pack = Pack::new(KERNEL);
    one_error(
        pack.load(&base_with("args: [x, n]", "args: [x]")),
        "15:11",
        &["1 argument", "`scale` takes 2"],
    );
    one_error(
        pack.load(&base_with("args: [x, n]", "args: [x, n, 3]")),
        "15:11",
        &["3 arguments", "`scale` takes 2"],
    );
}

#[test]
fn argument_kinds_are_checked_where_the_types_are_plain() {
    let pack = Pack::new(KERNEL);
    one_error(
        pack.load(&base_with("args: [x, n]", "args: [n, n]")),
        "15:12",
        &["`float* x`", "pointer"],
    );
    one_error(
        pack.load(&base_with("args: [x, n]", "args: [x, { i64: n }]")),
        "15:15",
        &["`int n`", "4 bytes"],
    );
    one_error(
        pack.load(&base_with("args: [x, n]", "args: [x, { f32: 2.5 }]")),
        "15:15",
        &["`int n`", "f32"],
    );
    // Types the reader cannot size (a macro, a struct) are counted but not sized.
    let pack = Pack::new(
        "#define T float\nstruct P { int a; };\n\
         extern \"C\" __global__ void scale(T* x, P n) { }\n",
    );
    assert!(pack.load(BASE).is_ok());
}

// 20. Loading is linear in the size of the lesson.

fn many_pages(n: usize) -> String {
    let mut pages = String::new();
    for i in 0..n {
        pages.push_str(&format!(
            "  - title: Page {i}\n    text: |\n      Some prose.\n      Predict: how fast?\n"
        ));
    }
    base_with("  - { title: P, text: T }\n", &pages)
}

/// The shortest of three loads, in seconds.
fn load_seconds(pack: &Pack, text: &str) -> f64 {
    (0..3)
        .map(|_| {
            let t = std::time::Instant::now();
            let lesson = pack.load(text);
            let took = t.elapsed().as_secs_f64();
            assert!(lesson.is_ok(), "{lesson:?}");
            took
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn twenty_thousand_pages_load_without_quadratic_blowup() {
    // A guard, not a speed goal (examples/load_bench.rs measures that): quadratic loading
    // took over 5 minutes here, linear loading takes well under a second, so a bound this
    // loose fails only on the blowup, never on a busy machine.
    let pack = Pack::new(KERNEL);
    let took = load_seconds(&pack, &many_pages(20_000));
    assert!(took < 60.0, "20,000 pages took {took:.2} s");
}

// 21. A duplicate key at its own place; enum values named as what they are.

#[test]
fn a_duplicate_key_is_reported_at_its_own_line() {
    let pack = Pack::new(KERNEL);
    one_error(
        pack.load(&base_with(
            "space: global\n",
            "space: global\ntitle: Again\n",
        )),
        "5:1",
        &["duplicate", "`title`"],
    );
    one_error(
        pack.load(&base_with(
            "    kernel: scale\n",
            "    kernel: scale\n    kernel: other\n",
        )),
        "14:5",
        &["duplicate", "`kernel`"],
    );
}

#[test]
fn unknown_enum_values_are_named_by_their_key() {
    let pack = Pack::new(KERNEL);
    let errs = pack
        .load(&base_with("type: f32", "type: f16"))
        .expect_err("f16 is not a type");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(
        errs[0].contains("unknown type `f16`, expected one of"),
        "{errs:#?}"
    );
    assert!(!errs[0].contains("variant"), "{errs:#?}");
    let errs = pack
        .load(&base_with("init: poison", "init: posion"))
        .expect_err("posion is not an init");
    assert!(
        errs[0].contains("unknown init `posion`, expected one of"),
        "{errs:#?}"
    );
    assert!(!errs[0].contains("variant"), "{errs:#?}");
}

// 22. The kernel's name counts only in code.

#[test]
fn a_kernel_named_only_in_a_comment_or_a_string_is_not_found() {
    for src in [
        "// extern \"C\" __global__ void scale(float* x, int n)\n\
         extern \"C\" __global__ void other(float* x, int n) { }\n",
        "/* scale(x, n) */ extern \"C\" __global__ void other(float* x, int n) { }\n",
        "extern \"C\" __global__ void other(float* x, int n) { printf(\"scale(\"); }\n",
    ] {
        let pack = Pack::new(src);
        one_error(
            pack.load(BASE),
            "13:13",
            &[
                "kernel `scale` is not a __global__ function",
                "it has: other",
            ],
        );
    }
    // `extern "C"` written only in a comment does not count either.
    let pack = Pack::new("// extern \"C\"\n__global__ void scale(float* x, int n) { }\n");
    one_error(pack.load(BASE), "13:13", &["extern \"C\""]);
}

#[test]
fn kernels_in_an_extern_c_block_are_found() {
    let pack = Pack::new(
        "extern \"C\" {\n__global__ void __launch_bounds__(256) scale(float* __restrict__ x,\n\
         int n) { }\n}\n",
    );
    assert!(pack.load(BASE).is_ok());
}
