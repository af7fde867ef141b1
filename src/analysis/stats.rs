// TEMP stub until the stats module lands
use crate::results::TimeMs;
pub fn summarize(s: &[f64]) -> TimeMs {
    let mut v = s.to_vec();
    v.sort_by(f64::total_cmp);
    TimeMs {
        median: v[v.len() / 2],
        min: v[0],
        max: v[v.len() - 1],
        runs: v.len() as u32,
        spread_pct: 0.0,
    }
}
pub struct Stopper {
    n: usize,
    max: usize,
}
impl Stopper {
    pub fn new(_min: usize, max: usize, _ms: f64, _tol: f64) -> Self {
        Stopper { n: 0, max }
    }
    pub fn push(&mut self, _ms: f64) -> bool {
        self.n += 1;
        self.n >= self.max
    }
}
pub fn fmt_ms(ms: f64) -> String {
    format!("{ms:.3} ms")
}
pub fn differ_beyond_noise(a: &TimeMs, b: &TimeMs) -> bool {
    (a.median - b.median).abs() > 0.01 * a.median
}
