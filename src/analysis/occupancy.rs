// TEMP stub
use crate::results::Occupancy;
pub struct Limits {
    pub max_warps_per_sm: u32,
}
pub fn for_cc(_a: u32, _b: u32) -> Option<Limits> {
    Some(Limits {
        max_warps_per_sm: 64,
    })
}
pub fn occupancy(l: &Limits, t: u32, _r: u32, _s: u32) -> Occupancy {
    Occupancy {
        blocks_per_sm: 1,
        active_warps: t / 32,
        max_warps: l.max_warps_per_sm,
        ratio: 0.0,
        limiter: "threads".into(),
        from: "report".into(),
    }
}
