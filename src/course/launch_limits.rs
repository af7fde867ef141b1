//! What `gpulab check` refuses of a launch without compiling it: dynamic shared memory past
//! what a block may have on the lesson's architecture, which no GPU of it would launch.
//! Refused at the `smem:` that asks for it (a lesson still loads, so that a run can show
//! the launch refused, as a fault corpus does on purpose).

use super::bundle::CourseRoot;
use super::load::CourseError;
use super::yaml::spans::{Pos, Spans};
use crate::analysis::limits::{size, smem_per_block};
use crate::model::Lesson;
use crate::model::target::{Gpus, target};

/// Every variant of `lesson` whose dynamic shared memory is past its architecture's limit
/// per block, at the place its `smem:` is written; `text` is the lesson file's.
pub fn shared_memory_problems(lesson: &Lesson, text: &str) -> Vec<CourseError> {
    // The architecture the lesson is compiled for where no GPU says otherwise.
    let arch = target(Some(lesson), &Gpus::default()).arch;
    let Some(limit) = smem_per_block(&arch) else {
        return Vec::new();
    };
    let spans = Spans::parse(text).ok();
    let at = |name: &str| -> Pos {
        let Some(s) = &spans else {
            return Pos::START;
        };
        // The variant's index in the file, by its name; its `smem:` or, inherited through
        // `like:`, the variant itself.
        (0..)
            .map_while(|i| Some((i, s.scalar(&format!("variants[{i}].name"))?)))
            .find(|(_, n)| *n == name)
            .map_or(Pos::START, |(i, _)| {
                s.locate(&format!("variants[{i}].launch.smem"))
            })
    };
    (lesson.variants.iter())
        .filter(|v| v.smem > limit)
        .map(|v| {
            let pos = at(&v.name);
            CourseError {
                file: lesson.file.clone(),
                line: pos.line,
                col: pos.col,
                message: format!(
                    "variant `{}` asks for {} ({} bytes) of dynamic shared memory; a block may \
                     have at most {} on {arch}, static shared memory included",
                    v.name,
                    size(v.smem.into()),
                    v.smem,
                    size(limit.into())
                ),
            }
        })
        .collect()
}

/// `shared_memory_problems` of every lesson, each read again from where it was loaded.
pub fn launch_problems(root: &CourseRoot, lessons: &[Lesson]) -> Vec<CourseError> {
    (lessons.iter())
        .filter(|l| l.variants.iter().any(|v| v.smem > 0))
        .flat_map(|l| match root.lesson_text(&l.file) {
            Some(text) => shared_memory_problems(l, &text),
            None => shared_memory_problems(l, ""),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Variant;
    use crate::model::builder::{LessonBuilder, variant};

    #[test]
    fn shared_memory_past_the_architectures_limit_is_refused_at_its_smem() {
        let text = "variants:\n  - name: fits\n    launch: { smem: 232448 }\n  \
                    - name: big\n    launch: { grid: 1, smem: 300000 }\n";
        let with_smem = |name: &str, smem: u32| Variant {
            smem,
            ..variant(name)
        };
        let mut l = LessonBuilder::new("l")
            .with_variant(with_smem("fits", 227 << 10))
            .with_variant(with_smem("big", 300_000))
            .build();
        l.file = "lessons/01-l.yaml".into();
        let errs = shared_memory_problems(&l, text);
        assert_eq!(errs.len(), 1, "{errs:?}");
        let e = errs[0].to_string();
        assert!(
            e.starts_with("lessons/01-l.yaml:5:30: variant `big` asks for 293 KiB"),
            "{e}"
        );
        assert!(e.contains("at most 227 KiB on sm_90"), "{e}");
        // A lesson that needs a GPU with less shared memory a block is held to its limit.
        l.requires.cc = Some((12, 0));
        assert_eq!(shared_memory_problems(&l, text).len(), 2);
    }
}
