//! (to be written) Loading and validation.
use super::Lesson;
use super::bundle::CourseRoot;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LessonError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

pub fn load_course(_root: &CourseRoot) -> (Vec<Lesson>, Vec<LessonError>) {
    (Vec::new(), Vec::new())
}

pub fn load_file(_root: &CourseRoot, _file: &str, _text: &str) -> Result<Lesson, Vec<LessonError>> {
    Err(Vec::new())
}

impl std::fmt::Display for LessonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}
