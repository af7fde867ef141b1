//! `gpulab try` on the command line: the three example files (examples/try) run on the CPU
//! interpreter, each judged on a figure that could come out otherwise (the copy checked
//! against the built-in copy, the column read's 32 wavefronts a request and the padded
//! one's 1, side by side from `-D`, the stencil's race); a file with no header is refused
//! with the header line to add, which then runs; a header problem names its
//! `file:line:col`; `--header` gives the launch from the command line; the try reads only
//! its folder. The runs need NVRTC (CI has it); without it they skip, saying why.

use crate::support::common;

use common::{bin, manifest_dir, nvrtc_or_skip};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn gpulab(args: &[&str], cwd: &Path) -> Output {
    let data = tempfile::tempdir().unwrap();
    Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("GPULAB_DATA_DIR", data.path())
        .env_remove("GPULAB_WORKER_FAKE")
        // No GPU, whatever this machine has: the try runs on the interpreter.
        .env("CUDA_VISIBLE_DEVICES", "-1")
        .env("GPULAB_TIMEOUT_S", "300")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `gpulab try ARGS --json` in the source tree: its exit status and the result.
fn try_json(args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["try"];
    all.extend_from_slice(args);
    all.push("--json");
    let o = gpulab(&all, &manifest_dir());
    let r = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)));
    (o.status.code(), r)
}

fn variant<'a>(r: &'a Value, name: &str) -> &'a Value {
    (r["variants"].as_array().unwrap().iter())
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variant {name}: {r}"))
}

fn per_request(v: &Value, space: &str, num: &str, den: &str) -> f64 {
    let m = &v["memory"][space];
    m[num].as_f64().unwrap() / m[den].as_f64().unwrap()
}

#[test]
fn the_copy_checks_out_against_the_builtin_copy_with_whole_sectors() {
    if !nvrtc_or_skip("the_copy_checks_out") {
        return;
    }
    let (code, r) = try_json(&["examples/try/copy.cu", "--cpu"]);
    assert_eq!(code, Some(0), "{r}");
    assert_eq!(r["source"], "interpreted");
    let v = variant(&r, "copy");
    assert_eq!(v["correct"], true, "{v}");
    assert!(v.get("time_ms").is_none(), "no times on the CPU");
    let sectors = per_request(v, "global", "sectors", "requests");
    assert_eq!(sectors, 4.0, "a warp's 128 bytes are four sectors");
    let used = v["memory"]["global"]["bytes_used"].as_f64().unwrap();
    let moved = v["memory"]["global"]["sectors"].as_f64().unwrap() * 32.0;
    assert_eq!(used, moved, "every byte of every sector is used");
}

#[test]
fn the_column_read_conflicts_and_padding_it_does_not_side_by_side() {
    if !nvrtc_or_skip("the_column_read_conflicts") {
        return;
    }
    let (code, r) = try_json(&[
        "examples/try/shared_read.cu",
        "-D",
        "PAD=0",
        "-D",
        "PAD=1",
        "--cpu",
    ]);
    assert_eq!(code, Some(0), "{r}");
    let names: Vec<&str> = (r["variants"].as_array().unwrap().iter())
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["PAD-0", "PAD-1"]);
    let conflicted = variant(&r, "PAD-0");
    let padded = variant(&r, "PAD-1");
    let wf = |v: &Value| {
        let ld = &v["memory"]["shared"]["ld"];
        ld["wavefronts"].as_f64().unwrap() / ld["requests"].as_f64().unwrap()
    };
    assert_eq!(wf(conflicted), 32.0, "32 lanes in one bank");
    assert_eq!(wf(padded), 1.0, "one lane per bank");
    // The padded tile is checked against the first setting, and agrees.
    assert_eq!(padded["correct"], true, "{padded}");
}

#[test]
fn the_racy_stencil_reports_its_race_and_the_synced_one_none() {
    if !nvrtc_or_skip("the_racy_stencil_reports_its_race") {
        return;
    }
    let (_, alone) = try_json(&["examples/try/stencil.cu", "--cpu"]);
    let v = variant(&alone, "stencil");
    let races = v["memory"]["races"].as_array().unwrap();
    assert!(!races.is_empty(), "{v}");
    // One file and no reference: nothing is compared, and nothing is called correct.
    assert!(v["correct"].is_null(), "{v}");
    assert!(v["check"].as_str().unwrap().contains("not compared"), "{v}");
    let (_, r) = try_json(&[
        "examples/try/stencil.cu",
        "-D",
        "SYNC=0",
        "-D",
        "SYNC=1",
        "--reference",
        "SYNC-1",
        "--cpu",
    ]);
    let synced = variant(&r, "SYNC-1");
    assert!(synced["memory"].is_object(), "{synced}");
    assert!(synced["memory"].get("races").is_none(), "{synced}");
    assert_eq!(synced["correct"], true);
    let racy = variant(&r, "SYNC-0");
    assert!(!racy["memory"]["races"].as_array().unwrap().is_empty());
}

