//! The command line as clap parses it. Names are a contract: tests and scripts rely on them.

use crate::model::target::{Gpus, device_number, target};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// The largest screen `render` draws, in columns and in rows.
pub const MAX_SCREEN: i64 = 1000;

#[derive(Parser, Debug)]
#[command(
    name = "gpulab",
    version,
    about = "A terminal lab for CUDA memory spaces"
)]
pub struct Cli {
    /// Use the lessons in DIR (kernels are found beside it) instead of the bundled course.
    #[arg(long, global = true, value_name = "DIR")]
    pub lessons: Option<PathBuf>,
    /// The GPU to use (default 0). Read as text and checked only by the commands that use
    /// a GPU, so that an empty `GPULAB_DEVICE=` breaks none of the others.
    #[arg(long, global = true, value_name = "N", env = "GPULAB_DEVICE")]
    pub device: Option<String>,
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

impl Cli {
    /// The GPU named by `--device` or `GPULAB_DEVICE`, 0 when neither is given
    /// (`model::target`, which the worker reads the number with too); an error in words for
    /// an empty or non-numeric one.
    pub fn device(&self) -> anyhow::Result<u32> {
        let named = self.device.as_deref().map(device_number).transpose()?;
        let gpus = Gpus {
            named,
            ..Default::default()
        };
        Ok(target(None, &gpus).device)
    }
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    pub lesson: String,
    /// Only these variants (repeatable).
    #[arg(long = "variant", value_name = "V")]
    pub variants: Vec<String>,
    #[arg(long)]
    pub json: bool,
    /// Show the recording instead of running live.
    #[arg(long)]
    pub replay: bool,
    /// Skip the memory trace (faster).
    #[arg(long)]
    pub no_trace: bool,
    /// Skip timing: compile, check (one launch per variant) and trace only.
    #[arg(long)]
    pub no_time: bool,
    /// Rerun the one --variant under compute-sanitizer (memcheck) on a few blocks, and
    /// show the source line of its first bad access.
    #[arg(long, requires = "variants")]
    pub memcheck: bool,
    /// Run on the CPU interpreter (no GPU needed, NVRTC is): outputs checked at the
    /// lesson's `problem_cpu` size, memory traced; no times.
    #[arg(long, conflicts_with_all = ["replay", "memcheck"])]
    pub cpu: bool,
    /// Flush the L2 before every timed launch of every variant (as a variant's `cold_l2`
    /// does): times of a cold cache.
    #[arg(long, conflicts_with_all = ["replay", "cpu", "memcheck"])]
    pub cold_l2: bool,
    /// How to print the figures: the table (`text`), `json` (as --json), or `ncu-csv`: the
    /// traced counters under Nsight Compute's metric names, as `ncu --csv` prints them,
    /// per kernel and per source line, scaled to the grid.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["json", "memcheck"])]
    pub format: Option<Format>,
    /// Read the lesson again with a problem size set (NAME=VALUE, repeatable), e.g.
    /// `--size m=2048`: buffers, launches, the reference (cuBLAS's too) and the rates are
    /// all at that size. With `--cpu` a GPU's figure may be set too (`--size
    /// gpu_l2_bytes=62914560`): the interpreter then sizes the problem as that GPU would.
    #[arg(long = "size", value_name = "NAME=VALUE", conflicts_with_all = ["replay", "memcheck"])]
    pub sizes: Vec<String>,
    /// Also run every value of every knob of the variants run, as `gpulab record` does,
    /// and show their figures under the variants' (live, or with `--cpu` on the CPU
    /// interpreter).
    #[arg(long, conflicts_with_all = ["replay", "memcheck"])]
    pub knobs: bool,
    /// Trace N blocks instead of the lesson's `trace.blocks` (every stride-th of the grid;
    /// at least the grid's blocks: every block, so that no first or last block's edge work
    /// is scaled as if every block did it, as a calibration against ncu needs).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          conflicts_with_all = ["replay", "memcheck", "no_trace"])]
    pub trace_blocks: Option<u32>,
    /// Trace the blocks a hash of each cluster's index and SEED draws, about as many,
    /// anywhere in the grid, instead of every stride-th: the sample an exercise check takes
    /// (with a seed of its own each time). The same SEED draws the same blocks on the GPU
    /// and the CPU interpreter.
    #[arg(long, value_name = "SEED", value_parser = clap::value_parser!(u32).range(1..),
          conflicts_with_all = ["replay", "memcheck", "no_trace"])]
    pub trace_seed: Option<u32>,
}

/// What `gpulab run` prints.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    /// The traced counters in Nsight Compute's names and CSV layout.
    NcuCsv,
}

