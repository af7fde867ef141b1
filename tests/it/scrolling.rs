//! Nothing is cut off: every page of the real lessons can be read to its last line at small
//! terminal sizes, by keys and by the wheel, with a mark while more lies below; the
//! checkpoint keeps the question being asked in view, and an answer's explanation once given.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::course::bundle::CourseRoot;
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::views::prose;
use gpulab::ui::{App, Overlay, UiEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn app() -> App {
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let mut app = App::new(
        lessons,
        recording::newest(&root.recordings()),
        Progress::default(),
    );
    app.view.set_color(false);
    // Every lesson's figures shown (as `v` does), so its answer pages and checkpoint are
    // open: these tests read every page to its end.
    let ids: Vec<String> = app.reading.lessons().iter().map(|l| l.id.clone()).collect();
    for id in ids {
        app.reading.progress_mut().mark_revealed(&id);
    }
    app
}

/// Draw as the main loop does, keeping the frame's size for the keys.
fn draw(app: &mut App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let frame = t.draw(|f| f.render_widget(&*app, f.area())).unwrap();
    app.view.drawn(frame.area);
    t.backend().buffer().clone()
}

fn key(app: &mut App, c: KeyCode) {
    app.on_event(UiEvent::Key(KeyEvent::new(c, KeyModifiers::NONE)));
}

fn row(buf: &Buffer, r: Rect, y: u16) -> String {
    (r.x..r.x + r.width).map(|x| buf[(x, y)].symbol()).collect()
}

/// The prose pane's text rows and its bottom border.
fn pane(app: &App, buf: &Buffer) -> (Vec<String>, String) {
    let p = prose::areas(app, buf.area).prose;
    let inner = Rect::new(p.x + 1, p.y + 1, p.width - 2, p.height - 2);
    let rows = (inner.y..inner.y + inner.height)
        .map(|y| row(buf, inner, y))
        .collect();
    (rows, row(buf, p, p.y + p.height - 1))
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// Everything the pane shows of the page as it is scrolled one row at a time by `step`,
/// in order, and whether the first screen said there was more below.
fn read_page(app: &mut App, w: u16, h: u16, step: &dyn Fn(&mut App)) -> (Vec<String>, bool) {
    let buf = draw(app, w, h);
    let (first, border) = pane(app, &buf);
    let marked = border.contains("more below");
    let mut seen: Vec<String> = Vec::new();
    let (mut rows, mut border) = (first, border);
    for _ in 0..500 {
        if !border.contains("more below") {
            break;
        }
        seen.push(rows[0].clone());
        step(app);
        let buf = draw(app, w, h);
        (rows, border) = pane(app, &buf);
    }
    seen.extend(rows);
    (seen, marked)
}

fn every_page_reads_to_its_end(w: u16, h: u16) {
    let mut a = app();
    let mut cut = 0;
    for i in 0..a.reading.lessons().len() {
        a.reading.select(i);
        for p in 0..a.page_count() {
            a.reading.turn_to(0);
            for _ in 0..p {
                key(&mut a, KeyCode::Char('n'));
            }
            assert_eq!(a.reading.page(), p);
            let lesson = a.reading.lessons()[i].clone();
            let text = if a.on_checkpoint_page() {
                gpulab::ui::views::checkpoint::page(&a, &lesson).text
            } else {
                lesson.pages[p].text.clone()
            };
            let by_key = |a: &mut App| key(a, KeyCode::Char('J'));
            let (rows, marked) = read_page(&mut a, w, h, &by_key);
            let shown = words(&rows.join(" "));
            assert_eq!(
                shown,
                words(&text),
                "{} page {}: at {w}x{h}",
                lesson.id,
                p + 1
            );
            let first_screen = prose::view(&a, Rect::new(0, 0, w, h)).unwrap();
            cut += usize::from(marked);
            assert_eq!(
                marked,
                first_screen.content.rows.len() > first_screen.height,
                "{} page {}: more below is marked exactly when text is out of view",
                lesson.id,
                p + 1
            );
        }
    }
    assert!(
        cut > 0,
        "at {w}x{h} some page must need scrolling, or this test tests nothing"
    );
}

#[test]
fn every_page_reads_to_its_end_at_80x24() {
    every_page_reads_to_its_end(80, 24);
}

#[test]
fn every_page_reads_to_its_end_at_100x30() {
    every_page_reads_to_its_end(100, 30);
}

#[test]
fn the_wheel_and_page_keys_scroll_before_they_turn_the_page() {
    let mut a = app();
    let long = (0..a.reading.lessons().len())
        .find(|&i| {
            a.reading.select(i);
            let v = prose::view(&a, Rect::new(0, 0, 80, 24)).unwrap();
            v.content.rows.len() >= v.height + 3
        })
        .expect("a first page three rows longer than its pane at 80x24");
    a.reading.select(long);
    draw(&mut a, 80, 24);
    a.on_event(UiEvent::Wheel(true));
    draw(&mut a, 80, 24);
    assert_eq!(
        prose::view(&a, a.view.viewport()).unwrap().offset,
        3,
        "a notch is three rows"
    );
    a.on_event(UiEvent::Wheel(false));
    key(&mut a, KeyCode::PageDown);
    draw(&mut a, 80, 24);
    assert_eq!(a.reading.page(), 0, "PgDn scrolls while there is more");
    assert!(prose::view(&a, a.view.viewport()).unwrap().offset > 0);
    for _ in 0..50 {
        if a.reading.page() > 0 {
            break;
        }
        key(&mut a, KeyCode::PageDown);
        draw(&mut a, 80, 24);
    }
    assert!(a.reading.page() > 0, "at the end PgDn turns the page");
    let p = a.reading.page();
    key(&mut a, KeyCode::PageUp);
    assert_eq!(a.reading.page(), p - 1, "PgUp at the top goes back");
}

#[test]
fn the_checkpoint_keeps_the_question_in_view_and_answers_only_it() {
    // The lesson with the most checkpoint questions, at its checkpoint, none answered.
    let at_checkpoint = || {
        let mut a = app();
        let most = (0..a.reading.lessons().len())
            .max_by_key(|&i| a.reading.lessons()[i].checkpoint.len())
            .unwrap();
        a.reading.select(most);
        for _ in 0..a.reading.lessons()[most].pages.len() {
            key(&mut a, KeyCode::Char('n'));
        }
        assert!(a.on_checkpoint_page());
        a
    };
    let mut a = at_checkpoint();
    let lesson = a.reading.lessons()[a.reading.selected()].clone();
    assert!(lesson.checkpoint.len() >= 2);
    let (w, h) = (80, 24);
    for (qi, q) in lesson.checkpoint.iter().enumerate() {
        let buf = draw(&mut a, w, h);
        let mut shown = pane(&a, &buf).0.join(" ");
        let first_words = words(&q.q)[..2].join(" ");
        if qi > 0 {
            // The answer just given is explained on screen first.
            assert!(
                shown.contains("✓") || shown.contains("✗"),
                "answer {qi} explained in view:\n{shown}"
            );
            if !shown.contains(&first_words) {
                // A number key then brings the next question into view, answering nothing.
                key(&mut a, KeyCode::Char('1'));
                assert!(a.reading.answer(&lesson.id, qi).is_none());
                let buf = draw(&mut a, w, h);
                shown = pane(&a, &buf).0.join(" ");
            }
        }
        assert!(
            shown.contains(&first_words),
            "question {} in view:\n{shown}",
            qi + 1
        );
        key(&mut a, KeyCode::Char('1'));
        assert!(a.reading.answer(&lesson.id, qi).is_some());
    }
    // A question scrolled out of view is not answered by a number key.
    let mut a = at_checkpoint();
    draw(&mut a, w, h);
    for _ in 0..40 {
        key(&mut a, KeyCode::Char('J'));
    }
    let buf = draw(&mut a, w, h);
    let shown = pane(&a, &buf).0.join(" ");
    if !shown.contains(&words(&lesson.checkpoint[0].q)[..2].join(" ")) {
        key(&mut a, KeyCode::Char('2'));
        assert!(!a.reading.any_answer(), "question 1 is off screen");
        assert!(a.message.as_deref().unwrap().contains("not on screen"));
        // Answered once it is in view: the note goes with it.
        draw(&mut a, w, h);
        key(&mut a, KeyCode::Char('2'));
        assert!(a.reading.any_answer(), "question 1 is answered");
        let said = a.message.as_deref().unwrap_or_default();
        assert!(!said.contains("not on screen"), "{said}");
    }
}

#[test]
fn page_down_in_the_code_stops_at_its_last_line() {
    let mut a = app();
    a.view.open(Overlay::Code);
    draw(&mut a, 80, 24);
    for _ in 0..100 {
        key(&mut a, KeyCode::PageDown);
    }
    let buf = draw(&mut a, 80, 24);
    let src = &a.reading.lessons()[a.reading.selected()].variants[a.view.variant()].source;
    let last = src
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap()
        .trim();
    let text = gpulab::ui::buffer_to_text(&buf);
    let rows: Vec<&str> = text.lines().collect();
    let at = rows
        .iter()
        .rposition(|r| r.contains(last))
        .expect("the last line is shown");
    assert!(
        at >= rows.len() - 4,
        "the last line sits at the bottom, no blank below:\n{text}"
    );
}
