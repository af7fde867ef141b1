use gpulab::lesson::bundle::CourseRoot;
use gpulab::lesson::load::check_paths;
use gpulab::lesson::{Arg, Init, Reference, load_course};
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

#[test]
fn valid_course_loads_in_order() {
    let (lessons, errors) = load_course(&CourseRoot::Dir(fixtures().join("lessons")));
    assert!(errors.is_empty(), "{errors:#?}");
    let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["copy-basics", "tiny-transpose"]);
    println!("{:#?}", lessons[0]);
}
