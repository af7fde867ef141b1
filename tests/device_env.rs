//! `GPULAB_DEVICE` picks the GPU an instructor assigned, as `--device` does; the flag wins.

use clap::Parser;
use gpulab::cli::Cli;

#[test]
fn gpulab_device_picks_the_gpu_and_the_flag_wins() {
    // SAFETY: this binary has this one test, so nothing else reads the environment meanwhile.
    unsafe { std::env::set_var("GPULAB_DEVICE", "3") };
    let device = |args: &[&str]| Cli::try_parse_from(args).unwrap().device();
    assert_eq!(device(&["gpulab", "list"]).unwrap(), 3);
    assert_eq!(device(&["gpulab", "--device", "1", "list"]).unwrap(), 1);
    // Empty: no command fails to parse; the ones that open a GPU say what is wrong.
    // SAFETY: as above.
    unsafe { std::env::set_var("GPULAB_DEVICE", "") };
    let err = device(&["gpulab", "list"]).unwrap_err().to_string();
    assert!(
        err.contains("GPULAB_DEVICE (or --device) is empty"),
        "{err}"
    );
    assert!(device(&["gpulab", "--device", "x", "list"]).is_err());
    // SAFETY: as above.
    unsafe { std::env::remove_var("GPULAB_DEVICE") };
    assert_eq!(device(&["gpulab", "list"]).unwrap(), 0);
}