#[test]
fn without_a_gpu_a_try_runs_on_the_interpreter_and_the_report_says_so() {
    if !nvrtc_or_skip("without_a_gpu_a_try_runs_on_the_interpreter") {
        return;
    }
    let o = gpulab(
        &["try", "examples/try/copy.cu", "--report"],
        &manifest_dir(),
    );
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("run on the CPU interpreter"), "{out}");
    assert!(
        out.contains("outputs checked against the built-in copy (in to out)"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("copy ") && l.contains("correct")),
        "{out}"
    );
}

#[test]
fn without_a_terminal_the_lab_says_how_to_run_a_try_from_a_script() {
    let o = gpulab(&["try", "examples/try/copy.cu"], &manifest_dir());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("needs a terminal") && err.contains("--json or --report"),
        "{err}"
    );
}

const BARE: &str = "extern \"C\" __global__ void scale(const float* in, float* out, int n, float a)\n\
{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = a * in[i];\n}\n";

#[test]
fn a_file_without_a_header_is_refused_with_the_header_to_add_which_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scale.cu"), BARE).unwrap();
    let o = gpulab(&["try", "scale.cu", "--cpu", "--json"], dir.path());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("scale.cu: no `// gpulab:` header"), "{err}");
    let header =
        "// gpulab: n=1<<20 a=1 in:f32[n]=random out:f32[n] grid=ceil_div(n,256) block=256";
    assert!(err.lines().any(|l| l == header), "{err}");
    if !nvrtc_or_skip("a_file_without_a_header: its suggested header runs") {
        return;
    }
    // The line it shows, added as it says, is a header that runs.
    let with = format!("{}\n{BARE}", header.replace("1<<20", "1<<12"));
    std::fs::write(dir.path().join("scale.cu"), with).unwrap();
    let o = gpulab(&["try", "scale.cu", "--cpu", "--json"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        variant(&r, "scale")["memory"]["global"]["requests"]
            .as_u64()
            .unwrap()
            > 0
    );
}

/// The header a file without one is refused with is the one docs/try.md shows (#35 item
/// 16): the size the buffers are as long as first and large, whatever the order of the
/// parameters (a `float a` before `int n` made it `a=1 n=32`), and the same three lines.
#[test]
fn the_suggested_header_is_the_one_docs_try_md_shows() {
    let docs = std::fs::read_to_string(manifest_dir().join("docs/try.md")).unwrap();
    let after = docs
        .split("A file with no header is refused")
        .nth(1)
        .expect("docs/try.md shows the refusal");
    let block: Vec<&str> = after
        .split("```")
        .nth(1)
        .expect("in a code block")
        .lines()
        .filter(|l| !l.is_empty())
        .collect();
    let sig = "scale(float a, const float* in, float* out, int n)";
    assert!(after.contains(&format!("`{sig}`")), "{after}");
    let dir = tempfile::tempdir().unwrap();
    let file = format!(
        "extern \"C\" __global__ void {sig}\n{{\n    int i = blockIdx.x * blockDim.x + \
         threadIdx.x;\n    if (i < n) out[i] = a * in[i];\n}}\n"
    );
    std::fs::write(dir.path().join("scale.cu"), file).unwrap();
    let o = gpulab(&["try", "scale.cu", "--report"], dir.path());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().collect::<Vec<_>>(), block, "{err}");
}

#[test]
fn a_header_missing_its_launch_shows_the_whole_line_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = format!("// gpulab: n=4096 a=2 in:f32[n]=random out:f32[n]\n{BARE}");
    std::fs::write(dir.path().join("scale.cu"), file).unwrap();
    let o = gpulab(&["try", "scale.cu", "--cpu", "--json"], dir.path());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("scale.cu:1:4: the header does not say all"),
        "{err}"
    );
    assert!(
        err.contains("add `grid=ceil_div(n,256)`, `block=256`"),
        "{err}"
    );
    let whole = "// gpulab: n=4096 a=2 in:f32[n]=random out:f32[n] grid=ceil_div(n,256) block=256";
    assert!(err.lines().any(|l| l == whole), "{err}");
}

