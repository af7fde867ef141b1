//! How soon the lab shows something, and how soon its lessons are in: the real loop
//! (`ui::run`) on a test backend that notes when each frame was drawn, fed by the same
//! counting and loading thread the terminal uses, for the bundled course and for a
//! generated pack of one 20,000-page lesson. Run with
//! `cargo run --release --example first_frame`; the first frame should stay under 150 ms.

#[path = "../tests/it/support/frame_clock.rs"]
mod frame_clock;

use frame_clock::FrameClock;
use gpulab::course::bundle::CourseRoot;
use gpulab::session::progress::Progress;
use gpulab::ui::state::loading;
use gpulab::ui::{self, App};
use ratatui::Terminal;
use std::fmt::Write;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

const PAGES: usize = 20_000;
const KERNEL: &str = "extern \"C\" __global__ void scale(float* x, int n) { }\n";

/// A valid lesson of `pages` short pages.
fn big_lesson(pages: usize) -> String {
    let mut s = String::from("format_version: 1\nid: big\ntitle: Big\nspace: global\npages:\n");
    for i in 0..pages {
        let _ = writeln!(
            s,
            "  - title: Page {i}\n    text: |\n      A short page.\n      Predict: how fast?"
        );
    }
    s.push_str(
        "problem: { n: 1024 }\n\
         buffers:\n  - { name: x, type: f32, len: n, init: poison }\n\
         variants:\n  - name: a\n    source: kernels/k.cu\n    kernel: scale\n\
         \x20   launch: { grid: 4, block: 256 }\n    args: [x, n]\n\
         reference: a\n",
    );
    s
}

/// Time to the first frame and to the frame that shows the lessons, as the lab opens.
fn open(root: &CourseRoot) -> (Duration, Duration, usize) {
    let started = Instant::now();
    let mut app = App::loading(root.lesson_count(), Progress::default());
    let (tx, rx) = channel();
    let owned = root.clone();
    ui::spawn_loader(tx, move || loading::load(&owned));
    let mut terminal = Terminal::new(FrameClock::new(120, 40, started)).expect("a test backend");
    let (jobs, _) = channel();
    let (saves, _) = channel();
    ui::run(&mut terminal, &mut app, &rx, &jobs, &saves).expect("the loop runs");
    if let Some(failed) = &app.loading {
        panic!("the course did not load: {failed:?}");
    }
    let frames = &terminal.backend().frames;
    (
        frames[0].0,
        frames[frames.len() - 1].0,
        app.reading.lessons().len(),
    )
}

fn report(name: &str, (first, ready, lessons): (Duration, Duration, usize)) {
    println!(
        "{name:<28} first frame {:>8.1} ms   lessons ready {:>9.1} ms   ({lessons} lesson(s))",
        first.as_secs_f64() * 1e3,
        ready.as_secs_f64() * 1e3
    );
}

fn main() {
    report("bundled course", open(&CourseRoot::Bundled));
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(dir.path().join("lessons")).expect("lessons/");
    std::fs::create_dir_all(dir.path().join("kernels")).expect("kernels/");
    std::fs::write(dir.path().join("kernels/k.cu"), KERNEL).expect("kernels/k.cu");
    let text = big_lesson(PAGES);
    std::fs::write(dir.path().join("lessons/01-big.yaml"), &text).expect("the lesson");
    let name = format!("{PAGES}-page pack ({:.1} MB)", text.len() as f64 / 1e6);
    report(&name, open(&CourseRoot::Dir(dir.path().join("lessons"))));
}
