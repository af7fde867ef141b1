//! A block's transaction barriers (`mbarrier`) and its bulk copies in flight: each
//! barrier's arrivals, pending count, transaction bytes and completed phases, kept beside
//! the block's memory. `mbarrier` steps the instructions that change them.

use std::collections::HashMap;

/// One barrier: its arrivals per phase, those still to come, its transaction count and the
/// phases completed so far.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Mbar {
    pub(super) expected: u32,
    pub(super) pending: u32,
    pub(super) tx: i64,
    pub(super) phases: u64,
    /// The bulk copies issued on it so far, and by warp how many of them its last look saw
    /// issued: a warp's first look after a copy was issued finds the phase incomplete (the
    /// copy is in flight), as a GPU's does, so a wait whose result is not looked at orders
    /// nothing (its bytes land, but no wait that saw the phase complete is logged).
    pub(super) issued: u32,
    pub(super) looked: [u32; 32],
}

impl Mbar {
    /// The phase completes when every arrival and every announced byte has come.
    pub(super) fn settle(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phases += 1;
            self.pending = self.expected;
        }
    }
}

/// A bulk copy on its way: where it writes, reads, how many bytes, and its barrier.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bulk {
    pub(super) mbar: u64,
    pub(super) dst: u64,
    pub(super) src: u64,
    pub(super) size: u64,
}

/// One block's barriers and bulk copies in flight.
#[derive(Debug, Default)]
pub struct Mbars {
    pub(super) bars: HashMap<u64, Mbar>,
    pub(super) bulk: Vec<Bulk>,
}
