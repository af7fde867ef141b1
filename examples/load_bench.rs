//! How long the loader takes on large lessons: many pages, and one very large page. Loading
//! must stay linear in the size of the file; run with
//! `cargo run --release --example load_bench` and compare the figures across changes.

use gpulab::course::bundle::CourseRoot;
use std::fmt::Write;
use std::time::{Duration, Instant};

const KERNEL: &str = "extern \"C\" __global__ void scale(float* x, int n) { }\n";

/// A valid lesson whose pages are `pages` texts.
fn lesson(pages: &[String]) -> String {
    let mut s = String::from("format_version: 1\nid: big\ntitle: Big\nspace: global\npages:\n");
    for (i, text) in pages.iter().enumerate() {
        let _ = writeln!(s, "  - title: Page {i}\n    text: |");
        for line in text.lines() {
            let _ = writeln!(s, "      {line}");
        }
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

fn time_load(root: &CourseRoot, text: &str) -> Duration {
    let started = Instant::now();
    let lesson = gpulab::course::load_file(root, "01-big.yaml", text);
    let took = started.elapsed();
    if let Err(errs) = lesson {
        panic!("the benchmark lesson does not load: {errs:?}");
    }
    took
}

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(dir.path().join("kernels")).expect("kernels/");
    std::fs::write(dir.path().join("kernels/k.cu"), KERNEL).expect("kernels/k.cu");
    let root = CourseRoot::Dir(dir.path().join("lessons"));

    let page = "A short page of prose.\nPredict: how fast?".to_string();
    for n in [1_000, 4_000, 20_000] {
        let text = lesson(&vec![page.clone(); n]);
        let took = time_load(&root, &text);
        println!(
            "{n:>6} pages ({:>5.1} MB): {:>8.3} s",
            text.len() as f64 / 1e6,
            took.as_secs_f64()
        );
    }
    for n in [1_000, 4_000, 20_000] {
        let text = lesson(std::slice::from_ref(&page)).replace(
            "reference: a\n",
            &(0..n)
                .map(|i| format!("  - {{ name: v{i}, like: a }}\n"))
                .collect::<String>(),
        ) + "reference: a\n";
        let took = time_load(&root, &text);
        println!("{n:>6} variants:          {:>8.3} s", took.as_secs_f64());
    }
    let line = "word ".repeat(15);
    let big = std::iter::repeat_n(line.as_str(), 50_000_000 / (line.len() + 1))
        .collect::<Vec<_>>()
        .join("\n");
    let text = lesson(&[big]);
    let took = time_load(&root, &text);
    println!(
        "one page of {:.1} MB: {:>8.3} s",
        text.len() as f64 / 1e6,
        took.as_secs_f64()
    );
}
