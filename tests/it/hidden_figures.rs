//! One rule for what a prediction hides (#35 item 3, and the first assert of its walk):
//! before `r` or `v`, no view or pane of any lesson shows a measured figure. Proved by
//! drawing every lesson twice, from the recording and from the same recording with every
//! measured figure changed (times, rates, the compile report, occupancy, traced counts,
//! clocks, the claims' verdicts and details, the peaks), at 80×24, 120×40 and 160×48 (where
//! the header has room for the whole source), on every page, variant and pop-up, the knob
//! table and a knob turned, and each of its exercises stepped into (↓ leads there from the
//! lesson): before the figures are shown the two must draw the same screen,
//! so nothing on it comes from a figure. Once `v` shows them the two differ, so the change
//! reaches the screen and the test could fail.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gpulab::course::bundle::CourseRoot;
use gpulab::session::progress::Progress;
use gpulab::session::recording::{self, Recording};
use gpulab::ui::{App, UiEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;

/// Fields that say what ran and where, not what it measured: they stay as recorded.
const SHAPE: &[&str] = &[
    "grid",
    "block",
    "id",
    "ptx_line",
    "source_line",
    "width",
    "traced_blocks",
    "total_blocks",
    "overflow",
    "first_line",
    "second_line",
    "offset",
    "first_warp",
    "second_warp",
    "lanes",
    "first_block",
    "threads",
    "line",
    "sample",
    "footprint",
    "coords",
    "runs",
    "barriers",
    "max_warps",
    "races",
    "tolerance",
];

/// Every measured number under `v` changed: whole counts tripled (requests doubled, so a
/// ratio of two counts changes too and a difference of two stays whole and positive),
/// fractions scaled by 1.37; a claim's verdict turned over and its detail replaced. Each item
/// of a list is scaled `k` times more by its place (1, 2 or 3 times), so an order the figures
/// make (the fastest variant, the costliest line) changes as well.
fn perturb(v: &mut Value, key: &str, k: u64) {
    if SHAPE.contains(&key) {
        return;
    }
    match v {
        Value::Number(n) => {
            *v = if let Some(u) = n.as_u64() {
                Value::from(u * k * if key == "requests" { 2 } else { 3 })
            } else {
                Value::from(n.as_f64().unwrap() * 1.37 * k as f64)
            };
        }
        Value::Array(items) => (items.iter_mut().enumerate())
            .for_each(|(i, item)| perturb(item, key, k * (1 + i as u64 % 3))),
        Value::Object(fields) => {
            if let Some(Value::Bool(b)) = fields.get_mut("holds") {
                *b = !*b;
            }
            if let Some(Value::String(d)) = fields.get_mut("detail") {
                *d = "a detail made up".into();
            }
            for (name, f) in fields.iter_mut() {
                perturb(f, name, k);
            }
        }
        _ => {}
    }
}

/// `rec` with every lesson's measured figures changed (its variants, its knob settings, its
/// claims and the copy peak), its devices and lessons as they were.
fn perturbed(rec: &Recording) -> Recording {
    let mut json = serde_json::to_value(rec).unwrap();
    for l in json["lessons"].as_array_mut().unwrap() {
        for part in ["variants", "knobs", "expect", "peak"] {
            if let Some(p) = l.get_mut(part) {
                perturb(p, part, 1);
            }
        }
    }
    perturb(&mut json["peak"], "peak", 1);
    serde_json::from_value(json).unwrap()
}

fn app(rec: Recording) -> App {
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let mut a = App::new(lessons, Some(rec), Progress::default());
    a.view.set_color(false);
    // As on a machine without a GPU, once the worker has said so.
    a.runs.set_caps(Some(gpulab::session::fold::Capabilities {
        no_gpu: Some("no NVIDIA driver (libcuda.so.1 not found)".into()),
        ..Default::default()
    }));
    a
}

/// The recorded lab and the lab of the changed figures, driven alike.
struct Pair {
    apps: [App; 2],
    size: (u16, u16),
}

impl Pair {
    fn key(&mut self, c: KeyCode) {
        for a in &mut self.apps {
            a.on_event(UiEvent::Key(KeyEvent::new(c, KeyModifiers::NONE)));
        }
    }

    fn ch(&mut self, c: char) {
        self.key(KeyCode::Char(c));
    }

    fn draw(&mut self) -> [String; 2] {
        let (w, h) = self.size;
        self.apps.each_mut().map(|a| {
            let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
            let frame = t.draw(|f| f.render_widget(&*a, f.area())).unwrap();
            a.view.drawn(frame.area);
            gpulab::ui::buffer_to_text(t.backend().buffer())
        })
    }

    /// The screen where both labs draw the same, or the two that differ.
    fn same(&mut self, what: &str, diffs: &mut Vec<String>) -> String {
        let [a, b] = self.draw();
        if a != b {
            let (w, h) = self.size;
            diffs.push(format!(
                "{what} at {w}x{h}:\n{a}\n-- with other figures --\n{b}"
            ));
        }
        a
    }

    fn select(&mut self, lesson: usize) {
        for a in &mut self.apps {
            a.reading.select(lesson);
            a.reading.turn_to(0);
            a.view.focus(0);
            a.view.close();
            a.view.set_list(None);
        }
    }
}

/// The pop-ups a lesson has, by the key that opens each (`f` where it has textures, `g`
/// where it has sweeps, and the help's pages).
fn popups(a: &App) -> Vec<char> {
    let l = a.lesson().unwrap();
    let mut keys = vec!['i', 'c', 'd', 'h', '?'];
    if !l.textures.is_empty() {
        keys.push('f');
    }
    if !l.sweeps.is_empty() {
        keys.push('g');
    }
    keys
}

#[test]
fn no_view_or_pane_shows_a_figure_before_r_or_v() {
    let rec = recording::newest(&CourseRoot::Bundled.recordings()).expect("a recording ships");
    let other = perturbed(&rec);
    let mut p = Pair {
        apps: [app(rec), app(other)],
        size: (80, 24),
    };
    let mut diffs = Vec::new();
    let n = p.apps[0].reading.lessons().len();
    for size in [(80, 24), (120, 40), (160, 48)] {
        p.size = size;
        for i in 0..n {
            p.select(i);
            let l = p.apps[0].lesson().unwrap().clone();
            assert!(!p.apps[0].revealed(), "{}: nothing shown yet", l.id);
            // Every page, the list of lessons shown and not.
            for page in 0..l.pages.len() {
                p.same(&format!("{} page {}", l.id, page + 1), &mut diffs);
                p.ch('n');
            }
            p.ch('L');
            p.same(&format!("{} with the list", l.id), &mut diffs);
            p.ch('L');
            // Every variant: its card, each pop-up, its knobs turned and their table.
            for v in 0..l.variants.len() {
                let name = format!("{} {}", l.id, l.variants[v].name);
                p.same(&name, &mut diffs);
                for k in popups(&p.apps[0]) {
                    p.ch(k);
                    p.same(&format!("{name} after {k}"), &mut diffs);
                    // The pop-up scrolled on: what it holds below its first screen.
                    p.key(KeyCode::PageDown);
                    p.same(&format!("{name} after {k}, scrolled"), &mut diffs);
                    p.key(KeyCode::Esc);
                }
                if p.apps[0].focused_knob().is_some() {
                    p.ch('o');
                    p.same(&format!("{name}'s knob table"), &mut diffs);
                    p.ch('+');
                    p.same(&format!("{name}'s knob turned"), &mut diffs);
                    p.ch('-');
                    p.ch('o');
                }
                p.key(KeyCode::Right);
            }
            // Each of its exercises, stepped into before the lesson's figures were shown:
            // the lesson's variants beside where yours will be, and their detail panes.
            for e in 0..l.exercises.len() {
                for a in &mut p.apps {
                    a.select_row(i, Some(e));
                }
                let name = format!("{} exercise {}", l.id, l.exercises[e].id);
                p.same(&name, &mut diffs);
                let n = p.apps[0].result().map_or(0, |r| r.variants.len());
                for v in 0..n {
                    p.ch('i');
                    p.same(&format!("{name} variant {v} after i"), &mut diffs);
                    p.key(KeyCode::Esc);
                    p.key(KeyCode::Right);
                }
            }
            // On an exercise, v shows the lesson's figures, as its hidden cards say.
            if !l.exercises.is_empty() {
                p.ch('v');
                assert!(p.apps[0].revealed(), "{}: v on an exercise", l.id);
                for a in &mut p.apps {
                    *a.reading.progress_mut() = Progress::default();
                }
            }
            for a in &mut p.apps {
                a.select_row(i, None);
            }
            // Shown, the figures are on the screen: the changed ones differ.
            p.view_shown(&l.id, &mut diffs);
        }
    }
    assert!(
        diffs.is_empty(),
        "{} screens show a figure before r or v:\n{}",
        diffs.len(),
        diffs.join("\n\n")
    );
}

impl Pair {
    /// `v` on the lesson: its first variant's card and detail pane then differ between the
    /// two recordings. Hidden again after, for the next size's walk.
    fn view_shown(&mut self, id: &str, diffs: &mut Vec<String>) {
        self.select(self.apps[0].reading.selected());
        self.ch('v');
        let card = self.draw();
        self.ch('i');
        let detail = self.draw();
        self.key(KeyCode::Esc);
        if card[0] == card[1] && detail[0] == detail[1] {
            diffs.push(format!("{id}: shown, the figures do not reach the screen"));
        }
        for a in &mut self.apps {
            *a.reading.progress_mut() = Progress::default();
        }
    }
}
