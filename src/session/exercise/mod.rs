//! Exercise checks: the learner's kernel run as one more variant of its lesson (`lesson`),
//! judged live (`check`) or on the CPU interpreter (`cpu`) into a report of marked lines
//! (`report`), its output at every size
//! (`output`, `sizes`), where its traces look (`sample`), the quick check a save runs (`quick`), the learner's record of
//! attempts and passes (`progress`) and the instructor's view of a workshop (`summary`).

pub mod check;
pub mod cpu;
pub mod deciding;
mod kept_figures;
pub mod lesson;
mod output;
pub mod own_lines;
pub mod progress;
mod quick;
pub mod report;
mod sample;
mod sizes;

pub use sizes::cpu_sizes;
pub mod summary;
