//! Recordings: a round trip through the file, and staleness when a kernel changes.

use crate::support::common;

use common::NOT_YET_RECORDED;
use gpulab::course::bundle::CourseRoot;
use gpulab::model::results::Source;
use gpulab::session::recording::{self, Recording};

#[test]
fn the_shipped_recording_replays_every_lesson_labelled_and_current() {
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty());
    let rec = recording::newest(&root.recordings()).expect("a recording ships");
    assert!(
        rec.label().starts_with("recorded on NVIDIA H100"),
        "{}",
        rec.label()
    );
    for l in &lessons {
        let waiting = NOT_YET_RECORDED.iter().find(|(id, _)| *id == l.id);
        let Some(r) = rec.replay(l) else {
            let (_, why) = waiting.unwrap_or_else(|| panic!("{} is not in the recording", l.id));
            eprintln!("{} is not recorded yet: {why}", l.id);
            continue;
        };
        assert!(
            waiting.is_none(),
            "{} is recorded now: take it off NOT_YET_RECORDED",
            l.id
        );
        assert_eq!(r.source, Source::Recorded);
        assert!(r.device.as_ref().unwrap().recorded_at.is_some());
        for v in &r.variants {
            assert!(!v.stale, "{} {} is stale: re-record", l.id, v.name);
            // A copy over the link has no kernel: no compile report, nothing traced.
            let copy = l.variant(&v.name).is_some_and(|x| x.transfer.is_some());
            assert!(
                copy || (v.ptxas.is_some() && v.memory.is_some()),
                "{} {}",
                l.id,
                v.name
            );
            // A racy variant (the stencil's no-sync) may have matched or not: its race is
            // what was recorded, and its time, if any, is never shown as a speed.
            if gpulab::analysis::describe::first_race(v).is_some() {
                continue;
            }
            assert_eq!(v.correct, Some(true), "{} {}", l.id, v.name);
            assert!(v.time_ms.is_some(), "{} {}", l.id, v.name);
        }
    }
}

#[test]
fn a_changed_kernel_or_define_marks_its_entry_stale() {
    let root = CourseRoot::Bundled;
    let (mut lessons, _) = gpulab::course::load_course(&root);
    let rec = recording::newest(&root.recordings()).unwrap();
    let l = lessons.iter_mut().find(|l| l.id == "shared-banks").unwrap();
    l.variants[2].defines.push(("EXTRA".into(), "1".into()));
    l.variants[3].source.push_str("\n// edited\n");
    let r = rec.replay(l).unwrap();
    let stale: Vec<&str> = r
        .variants
        .iter()
        .filter(|v| v.stale)
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(
        stale,
        [l.variants[2].name.as_str(), l.variants[3].name.as_str()]
    );
}

/// A variant added to a lesson after its recording was made has no figures to show: it is
/// marked stale, so nothing takes it for measured, and said to be unrecorded, not changed.
#[test]
fn a_variant_added_since_the_recording_says_it_is_not_recorded() {
    let root = CourseRoot::Bundled;
    let (mut lessons, _) = gpulab::course::load_course(&root);
    let rec = recording::newest(&root.recordings()).unwrap();
    let l = lessons.iter_mut().find(|l| l.id == "shared-banks").unwrap();
    let mut added = l.variants[0].clone();
    added.name = "added".into();
    l.variants.push(added);
    let r = rec.replay(l).unwrap();
    let v = r.variants.iter().find(|v| v.name == "added").unwrap();
    assert!(v.stale && v.unrecorded && v.time_ms.is_none());
    let status = gpulab::analysis::describe::status(v);
    assert_eq!(status, "not recorded (added since the recording)");
    // The variants the recording has are neither.
    assert!(
        r.variants
            .iter()
            .filter(|v| v.name != "added")
            .all(|v| !v.unrecorded)
    );
}

#[test]
fn write_then_parse_gives_the_same_recording() {
    let root = CourseRoot::Bundled;
    let rec = recording::newest(&root.recordings()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = recording::default_path(dir.path(), &rec.device);
    assert!(path.ends_with("nvidia-h100-80gb-hbm3.json"));
    rec.write(&path).unwrap();
    let back = Recording::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(back, rec);
    let mut bad = serde_json::to_value(&rec).unwrap();
    bad["format"] = 99.into();
    let err = Recording::parse(&bad.to_string()).unwrap_err().to_string();
    assert!(err.contains("format 99"), "{err}");
}

#[test]
fn a_lesson_missing_from_the_main_recording_is_replayed_from_another_with_its_own_device() {
    let root = CourseRoot::Bundled;
    let (lessons, _) = gpulab::course::load_course(&root);
    let main = recording::newest(&root.recordings()).unwrap();
    let moved = main.lessons[0].lesson.clone();
    let mut big = main.clone();
    big.lessons.remove(0);
    let mut small = main.clone();
    small.device.name = "Another GPU".into();
    small.recorded_at = "2030-01-01T00:00:00Z".into();
    small.lessons.retain(|l| l.lesson == moved);
    let files = [
        (
            "small.json".to_string(),
            serde_json::to_string(&small).unwrap(),
        ),
        ("big.json".to_string(), serde_json::to_string(&big).unwrap()),
    ];
    let merged = recording::newest(&files).unwrap();
    // The recording with more lessons labels the course, though the other is newer.
    assert_eq!(merged.device.name, main.device.name);
    let l = lessons.iter().find(|l| l.id == moved).unwrap();
    let r = merged.replay(l).unwrap();
    let d = r.device.unwrap();
    assert_eq!(d.name, "Another GPU");
    assert_eq!(d.recorded_at.as_deref(), Some("2030-01-01T00:00:00Z"));
    // What `gpulab run` says of the figures names the lesson's own device and date.
    assert_eq!(
        merged.label_of(&moved),
        "recorded on Another GPU, 2030-01-01"
    );
    let own = merged.label_of(&big.lessons[0].lesson);
    assert!(
        own.starts_with(&format!("recorded on {}, ", main.device.name)),
        "{own}"
    );
    let other = lessons
        .iter()
        .find(|l| l.id == big.lessons[0].lesson)
        .unwrap();
    assert_eq!(
        merged.replay(other).unwrap().device.unwrap().name,
        main.device.name
    );
}
