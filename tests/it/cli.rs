//! The command-line contract: names, exit codes and JSON fields that tests and scripts rely on.

use crate::support::common;

use common::{bin, fixture};
use std::process::Command;

fn gpulab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .env(
            "GPULAB_DATA_DIR",
            std::env::temp_dir().join("gpulab-cli-test"),
        )
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn list_json_gives_the_lessons_in_course_order() {
    let (code, out, err) = gpulab(&["list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(&ids[..2], ["memory-ladder", "global-coalescing"]);
    let orders: Vec<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["order"].as_u64().unwrap())
        .collect();
    assert!(orders.windows(2).all(|w| w[0] < w[1]), "{orders:?}");
}

#[test]
fn run_replay_json_has_the_contract_fields_and_says_recorded() {
    let (code, out, err) = gpulab(&["run", "global-coalescing", "--replay", "--json"]);
    assert!(code == 0 || code == 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lesson"], "global-coalescing");
    assert_eq!(v["source"], "recorded");
    let dev = &v["device"];
    for k in ["name", "cc", "driver", "recorded_at"] {
        assert!(dev[k].is_string(), "device.{k} missing in {dev}");
    }
    assert!(v["peak"]["copy_gbps"].as_f64().unwrap() > 0.0);
    let first = &v["variants"][0];
    for k in [
        "name",
        "correct",
        "time_ms",
        "gbps",
        "pct_of_peak",
        "ptxas",
        "occupancy",
        "expect",
    ] {
        assert!(!first[k].is_null(), "variants[0].{k} missing in {first}");
    }
    for k in ["median", "min", "max", "runs"] {
        assert!(first["time_ms"][k].is_number(), "time_ms.{k}");
    }
    for k in [
        "registers",
        "stack_frame",
        "spill_stores",
        "spill_loads",
        "smem",
        "cmem",
    ] {
        assert!(first["ptxas"][k].is_number(), "ptxas.{k}");
    }
}

#[test]
fn run_text_names_where_the_figures_come_from() {
    let (_, out, _) = gpulab(&["run", "global-coalescing", "--replay"]);
    assert!(out.contains("recorded on NVIDIA"), "{out}");
    assert!(out.contains("coalesced"), "{out}");
}

#[test]
fn unknown_lesson_and_variant_are_clear_errors() {
    let (code, _, err) = gpulab(&["run", "no-such-lesson", "--replay"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no lesson 'no-such-lesson'") && err.contains("global-coalescing"),
        "{err}"
    );
    let (code, _, err) = gpulab(&["run", "global-coalescing", "--variant", "nope", "--replay"]);
    assert_eq!(code, 2);
    assert!(err.contains("no variant 'nope'"), "{err}");
}

#[test]
fn check_passes_the_shipped_lessons() {
    let (code, out, err) = gpulab(&["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("lesson(s) OK"), "{out}");
}

#[test]
fn check_refuses_a_misspelt_key_naming_file_line_col() {
    let dir = tempfile::tempdir().unwrap();
    let lessons = dir.path().join("lessons");
    std::fs::create_dir_all(&lessons).unwrap();
    std::fs::create_dir_all(dir.path().join("kernels/faults")).unwrap();
    std::fs::copy(
        fixture("gpu/kernels/faults/faults.cu"),
        dir.path().join("kernels/faults/faults.cu"),
    )
    .unwrap();
    let good = std::fs::read_to_string(fixture("gpu/lessons/01-faults.yaml")).unwrap();
    let bad = good.replace("metrics:", "metrcis:");
    let line = bad.lines().position(|l| l.starts_with("metrcis:")).unwrap() + 1;
    std::fs::write(lessons.join("01-faults.yaml"), bad).unwrap();
    let (code, out, _) = gpulab(&["check", lessons.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let want = format!("01-faults.yaml:{line}:1:");
    assert!(out.contains(&want), "expected {want} in:\n{out}");
    assert!(out.contains("metrcis"), "{out}");
}

#[test]
fn render_prints_the_lesson_screen_from_the_recording() {
    let (code, out, err) = gpulab(&[
        "render",
        "global-coalescing",
        "--width",
        "140",
        "--height",
        "40",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 40);
    assert!(out.contains("recorded on NVIDIA"), "{out}");
    assert!(
        out.contains("coalesced") && out.contains("stride-32"),
        "{out}"
    );
}

#[test]
fn render_reveal_shows_the_figures_that_plain_render_hides() {
    let args = [
        "render",
        "global-coalescing",
        "--width",
        "140",
        "--height",
        "40",
    ];
    let (code, hidden, err) = gpulab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(hidden.contains("figures hidden"), "{hidden}");
    assert!(!hidden.contains("GB/s"), "{hidden}");
    let (code, shown, err) = gpulab(&[&args[..], &["--reveal"]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(shown.lines().count(), 40);
    assert!(!shown.contains("figures hidden"), "{shown}");
    assert!(
        shown.contains("GB/s") && shown.contains("✓ correct"),
        "{shown}"
    );
    assert!(shown.contains("claims hold"), "{shown}");
}

#[test]
fn render_and_run_take_a_lesson_by_id_or_number() {
    for name in ["shared-transpose", "08", "8"] {
        let (code, out, err) = gpulab(&["render", name, "--width", "120", "--height", "30"]);
        assert_eq!(code, 0, "render {name}: {err}");
        assert!(out.contains("08 · "), "render {name}:\n{out}");
        let (code, out, err) = gpulab(&["run", name, "--replay", "--json"]);
        assert!(code == 0 || code == 1, "run {name}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["lesson"], "shared-transpose", "run {name}");
    }
    let (code, _, err) = gpulab(&["render", "99"]);
    assert_eq!(code, 2);
    assert!(err.contains("no lesson '99'"), "{err}");
}

#[test]
fn run_of_one_variant_lists_only_its_claims() {
    let args = ["run", "shared-banks", "--replay", "--variant", "stride-33"];
    let (_, out, err) = gpulab(&args);
    let claims = out
        .split("claims:")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}{err}"));
    // The first line is their count, the claims follow it.
    let lines: Vec<&str> = (claims.lines().skip(1))
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 2, "{claims}");
    assert!(lines.iter().all(|l| l.contains("stride-33")), "{claims}");
    let (_, out, err) = gpulab(&[&args[..], &["--json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}{err}"));
    let claims: Vec<&str> = v["expect"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["claim"].as_str().unwrap())
        .collect();
    assert_eq!(claims.len(), 2, "{claims:?}");
    assert!(
        claims.iter().all(|c| c.starts_with("stride-33 ")),
        "{claims:?}"
    );
}

/// The shipped lessons and kernels in a folder of their own, without the recording.
fn course_without_recording() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = common::manifest_dir();
    let lessons = dir.path().join("lessons");
    std::fs::create_dir_all(&lessons).unwrap();
    for e in std::fs::read_dir(src.join("lessons")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "yaml") {
            std::fs::copy(&p, lessons.join(p.file_name().unwrap())).unwrap();
        }
    }
    for e in std::fs::read_dir(src.join("kernels")).unwrap() {
        let d = e.unwrap().path();
        let to = dir.path().join("kernels").join(d.file_name().unwrap());
        std::fs::create_dir_all(&to).unwrap();
        for f in std::fs::read_dir(&d).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
        }
    }
    copy_tree(&src.join("exercises"), &dir.path().join("exercises"));
    dir
}

/// `from` and everything under it, as `to`.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, dest).unwrap();
        }
    }
}

#[test]
fn a_course_without_a_recording_says_so() {
    let dir = course_without_recording();
    let lessons = dir.path().join("lessons");
    let lessons = lessons.to_str().unwrap();
    let (_, out, err) = gpulab(&["--lessons", lessons, "run", "03", "--replay", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}{err}"));
    assert_eq!(v["source"], "none", "nothing recorded is not \"recorded\"");
    let (_, out, _) = gpulab(&["--lessons", lessons, "run", "03", "--replay"]);
    assert!(out.contains("no recording"), "{out}");
    assert!(!out.contains('✓'), "no claim holds on no figures:\n{out}");
    let (code, out, err) = gpulab(&["--lessons", lessons, "render", "03"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no recording"), "{out}");
    assert!(!out.contains("claims hold"), "{out}");
}

#[test]
fn a_listing_whose_reader_has_gone_ends_quietly() {
    // As `gpulab list | head -0`: the pipe is closed before anything is written.
    let mut child = Command::new(bin())
        .arg("list")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("Broken pipe"), "{err}");
}

/// `gpulab` with `args` and `env`, no NVRTC to be found when `no_nvrtc`.
fn gpulab_env(args: &[&str], env: &[(&str, &str)], no_nvrtc: bool) -> (i32, String, String) {
    let mut cmd = Command::new(bin());
    cmd.args(args).env(
        "GPULAB_DATA_DIR",
        std::env::temp_dir().join("gpulab-cli-test"),
    );
    if no_nvrtc {
        cmd.env("PATH", "/nonexistent")
            .env_remove("GPULAB_CUDA")
            .env_remove("CUDA_HOME")
            .env_remove("CUDA_PATH");
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn run_cpu_without_nvrtc_says_how_to_get_it_and_exits_2() {
    let started = std::time::Instant::now();
    let (code, out, err) = gpulab_env(&["run", "01", "--cpu"], &[], true);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("NVRTC") && err.contains("pip install nvidia-cuda-nvrtc"),
        "{err}"
    );
    assert!(out.is_empty(), "nothing run, nothing reported: {out}");
    assert!(!err.contains("compiling"), "said at once: {err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn claims_read_in_words() {
    let (code, out, err) = gpulab(&["run", "00", "--replay"]);
    assert!(code == 0 || code == 1, "{err}");
    let claims = out.split("claims:").nth(1).expect(&out);
    assert!(
        claims.contains("register cycles per access ≤ 10"),
        "{claims}"
    );
    assert!(claims.contains(" · cycles per access = "), "{claims}");
    for name in ["measured.", "<=", ">=", "=="] {
        assert!(!claims.contains(name), "{name} in {claims}");
    }
    // A claim, its detail and its margin are parts of one line (#35 item 16): no double
    // space between them, and no brackets around a detail that has its own.
    for line in claims.lines().filter(|l| !l.trim().is_empty()) {
        assert!(!line.trim_start().contains("  "), "{line:?}");
        let mut depth = 0;
        for c in line.chars() {
            depth += match c {
                '(' | '[' => 1,
                ')' | ']' => -1,
                _ => 0,
            };
            assert!(depth <= 1, "nested brackets: {line:?}");
        }
    }
    let (_, out, _) = gpulab(&["run", "01", "--replay"]);
    assert!(
        out.contains("coalesced global sectors per request = 4"),
        "{out}"
    );
}

#[test]
fn a_view_a_lesson_lacks_or_that_does_not_exist_is_an_error_naming_the_choices() {
    let (code, out, err) = gpulab(&["render", "01", "--view", "chart"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("has no chart view") && err.contains("its views: lesson, heatmap"),
        "{err}"
    );
    let (code, _, err) = gpulab(&["render", "01", "--view", "footprint"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no footprint view"), "{err}");
    let (code, _, err) = gpulab(&["render", "01", "--view", "graph"]);
    assert_eq!(code, 2);
    assert!(err.contains("lesson, chart, footprint, heatmap"), "{err}");
    // The views a lesson has still render.
    let (code, out, err) = gpulab(&["render", "16", "--view", "footprint"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("texture footprint"), "{out}");
}

#[test]
fn environment_variables_are_asked_only_by_the_commands_that_use_them() {
    let bad = [
        ("GPULAB_DEVICE", "xyz"),
        ("GPULAB_TIMEOUT_S", "soon"),
        ("GPULAB_WORKSPACE", "/dev/null"),
    ];
    for args in [
        &["list"][..],
        &["run", "01", "--replay"],
        &["render", "01"],
        &["check", "lessons/01-global-coalescing.yaml"],
    ] {
        let (code, out, err) = gpulab_env(args, &bad, true);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    }
    // Where it is used, it is an error in words.
    let (code, _, err) = gpulab_env(&["doctor"], &bad, true);
    assert_eq!(code, 2);
    assert!(
        err.contains("GPULAB_DEVICE") && err.contains("xyz"),
        "{err}"
    );
}

/// `record --lesson` is parsed beside the global `--lessons` (two options a letter apart),
/// and an id the course does not have is refused before any GPU is asked for.
#[test]
fn record_lesson_is_its_own_option_and_an_unknown_id_is_named() {
    let (code, _, err) = gpulab(&["--lessons", "lessons", "record", "--lesson", "nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no lesson `nope` to record"), "{err}");
    assert!(err.contains("gemm"), "the course's ids are listed: {err}");
}

/// With neither a GPU nor NVRTC, `ex check` judges nothing but lists every check, each
/// saying what would judge it: NVRTC (and how to get it) for what the CPU interpreter can
/// judge, a GPU for the times. None is silently left out.
#[test]
fn ex_check_without_nvrtc_or_a_gpu_lists_every_check_and_what_would_judge_it() {
    if common::gpu().is_some() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let starter =
        common::manifest_dir().join("exercises/global-coalescing/coalesce-copy/starter.cu");
    std::fs::copy(starter, ws.join("coalesce-copy.cu")).unwrap();
    let data = tmp.path().join("data");
    let ws_arg = ws.to_str().unwrap();
    let args = [
        "ex",
        "--workspace",
        ws_arg,
        "check",
        "coalesce-copy",
        "--json",
    ];
    let (code, out, err) = gpulab_env(&args, &[("GPULAB_DATA_DIR", data.to_str().unwrap())], true);
    assert_ne!(code, 0, "nothing judged, nothing passed: {out}{err}");
    assert!(err.contains("pip install nvidia-cuda-nvrtc"), "{err}");
    let r: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let lines = r["lines"].as_array().expect("lines");
    // The output check and the exercise's five checks.
    assert_eq!(lines.len(), 6, "{lines:#?}");
    for l in lines {
        assert_eq!(l["mark"], "needs_gpu", "{l}");
        let (check, detail) = (l["check"].as_str().unwrap(), l["detail"].as_str().unwrap());
        if check.contains("faster than") {
            assert_eq!(detail, "needs a GPU", "{check}");
        } else {
            assert!(
                detail.contains("pip install nvidia-cuda-nvrtc"),
                "{check}: {detail}"
            );
        }
    }
}

/// `gpulab list` lines its titles up in one column whatever the topic's length (#35 item
/// 16: "distributed shared" pushed its own rows' titles out of line).
#[test]
fn list_lines_its_titles_up() {
    let (code, out, err) = gpulab(&["list"]);
    assert_eq!(code, 0, "{err}");
    let (lessons, _) = gpulab::course::load_course(&gpulab::course::bundle::CourseRoot::Bundled);
    let at: Vec<usize> = (lessons.iter())
        .map(|l| {
            // A long title goes on under itself: its first words lead its row.
            let first = l.title.split_whitespace().next().unwrap();
            let line = (out.lines())
                .find(|x| x.starts_with(&format!("{:02}  {} ", l.order, l.id)))
                .expect(&out);
            line[..line.find(first).expect(line)].chars().count()
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] == w[1]), "{at:?}\n{out}");
}

/// `gpulab list` fits 80 columns where its output is not a terminal: a long title goes on
/// under itself, whole (every word of it is there), and the topic is the lesson file's
/// short name.
#[test]
fn list_fits_80_columns_and_cuts_no_title() {
    let (code, out, err) = gpulab(&["list"]);
    assert_eq!(code, 0, "{err}");
    for line in out.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
    let (lessons, _) = gpulab::course::load_course(&gpulab::course::bundle::CourseRoot::Bundled);
    let words: Vec<&str> = out.split_whitespace().collect();
    for l in &lessons {
        let title: Vec<&str> = l.title.split_whitespace().collect();
        assert!(
            words.windows(title.len()).any(|w| w == &title[..]),
            "{} whole:\n{out}",
            l.title
        );
        let row = (out.lines())
            .find(|x| x.starts_with(&format!("{:02}  {} ", l.order, l.id)))
            .unwrap_or_else(|| panic!("{}:\n{out}", l.id));
        assert!(row.contains(&format!(" {} ", l.topic.id())), "{row}");
    }
}
