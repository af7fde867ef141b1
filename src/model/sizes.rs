//! A lesson at other problem sizes, as a run on the CPU interpreter checks it: what changes
//! when the loader reads a lesson at its `problem_cpu` (or an exercise's sizes), and only
//! that, so a request carries these figures instead of a second whole lesson.

use super::{Arg, Lesson, Reference};
use serde::{Deserialize, Serialize};

/// One variant's launch at the other sizes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizedLaunch {
    pub variant: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub smem: u32,
    pub args: Vec<Arg>,
}

/// The figures of a lesson that its problem sizes decide: the sizes themselves, each
/// buffer's length, each variant's launch and the reference's shape. A variant's kernel
/// (its source and defines) is the lesson's own at every size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckSizes {
    pub problem: Vec<(String, i64)>,
    /// Each buffer's length, in the lesson's order.
    pub lens: Vec<u64>,
    pub launches: Vec<SizedLaunch>,
    pub reference: Reference,
}

/// The sizes do not fit the lesson they are put over.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the CPU sizes give {given} buffer lengths for a lesson of {buffers} buffers")]
pub struct SizesMismatch {
    pub given: usize,
    pub buffers: usize,
}

impl CheckSizes {
    /// The figures of `sized`, a lesson as the loader read it at other sizes.
    pub fn of(sized: &Lesson) -> CheckSizes {
        CheckSizes {
            problem: sized.problem.clone(),
            lens: sized.buffers.iter().map(|b| b.len).collect(),
            launches: (sized.variants.iter())
                .map(|v| SizedLaunch {
                    variant: v.name.clone(),
                    grid: v.grid,
                    block: v.block,
                    smem: v.smem,
                    args: v.args.clone(),
                })
                .collect(),
            reference: sized.reference.clone(),
        }
    }

    /// `lesson` at these sizes: its buffers' lengths, its variants' launches and its
    /// reference replaced; a variant these sizes do not launch is left out (it is not
    /// checked at them).
    pub fn apply(&self, lesson: &Lesson) -> Result<Lesson, SizesMismatch> {
        if self.lens.len() != lesson.buffers.len() {
            return Err(SizesMismatch {
                given: self.lens.len(),
                buffers: lesson.buffers.len(),
            });
        }
        let mut l = lesson.clone();
        l.problem = self.problem.clone();
        for (b, &len) in l.buffers.iter_mut().zip(&self.lens) {
            b.len = len;
        }
        l.variants = (self.launches.iter())
            .filter_map(|s| {
                let mut v = lesson.variant(&s.variant)?.clone();
                (v.grid, v.block, v.smem) = (s.grid, s.block, s.smem);
                v.args = s.args.clone();
                Some(v)
            })
            .collect();
        l.reference = self.reference.clone();
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;

    #[test]
    fn sizes_put_over_a_lesson_give_the_sized_lesson_back() {
        let big = LessonBuilder::new("x").variant("a").variant("b").build();
        let mut small = big.clone();
        small.problem = vec![("n".into(), 1000)];
        small.buffers.iter_mut().for_each(|b| b.len = 1000);
        small.variants[0].grid = [4, 1, 1];
        small.variants[0].args = vec![Arg::Buffer(0), Arg::I32(1000)];
        small.variants.remove(1);
        small.reference = Reference::Variant(0);
        let got = CheckSizes::of(&small).apply(&big).unwrap();
        assert_eq!(got, small);
    }

    #[test]
    fn sizes_for_another_lesson_are_refused() {
        let big = LessonBuilder::new("x").variant("a").build();
        let mut s = CheckSizes::of(&big);
        s.lens.push(7);
        let e = s.apply(&big).unwrap_err();
        assert_eq!(e.given, big.buffers.len() + 1);
    }
}
