//! Every figure a lesson's prose quotes from the lab's recording is the shipped recording's,
//! so a learner who replays the lesson reads on screen what the page says. In a sentence of
//! a page that names a recording, each number of milliseconds, microseconds, percent,
//! cycles, GB/s, GFLOP/s or TFLOP/s equals, at the digits written, a time (the median), a
//! share of the ceiling, a figure the kernel measured in cycles, or a rate in that
//! lesson's entry of the shipped H100 recording: a variant's, or a knob setting's. A
//! number the sentence says is approximate ("about 9%") or a claim's bar ("the lab checks
//! for 5%") is the prose's own.

use gpulab::course::bundle::CourseRoot;
use gpulab::model::results::{LessonResult, VariantResult};
use gpulab::session::recording;

/// A number written with a unit this test reads: its text and its unit.
#[derive(Debug, PartialEq)]
struct Quoted {
    number: String,
    unit: &'static str,
}

/// The numbers of `sentence` written as `12.5%` or `0.054 ms`, but those said to be
/// approximate or a bar.
fn quoted(sentence: &str) -> Vec<Quoted> {
    let b = sentence.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let begin = i;
        while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b'.' && next_digit(b, i))) {
            i += 1;
        }
        let number = &sentence[begin..i];
        let rest = sentence[i..].trim_start();
        let word = |w: &str| {
            rest.starts_with(w)
                && !rest[w.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '/')
        };
        let unit = if rest.starts_with('%') {
            Some("%")
        } else {
            UNITS.iter().copied().find(|&u| word(u))
        };
        let before = sentence[..begin].trim_end();
        let own = ["about", "checks for", "checks"]
            .iter()
            .any(|w| before.ends_with(w));
        if let (Some(unit), false) = (unit, own) {
            out.push(Quoted {
                number: number.to_string(),
                unit,
            });
        }
    }
    out
}

/// The units read after a number, besides `%`.
const UNITS: [&str; 6] = ["ms", "µs", "cycles", "GB/s", "GFLOP/s", "TFLOP/s"];

fn next_digit(b: &[u8], i: usize) -> bool {
    b.get(i + 1).is_some_and(u8::is_ascii_digit)
}

/// The page's sentences, its lines joined.
fn sentences(text: &str) -> Vec<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = flat.chars().peekable();
    while let Some(c) = chars.next() {
        cur.push(c);
        if matches!(c, '.' | ';' | ':') && chars.peek() == Some(&' ') {
            out.push(std::mem::take(&mut cur));
        }
    }
    out.push(cur);
    out
}

/// Whether `q` is one of the entry's figures at the digits it is written with.
fn recorded(r: &LessonResult, q: &Quoted) -> bool {
    let decimals = q.number.split('.').nth(1).map_or(0, str::len) as i32;
    let value: f64 = q.number.parse().unwrap();
    let scale = 10f64.powi(decimals);
    let figures = |v: &VariantResult| -> Vec<f64> {
        let time = v.time_ms.as_ref().map(|t| t.median);
        match q.unit {
            "ms" => time.into_iter().collect(),
            "µs" => time.map(|t| t * 1000.0).into_iter().collect(),
            "GB/s" => v.gbps.into_iter().collect(),
            "GFLOP/s" => v.gflops.into_iter().collect(),
            "TFLOP/s" => v.gflops.map(|g| g / 1000.0).into_iter().collect(),
            "cycles" => (v.measured.values())
                .filter(|m| m.unit == "cycles")
                .map(|m| m.value)
                .collect(),
            _ => v.pct_of_peak.into_iter().collect(),
        }
    };
    (r.variants.iter().chain(&r.knobs))
        .flat_map(figures)
        .any(|f| ((f * scale).round() - value * scale).abs() < 0.5)
}

#[test]
fn every_figure_the_prose_quotes_from_the_recording_is_the_recordings() {
    let root = CourseRoot::Bundled;
    let (lessons, errors) = gpulab::course::load_course(&root);
    assert!(errors.is_empty(), "{errors:?}");
    let rec = recording::newest(&root.recordings()).expect("a recording ships");
    let mut checked = 0;
    let mut wrong = Vec::new();
    for l in &lessons {
        for page in &l.pages {
            for s in sentences(&page.text)
                .iter()
                .filter(|s| s.contains("recording"))
            {
                for q in quoted(s) {
                    let Some(r) = rec.replay(l) else {
                        wrong.push(format!("{}: {q:?} quoted, but no entry: {s}", l.id));
                        continue;
                    };
                    checked += 1;
                    if !recorded(&r, &q) {
                        wrong.push(format!(
                            "{}: {}{} is not the recording's: {s}",
                            l.id, q.number, q.unit
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The lessons quote a dozen and more (capstone, coalescing, reduction, atomics,
    // constant, stencil): a reading that finds none has stopped reading.
    assert!(checked >= 30, "{checked} figures checked");
}

#[test]
fn a_quoted_figure_is_read_with_its_unit_and_an_approximate_one_is_left() {
    let q = quoted(
        "took 0.059 ms against 0.054 ms, about 9% faster, 3.5x, sm_90, 12.8%, 215 cycles, \
         48.7 TFLOP/s, 2243 GB/s, 12 µs, 3 msgs, 4 GB/sec.",
    );
    let got: Vec<(&str, &str)> = q.iter().map(|q| (q.number.as_str(), q.unit)).collect();
    assert_eq!(
        got,
        [
            ("0.059", "ms"),
            ("0.054", "ms"),
            ("12.8", "%"),
            ("215", "cycles"),
            ("48.7", "TFLOP/s"),
            ("2243", "GB/s"),
            ("12", "µs")
        ]
    );
    assert!(quoted("the lab checks for 5%, 2 msg").is_empty());
    assert_eq!(sentences("a b. c d: e").len(), 3);
}
