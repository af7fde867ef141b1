//! The lesson an exercise check sends to the worker: the lesson's buffers and launch rules,
//! the variants the checks compare with, the reference, and the learner's kernel as one
//! more variant, `yours`. Its `expect` is the exercise's checks, so the one fold judges
//! them like any lesson's claims.

use crate::model::exercise::{Exercise, SOLUTION, YOURS};
use crate::model::{ElemType, Init, Lesson, Reference};

/// What `yours` is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oracle {
    /// The lesson's reference (a built-in one, or its reference variant).
    Lesson,
    /// The exercise's solution, where the lesson's reference is a variant: at the
    /// exercise's extra sizes, which a lesson's own kernels need not handle.
    Solution,
}

/// The learner's kernel, from `path` with text `src`.
pub struct Yours<'a> {
    pub src: &'a str,
    pub path: &'a str,
}

/// `lesson` cut down to `keep` and the reference, with `yours` appended.
pub fn exercise_lesson(
    lesson: &Lesson,
    ex: &Exercise,
    yours: &Yours,
    oracle: Oracle,
    keep: &[String],
) -> Lesson {
    let mut l = lesson.clone();
    l.exercises.clear();
    l.sweeps.clear();
    l.expect = ex.checks.clone();
    for &i in &ex.random_inputs {
        if let Some(b) = l.buffers.get_mut(i) {
            b.init = random_init(b.ty);
        }
    }
    let reference = match (&lesson.reference, oracle) {
        (Reference::Variant(i), Oracle::Lesson) => Some(lesson.variants[*i].name.clone()),
        (Reference::Variant(_), Oracle::Solution) => Some(SOLUTION.to_string()),
        _ => None,
    };
    l.variants
        .retain(|v| keep.contains(&v.name) || reference.as_deref() == Some(v.name.as_str()));
    let mut mine = ex.yours.clone();
    mine.source = yours.src.to_string();
    mine.source_path = yours.path.to_string();
    l.variants.push(mine);
    if reference.as_deref() == Some(SOLUTION) || keep.iter().any(|k| k == SOLUTION) {
        let mut s = ex.yours.clone();
        s.name = SOLUTION.to_string();
        l.variants.push(s);
    }
    if let Some(r) = reference
        && let Some(i) = l.variants.iter().position(|v| v.name == r)
    {
        l.reference = Reference::Variant(i);
    }
    l
}

/// The lesson that only compiles `yours` (no GPU): the other variants are left out.
pub fn compile_only(lesson: &Lesson, ex: &Exercise, yours: &Yours) -> Lesson {
    let mut l = exercise_lesson(lesson, ex, yours, Oracle::Lesson, &[]);
    l.variants.retain(|v| v.name == YOURS);
    if matches!(l.reference, Reference::Variant(_)) {
        l.reference = Reference::Variant(0);
    }
    l
}

/// The range the format gives `init: random` without one.
fn random_init(ty: ElemType) -> Init {
    match ty {
        ElemType::F32 | ElemType::F64 => Init::Random { lo: -1.0, hi: 1.0 },
        _ => Init::Random {
            lo: 0.0,
            hi: 65536.0,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::bundle::CourseRoot;

    fn shipped(id: &str) -> (Lesson, Exercise) {
        let (lessons, errors) = crate::course::load_course(&CourseRoot::Bundled);
        assert!(errors.is_empty(), "{errors:?}");
        for l in lessons {
            if let Some(e) = l.exercises.iter().find(|e| e.id == id).cloned() {
                return (l, e);
            }
        }
        panic!("no exercise {id}");
    }

    #[test]
    fn yours_comes_last_with_the_learners_text_and_the_reference_follows_its_variant() {
        let (l, e) = shipped("private-array");
        let y = Yours {
            src: "// mine",
            path: "w/private-array.cu",
        };
        let x = exercise_lesson(&l, &e, &y, Oracle::Lesson, &["dynamic-index".into()]);
        let names: Vec<&str> = x.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["dynamic-index", "static-index", YOURS]);
        assert_eq!(x.variants[2].source, "// mine");
        assert_eq!(x.reference, Reference::Variant(1));
        assert_eq!(x.expect, e.checks);
        let s = exercise_lesson(&l, &e, &y, Oracle::Solution, &[]);
        let names: Vec<&str> = s.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, [YOURS, SOLUTION]);
        assert_eq!(s.reference, Reference::Variant(1));
        assert_eq!(s.variants[1].source, e.solution);
    }

    #[test]
    fn every_variant_of_an_exercise_divides_its_measures_by_its_own_defines() {
        // The chase's figure is cycles per step, ITERS steps: `yours` and the solution
        // take 4000 steps, the lesson's rungs their own. The lesson cut down and added to
        // must not hand one variant another's divisor.
        let (l, e) = shipped("warp-chase");
        let y = Yours { src: "", path: "" };
        let keep = [
            "register".to_string(),
            "l2".to_string(),
            SOLUTION.to_string(),
        ];
        let x = exercise_lesson(&l, &e, &y, Oracle::Solution, &keep);
        assert!(x.variants.len() >= 4, "{:?}", x.variants.len());
        for v in &x.variants {
            let iters: f64 = (v.defines.iter().rev())
                .find(|(k, _)| k == "ITERS")
                .map(|(_, n)| n.parse().unwrap())
                .unwrap();
            assert_eq!(v.per, vec![iters; x.measures.len()], "{}", v.name);
        }
        let yours = x.variants.iter().find(|v| v.name == YOURS).unwrap();
        assert_eq!(yours.per[0], 4000.0);
    }

    #[test]
    fn a_random_override_replaces_a_constant_fill() {
        let (l, e) = shipped("aos-to-soa");
        let y = Yours { src: "", path: "" };
        let x = exercise_lesson(&l, &e, &y, Oracle::Lesson, &[]);
        let p = x.buffers.iter().find(|b| b.name == "p").unwrap();
        assert!(matches!(p.init, Init::Random { .. }), "{:?}", p.init);
        assert!(matches!(
            l.buffers.iter().find(|b| b.name == "p").unwrap().init,
            Init::Const(_)
        ));
    }
}
