//! A lesson's exercises as the loader resolves them (docs/lesson-format.md, Exercises): the
//! learner's kernel runs as one more variant of the lesson, named `yours`.

use super::claim::Claim;
use super::lesson::Variant;
use serde::{Deserialize, Serialize};

/// The name the learner's kernel runs under, in claims and results.
pub const YOURS: &str = "yours";

/// The name the exercise's own solution runs under when it is the correctness oracle.
pub const SOLUTION: &str = "solution";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exercise {
    /// Unique in the course: `gpulab ex start ID`.
    pub id: String,
    pub title: String,
    /// The task in a few lines.
    pub task: String,
    /// As written, relative to the course root.
    pub starter_path: String,
    pub starter: String,
    pub solution_path: String,
    pub solution: String,
    /// The variant the learner's kernel runs as: the solution's text until the learner's
    /// file replaces it.
    pub yours: Variant,
    /// 1 (a first step) to 3 (a puzzle).
    #[serde(default)]
    pub difficulty: u8,
    /// About how long it should take, in minutes.
    #[serde(default)]
    pub minutes: u32,
    /// Revealed one at a time.
    pub hints: Vec<String>,
    /// Claims about `yours` (and the lesson's variants it is compared with).
    pub checks: Vec<Claim>,
    /// Extra problem sizes the output is checked at (each a set of overrides of the
    /// lesson's `problem`), beside the lesson's own.
    pub sizes: Vec<Vec<(String, i64)>>,
    /// The extra sizes a check on the CPU interpreter runs at, where the lesson gives them
    /// (the interpreter runs every thread: a size the GPU checks in a millisecond can take
    /// it seconds); else `sizes`.
    #[serde(default)]
    pub sizes_cpu: Option<Vec<Vec<(String, i64)>>>,
    /// The problem sizes a check runs at while the learner edits (a save, not a check
    /// asked for), so the figures come back soon; empty: the lesson's own.
    #[serde(default)]
    pub editing: Vec<(String, i64)>,
    /// Fresh inputs per size.
    pub seeds: u32,
    /// The time checks are judged at every extra size too (`yours`, the solution and the
    /// variants they name timed there): for an exercise whose technique shows in no count
    /// (a cache hint, an order of passes), so that a kernel cannot take it at the lesson's
    /// size alone.
    #[serde(default)]
    pub times_at_every_size: bool,
    /// The main run's outputs are compared with the solution, not the lesson's reference.
    pub solution_reference: bool,
    /// Input buffers (by index) filled with random values for the exercise, whatever the
    /// lesson fills them with, so that an output cannot be right by accident.
    pub random_inputs: Vec<usize>,
    /// Scalar arguments drawn afresh for every run a check makes, so that a kernel cannot
    /// hold the value every run would otherwise pass (`{ f32: .., random: [lo, hi] }`).
    #[serde(default)]
    pub drawn_args: Vec<DrawnArg>,
    /// Problem sizes drawn afresh in `[lo, hi]` by every check on a GPU, one more size
    /// beside `sizes` (`drawn_size: { n: [lo, hi] }`): a kernel right at every size it
    /// can know of (the lesson's, each of `sizes`) and wrong between them cannot know
    /// this one. Empty: none.
    #[serde(default)]
    pub drawn_size: Vec<DrawnSize>,
}

/// A problem size of an exercise's drawn size (`Exercise::drawn_size`): its name and range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawnSize {
    pub name: String,
    pub lo: i64,
    pub hi: i64,
}

/// An `f32` argument of `yours` (and the solution) drawn in `[lo, hi)` for every run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DrawnArg {
    /// Its index in the variant's `args`.
    pub index: usize,
    pub lo: f32,
    pub hi: f32,
}

impl DrawnArg {
    /// The value for a run, from `seed`: the same seed gives `yours` and the solution one
    /// value.
    pub fn draw(&self, seed: u64) -> f32 {
        let bits = super::splitmix(seed ^ (self.index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let unit = (bits >> 40) as f32 / (1u64 << 24) as f32;
        let v = self.lo + (self.hi - self.lo) * unit;
        // Rounding may reach `hi` itself, which the range leaves out.
        if v < self.hi { v } else { self.lo }
    }
}

impl Exercise {
    /// The extra sizes a check on a GPU runs at: `sizes`, then, where the exercise draws
    /// one, its drawn size, each value taken from `seed` (a check's own, fresh each time),
    /// evenly in its logarithm: a range from a million to two hundred million is as likely
    /// to give a value below ten million as above it.
    pub fn checked_sizes(&self, seed: u64) -> Vec<Vec<(String, i64)>> {
        let mut out = self.sizes.clone();
        if !self.drawn_size.is_empty() {
            let mut h = seed;
            let drawn = (self.drawn_size.iter())
                .map(|d| {
                    // SplitMix64's step: each size its own draw from the one seed.
                    h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
                    let mut z = h;
                    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                    z ^= z >> 31;
                    let u = (z >> 11) as f64 / (1u64 << 53) as f64;
                    let (lo, hi) = (d.lo as f64, d.hi as f64);
                    let v = (lo.ln() + u * (hi.ln() - lo.ln())).exp().round() as i64;
                    (d.name.clone(), v.clamp(d.lo, d.hi))
                })
                .collect();
            out.push(drawn);
        }
        out
    }

    /// The difficulty as filled dots out of three (`●●○`), so a column of them reads at a
    /// glance.
    pub fn difficulty_dots(&self) -> String {
        (1..=3)
            .map(|i| if i <= self.difficulty { '●' } else { '○' })
            .collect()
    }

    /// The variants the checks compare `yours` with.
    pub fn compared(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in &self.checks {
            for name in c.variants() {
                if name != YOURS && !out.iter().any(|n| n == name) {
                    out.push(name.to_string());
                }
            }
        }
        out
    }
}
