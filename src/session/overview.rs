//! How far the learner has come, in one line: lessons finished and exercises passed, from
//! the two progress files. The lab and `gpulab list` both say it with this.

use super::exercise::progress::ExerciseBook;
use super::progress::Progress;
use crate::model::Lesson;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overview {
    /// Every lesson file of the course, those that do not load among them.
    pub lessons: usize,
    /// The lesson files that do not load: counted in `lessons`, never finished.
    pub not_loaded: usize,
    pub finished: usize,
    pub exercises: usize,
    /// Passed on a GPU, every check judged.
    pub passed: usize,
    /// Not passed, but every check the CPU interpreter can judge held there.
    pub passed_cpu: usize,
}

impl Overview {
    /// `lessons`: those that load; `not_loaded`: how many lesson files do not. The lab and
    /// `gpulab list` count so alike ("0 of 21 lessons finished (1 does not load)").
    pub fn of<'a>(
        lessons: impl Iterator<Item = &'a Lesson> + Clone,
        not_loaded: usize,
        progress: &Progress,
        book: &ExerciseBook,
    ) -> Overview {
        let exercises = lessons.clone().flat_map(|l| &l.exercises);
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
            lessons: lessons.clone().count() + not_loaded,
            not_loaded,
            finished: lessons.filter(|l| progress.is_done(&l.id)).count(),
            exercises: exercises.count(),
            passed,
            passed_cpu,
        }
    }

    /// "7 of 18 lessons finished (1 does not load) · 2 of 20 exercises passed (1 more on
    /// the CPU)".
    pub fn line(&self) -> String {
        let mut s = format!("{} of {} lessons finished", self.finished, self.lessons);
        match self.not_loaded {
            0 => {}
            1 => s.push_str(" (1 does not load)"),
            n => s.push_str(&format!(" ({n} do not load)")),
        }
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
        let none = Overview::of(lessons.iter(), 0, &progress, &book);
        assert_eq!((none.finished, none.passed), (0, 0));
        assert_eq!(none.lessons, lessons.len());
        let first = &lessons[0];
        progress.mark_run(&first.id);
        let ex = &first.exercises[0].id;
        book.record_attempt(ex, true, Some(1.0));
        let some = Overview::of(lessons.iter(), 0, &progress, &book);
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
