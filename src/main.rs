use clap::Parser;
use gpulab::cli::{self, Cli, Cmd};
use gpulab::course::bundle::CourseRoot;

fn main() {
    let args = Cli::parse();
    // Kernels are compiled in a confined process of this program (`cuda::confined`).
    if let Ok(exe) = std::env::current_exe() {
        gpulab::cuda::confined::use_helper(exe);
    }
    let root = CourseRoot::from_option(args.lessons.as_deref());
    // Asked only by the commands that open a GPU: a bad `GPULAB_DEVICE` is their error.
    let device = args.device();
    let code = match args.command {
        None => device.and_then(|d| cli::open_lab(&root, d)),
        Some(Cmd::Worker) => Ok(gpulab::worker::server::serve()),
        Some(Cmd::Nvrtc { probe: true }) => Ok(gpulab::cuda::confined::probe()),
        Some(Cmd::Nvrtc { probe: false }) => Ok(gpulab::cuda::confined::serve()),
        Some(Cmd::List { json }) => cli::cmd_list(&root, json),
        Some(Cmd::Run(a)) if a.replay || a.cpu => cli::cmd_run(&root, 0, &a),
        Some(Cmd::Run(a)) => device.and_then(|d| cli::cmd_run(&root, d, &a)),
        Some(Cmd::Try(a)) if a.cpu => cli::cmd_try(0, &a),
        Some(Cmd::Try(a)) => device.and_then(|d| cli::cmd_try(d, &a)),
        Some(Cmd::Check { paths }) => cli::cmd_check(&root, &paths),
        Some(Cmd::Render(a)) => cli::cmd_render(&root, &a),
        Some(Cmd::Record { out, only }) => {
            device.and_then(|d| cli::cmd_record(&root, d, out, &only))
        }
        Some(Cmd::Doctor) => device.and_then(|d| cli::cmd_doctor(d).map(|_| 0)),
        Some(Cmd::Glossary) => cli::cmd_glossary().map(|_| 0),
        Some(Cmd::Ex(a)) if !a.uses_gpu() => cli::cmd_ex(&root, 0, &a),
        Some(Cmd::Ex(a)) => device.and_then(|d| cli::cmd_ex(&root, d, &a)),
        // The GPU is asked about only where the recording does not say what to build for.
        Some(Cmd::Sass {
            lesson,
            variant,
            json,
        }) => cli::cmd_sass(&root, &device, &lesson, &variant, json),
        Some(Cmd::Diff { lesson, a, b, json }) => {
            cli::cmd_diff(&root, &device, &lesson, [&a, &b], json)
        }
    };
    match code {
        Ok(c) => std::process::exit(c),
        Err(e) => {
            // Errors quote the pack (ids, names, its source): made visible as all its text is.
            cli::say::err(&format!(
                "gpulab: {}\n",
                cli::say::visible(&format!("{e:#}"))
            ));
            std::process::exit(2);
        }
    }
}