#[test]
fn a_header_problem_names_its_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    // Each header, the text its problem is placed at, and what the problem says.
    let cases = [
        // An expression naming nothing, placed in its buffer's `[]` (found by the loader).
        (
            "// gpulab: n=4096 a=2 in:f32[n]=random out:f32[m] grid=n/256 block=256",
            "m]",
            "unknown name `m`",
        ),
        // An item that is none, found by the header's reader.
        (
            "// gpulab: n=4096 a=2 in:f32[n]=random out:f32[n] grid=n/256 block=256 bogus",
            "bogus",
            "not a header item",
        ),
        // A size that does not evaluate, at its operator.
        (
            "// gpulab: n=1<<64 a=2 in:f32[n]=random out:f32[n] grid=n/256 block=256",
            "<<64",
            "0 to 63",
        ),
        // A buffer type that is none.
        (
            "// gpulab: n=4096 a=2 in:f16[n]=random out:f32[n] grid=n/256 block=256",
            "f16",
            "type `f16`",
        ),
    ];
    for (header, at, phrase) in cases {
        let col = header.find(at).unwrap() + 1;
        std::fs::write(dir.path().join("scale.cu"), format!("\n{header}\n{BARE}")).unwrap();
        let o = gpulab(&["try", "scale.cu", "--cpu", "--json"], dir.path());
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{header}: {err}");
        assert!(
            err.starts_with(&format!("gpulab: scale.cu:2:{col}: ")) && err.contains(phrase),
            "{header}: {err}"
        );
    }
}

#[test]
fn the_launch_may_come_from_the_command_line() {
    if !nvrtc_or_skip("the_launch_may_come_from_the_command_line") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scale.cu"), BARE).unwrap();
    let o = gpulab(
        &[
            "try",
            "scale.cu",
            "--header",
            "n=4096 a=2 in:f32[n]=random out:f32[n]",
            "--header",
            "grid=n/256 block=256",
            "--cpu",
            "--json",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(variant(&r, "scale")["memory"]["traced_blocks"], 4);
    // A problem in a flag is placed in it: the flag's number and column.
    let flag = "n=4096 a=2 in:f32[n]=random out:f32[n] grid=n/256 block=2x";
    let o = gpulab(&["try", "scale.cu", "--header", flag], dir.path());
    let err = text(&o.stderr);
    let col = flag.find("2x").unwrap() + 1;
    assert!(err.contains(&format!("--header:1:{col}: ")), "{err}");
}

#[test]
fn a_try_reads_only_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("mine");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(dir.path().join("secret.h"), "#define SECRET 1\n").unwrap();
    let header = "// gpulab: n=4096 a=2 in:f32[n]=random out:f32[n] grid=n/256 block=256\n";
    // An include that climbs out of the kernel's folder, refused at its place.
    std::fs::write(
        inner.join("k.cu"),
        format!("{header}#include \"../secret.h\"\n{BARE}"),
    )
    .unwrap();
    let o = gpulab(&["try", "mine/k.cu", "--json"], dir.path());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("mine/k.cu:2:10:") && err.contains("leads outside"),
        "{err}"
    );
    // A link in the folder that leads out of it.
    std::fs::write(dir.path().join("outside.cu"), format!("{header}{BARE}")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.cu"), inner.join("link.cu")).unwrap();
    let o = gpulab(&["try", "mine/link.cu", "--json"], dir.path());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("link that leads outside its folder"), "{err}");
    // Files of two folders are not one try.
    std::fs::write(inner.join("ok.cu"), format!("{header}{BARE}")).unwrap();
    let o = gpulab(&["try", "mine/ok.cu", "outside.cu", "--json"], dir.path());
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("sit in one folder"), "{err}");
}

#[test]
fn a_reference_that_is_none_of_the_try_lists_what_there_is() {
    let o = gpulab(
        &[
            "try",
            "examples/try/shared_read.cu",
            "-D",
            "PAD=0",
            "-D",
            "PAD=1",
            "--reference",
            "PAD-2",
            "--json",
        ],
        &manifest_dir(),
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`PAD-2` is none of") && err.contains("PAD-0, PAD-1"),
        "{err}"
    );
}
