//! The lab at 80×24 from the recording, as a learner without a GPU meets it: every figure of
//! a card reachable in the detail pane, the help scrolled to its end with the lesson's own
//! keys first, a checkpoint answer's explanation in view, the code view at its costliest
//! line with its figures whole, the glossary, the lesson list at any width, and the lines
//! around the screen shortened by whole words.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::course::bundle::CourseRoot;
use gpulab::session::progress::Progress;
use gpulab::session::recording;
use gpulab::ui::{App, Overlay, UiEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const W: u16 = 80;
const H: u16 = 24;

fn app(lesson: &str) -> App {
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
    a.reading.select_id(lesson).unwrap();
    // The figures shown (as `v` does): the answer pages and the checkpoint are open.
    a.reading.progress_mut().mark_revealed(lesson);
    a
}

/// Draw as the main loop does, keeping the frame's size for the keys.
fn draw(a: &mut App) -> String {
    let mut t = Terminal::new(TestBackend::new(W, H)).unwrap();
    let frame = t.draw(|f| f.render_widget(&*a, f.area())).unwrap();
    a.view.drawn(frame.area);
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

fn key(a: &mut App, c: KeyCode) {
    a.on_event(UiEvent::Key(KeyEvent::new(c, KeyModifiers::NONE)));
}

fn ch(a: &mut App, c: char) {
    key(a, KeyCode::Char(c));
}

/// The words of a screen in order, its frames left out, so text wrapped inside a pop-up
/// reads on from row to row.
fn flat(s: &str) -> String {
    let s: String = s.chars().filter(|c| !"│┌┐└┘─".contains(*c)).collect();
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every screen of a pop-up scrolled a row at a time to its end, joined.
fn scroll_to_end(a: &mut App) -> (Vec<String>, String) {
    let mut screens = vec![draw(a)];
    for _ in 0..200 {
        key(a, KeyCode::Down);
        let s = draw(a);
        if s == *screens.last().unwrap() {
            break;
        }
        screens.push(s);
    }
    let all = flat(&screens.join("\n"));
    (screens, all)
}

#[test]
fn a_card_in_full_through_the_detail_pane() {
    let mut a = app("global-coalescing");
    ch(&mut a, 'v');
    let cards = draw(&mut a);
    // Seven cards at 80×24 would have room for their notes alone: the variants are a list
    // instead, a row each with its time, rate and verdict; the traced figures are in the
    // detail pane.
    let r = a.result().unwrap().clone();
    for v in &r.variants {
        let t = gpulab::analysis::stats::fmt_ms(v.time_ms.as_ref().unwrap().median);
        let row = cards.lines().find(|l| l.contains(&format!(" {} ", v.name)));
        let row = row.unwrap_or_else(|| panic!("{} has a row:\n{cards}", v.name));
        assert!(row.contains(&t) && row.contains("correct"), "{row}");
    }
    let v = &r.variants[a.view.variant()];
    assert!(
        v.memory.is_some(),
        "the recording traced {}: its sectors are a figure to reach",
        v.name
    );
    assert!(!cards.contains("sectors/request"), "{cards}");
    assert!(
        cards.contains("i: all figures"),
        "the list says how to see a variant's every figure:\n{cards}"
    );
    ch(&mut a, 'i');
    assert_eq!(a.view.overlay(), Overlay::Detail);
    let (screens, all) = scroll_to_end(&mut a);
    assert!(all.contains("sectors/request"), "{all}");
    assert!(all.contains("traced"), "{all}");
    for c in &v.expect {
        let last = c.claim.split_whitespace().last().unwrap();
        assert!(all.contains(last), "claim {:?} reachable:\n{all}", c.claim);
    }
    insta::assert_snapshot!("detail_pane_80x24", screens[0]);
    // → shows the next variant's figures, from its top.
    key(&mut a, KeyCode::Right);
    let next = draw(&mut a);
    assert!(next.contains(&r.variants[1].name), "{next}");
    ch(&mut a, 'i');
    assert_eq!(a.view.overlay(), Overlay::None);
}

/// More variants than the list has rows: the focused one stays in view, marked, and the
/// list says how many are above and below it; the GEMM's rates are shares of cuBLAS.
#[test]
fn the_list_of_variants_keeps_the_focused_one_in_view() {
    let mut a = app("gemm");
    ch(&mut a, 'v');
    let first = draw(&mut a);
    let r = a.result().unwrap().clone();
    let n = r.variants.len();
    let last = &r.variants[n - 1].name;
    assert!(first.contains("▸ naive"), "{first}");
    assert!(!first.contains(&format!(" {last} ")), "{first}");
    assert!(first.contains("more ┘"), "{first}");
    for _ in 1..n {
        key(&mut a, KeyCode::Right);
    }
    let end = draw(&mut a);
    assert!(end.contains(&format!("▸ {last} ")), "{end}");
    assert!(end.contains("above"), "{end}");
    assert!(!end.contains("▸ naive"), "{end}");
    let pct = r.variants[n - 1].pct_of_peak.unwrap();
    assert!(end.contains(&format!("GFLOP/s {pct:.0}%")), "{end}");
    assert!(
        end.contains("variants · % of cuBLAS"),
        "the list says what % is of: {end}"
    );
}

#[test]
fn help_scrolls_and_lists_the_lessons_own_keys_first() {
    // A lesson with knobs and a sweep: its keys (+ -, o, *, g) come before the rest.
    let mut a = app("global-coalescing");
    ch(&mut a, '?');
    let first = draw(&mut a);
    let own = first.find("This lesson's own keys").expect(&first);
    let common = first.find("previous / next row").unwrap_or(usize::MAX);
    assert!(own < common, "{first}");
    for k in ["turn the focused variant's knob", "knob table"] {
        assert!(
            flat(&first).contains(k),
            "{k} on the first screen:\n{first}"
        );
    }
    assert!(first.contains("▼ more"), "{first}");
    let (screens, all) = scroll_to_end(&mut a);
    assert!(screens.len() > 1, "the help scrolls at 80×24");
    let last = screens.last().unwrap();
    assert!(!last.contains("▼ more"), "{last}");
    for (_, what) in gpulab::ui::views::overlays::KEYS
        .iter()
        .chain(gpulab::ui::views::overlays::MARKS)
        .chain(gpulab::ui::views::overlays::VIEW_KEYS)
    {
        assert!(all.contains(&flat(what)), "{what:?} reachable:\n{all}");
    }
    assert!(
        all.contains("weak memory ordering are not modelled"),
        "{all}"
    );
    insta::assert_snapshot!("help_scrolled_80x24", last);
    // `g` from the help: the glossary.
    ch(&mut a, 'g');
    assert_eq!(a.view.overlay(), Overlay::Glossary);
    let (_, all) = scroll_to_end(&mut a);
    for t in gpulab::course::glossary::TERMS {
        assert!(all.contains(&flat(t.means)), "{} reachable:\n{all}", t.term);
    }
}

#[test]
fn a_checkpoint_answer_keeps_its_explanation_in_view() {
    let mut a = app("shared-banks");
    let n = a.page_count();
    for _ in 1..n {
        ch(&mut a, 'n');
    }
    assert!(a.on_checkpoint_page());
    draw(&mut a);
    let l = a.lesson().unwrap().clone();
    // A wrong answer: its explanation says which one is right.
    let wrong = (l.checkpoint[0].answer + 1) % l.checkpoint[0].choices.len();
    ch(&mut a, char::from(b'1' + wrong as u8));
    let screen = draw(&mut a);
    assert!(
        screen.contains("✗"),
        "the ✗ and its explanation are in view:\n{screen}"
    );
    let why_end = l.checkpoint[0].why.split_whitespace().last().unwrap();
    assert!(flat(&screen).contains(why_end), "{why_end:?}:\n{screen}");
    insta::assert_snapshot!("checkpoint_feedback_80x24", screen);
    // The next question is one scroll away, and then answered as it should be.
    let mut asked = false;
    for _ in 0..10 {
        ch(&mut a, 'J');
        let s = draw(&mut a);
        if s.contains("press the number of your answer") {
            asked = true;
            break;
        }
    }
    assert!(asked || l.checkpoint.len() == 1);
    if l.checkpoint.len() > 1 {
        ch(&mut a, char::from(b'1' + l.checkpoint[1].answer as u8));
        let s = draw(&mut a);
        assert!(s.contains("✓"), "{s}");
    }
}

#[test]
fn the_code_view_opens_at_its_costliest_line_with_its_figures_whole() {
    let mut a = app("global-coalescing");
    ch(&mut a, 'v');
    // The strided variant: its load costs the most.
    a.view.focus(
        a.lesson()
            .unwrap()
            .variants
            .iter()
            .position(|v| v.name == "stride-32")
            .unwrap(),
    );
    draw(&mut a);
    ch(&mut a, 'c');
    assert_eq!(a.view.overlay(), Overlay::Code);
    let screen = draw(&mut a);
    let v = &a.lesson().unwrap().variants[a.view.variant()];
    let line = gpulab::ui::views::code::costliest_line(&a, v).expect("traced");
    let marked = format!("{line:>4}▶");
    assert!(
        screen.contains(&marked),
        "line {line} marked on screen:\n{screen}"
    );
    assert!(
        !screen.lines().any(|l| l.starts_with("│   1 ")),
        "not at line 1:\n{screen}"
    );
    // Every figure on screen is whole: "◀ … sectors/request" never cut at the border.
    let figs: Vec<&str> = screen.lines().filter(|l| l.contains('◀')).collect();
    assert!(!figs.is_empty(), "{screen}");
    for f in figs {
        let inner = f.trim_end_matches('│').trim_end();
        assert!(
            inner.ends_with("request") || inner.ends_with("lanes") || inner.ends_with(')'),
            "{f:?}\n{screen}"
        );
    }
    insta::assert_snapshot!("code_view_costliest_80x24", screen);
    // Sideways: the line numbers and the figures stay.
    ch(&mut a, '>');
    let side = draw(&mut a);
    assert!(side.contains(&marked), "{side}");
    assert!(side.contains("columns in"), "{side}");
    assert_eq!(
        side.lines().filter(|l| l.contains('◀')).count(),
        screen.lines().filter(|l| l.contains('◀')).count()
    );
}

#[test]
fn the_lines_around_the_screen_shorten_by_whole_words() {
    let mut a = app("global-coalescing");
    let screen = draw(&mut a);
    let header = screen.lines().next().unwrap();
    let date = a
        .result()
        .unwrap()
        .device
        .as_ref()
        .unwrap()
        .recorded_at
        .clone()
        .unwrap();
    assert!(
        header.contains(&date[..10]),
        "the recording's date stays: {header}"
    );
    ch(&mut a, 'v');
    let screen = draw(&mut a);
    let keys = screen.lines().last().unwrap();
    for k in ["? more keys", "c code", "h heatmap", "d diff"] {
        assert!(keys.contains(k), "{k} in {keys:?}");
    }
    // A long message takes a second row, cut only between words.
    a.message = Some("word ".repeat(40).trim_end().to_string());
    let screen = draw(&mut a);
    let rows: Vec<&str> = screen.lines().filter(|l| l.starts_with(" word")).collect();
    assert_eq!(rows.len(), 2, "{screen}");
    assert!(rows[1].trim_end().ends_with("word…"), "{screen}");
}

#[test]
fn the_lesson_list_and_the_progress_at_any_width() {
    let mut a = app("global-coalescing");
    let narrow = draw(&mut a);
    assert!(!narrow.contains("Lessons"), "{narrow}");
    ch(&mut a, 'L');
    let shown = draw(&mut a);
    assert!(shown.contains("Lessons"), "{shown}");
    assert!(
        shown.contains("of 18 finished") || shown.contains("finished"),
        "{shown}"
    );
    ch(&mut a, 'L');
    assert!(!draw(&mut a).contains("Lessons"));
    ch(&mut a, '?');
    let help = draw(&mut a);
    let n = a.reading.lessons().len();
    assert!(
        help.contains(&format!("0 of {n} lessons finished")),
        "{help}"
    );
}

#[test]
fn the_first_page_to_use_a_word_points_to_the_glossary() {
    let mut a = app("memory-ladder");
    let screen = draw(&mut a);
    assert!(screen.contains(" w: "), "{screen}");
    assert!(screen.contains("w new words"), "{screen}");
    let first = a.page_terms()[0].term;
    ch(&mut a, 'w');
    assert_eq!(a.view.overlay(), Overlay::Glossary);
    let g = draw(&mut a);
    // The first row inside the pop-up, below the header and the pop-up's top edge.
    let row = g.lines().nth(2).unwrap();
    assert!(row.contains(first), "opens at {first}: {row}\n{g}");
    // A later lesson's first page uses those words again, and does not point to them.
    ch(&mut a, 'q');
    ch(&mut a, 'n');
    assert!(a.page_terms().iter().all(|t| t.term != first));
}

#[test]
fn leaving_an_exercise_leaves_its_message() {
    let mut a = app("memory-ladder");
    ch(&mut a, 'j');
    assert!(a.exercises.open().is_some());
    let on = draw(&mut a);
    assert!(on.contains("e copies the starter"), "{on}");
    // Back up to the lesson, which has no exercise of its own on screen.
    ch(&mut a, 'k');
    let off = draw(&mut a);
    assert!(!off.contains("e copies the starter"), "{off}");
    assert!(a.message.is_none());
}

/// The lab on an exercise with many hints, its workspace where a learner's would be.
fn exercise_app() -> App {
    let mut a = app("memory-ladder");
    a.exercises = gpulab::ui::state::exercise::Exercises::new(
        Some(gpulab::session::workspace::Workspace {
            dir: "/home/learner/.local/share/gpulab/exercises".into(),
        }),
        Default::default(),
        None,
    );
    ch(&mut a, 'j');
    assert!(a.exercises.open().is_some());
    a
}

#[test]
fn a_hint_given_and_a_solution_opened_come_into_view() {
    use gpulab::session::exercise::report::{CheckLine, CheckReport, Mark};
    let mut a = exercise_app();
    draw(&mut a);
    let n = a.exercises.open().unwrap().ex().hints.len();
    assert!(n >= 1);
    for i in 1..=n {
        ch(&mut a, 't');
        let s = draw(&mut a);
        assert!(
            s.contains(&format!("Hint {i} of {n}")),
            "hint {i} in view:\n{s}"
        );
    }
    // A passing check: the solution, as a diff, on screen.
    let x = a.exercises.open().unwrap();
    let id = x.ex().id.clone();
    let mut result =
        gpulab::session::fold::blank_result(x.lesson(), gpulab::model::results::Source::Live, None);
    result
        .variants
        .retain(|v| v.name == gpulab::model::exercise::YOURS);
    let report = CheckReport {
        exercise: id.clone(),
        live: true,
        compile_error: None,
        ptxas: None,
        time_ms: None,
        solution_ms: None,
        lines: vec![CheckLine {
            check: "yours is correct".into(),
            mark: Mark::Pass,
            detail: "stands for a check's words".into(),
            at: None,
        }],
        result,
    };
    a.on_event(UiEvent::Worker(gpulab::ui::WorkerEvent::Checked {
        exercise: id,
        outcome: Ok(Box::new(report)),
    }));
    let s = draw(&mut a);
    assert!(s.contains("✓ passed"), "the solution in view:\n{s}");
}

/// Without a GPU and without NVRTC, `r` says how to get NVRTC, whole on an 80-column
/// status line, beside where the figures come from.
#[test]
fn without_nvrtc_r_says_how_to_get_it() {
    let mut a = app("global-coalescing");
    ch(&mut a, 'r');
    let screen = flat(&draw(&mut a));
    assert!(
        screen.contains(
            "pip install nvidia-cuda-nvrtc nvidia-cuda-nvdisasm lets the CPU interpreter run it"
        ),
        "{screen}"
    );
    assert!(
        screen.contains("the figures shown are the recording's"),
        "{screen}"
    );
}

/// Esc is "back" (#35 item 12): from an exercise to its lesson; at the top it says how to
/// quit and does not; q quits.
#[test]
fn esc_goes_back_and_never_quits_at_once() {
    let mut a = exercise_app();
    let lesson = a.reading.selected();
    key(&mut a, KeyCode::Esc);
    assert!(a.exercises.open().is_none(), "back on the lesson");
    assert_eq!(a.reading.selected(), lesson);
    assert!(!a.quit);
    key(&mut a, KeyCode::Esc);
    assert!(!a.quit, "Esc at the top does not quit");
    assert!(flat(&draw(&mut a)).contains("nothing to go back to: q quits"));
    ch(&mut a, 'q');
    assert!(a.quit);
}

fn draw_at(a: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    let frame = t.draw(|f| f.render_widget(&*a, f.area())).unwrap();
    a.view.drawn(frame.area);
    gpulab::ui::buffer_to_text(t.backend().buffer())
}

/// One rule for hidden figures (#35 item 3): before r or v no view or pane shows a
/// measured figure — not the cards (the compile report included: local-spills asks for
/// the stack frame), not the detail pane, the code view's costliest lines or the diff.
#[test]
fn nothing_measured_shows_before_r_or_v_in_any_view() {
    let mut a = app("local-spills");
    *a.reading.progress_mut() = Progress::default();
    assert!(!a.revealed());
    let v = a.result().unwrap().variants[a.view.variant()].clone();
    let regs = format!("{} regs", v.ptxas.as_ref().unwrap().registers);
    for (w, h) in [(80, 24), (120, 40)] {
        let screen = draw_at(&mut a, w, h);
        assert!(!screen.contains(&regs), "{w}x{h}: {screen}");
        assert!(screen.contains("predict first"), "{w}x{h}: {screen}");
    }
    ch(&mut a, 'i');
    let detail = draw_at(&mut a, 120, 40);
    assert!(!detail.contains(&regs), "{detail}");
    key(&mut a, KeyCode::Esc);
    ch(&mut a, 'c');
    let code = flat(&draw_at(&mut a, 120, 40));
    assert!(!code.contains("costliest lines:"), "{code}");
    assert!(code.contains("figures hidden until you predict"), "{code}");
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Right);
    ch(&mut a, 'd');
    let diff = flat(&draw_at(&mut a, 120, 40));
    assert!(diff.contains("figures hidden until you predict"), "{diff}");
    assert!(!diff.contains(" ms "), "{diff}");
    key(&mut a, KeyCode::Esc);
    // Once shown, every view has them.
    ch(&mut a, 'v');
    key(&mut a, KeyCode::Left);
    ch(&mut a, 'i');
    let shown = draw_at(&mut a, 120, 40);
    assert!(shown.contains(&regs), "{regs}: {shown}");
    key(&mut a, KeyCode::Esc);
    ch(&mut a, 'c');
    assert!(flat(&draw_at(&mut a, 120, 40)).contains("costliest lines:"));
}

/// At 80×24 the list of variants keeps the figures its lesson is about (#35 item 10):
/// registers and occupancy in the occupancy lesson, the stack frame and spills in
/// local-spills.
#[test]
fn the_list_keeps_the_columns_its_lesson_is_about() {
    let mut a = app("occupancy");
    let screen = draw(&mut a);
    let rows: Vec<&str> = screen.lines().filter(|l| l.contains(" regs")).collect();
    assert!(rows.len() >= 3, "{screen}");
    assert!(rows.iter().all(|r| r.contains("% occupancy")), "{screen}");
    // A variant held to fewer registers says it spills, beside the occupancy it bought.
    let capped = screen
        .lines()
        .find(|l| l.contains("per-thread-capped"))
        .expect(&screen);
    assert!(capped.contains("% occupancy · spills"), "{screen}");
    assert!(capped.contains("✓ correct"), "the verdict stays: {screen}");
    let mut a = app("local-spills");
    let screen = draw(&mut a);
    assert!(screen.contains(" B stack"), "{screen}");
    assert!(screen.contains("spills "), "{screen}");
}

/// The list's figures line up row under row (#35 item 16): each rate's unit, each share
/// of the ceiling's `%`, each ratio's `×` and each register count's last digit sit in one
/// column, whatever the figures' widths (2243 GB/s 75% over 133 GB/s 4%, 1.3× over 22.6×,
/// 38 regs over 255).
#[test]
fn the_list_s_figures_line_up_in_columns() {
    // The column of the first `mark` in each variant's row that has one (a row ends in
    // its verdict), by display width.
    let columns = |screen: &str, mark: &str| -> Vec<usize> {
        (screen.lines())
            .filter(|l| l.contains("✓ correct"))
            .filter_map(|l| l.find(mark).map(|at| l[..at].chars().count()))
            .collect()
    };
    let one_column = |screen: &str, mark: &str, at_least: usize| {
        let at = columns(screen, mark);
        assert!(at.len() >= at_least, "{mark}: {at:?}\n{screen}");
        assert!(
            at.windows(2).all(|w| w[0] == w[1]),
            "{mark}: {at:?}\n{screen}"
        );
    };
    let mut a = app("global-coalescing");
    let screen = draw(&mut a);
    one_column(&screen, " GB/s", 7);
    one_column(&screen, "% ", 7);
    one_column(&screen, "× slower", 6);
    let mut a = app("gemm");
    let screen = draw(&mut a);
    one_column(&screen, " GFLOP/s", 8);
    let mut a = app("local-spills");
    let screen = draw(&mut a);
    one_column(&screen, " regs", 8);
}

/// At 80×24 the heatmap's legend is whole for every variant (#35 item 13): the code line
/// above the grid takes one row, cut by words, so the legend keeps what a cell means.
#[test]
fn the_heatmap_legend_is_whole_at_80x24() {
    let mut a = app("shared-banks");
    ch(&mut a, 'h');
    let n = a.result().unwrap().variants.len();
    for _ in 0..n {
        let screen = flat(&draw(&mut a));
        assert!(
            screen.contains("(1 = no conflict, + = 10 or more)"),
            "variant {}: {screen}",
            a.view.variant()
        );
        key(&mut a, KeyCode::Right);
    }
}

/// Prose marks code and predictions (#35 item 16): in colour, code between backticks is
/// drawn in the code style without its backticks, and "Predict:" in bold; in plain the
/// backticks stay, being all that marks code there.
#[test]
fn prose_draws_code_without_backticks_and_predict_in_bold() {
    use ratatui::style::{Color, Modifier};
    let mut a = app("texture");
    a.view.set_color(true);
    let mut t = Terminal::new(TestBackend::new(160, 60)).unwrap();
    t.draw(|f| f.render_widget(&a, f.area())).unwrap();
    let buf = t.backend().buffer().clone();
    let text = gpulab::ui::buffer_to_text(&buf);
    let rows: Vec<&str> = text.lines().collect();
    let prose: Vec<usize> = (1..rows.len())
        .take_while(|&y| !rows[y].starts_with('└'))
        .collect();
    assert!(prose.iter().all(|&y| !rows[y].contains('`')), "{text}");
    let (y, x) = (prose.iter())
        .find_map(|&y| {
            rows[y]
                .find("tex-columns")
                .map(|b| (y, rows[y][..b].chars().count()))
        })
        .expect(&text);
    let cell = buf.cell((x as u16, y as u16)).unwrap();
    assert_eq!(cell.fg, Color::LightBlue, "{text}");
    if let Some((y, b)) = (prose.iter()).find_map(|&y| rows[y].find("Predict:").map(|b| (y, b))) {
        let x = rows[y][..b].chars().count() as u16;
        let cell = buf.cell((x, y as u16)).unwrap();
        assert!(cell.modifier.contains(Modifier::BOLD), "{text}");
    }
    a.view.set_color(false);
    let plain = draw_at(&mut a, 160, 60);
    assert!(plain.contains("`tex-columns`"), "{plain}");
}

/// An exercise whose lesson has many variants (#35 item 9): at 80×24 they are the list, a
/// row each, and `yours`'s card, which holds the check, has the room its lines need, the
/// list the rest; before, every card was an empty row and `yours` was squeezed to one line.
#[test]
fn an_exercise_with_many_variants_lists_them_and_gives_yours_the_room() {
    let mut a = exercise_app();
    let screen = draw(&mut a);
    assert!(screen.contains("┌ variants"), "{screen}");
    let rows: Vec<&str> = screen.lines().collect();
    let top = rows
        .iter()
        .position(|r| r.contains("┌ yours "))
        .expect(&screen);
    let bottom = (top + 1..rows.len())
        .find(|&y| rows[y].contains('└'))
        .expect(&screen);
    // Not checked yet, the card says so in three lines, all in view, and the list has the
    // rows the card does not need.
    assert!(
        !rows[bottom].contains('▼'),
        "the card is cut short:\n{screen}"
    );
    let card = rows[top..bottom].join("\n");
    assert!(
        card.contains("not checked yet") && card.contains("not run"),
        "{screen}"
    );
    let list = rows
        .iter()
        .position(|r| r.contains("┌ variants"))
        .expect(&screen);
    assert!(
        top - list >= 6,
        "the list has {} rows:\n{screen}",
        top - list - 2
    );
}

/// The header keeps whole words and no empty part (#35 item 7): with the lesson list open
/// beside an exercise at 80×24 the title may give way, but never leaves " ·  · ".
#[test]
fn the_header_of_an_exercise_beside_the_list_has_no_empty_part() {
    let mut a = exercise_app();
    ch(&mut a, 'L');
    let screen = draw(&mut a);
    let header = screen
        .lines()
        .find(|l| l.contains("exercise local-rung"))
        .expect(&screen);
    assert!(!header.contains("·  ·"), "{header}");
    assert!(header.contains(" 00 "), "{header}");
}

/// A card that cannot hold all its lines at 80×24 (#35 item 13): its last row never breaks
/// off mid-sentence as if it were whole ("(run on the CPU │", "… by ≥ │") but ends in "…",
/// and a sign keeps the figure after it on its row.
#[test]
fn a_card_cut_short_ends_in_an_ellipsis_and_keeps_a_sign_with_its_figure() {
    use gpulab::session::exercise::report::{CheckLine, CheckReport, Mark};
    let mut a = app("l2-window");
    ch(&mut a, 'j');
    let x = a.exercises.open().expect("an exercise");
    let id = x.ex().id.clone();
    let mut result =
        gpulab::session::fold::blank_result(x.lesson(), gpulab::model::results::Source::Live, None);
    result
        .variants
        .retain(|v| v.name == gpulab::model::exercise::YOURS);
    let line = |check: &str, detail: &str, mark| CheckLine {
        check: check.into(),
        mark,
        detail: detail.into(),
        at: None,
    };
    // The lines a check of stream-hint on the CPU interpreter gives.
    let lines = vec![
        line(
            "yours correct on fresh inputs at every size",
            "right at threads = 1000, cold_mib = 2 and at threads = 777, cold_mib = 1 \
             (run on the CPU interpreter)",
            Mark::Pass,
        ),
        line(
            "yours global.sectors_per_request at most 1.01x solution",
            "global.sectors_per_request: 4.00 vs 4.00 = 1.00x (needs <= 1.01x)",
            Mark::Pass,
        ),
        line(
            "yours faster than plain by >= 1.2x",
            "needs a GPU",
            Mark::NeedsGpu,
        ),
    ];
    // More lines than 80×24 has room for beside the list, as an exercise with many checks
    // has: the card must be cut short for its last row to be judged.
    let lines = [lines.clone(), lines.clone(), lines].concat();
    let report = CheckReport {
        exercise: id.clone(),
        live: false,
        compile_error: None,
        ptxas: None,
        time_ms: None,
        solution_ms: None,
        lines,
        result,
    };
    a.on_event(UiEvent::Worker(gpulab::ui::WorkerEvent::Checked {
        exercise: id,
        outcome: Ok(Box::new(report)),
    }));
    let screen = draw(&mut a);
    let rows: Vec<&str> = screen.lines().collect();
    let top = rows
        .iter()
        .position(|r| r.contains("┌ yours "))
        .expect(&screen);
    // The card's left edge: the last frame opened on its top row.
    let x0 = rows[top].chars().collect::<Vec<_>>();
    let x0 = x0.iter().rposition(|&c| c == '┌').unwrap();
    let card = |y: usize| -> String { rows[y].chars().skip(x0).collect() };
    let bottom = (top + 1..rows.len())
        .find(|&y| card(y).starts_with('└'))
        .expect(&screen);
    assert!(
        card(bottom).contains('▼'),
        "the card is cut short:\n{screen}"
    );
    let last = card(bottom - 1);
    let last = last.trim_matches('│').trim_end();
    assert!(last.ends_with('…'), "{last:?}:\n{screen}");
    for r in &rows {
        for seg in r.split('│') {
            let seg = seg.trim_end();
            for sign in [" ≥", " ≤", " ="] {
                assert!(!seg.ends_with(sign), "{seg:?}:\n{screen}");
            }
        }
    }
}

/// The knob table at 80×24 (#35 item 13): its columns as wide as their figures, so the bars
/// have room to differ (they had two cells: every bar read "██" or "█"), and its title
/// shortened by whole parts, never cut mid-word ("+ - turn, o c┐").
#[test]
fn the_knob_table_gives_its_bars_room_and_its_title_whole_words() {
    let mut a = app("shared-banks");
    ch(&mut a, 'v');
    ch(&mut a, 'o');
    for _ in 0..3 {
        ch(&mut a, '+');
    }
    let screen = draw(&mut a);
    let bars: Vec<usize> = (screen.lines())
        .filter(|l| l.contains(" rec "))
        .map(|l| l.matches('█').count())
        .collect();
    assert_eq!(bars.len(), 4, "{screen}");
    assert!(bars[0] >= 8, "the widest bar has room: {bars:?}\n{screen}");
    assert!(
        bars.windows(2).all(|w| w[0] > w[1]),
        "the bars fall as the bandwidth does: {bars:?}\n{screen}"
    );
    let mut a = app("global-coalescing");
    a.view.focus(
        (a.lesson().unwrap().variants.iter())
            .position(|v| v.name == "unroll-4")
            .unwrap(),
    );
    ch(&mut a, 'v');
    ch(&mut a, 'o');
    let screen = draw(&mut a);
    let title = (screen.lines())
        .find(|l| l.contains("┌ knob "))
        .expect(&screen);
    assert!(
        title.contains("float4 loads in flight per thread"),
        "{title}"
    );
    assert!(title.contains("+ - turn, o columns "), "{title}");
}

/// A checkpoint's wrapped question and choices hang (#35 item 16): the rows after the
/// first read on under the text, clear of the numbers, where they went back to the
/// choice's own number.
#[test]
fn wrapped_checkpoint_choices_hang_under_their_text() {
    let mut a = app("memory-ladder");
    for _ in 1..a.page_count() {
        ch(&mut a, 'n');
    }
    assert!(a.on_checkpoint_page());
    let screen = draw(&mut a);
    let rows: Vec<String> = (screen.lines())
        .map(|l| l.trim_start_matches('│').to_string())
        .collect();
    let choice = (rows.iter())
        .position(|r| r.starts_with("   1) "))
        .expect(&screen);
    assert!(
        rows[choice + 1].starts_with("      ") && !rows[choice + 1][6..].starts_with(' '),
        "a choice's second row starts under its text:\n{screen}"
    );
    let question = (rows.iter())
        .position(|r| r.starts_with("1. "))
        .expect(&screen);
    assert!(
        rows[question + 1].starts_with("   ") && !rows[question + 1][3..].starts_with(' '),
        "{screen}"
    );
}

/// A sweep's variants in the list (#35 item 16): each row says its point in the axis's
/// unit ("ws-8" is 8 MiB, which nothing said), and the note they share is said once, on
/// the first of them, not on every row.
#[test]
fn a_sweeps_rows_give_their_point_and_share_one_note() {
    let mut a = app("l2");
    *a.reading.progress_mut() = Progress::default();
    let screen = draw(&mut a);
    let row = |name: &str| {
        (screen.lines())
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("{name}:\n{screen}"))
            .to_string()
    };
    assert!(row("ws-8").contains("working set 8 MiB"), "{screen}");
    assert!(row("ws-1024").contains("working set 1024 MiB"), "{screen}");
    assert_eq!(
        screen.matches("4 GiB read from the set").count(),
        1,
        "{screen}"
    );
    // As cards, the same; the detail pane of one says it all.
    let cards = flat(&draw_at(&mut a, 120, 40));
    assert!(cards.contains("working set 8 MiB"), "{cards}");
    assert_eq!(cards.matches("bypassed").count(), 1, "{cards}");
    key(&mut a, KeyCode::Right);
    ch(&mut a, 'i');
    let detail = flat(&draw_at(&mut a, 120, 40));
    assert!(
        detail.contains("working set 8 MiB · 4 GiB read from the set"),
        "{detail}"
    );
    key(&mut a, KeyCode::Esc);
    let mut a = app("memory-ladder");
    *a.reading.progress_mut() = Progress::default();
    let screen = draw(&mut a);
    assert_eq!(screen.matches("the largest L1").count(), 1, "{screen}");
    assert!(screen.contains("chain's set 128 KiB"), "{screen}");
}

/// A kernel that times itself opens the code view on what it times (#35 item 16): lesson
/// 00's hbm rung on its chase, not on the flush loop before the timing, whose stores cost
/// more per request; the costliest lines are still listed above.
#[test]
fn the_code_view_of_a_timed_chase_opens_on_the_chase() {
    let mut a = app("memory-ladder");
    ch(&mut a, 'v');
    a.view.focus(
        (a.lesson().unwrap().variants.iter())
            .position(|v| v.name == "hbm")
            .unwrap(),
    );
    draw(&mut a);
    ch(&mut a, 'c');
    assert_eq!(a.view.overlay(), Overlay::Code);
    let screen = draw(&mut a);
    let marked = (screen.lines()).find(|l| l.contains('▶')).expect(&screen);
    assert!(
        marked.contains("ld.global.cg.u64 %0, [%0]"),
        "the timed chase is marked: {marked}\n{screen}"
    );
    assert!(!screen.contains("▶    for (int w = lane"), "{screen}");
    assert!(screen.contains("costliest lines:"), "{screen}");
}

/// A chart's x axis keeps its title where the chart is narrow (#35 item 13): with the
/// lesson list open at 80 columns the max-shared chart's "chain's set (KiB), carve-out
/// max_shared (log scale)" did not fit and was left out whole; it loses its last words.
#[test]
fn a_narrow_charts_axis_title_loses_words_not_the_whole() {
    let mut a = app("memory-ladder");
    ch(&mut a, 'v');
    ch(&mut a, 'g');
    ch(&mut a, ']');
    ch(&mut a, 'L');
    let screen = draw(&mut a);
    assert!(screen.contains("Lessons"), "{screen}");
    assert!(screen.contains("2/2"), "the max-shared chart: {screen}");
    assert!(screen.contains("chain's set (KiB)"), "{screen}");
}
