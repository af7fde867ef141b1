//! `gpulab ex ...` as clap parses it: self-paced exercises. Names are a contract.

use clap::Subcommand;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct ExArgs {
    /// The folder that holds the learner's files (default: `$GPULAB_WORKSPACE`, else the
    /// data directory's `exercises/`).
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    #[command(subcommand)]
    pub cmd: ExCmd,
}

impl ExArgs {
    /// Whether the command opens a GPU: a check, unless on the CPU interpreter.
    pub fn uses_gpu(&self) -> bool {
        matches!(
            self.cmd,
            ExCmd::Check { cpu: false, .. }
                | ExCmd::Watch { cpu: false, .. }
                | ExCmd::CheckMany { cpu: false, .. }
        )
    }
}

#[derive(Subcommand, Debug)]
pub enum ExCmd {
    /// Every exercise under its lesson, with the learner's progress.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Copy the exercise's starter into the workspace (never over the learner's file) and
    /// print its path.
    Start { id: String },
    /// Compile, run and judge the learner's kernel. Exit 0: every check passed; 1: a check
    /// failed (or the file does not compile); 2: it could not check (no such exercise or
    /// file); 3: none failed, some need a GPU to judge.
    Check {
        id: String,
        #[arg(long)]
        json: bool,
        /// Check on the CPU interpreter (no GPU needed, NVRTC is): outputs and memory
        /// checks; checks about times need a GPU.
        #[arg(long)]
        cpu: bool,
        /// Stop once a check has failed at the lesson's size: the output is not checked
        /// at the other sizes (a batch of answers that must fail; a learner wants every
        /// verdict).
        #[arg(long)]
        fail_fast: bool,
        /// Time and trace the solution and the variants the exercise compares with once
        /// per DIR: later checks of this exercise on the same GPU (or, with --cpu, on the
        /// interpreter) compare with the figures kept there (a table of many answers;
        /// each check says so).
        #[arg(long, value_name = "DIR")]
        reuse_figures: Option<std::path::PathBuf>,
        /// The check this answer must fail (a table of wrong answers: `correct`, `race`,
        /// or a check's text): judged first, with only the runs it needs, stopping where
        /// it fails; where it holds, every check runs, as with --fail-fast.
        #[arg(long, value_name = "CHECK")]
        deciding: Option<String>,
    },
    /// Check many learners' files with one GPU context and one loaded course (an
    /// instructor's batch, the course's table of answers): one request a line on stdin,
    /// `{"id": ID, "workspace": DIR, "fail_fast": bool, "deciding": CHECK}` (all but `id`
    /// optional), answered on stdout by a line `{"said": TEXT}` for each stage and one
    /// `{"done": {"code": N, "report": ..., "not_recorded": null}}` (or `{"done": {"code":
    /// 2, "error": TEXT}}`), N as `check` exits; `not_recorded` says why the progress book
    /// did not take the check. A request that cannot be checked costs only itself.
    #[command(hide = true)]
    CheckMany {
        /// Check on the CPU interpreter (no GPU needed, NVRTC is).
        #[arg(long)]
        cpu: bool,
        /// As `check --reuse-figures`: the solution's figures kept here for later checks.
        #[arg(long, value_name = "DIR")]
        reuse_figures: Option<std::path::PathBuf>,
    },
    /// Check again on every save of the learner's file.
    Watch {
        id: String,
        /// Check on the CPU interpreter (no GPU needed).
        #[arg(long)]
        cpu: bool,
    },
    /// The next hint (they are shown one at a time).
    Hint {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// The solution, once the exercise passed (or with --show-anyway, which is recorded).
    Solution {
        id: String,
        #[arg(long)]
        show_anyway: bool,
        #[arg(long)]
        json: bool,
    },
    /// Start over from the starter, keeping the learner's file as a timestamped backup.
    Reset { id: String },
    /// The instructor's view: participant x exercise (passed on a GPU or only on the CPU,
    /// attempts, hints, best time against the solution's), read from each participant's
    /// data folder or workspace. A folder holding participants' folders stands for them.
    /// It only reads.
    Summary {
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}
