//! One rule for sources (#35 items 6 and 7, and the third assert of its walk): every figure
//! on screen says where it came from. Drawn for every lesson at 80×24 and 120×40 as after a
//! run on the CPU interpreter with no GPU (the interpreter's verdicts and traces in front, the
//! recording's times beside them), and from the recording alone: the header names the
//! source, and every time on the cards, in the list of variants and in the detail pane is
//! labelled as the recording's where the interpreter's figures are in front.

use gpulab::course::bundle::CourseRoot;
use gpulab::model::results::{LessonResult, Source};
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::{App, Overlay};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn app() -> App {
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships");
    let mut a = App::new(lessons, Some(rec), Progress::default());
    a.view.set_color(false);
    a.runs.set_caps(Some(gpulab::session::fold::Capabilities {
        no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
        ..Default::default()
    }));
    a
}

fn draw(a: &App, w: u16, h: u16) -> Vec<String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(a, f.area())).unwrap();
    let text = gpulab::ui::buffer_to_text(t.backend().buffer());
    text.lines().map(String::from).collect()
}

/// What the CPU interpreter gives of `rec`: its verdicts, compile reports and traces, no
/// time, rate or occupancy (a GPU's figures), as the fold leaves a run on it.
fn as_interpreted(rec: &LessonResult) -> LessonResult {
    let mut r = rec.clone();
    r.source = Source::Interpreted;
    r.device = None;
    r.knobs.clear();
    for v in &mut r.variants {
        v.time_ms = None;
        v.samples_ms.clear();
        (v.gbps, v.gflops, v.pct_of_peak) = (None, None, None);
        v.occupancy = None;
        v.clocks = None;
    }
    r
}

/// The byte offsets in `row` of each time written in it ("958 µs", "2.10 ms").
pub(crate) fn times(row: &str) -> Vec<usize> {
    let mut at = Vec::new();
    for unit in [" µs", " ms"] {
        for (i, _) in row.match_indices(unit) {
            let before = row[..i].chars().next_back();
            let after = row[i + unit.len()..].chars().next();
            if before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(char::is_alphabetic)
            {
                at.push(i);
            }
        }
    }
    at
}

/// The rows of `screen` below the prose pane and above the status lines: the figures.
pub(crate) fn figure_rows(screen: &[String]) -> &[String] {
    let end = screen.len().saturating_sub(2);
    let start = (1..end)
        .find(|&y| screen[y].contains("└") && screen[y - 1].contains("│"))
        .map_or(end, |y| y + 1);
    &screen[start.min(end)..end]
}

/// Each time in the figures that is not labelled the recording's: on its card
/// ("recorded: 958 µs") or, in the list of variants, by the list's title.
fn unlabelled_times(screen: &[String]) -> Vec<String> {
    let rows = figure_rows(screen);
    let list = rows.iter().any(|r| r.contains("times: recorded"));
    let mut found = Vec::new();
    for r in rows {
        for i in times(r) {
            // The figure's own digits, back to the space before them.
            let start = r[..i].rfind(' ').map_or(0, |s| s + 1);
            if !list && !r[..start].ends_with("recorded: ") {
                found.push(r.trim().to_string());
            }
        }
    }
    found
}

/// The rows inside the detail pane, from its title's row down to its bottom edge, each
/// without the frame and what lies left of it.
fn pane_rows(screen: &[String]) -> Vec<String> {
    let top = (screen.iter())
        .position(|r| r.contains(" · all figures "))
        .expect("the detail pane");
    // The pane's corner: the last one before its title (the lesson list's may be left of it).
    let title = &screen[top][..screen[top].find(" · all figures ").unwrap()];
    let left = title.chars().count() - 1 - title.chars().rev().position(|c| c == '┌').unwrap();
    (screen[top + 1..].iter())
        .map(|r| r.chars().skip(left + 1).collect::<String>())
        .take_while(|r| !r.starts_with('─') && !r.contains("i closes"))
        .map(|r| r.trim_matches(|c| c == '│' || c == ' ').to_string())
        .collect()
}

#[test]
fn every_figure_says_where_it_came_from() {
    let mut a = app();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for i in 0..a.reading.lessons().len() {
        a.reading.select(i);
        let id = a.reading.lessons()[i].id.clone();
        let Some(rec) = a.runs.results().get(&id).cloned() else {
            continue;
        };
        // The recording alone, shown: the header names it.
        a.reading.progress_mut().mark_revealed(&id);
        for (w, h) in [(80, 24), (120, 40)] {
            let screen = draw(&a, w, h);
            if !screen[0].contains("recorded on") {
                wrong.push(format!("{id} at {w}x{h}: {}", screen[0]));
            }
        }
        // After a run on the CPU interpreter: its figures in front, the recording's times
        // beside them, each labelled, at both sizes, on every variant's detail pane too.
        a.runs.show_interpreted(&id.clone(), as_interpreted(&rec));
        for (w, h) in [(80, 24), (120, 40)] {
            a.view.close();
            let screen = draw(&a, w, h);
            if !screen[0].contains("CPU interpreter · times recorded on") {
                wrong.push(format!("{id} at {w}x{h}: {}", screen[0]));
            }
            for t in unlabelled_times(&screen) {
                wrong.push(format!("{id} at {w}x{h}, unlabelled: {t}"));
            }
            checked += 1;
            for v in 0..rec.variants.len() {
                a.view.focus(v);
                a.view.open(Overlay::Detail);
                let inside = pane_rows(&draw(&a, w, h));
                if !inside[0].contains("figures: run on the CPU interpreter") {
                    wrong.push(format!("{id} {v} detail: {}", inside[0]));
                }
                for r in &inside {
                    if !times(r).is_empty() && !r.starts_with("recorded: ") {
                        wrong.push(format!("{id} {v} detail at {w}x{h}, unlabelled: {r}"));
                    }
                }
            }
            a.view.focus(0);
        }
        a.view.close();
        a.runs.forget_interpreted(&id);
    }
    assert!(checked >= 40, "{checked} screens");
    assert!(
        wrong.is_empty(),
        "{} figures without their source:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The check itself: a time is found and told labelled from not.
#[test]
fn a_time_is_found_and_its_label_read() {
    assert_eq!(times("recorded: 958 µs ±0.1%").len(), 1);
    assert_eq!(times("16.1 ms and 2.10 ms").len(), 2);
    assert!(times("500 msecs, 3 msec, ms").is_empty());
    let screen: Vec<String> = [
        "head",
        "┌ prose",
        "│text│",
        "└────┘",
        "│a 958 µs│",
        "s",
        "k",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(unlabelled_times(&screen).len(), 1);
    let labelled = screen
        .clone()
        .into_iter()
        .map(|r| r.replace("a 958", "recorded: 958"));
    assert!(unlabelled_times(&labelled.collect::<Vec<_>>()).is_empty());
}
