//! How far the learner has come, in one line: lessons finished and exercises passed, from
//! the two progress files. The lab and `gpulab list` both say it with this.

use super::exercise::progress::ExerciseBook;
use super::progress::Progress;
use crate::model::Lesson;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overview {
    pub lessons: usize,
    pub finished: usize,
    pub exercises: usize,
    /// Passed on a GPU, every check judged.
    pub passed: usize,
    /// Not passed, but every check the CPU interpreter can judge held there.
    pub passed_cpu: usize,
}

impl Overview {
    pub fn of(lessons: &[Lesson], progress: &Progress, book: &ExerciseBook) -> Overview {
        let exercises = lessons.iter().flat_map(|l| &l.exercises);
        let (mut passed, mut passed_cpu) = (0, 0);
        for x in exercises.clone() {
            let p = book.get(&x.id);
            if p.passed {
                passed += 1;
            } else if p.passed_cpu {
                passed_cpu += 1;
            }
        }
        Overview {
            lessons: lessons.len(),
            finished: lessons.iter().filter(|l| progress.is_done(&l.id)).count(),
            exercises: exercises.count(),
            passed,
            passed_cpu,
        }
    }

    /// "7 of 18 lessons finished · 2 of 20 exercises passed (1 more on the CPU)".
    pub fn line(&self) -> String {
        let mut s = format!("{} of {} lessons finished", self.finished, self.lessons);
        if self.exercises > 0 {
            s.push_str(&format!(
                " · {} of {} exercises passed",
                self.passed, self.exercises
            ));
        }
        if self.passed_cpu > 0 {
            s.push_str(&format!(" ({} more on the CPU)", self.passed_cpu));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_finished_lessons_and_passed_exercises() {
        let root = crate::course::bundle::CourseRoot::Bundled;
        let (lessons, errors) = crate::course::load_course(&root);
        assert!(errors.is_empty(), "{errors:?}");
        let mut progress = Progress::default();
        let mut book = ExerciseBook::default();
        let none = Overview::of(&lessons, &progress, &book);
        assert_eq!((none.finished, none.passed), (0, 0));
        assert_eq!(none.lessons, lessons.len());
        let first = &lessons[0];
        progress.mark_run(&first.id);
        let ex = &first.exercises[0].id;
        book.record_attempt(ex, true, Some(1.0));
        let some = Overview::of(&lessons, &progress, &book);
        assert_eq!((some.finished, some.passed), (1, 1));
        assert!(
            some.line()
                .starts_with(&format!("1 of {} lessons finished", lessons.len()))
        );
        assert!(
            some.line()
                .contains(&format!("1 of {} exercises passed", some.exercises))
        );
    }
}
