//! A variant with a shared-memory race, as the lab judges and shows it: its status names the
//! two lines, its time is never a valid speed (claims on it do not hold, the fastest is
//! another), and `shared.races` is a claim like any traced figure.

use gpulab::analysis::claims::evaluate;
use gpulab::analysis::describe::{race_lines, status};
use gpulab::cli::report::text_report;
use gpulab::course::claims::parse_claim;
use gpulab::model::builder::LessonBuilder;
use gpulab::model::results::*;
use gpulab::session::fold::blank_result;
use gpulab::ui::views::columns::{fastest, ratio_text};

const NAMES: [&str; 3] = ["global", "shared", "no-sync"];

fn race(count: u64) -> Race {
    Race {
        kind: RaceKind::WriteRead,
        first_line: Some(11),
        second_line: Some(14),
        block: 0,
        offset: 128,
        first_warp: 1,
        second_warp: 0,
        count,
        scope: RaceScope::Block,
        lanes: None,
        first_block: None,
        partial_barrier: None,
    }
}

/// Three correct, timed, traced variants; `no-sync` the fastest, with a race.
fn run() -> (gpulab::model::Lesson, LessonResult) {
    let l = LessonBuilder::new("stencil")
        .variant("global")
        .variant("shared")
        .variant("no-sync")
        .build();
    let mut r = blank_result(&l, Source::Live, None);
    for (v, ms) in r.variants.iter_mut().zip([2.0, 1.0, 0.9]) {
        v.correct = Some(true);
        v.time_ms = Some(TimeMs {
            median: ms,
            min: ms,
            max: ms,
            runs: 10,
            spread_pct: 0.1,
        });
        v.memory = Some(MemoryStats {
            races_checked: true,
            shared: SharedStats {
                requests: 100,
                ..Default::default()
            },
            ..Default::default()
        });
    }
    let m = r.variants[2].memory.as_mut().unwrap();
    m.races = vec![race(31), race(2)];
    m.races[1].kind = RaceKind::ReadWrite;
    (l, r)
}

fn judge(text: &str, r: &LessonResult) -> ClaimResult {
    evaluate(&parse_claim(text, &NAMES).unwrap(), r)
}

#[test]
fn the_status_names_both_lines_even_when_the_output_matched() {
    let (_, mut r) = run();
    assert_eq!(
        status(&r.variants[2]),
        "race: line 14 reads what line 11 writes, no barrier between"
    );
    assert_eq!(status(&r.variants[1]), "correct");
    r.variants[2].correct = Some(false);
    r.variants[2].error = Some("out[5] = 1, expected 2".into());
    assert!(status(&r.variants[2]).ends_with("; output WRONG"));
}

#[test]
fn a_racy_time_is_not_a_valid_speed() {
    let (l, r) = run();
    let faster = judge("no-sync faster than global by >= 1.5x", &r);
    assert_eq!(faster.holds, Some(false), "{}", faster.detail);
    assert!(faster.detail.contains("has a race"), "{}", faster.detail);
    let gbps = judge("no-sync time_ms < 5", &r);
    assert_eq!(gbps.holds, Some(false));
    // The fixed variant's claims stand.
    assert_eq!(
        judge("shared faster than global by >= 1.5x", &r).holds,
        Some(true)
    );
    assert_eq!(fastest(&r).map(|v| v.name.as_str()), Some("shared"));
    assert_eq!(ratio_text(&r.variants[2], fastest(&r)), None);
    let text = text_report(&l, &r);
    let row = text.lines().find(|l| l.starts_with("no-sync")).unwrap();
    let median = |row: &str| row.split_whitespace().nth(1).unwrap().to_string();
    assert!(median(row).starts_with('✗'), "{row}");
    let fixed = text.lines().find(|l| l.starts_with("shared")).unwrap();
    assert!(!median(fixed).starts_with('✗'), "{fixed}");
    assert!(row.contains("race: line 14 reads"), "{row}");
}

#[test]
fn shared_races_is_a_claim_and_needs_a_trace_that_followed_barriers() {
    let (_, mut r) = run();
    let racy = judge("no-sync shared.races > 0", &r);
    assert_eq!(racy.holds, Some(true));
    assert!(racy.detail.contains("= 33"), "{}", racy.detail);
    assert_eq!(judge("shared shared.races == 0", &r).holds, Some(true));
    assert_eq!(judge("no-sync shared.races == 0", &r).holds, Some(false));
    // A recording from before barriers were traced says nothing about races.
    r.variants[1].memory.as_mut().unwrap().races_checked = false;
    assert_eq!(judge("shared shared.races == 0", &r).holds, None);
    r.variants[0].memory = None;
    assert_eq!(judge("global shared.races == 0", &r).holds, None);
}

#[test]
fn the_column_lists_the_races_or_says_there_are_none() {
    let (_, r) = run();
    let lines = race_lines(r.variants[2].memory.as_ref().unwrap());
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        (
            "race ×31: line 14 reads what line 11 writes (warps 1 and 0)".to_string(),
            true
        )
    );
    assert_eq!(
        lines[1].0,
        "race ×2: line 14 writes what line 11 reads (warps 1 and 0)"
    );
    assert_eq!(
        race_lines(r.variants[1].memory.as_ref().unwrap()),
        [("shared: no race between warps".to_string(), false)]
    );
}

#[test]
fn old_recordings_load_and_say_nothing_about_races() {
    let json = r#"{"shared":{"requests":1,"wavefronts":1,"ideal_wavefronts":1},
        "global":{"requests":0,"sectors":0},"constant":{"requests":0,"distinct":0},
        "local":{"bytes":0},"traced_blocks":1,"total_blocks":1}"#;
    let m: MemoryStats = serde_json::from_str(json).unwrap();
    assert!(!m.races_checked && m.races.is_empty());
    assert!(race_lines(&m).is_empty());
    // And a new one round-trips with its races, their kinds in words.
    let (_, r) = run();
    let m = r.variants[2].memory.clone().unwrap();
    let text = serde_json::to_string(&m).unwrap();
    assert!(text.contains(r#""kind":"write-read""#), "{text}");
    assert_eq!(serde_json::from_str::<MemoryStats>(&text).unwrap(), m);
}

/// The stencil lesson's screen with a live result: the racy column says so in red words,
/// and its time is not called the fastest.
#[test]
fn the_racy_column_names_its_race_on_screen() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let (lessons, errors) =
        gpulab::course::load_course(&gpulab::course::bundle::CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let at = lessons.iter().position(|l| l.id == "stencil").unwrap();
    let (_, mut r) = run();
    r.lesson = "stencil".into();
    let mut app = gpulab::ui::App::new(lessons, None, Default::default());
    app.view.set_color(false);
    app.reading.select(at);
    app.runs.show("stencil", r);
    let mut t = Terminal::new(TestBackend::new(200, 60)).unwrap();
    t.draw(|f| f.render_widget(&app, f.area())).unwrap();
    let screen = gpulab::ui::buffer_to_text(t.backend().buffer());
    assert!(screen.contains("✗ race: line 14 reads what"), "{screen}");
    assert!(screen.contains("race ×31: line 14 reads"), "{screen}");
    assert!(screen.contains("shared: no race between"), "{screen}");
    assert!(screen.matches("fastest").count() == 1, "{screen}");
}
