//! `GPULAB_DEVICE` picks the GPU an instructor assigned, as `--device` does; the flag wins.

use clap::Parser;
use gpulab::cli::Cli;

#[test]
fn gpulab_device_picks_the_gpu_and_the_flag_wins() {
    // SAFETY: this binary has this one test, so nothing else reads the environment meanwhile.
    unsafe { std::env::set_var("GPULAB_DEVICE", "3") };
    assert_eq!(Cli::try_parse_from(["gpulab", "list"]).unwrap().device, 3);
    let flag = Cli::try_parse_from(["gpulab", "--device", "1", "list"]).unwrap();
    assert_eq!(flag.device, 1);
    // SAFETY: as above.
    unsafe { std::env::remove_var("GPULAB_DEVICE") };
    assert_eq!(Cli::try_parse_from(["gpulab", "list"]).unwrap().device, 0);
}
