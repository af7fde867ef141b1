//! `GPULAB_DEVICE` picks the GPU an instructor assigned, as `--device` does; the flag wins.
//!
//! clap reads the variable from the process's environment, which every test of this binary
//! shares and every worker they start inherits: set here, it would reach them too. So each
//! parse runs in a child, this test binary running this test alone, with the variable set
//! or removed on the child's command only.

use clap::Parser;
use gpulab::cli::Cli;
use std::process::Command;

/// The command line the child parses, a word a line. Its presence makes this test the child.
const ARGS_ENV: &str = "GPULAB_TEST_DEVICE_ARGS";
const TEST: &str = "device_env::gpulab_device_picks_the_gpu_and_the_flag_wins";

/// `Cli::device()` for `args` where `GPULAB_DEVICE` is `env` (None: not set): the GPU's
/// number, or the error's words.
fn device(env: Option<&str>, args: &[&str]) -> Result<u32, String> {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", TEST, "--nocapture", "--test-threads", "1"])
        .env(ARGS_ENV, args.join("\n"));
    match env {
        Some(v) => cmd.env("GPULAB_DEVICE", v),
        None => cmd.env_remove("GPULAB_DEVICE"),
    };
    let out = cmd.output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // libtest writes the test's name and the child's line on one line: found within it.
    let parsed = said
        .lines()
        .find_map(|l| l.split_once("device: ").map(|(_, json)| json))
        .unwrap_or_else(|| panic!("the child parsed nothing:\n{said}"));
    serde_json::from_str(parsed).unwrap()
}

#[test]
fn gpulab_device_picks_the_gpu_and_the_flag_wins() {
    if let Ok(args) = std::env::var(ARGS_ENV) {
        // The child: parse, and say what `device()` made of it.
        let args: Vec<&str> = args.lines().collect();
        let got = Cli::try_parse_from(args)
            .unwrap()
            .device()
            .map_err(|e| e.to_string());
        println!("device: {}", serde_json::to_string(&got).unwrap());
        return;
    }
    assert_eq!(device(Some("3"), &["gpulab", "list"]).unwrap(), 3);
    assert_eq!(
        device(Some("3"), &["gpulab", "--device", "1", "list"]).unwrap(),
        1
    );
    // Empty: no command fails to parse; the ones that open a GPU say what is wrong.
    let err = device(Some(""), &["gpulab", "list"]).unwrap_err();
    assert!(
        err.contains("GPULAB_DEVICE (or --device) is empty"),
        "{err}"
    );
    assert!(device(Some(""), &["gpulab", "--device", "x", "list"]).is_err());
    assert_eq!(device(None, &["gpulab", "list"]).unwrap(), 0);
}