/// `gpulab try FILE.cu...`: your own kernel as a one-off lesson (docs/try.md).
#[derive(clap::Args, Debug)]
pub struct TryArgs {
    /// The kernel files, side by side as variants; all in one folder, which is all a try
    /// reads. Each says how it is launched in a `// gpulab:` header comment.
    #[arg(required = true, value_name = "FILE.cu")]
    pub files: Vec<PathBuf>,
    /// A macro for every file, NAME=VALUE (or NAME, defined as 1); a NAME given several
    /// values makes a variant of each (`-D TILE=16 -D TILE=32`).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub defines: Vec<String>,
    /// Header items, as a file's `// gpulab:` line has them, over those of every file
    /// (`--header "n=1<<20 grid=n/256 block=256 in:f32[n]=random out:f32[n]"`).
    #[arg(long = "header", value_name = "ITEMS")]
    pub header: Vec<String>,
    /// What outputs are checked against: a file (as given, or its name), a variant, or
    /// `none`. Default: a header's `check=`, else the first variant when there are several.
    #[arg(long, value_name = "FILE|VARIANT|none")]
    pub reference: Option<String>,
    /// Run on the CPU interpreter (no GPU needed, NVRTC is): outputs checked at the
    /// header's `cpu.NAME=` sizes, memory traced; no times.
    #[arg(long)]
    pub cpu: bool,
    /// Print the figures as JSON (as `gpulab run --json`) instead of opening the lab.
    #[arg(long, conflicts_with = "report")]
    pub json: bool,
    /// Print the figures as a plain table (as `gpulab run`) instead of opening the lab.
    #[arg(long)]
    pub report: bool,
    /// Print the figures instead of opening the lab: `text` (as --report), `json` (as
    /// --json), or `ncu-csv`, the traced counters under Nsight Compute's metric names.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["json", "report"])]
    pub format: Option<Format>,
    /// Skip the memory trace (faster).
    #[arg(long)]
    pub no_trace: bool,
    /// Skip timing: compile, check and trace only.
    #[arg(long)]
    pub no_time: bool,
}

impl TryArgs {
    /// The try these arguments describe.
    pub fn spec(&self) -> crate::course::tried::lesson::TrySpec {
        crate::course::tried::lesson::TrySpec {
            files: self.files.clone(),
            defines: self.defines.clone(),
            header: self.header.clone(),
            reference: self.reference.clone(),
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The lesson, by id or number.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub lesson: Option<String>,
    /// Columns, at most 1000 (a screen is drawn in memory: 65535 squared would need
    /// hundreds of gigabytes).
    #[arg(long, default_value_t = 120, conflicts_with = "all",
          value_parser = clap::value_parser!(u16).range(1..=MAX_SCREEN))]
    pub width: u16,
    /// Rows, at most 1000.
    #[arg(long, default_value_t = 40, conflicts_with = "all",
          value_parser = clap::value_parser!(u16).range(1..=MAX_SCREEN))]
    pub height: u16,
    /// Which prose page to show (from 1).
    #[arg(long, default_value_t = 1, conflicts_with = "all")]
    pub page: usize,
    /// Show the figures, as after a run or `v` (a learner sees none before).
    #[arg(long, conflicts_with = "all")]
    pub reveal: bool,
    /// Which screen: the lesson, its sweep charts (`g`), the texture footprint (`f`) or the
    /// heatmap (`h`) over it.
    #[arg(long, default_value = "lesson", value_parser = ["lesson", "chart", "footprint", "heatmap"], conflicts_with = "all")]
    pub view: String,
    /// The focused variant, by name (default the first; for the footprint, the first whose
    /// trace kept texture fetches).
    #[arg(long, value_name = "V", conflicts_with = "all")]
    pub variant: Option<String>,
    /// Every lesson at the snapshot sizes (120x40 and 80x24, figures hidden and revealed),
    /// and the charts and texture footprints of the lessons that have them, with --check or
    /// --update.
    #[arg(long, requires = "snapshot_mode")]
    pub all: bool,
    /// Compare with the snapshot files; exit 1 naming every lesson that differs, and write
    /// `.snap.new` files beside the `.snap` files (which stay as they are).
    #[arg(long, group = "snapshot_mode", requires = "all")]
    pub check: bool,
    /// Write the snapshot files, replacing those there, and remove stale `.snap.new` files.
    #[arg(long, group = "snapshot_mode", requires = "all")]
    pub update: bool,
    /// Where the snapshot files are: default the pack's `snapshots/` folder, beside its
    /// lessons folder (`tests/snapshots/pack` for the bundled course, from the source tree).
    #[arg(long, value_name = "DIR", requires = "all")]
    pub snapshots: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Lessons in course order.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Run a lesson's variants and print the figures.
    Run(RunArgs),
    /// Your own kernel as a one-off lesson, in the lab (or `--json`, `--report`): launch
    /// and buffers from a `// gpulab:` header comment in the file.
    Try(TryArgs),
    /// Validate lessons (and compile their kernels when NVRTC is present).
    Check { paths: Vec<PathBuf> },
    /// The lesson screen as plain text (from the recording); with --all, every lesson's
    /// screens against the pack's snapshot files.
    Render(RenderArgs),
    /// Run every lesson live and write a recording.
    Record {
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Only these lessons (repeatable): they are run and replace their entries in the
        /// recording already at the output path, whose other lessons are kept as they were.
        #[arg(long = "lesson", value_name = "ID")]
        only: Vec<String>,
    },
    /// What this machine has, and how to get what is missing.
    Doctor,
    /// The words the lessons use (wavefront, sector, occupancy…), each in a sentence or two.
    Glossary,
    /// Self-paced exercises: your kernel, checked on its memory behaviour.
    Ex(super::ex_args::ExArgs),
    /// What the GPU runs: a variant's SASS memory instructions by source line, and its
    /// instruction mix (nvdisasm of the CUBIN a run loads).
    Sass {
        lesson: String,
        variant: String,
        #[arg(long)]
        json: bool,
    },
    /// Why two variants differ: registers, spills, the SASS instruction mix, the memory
    /// instructions that changed, and the traced figures (from the recording).
    Diff {
        lesson: String,
        a: String,
        b: String,
        #[arg(long)]
        json: bool,
    },
    #[command(hide = true)]
    Worker,
    /// One NVRTC compile from standard input, in a process confined to CUDA's headers.
    #[command(name = "__nvrtc", hide = true)]
    Nvrtc {
        #[arg(long)]
        probe: bool,
    },
}
