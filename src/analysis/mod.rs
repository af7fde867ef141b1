//! Pure functions over measured or traced data: no I/O, no CUDA.

pub mod atomics;
pub mod banks;
pub mod claim_words;
pub mod claims;
pub mod clocks;
pub mod coalescing;
pub mod copy_groups;
pub mod describe;
pub mod fingerprint;
pub mod footprint;
pub mod gpu_share;
pub mod heatmap;
pub mod limits;
pub mod line_diff;
pub mod margin;
pub mod occupancy;
pub mod ptxas_log;
mod race_events;
mod race_intervals;
/// A hash map for word addresses, quicker than the default hasher on the trace's hot path.
pub(crate) use race_intervals::{FastMap, FastSet};
pub mod race_words;
pub mod races;
mod races_bulk;
mod races_cluster;
mod races_mbar;
mod races_named;
mod races_warp;
pub mod sass;
pub mod sass_diff;
pub mod sass_figures;
pub mod sass_map;
pub mod spaces;
pub mod stats;
pub mod store_use;
pub mod timed_region;
