//! Mutated lesson files never crash the loader: each load ends in a lesson or in errors that
//! all point inside the text, and ends quickly. Seeds are the shipped lessons and the test
//! course, so mutations start from every construct the format has.

use crate::support::common;

use gpulab::course::bundle::CourseRoot;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// (root the file's kernels resolve against, file name, text)
fn seeds() -> Vec<(CourseRoot, String, String)> {
    let mut out = Vec::new();
    for dir in [
        common::manifest_dir().join("lessons"),
        common::fixture("lessons"),
        common::fixture("bad"),
    ] {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        for f in files {
            let root = CourseRoot::Dir(dir.clone());
            out.push((
                root,
                f.display().to_string(),
                std::fs::read_to_string(&f).unwrap(),
            ));
        }
    }
    assert!(out.len() >= 10, "seed lessons missing");
    out
}

/// Pieces that make the loader take paths it otherwise would not: YAML syntax, the format's
/// keys, expressions, claims, odd characters.
const PIECES: &[&str] = &[
    ":",
    "- ",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "'",
    "|",
    ">",
    "#",
    "&a",
    "*a",
    "!!str",
    "\t",
    "\n",
    "  ",
    "~",
    "null",
    "0",
    "-1",
    "1e999",
    "n / 0",
    "n *",
    "((",
    "like: ",
    "variants:",
    "buffers:",
    "pages:",
    "source: ",
    "kernel: ",
    "expect:",
    "slower than",
    "by >= ",
    "x",
    "é",
    "\u{feff}",
    "\u{0}",
    "9999999999999999999999",
    "<<: *a",
    "---",
    "...",
    "? ",
];

#[derive(Debug, Clone)]
enum Edit {
    Delete { at: usize, len: usize },
    Insert { at: usize, piece: usize },
    Truncate { at: usize },
    DuplicateLine { line: usize },
    SwapLines { a: usize, b: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), 0..PIECES.len()).prop_map(|(at, piece)| Edit::Insert { at, piece }),
        any::<usize>().prop_map(|at| Edit::Truncate { at }),
        any::<usize>().prop_map(|line| Edit::DuplicateLine { line }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines { a, b }),
    ]
}

fn boundary(text: &str, at: usize) -> usize {
    let mut i = at % (text.len() + 1);
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, e: &Edit) -> String {
    let mut s = text.to_string();
    match *e {
        Edit::Delete { at, len } => {
            let a = boundary(&s, at);
            let b = boundary(&s, a + len).max(a);
            s.replace_range(a..b, "");
        }
        Edit::Insert { at, piece } => {
            let a = boundary(&s, at);
            s.insert_str(a, PIECES[piece]);
        }
        Edit::Truncate { at } => {
            let a = boundary(&s, at);
            s.truncate(a);
        }
        Edit::DuplicateLine { line } | Edit::SwapLines { a: line, .. } => {
            let mut lines: Vec<String> = s.lines().map(String::from).collect();
            if lines.is_empty() {
                return s;
            }
            let i = line % lines.len();
            if let Edit::SwapLines { b, .. } = *e {
                let j = b % lines.len();
                lines.swap(i, j);
            } else {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            s = lines.join("\n");
        }
    }
    s
}

#[test]
fn mutated_lessons_never_panic_and_every_error_has_a_position_inside_the_text() {
    let seeds = seeds();
    let cases: u32 = std::env::var("GPULAB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..seeds.len(), prop::collection::vec(edit(), 1..6));
    let (loaded, refused) = (Cell::new(0u32), Cell::new(0u32));
    runner
        .run(&strategy, |(seed, edits)| {
            let (root, file, text) = &seeds[seed];
            let mutated = edits.iter().fold(text.clone(), |t, e| apply(&t, e));
            let started = Instant::now();
            let out = std::panic::catch_unwind(|| gpulab::course::load_file(root, file, &mutated));
            let took = started.elapsed();
            let Ok(result) = out else {
                return Err(TestCaseError::fail(format!(
                    "the loader panicked on {file} after {edits:?}:\n{mutated}"
                )));
            };
            prop_assert!(
                took < Duration::from_secs(2),
                "{file}: {took:?} to load after {edits:?}"
            );
            let lines = mutated.lines().count().max(1);
            match &result {
                Ok(_) => loaded.set(loaded.get() + 1),
                Err(_) => refused.set(refused.get() + 1),
            }
            if let Err(errors) = result {
                prop_assert!(!errors.is_empty(), "an error list with no error");
                for e in &errors {
                    // Line 0 is reserved for a problem with the file as a whole.
                    prop_assert!(e.line >= 1, "no position: {e}\nafter {edits:?}");
                    prop_assert!(e.col >= 1, "no column: {e}");
                    prop_assert!(
                        e.line <= lines + 1,
                        "{e} points past the end ({lines} lines) after {edits:?}"
                    );
                    prop_assert!(!e.message.trim().is_empty(), "an empty message at {e}");
                }
            }
            Ok(())
        })
        .unwrap();
    // Both outcomes must occur, or the mutations are not reaching the loader's rules.
    assert!(loaded.get() > 0, "no mutated lesson loaded");
    assert!(refused.get() > 0, "no mutated lesson was refused");
}
