//! The words `gpulab run` prints for each variant, and that they are the screen's words:
//! one compile error said once for every variant it hit, and a lost variant called a fault
//! or a failure, never a wrong answer.

use gpulab::analysis::describe::status;
use gpulab::cli::report::text_report;
use gpulab::model::builder::LessonBuilder;
use gpulab::model::results::{LessonResult, Source};
use gpulab::session::fold::blank_result;

fn three_variants() -> (gpulab::model::Lesson, LessonResult) {
    let l = LessonBuilder::new("words")
        .variant("a")
        .variant("b")
        .variant("c")
        .build();
    let r = blank_result(&l, Source::Live, None);
    (l, r)
}

#[test]
fn a_shared_compile_error_is_said_once_naming_its_variants() {
    let (l, mut r) = three_variants();
    let error = "kernels/words/k.cu(3): error: identifier \"oops\" is undefined";
    r.variants[0].error = Some(error.into());
    r.variants[1].error = Some(error.into());
    r.variants[2].correct = Some(true);
    let text = text_report(&l, &r);
    assert_eq!(text.matches("is undefined").count(), 1, "{text}");
    assert!(text.contains("compile error (variants a, b):"), "{text}");
    assert_eq!(text.matches("compile error (below)").count(), 2, "{text}");
    assert!(text.contains("correct"), "{text}");
}

#[test]
fn a_compile_error_of_one_variant_stays_in_its_row() {
    let (l, mut r) = three_variants();
    r.variants[1].error = Some("k.cu(3): error: expected a \";\"".into());
    let text = text_report(&l, &r);
    assert!(text.contains("error: k.cu(3): error: expected"), "{text}");
    assert!(!text.contains("(below)"), "{text}");
}

#[test]
fn a_lost_variant_is_a_fault_or_a_failure_not_wrong_on_screen_and_in_the_report() {
    let (l, mut r) = three_variants();
    let lost = [
        (
            0,
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "`a` faulted: an illegal",
            "FAULT: ",
        ),
        (1, "timeout", "`b` did not finish", "FAILED: "),
        (2, "crashed", "the worker process ended", "FAILED: "),
    ];
    for (i, failure, error, _) in lost {
        r.variants[i].correct = Some(false);
        r.variants[i].error = Some(error.into());
        r.variants[i].failure = Some(failure.into());
    }
    let text = text_report(&l, &r);
    for (i, _, error, word) in lost {
        let s = status(&r.variants[i]);
        assert_eq!(s, format!("{word}{error}"));
        assert!(
            text.contains(&s),
            "the report says what the screen says: {text}"
        );
    }
    assert!(!text.contains("WRONG"), "{text}");
}

#[test]
fn a_real_mismatch_is_still_wrong() {
    let (_, mut r) = three_variants();
    r.variants[0].correct = Some(false);
    r.variants[0].error = Some("out[3] = 1, expected 2".into());
    assert_eq!(status(&r.variants[0]), "WRONG: out[3] = 1, expected 2");
}

/// Figures the table has no column for (atomics here, asynchronous copies and the rest
/// alike) are printed under it with their variant's name; a run without them adds nothing.
#[test]
fn atomics_and_copies_have_their_figures_under_the_table() {
    use gpulab::model::results::{AtomicCounts, MemoryStats};
    let (l, mut r) = three_variants();
    assert!(!text_report(&l, &r).contains("more traced figures"));
    let mut m = MemoryStats::default();
    m.atomics.global_red = AtomicCounts {
        requests: 10,
        sectors: 40,
    };
    m.atomics.updates = 320;
    m.atomics.addresses = 10;
    r.variants[1].memory = Some(m);
    let text = text_report(&l, &r);
    let below = text
        .split("more traced figures:")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let lines: Vec<&str> = below.lines().skip(1).take(2).collect();
    assert_eq!(
        lines,
        [
            format!("  {:<20} global atomics 4.00 sectors/request", "b"),
            format!("  {:<20} atomics 32.0 lanes/address", ""),
        ],
        "{text}"
    );
}

/// The heading says which ceiling a percentage is of: the copy's for a lesson about the
/// GPU's memory, the link's (with its generation and width) for one about the host.
#[test]
fn the_heading_names_the_ceiling_the_percentages_are_of() {
    use gpulab::model::host::PcieLink;
    use gpulab::model::results::DeviceInfo;
    let (mut l, mut r) = three_variants();
    r.peak.copy_gbps = Some(2970.0);
    let text = text_report(&l, &r);
    assert!(text.contains("2970 GB/s = 100%"), "{text}");
    assert!(!text.contains("link peak"), "{text}");
    l.metrics.link_peak = true;
    r.peak.link_gbps = Some(63.0);
    r.device = Some(DeviceInfo {
        pcie: Some(PcieLink {
            gen_now: 5,
            width_now: 16,
            gen_max: 5,
            width_max: 16,
        }),
        ..Default::default()
    });
    let text = text_report(&l, &r);
    assert!(
        text.contains("link peak (PCIe Gen 5 x16, one way, theoretical): 63 GB/s = 100%"),
        "{text}"
    );
    assert!(!text.contains("2970 GB/s = 100%"), "{text}");
}

/// A title that leads with the lesson's id is not told the id again (#35 item 16): a try's
/// report opened "try · try: copy.cu".
#[test]
fn the_heading_does_not_say_the_id_twice() {
    let l = LessonBuilder::new("try")
        .title("try: copy.cu")
        .variant("a")
        .build();
    let r = blank_result(&l, Source::Live, None);
    let text = text_report(&l, &r);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("try: copy.cu · "), "{first}");
    let (l, r) = three_variants();
    let text = text_report(&l, &r);
    assert!(text.starts_with("words · "), "{text}");
}
