//! Inputs kept between a learner's checks: a save is checked on the inputs of the save
//! before (each launch still poisons the outputs), so it need not wait for fresh random
//! numbers, nor for the reference to run again on the same inputs. Runs that do not keep
//! inputs (the output checked at other sizes) leave them in place while the GPU has room.

use super::hostdata::HostData;
use super::launch::Buffers;
use crate::analysis::fingerprint::variant_hash;
use crate::model::protocol::RunOptions;
use crate::model::{Lesson, Reference};

pub struct Kept {
    /// What the inputs were made for (`key`).
    pub key: String,
    pub bufs: Buffers,
    /// The outputs as they should be on these inputs, with what made them
    /// (`reference_fingerprint`).
    pub expected: Option<(String, Vec<(usize, HostData)>)>,
    /// cuBLAS's speed on these inputs, when it was timed (a `builtin: sgemm` reference):
    /// a save checked on them again takes it from here rather than a tenth of a second of
    /// cuBLAS again.
    pub cublas_gflops: Option<f64>,
}

/// What makes the expected outputs: the builtin reference, or the reference variant as it
/// is now (its source, defines and launch).
pub fn reference_fingerprint(lesson: &Lesson, opts: &RunOptions) -> String {
    match &lesson.reference {
        Reference::Variant(i) => {
            let v = super::variant::capped(&lesson.variants[*i], opts.max_blocks);
            format!("variant {}", variant_hash(lesson, &v))
        }
        other => format!("{other:?}"),
    }
}

/// The expected outputs worth keeping with the inputs: any that were made (cuBLAS's too:
/// made once on these inputs, they stay what they were).
pub fn keepable(
    made_by: String,
    expected: Vec<(usize, HostData)>,
) -> Option<(String, Vec<(usize, HostData)>)> {
    (!expected.is_empty()).then_some((made_by, expected))
}

/// What kept inputs must match to be used again: the lesson's buffers and textures as they
/// were made, and the guard zones.
pub fn key(lesson: &Lesson, opts: &RunOptions) -> String {
    format!(
        "{}|{:?}|{:?}|{}",
        lesson.id, lesson.buffers, lesson.textures, opts.guard
    )
}

/// The kept inputs, taken out of `slot`, when a run that keeps inputs is made for them;
/// else None, and what is kept stays.
pub fn take_for(slot: &mut Option<Kept>, key: &str, opts: &RunOptions) -> Option<Kept> {
    let usable = opts.keep_inputs && slot.as_ref().is_some_and(|k| k.key == key);
    if usable { slot.take() } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(keep: bool) -> RunOptions {
        RunOptions {
            keep_inputs: keep,
            ..RunOptions::default()
        }
    }

    #[test]
    fn nothing_kept_is_nothing_taken_and_the_key_follows_the_guard() {
        let mut empty: Option<Kept> = None;
        assert!(take_for(&mut empty, "k", &opts(true)).is_none());
        let lesson = crate::model::builder::LessonBuilder::new("l").build();
        let guarded = RunOptions {
            guard: true,
            ..opts(true)
        };
        assert_ne!(key(&lesson, &opts(true)), key(&lesson, &guarded));
    }

    #[test]
    fn expected_outputs_are_known_again_only_from_the_same_reference() {
        use crate::model::builder::{LessonBuilder, variant};
        let mut lesson = LessonBuilder::new("l").variant("a").build();
        lesson.reference = Reference::Variant(0);
        let before = reference_fingerprint(&lesson, &opts(true));
        lesson.variants[0].source.push_str("// edited");
        let edited = reference_fingerprint(&lesson, &opts(true));
        assert_ne!(before, edited, "an edited reference is another reference");
        let capped = RunOptions {
            max_blocks: 1,
            ..opts(true)
        };
        lesson.variants[0] = variant("a");
        lesson.variants[0].grid = [64, 1, 1];
        assert_ne!(
            reference_fingerprint(&lesson, &opts(true)),
            reference_fingerprint(&lesson, &capped),
            "a capped grid writes less"
        );
        let outs = vec![(1, HostData::U32(vec![7]))];
        assert!(keepable("f".into(), outs.clone()).is_some());
        assert!(keepable("f".into(), Vec::new()).is_none());
        lesson.reference = Reference::Sgemm {
            a: 0,
            b: 1,
            to: 2,
            rows: 1,
            cols: 1,
            depth: 1,
        };
        let sgemm = reference_fingerprint(&lesson, &opts(true));
        lesson.reference = Reference::Sgemm {
            a: 0,
            b: 1,
            to: 2,
            rows: 2,
            cols: 1,
            depth: 1,
        };
        assert_ne!(
            sgemm,
            reference_fingerprint(&lesson, &opts(true)),
            "cuBLAS at another size is another reference"
        );
    }
}
