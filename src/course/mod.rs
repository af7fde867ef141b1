//! The course on disk: YAML lesson files loaded and validated into `model::Lesson`, with every
//! problem reported at `file:line:col`; claims, expressions, spans, the bundled lessons, and
//! `check_paths`, the one check of lesson files and folders.

pub mod bundle;
pub mod claims;
pub mod confine;
pub mod device_sizes;
pub mod expr;
pub mod glossary;
pub mod launch_limits;
pub mod load;
mod pp_scan;
pub mod prose;
pub mod schema;
pub mod signature;
pub mod text;
pub mod tried;
pub mod yaml;

pub use load::{
    Broken, Course, CourseError, check_paths, load_course, load_file, load_file_sized, open_course,
    reload_sized,
};
