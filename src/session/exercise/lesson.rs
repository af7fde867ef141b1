//! The lesson an exercise check sends to the worker: the lesson's buffers and launch rules,
//! the variants the checks compare with, the reference, and the learner's kernel as one
//! more variant, `yours`. Its `expect` is the exercise's checks, so the one fold judges
//! them like any lesson's claims.

use crate::model::exercise::{Exercise, SOLUTION, YOURS};
use crate::model::{Arg, ElemType, Init, Lesson, Reference};

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
    // Where the solution is the oracle, the arguments drawn at random are drawn now, one
    // value for `yours` and the solution: every lesson made for a run holds its own.
    let mut built = ex.yours.clone();
    if reference.as_deref() == Some(SOLUTION) {
        let seed = super::sample::fresh_seed();
        for d in &ex.drawn_args {
            if let Some(a) = built.args.get_mut(d.index) {
                *a = Arg::F32(d.draw(seed));
            }
        }
    }
    let mut mine = built.clone();
    mine.source = yours.src.to_string();
    mine.source_path = yours.path.to_string();
    l.variants.push(mine);
    if reference.as_deref() == Some(SOLUTION) || keep.iter().any(|k| k == SOLUTION) {
        let mut s = built;
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
    let (lo, hi) = ty.random_range();
    Init::Random { lo, hi }
}

pub(super) fn oracle(solution: bool) -> Oracle {
    if solution {
        Oracle::Solution
    } else {
        Oracle::Lesson
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
    fn a_drawn_argument_is_drawn_afresh_for_yours_and_the_solution_alike() {
        let (l, e) = shipped("aos-to-soa");
        let d = *e.drawn_args.first().expect("aos-to-soa draws its step");
        let y = Yours { src: "", path: "" };
        let step = |x: &Lesson, name: &str| {
            let v = x.variants.iter().find(|v| v.name == name).unwrap();
            match v.args[d.index] {
                Arg::F32(f) => f,
                ref other => panic!("{other:?}"),
            }
        };
        let mut seen = Vec::new();
        for _ in 0..8 {
            let x = exercise_lesson(&l, &e, &y, Oracle::Solution, &[]);
            let (mine, solution) = (step(&x, YOURS), step(&x, SOLUTION));
            assert_eq!(mine, solution);
            assert!((d.lo..d.hi).contains(&mine), "{mine}");
            seen.push(mine);
        }
        seen.dedup();
        assert!(seen.len() > 1, "every lesson drew {seen:?}");
        // Where the lesson's reference is the oracle, its own value stands: the reference
        // variant passes it too.
        let x = exercise_lesson(&l, &e, &y, Oracle::Lesson, &[]);
        assert_eq!(step(&x, YOURS), 0.25);
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
