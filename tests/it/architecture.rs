//! Architecture invariants (docs/architecture.md), each kept here. Imports point down:
//! each folder of `src/` names only the folders the table in docs/architecture.md lets it
//! import (its "may import" column), in code and in tests alike, so the table is the rule
//! and this test keeps it; nothing outside `src/worker/` and `src/cuda/` names
//! `crate::cuda`, so no other part opens a CUDA library by accident; and `unsafe` is only
//! where the document lists it, each block saying why it is sound; no import circle holds
//! more than three files, and none runs through the lab's `App`.

use crate::support::common::manifest_dir;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const FOLDERS: [&str; 10] = [
    "model", "analysis", "course", "trace", "cuda", "interp", "worker", "session", "ui", "cli",
];

/// Each folder's "may import" column, read from the table's rows
/// (`| 2 | `src/course/` | ... | `analysis`, `model` |`); "everything below" is every folder
/// on a lower floor.
fn allowed(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut floors: Vec<(u32, String, String)> = Vec::new();
    for row in doc.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (Some(floor), Some(folder)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let (Ok(floor), Some(name)) = (
            floor.parse::<u32>(),
            folder
                .strip_prefix("`src/")
                .and_then(|f| f.strip_suffix("/`")),
        ) else {
            continue;
        };
        floors.push((floor, name.to_string(), cells[cells.len() - 2].to_string()));
    }
    let mut out = BTreeMap::new();
    for (floor, name, may) in &floors {
        let set: BTreeSet<String> = if may.starts_with("everything below") {
            (floors.iter())
                .filter(|(f, _, _)| f < floor)
                .map(|(_, n, _)| n.clone())
                .collect()
        } else {
            // The names in backquotes before any parenthesis: `(never `course`: ...)` is a
            // reason, not a permission.
            let head = may.split('(').next().unwrap_or("");
            (head.split('`').skip(1).step_by(2))
                .map(str::to_string)
                .collect()
        };
        out.insert(name.clone(), set);
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every (file, folder) where a file of `src/<from>/` names `crate::<folder>`.
fn named(from: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&manifest_dir().join("src").join(from), &mut files);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if FOLDERS.contains(&word.as_str()) && word != from {
                let rel = f
                    .strip_prefix(manifest_dir())
                    .unwrap()
                    .display()
                    .to_string();
                out.push((rel, word));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_folder_imports_only_what_the_architecture_table_allows() {
    let doc = std::fs::read_to_string(manifest_dir().join("docs/architecture.md")).unwrap();
    let allowed = allowed(&doc);
    assert_eq!(
        allowed.keys().collect::<BTreeSet<_>>(),
        FOLDERS
            .iter()
            .map(|f| f.to_string())
            .collect::<BTreeSet<_>>()
            .iter()
            .collect(),
        "the table names every folder of src/"
    );
    assert!(allowed["model"].is_empty(), "{:?}", allowed["model"]);
    assert!(!allowed["session"].contains("worker"));
    let mut up = Vec::new();
    for from in FOLDERS {
        for (file, to) in named(from) {
            if !allowed[from].contains(&to) {
                up.push(format!(
                    "{file} names crate::{to} ({from} may import {:?})",
                    allowed[from]
                ));
            }
        }
    }
    assert!(
        up.is_empty(),
        "imports that do not point down:\n{}",
        up.join("\n")
    );
}

#[test]
fn only_the_worker_and_the_cuda_layer_name_cuda() {
    let others: Vec<String> = (FOLDERS.iter())
        .filter(|f| !matches!(**f, "worker" | "cuda"))
        .flat_map(|f| named(f))
        .filter(|(_, to)| to == "cuda")
        .map(|(file, _)| file)
        .collect();
    assert!(others.is_empty(), "{others:?}");
}

/// Lines that open `unsafe` code: a block, a function or an impl (not a function-pointer
/// type, which is only a name for what a library exports).
fn unsafe_lines(text: &str) -> Vec<usize> {
    let opens = |code: &str| {
        code.match_indices("unsafe").any(|(i, _)| {
            let before = code[..i].chars().last();
            let after = code[i + "unsafe".len()..].trim_start();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && (after.starts_with('{') || after.starts_with("fn ") || after.starts_with("impl"))
        })
    };
    (text.lines().enumerate())
        .filter(|(_, l)| opens(l.split("//").next().unwrap_or("")))
        .map(|(i, _)| i)
        .collect()
}

/// Architecture invariant: `unsafe` lives only where docs/architecture.md's "Where
/// `unsafe` is" names (its folders and files; test files anywhere, which it lists by what
/// they call), and every block says why it is sound in a `SAFETY:` comment just above it.
#[test]
fn unsafe_lives_only_where_the_architecture_says_and_says_why() {
    let doc = std::fs::read_to_string(manifest_dir().join("docs/architecture.md")).unwrap();
    let section = doc
        .split("## Where `unsafe` is, and why")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section");
    let named: Vec<&str> = (section.split('`').skip(1).step_by(2))
        .filter(|t| t.starts_with("src/"))
        .collect();
    assert!(named.contains(&"src/cuda/"), "{named:?}");
    let mut files = Vec::new();
    rust_files(&manifest_dir().join("src"), &mut files);
    rust_files(&manifest_dir().join("tests"), &mut files);
    let (mut unlisted, mut unsaid) = (Vec::new(), Vec::new());
    for f in files {
        let rel = f
            .strip_prefix(manifest_dir())
            .unwrap()
            .display()
            .to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let at = unsafe_lines(&text);
        let test_file = rel.starts_with("tests/") || rel.ends_with("_tests.rs");
        if !at.is_empty() && !test_file && !named.iter().any(|n| rel.starts_with(n)) {
            unlisted.push(rel.clone());
        }
        for i in at {
            let above = &lines[i.saturating_sub(8)..=i];
            if !above.iter().any(|l| l.contains("SAFETY")) {
                unsaid.push(format!("{rel}:{}", i + 1));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "unsafe in files docs/architecture.md does not name: {unlisted:?}"
    );
    assert!(
        unsaid.is_empty(),
        "unsafe with no SAFETY: comment above: {unsaid:?}"
    );
}

/// A file's module path under `src/` (`src/ui/app/mod.rs` → `ui::app`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = (rel.with_extension("").iter())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The path of `crate::`, `super::` and `self::` names at `text[i..]`, as module segments
/// from the crate's root (`here`: the module the text is in), and the names of a `{...}`
/// group that follows it, each its own path.
fn paths_at(text: &str, i: usize, here: &[String]) -> Vec<Vec<String>> {
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut base: Vec<String> = Vec::new();
    let mut rest = &text[i..];
    let first = word(rest);
    match first.as_str() {
        "crate" => {}
        "super" | "self" => base = here.to_vec(),
        _ => return Vec::new(),
    }
    rest = &rest[first.len()..];
    if first == "super" {
        base.pop();
    }
    while let Some(after) = rest.strip_prefix("::") {
        if let Some(group) = after.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            return (inner.split(','))
                .map(|item| word(item.trim()))
                .filter(|w| !w.is_empty() && w != "self")
                .map(|w| base.iter().cloned().chain([w]).collect())
                .chain([base.clone()])
                .collect();
        }
        let w = word(after);
        if w.is_empty() {
            break;
        }
        rest = &after[w.len()..];
        match w.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => base.push(w),
        }
    }
    vec![base]
}

/// Every file of `src/` and the files it names (through `crate::`, `super::`, `self::`),
/// its tests left out.
fn file_imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = manifest_dir().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let rels: Vec<std::path::PathBuf> = (files.iter())
        .map(|f| f.strip_prefix(&src).unwrap().to_path_buf())
        .collect();
    let by_module: BTreeMap<Vec<String>, String> = (rels.iter())
        .map(|r| (module_of(r), r.display().to_string()))
        .collect();
    let mut out = BTreeMap::new();
    for (f, rel) in files.iter().zip(&rels) {
        let text = std::fs::read_to_string(f).unwrap();
        let text = match text.find("#[cfg(test)]\nmod tests") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        let here = module_of(rel);
        let name = rel.display().to_string();
        let mut names = BTreeSet::new();
        for key in ["crate::", "super::", "self::"] {
            for (i, _) in text.match_indices(key) {
                let boundary = text[..i]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'));
                if !boundary {
                    continue;
                }
                for path in paths_at(text, i, &here) {
                    // The longest prefix of the path that is a file of ours.
                    let file = (1..=path.len())
                        .rev()
                        .find_map(|k| by_module.get(&path[..k]));
                    if let Some(file) = file.filter(|f| **f != name) {
                        names.insert(file.clone());
                    }
                }
            }
        }
        out.insert(name, names);
    }
    out
}

/// The import circles of `graph`: its strongly connected parts of more than one file.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Kosaraju's: finishing order on the graph, then parts on its reverse.
    fn finish(
        g: &BTreeMap<String, BTreeSet<String>>,
        v: &str,
        seen: &mut BTreeSet<String>,
        order: &mut Vec<String>,
    ) {
        if !seen.insert(v.to_string()) {
            return;
        }
        for w in g.get(v).into_iter().flatten() {
            finish(g, w, seen, order);
        }
        order.push(v.to_string());
    }
    let mut reverse: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (v, ws) in graph {
        for w in ws {
            reverse.entry(w.clone()).or_default().insert(v.clone());
        }
    }
    let (mut seen, mut order) = (BTreeSet::new(), Vec::new());
    for v in graph.keys() {
        finish(graph, v, &mut seen, &mut order);
    }
    let mut placed = BTreeSet::new();
    let mut parts = Vec::new();
    for v in order.iter().rev() {
        let mut part = Vec::new();
        finish(&reverse, v, &mut placed, &mut part);
        if part.len() > 1 {
            part.sort();
            parts.push(part);
        }
    }
    parts
}

#[test]
fn no_import_circle_holds_more_than_three_files_nor_the_app() {
    let graph = file_imports();
    // The reader finds real imports: the app imports its parts, a part never the app.
    assert!(
        graph["ui/app/mod.rs"].contains("ui/state/runs.rs"),
        "{graph:?}"
    );
    assert!(
        graph["ui/state/runs.rs"]
            .iter()
            .all(|f| !f.starts_with("ui/app"))
    );
    let found = circles(&graph);
    assert!(
        !found.is_empty(),
        "two files that name each other are a circle"
    );
    // And the finder finds a longer one: a -> b -> c -> d -> a, with e beside it.
    let four: BTreeMap<String, BTreeSet<String>> =
        [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a"), ("e", "a")]
            .iter()
            .map(|(v, w)| (v.to_string(), BTreeSet::from([w.to_string()])))
            .collect();
    assert_eq!(circles(&four), vec![vec!["a", "b", "c", "d"]]);
    let wrong: Vec<&Vec<String>> = (found.iter())
        .filter(|c| c.len() > 3 || c.iter().any(|f| f == "ui/app/mod.rs"))
        .collect();
    assert!(
        wrong.is_empty(),
        "import circles of more than three files, or through the App (docs/architecture.md): {wrong:?}"
    );
}

/// The lab's parts, each in `src/ui/state/`: the structs whose fields are their own.
const PARTS: [(&str, &str); 8] = [
    ("reading.rs", "Reading"),
    ("runs.rs", "Runs"),
    ("exercise.rs", "Exercises"),
    ("exercise.rs", "ExerciseView"),
    ("try_lab.rs", "TryLab"),
    ("view.rs", "ViewState"),
    ("code_view.rs", "CodeState"),
    ("knobs.rs", "KnobBench"),
];

#[test]
fn the_labs_parts_keep_their_fields_behind_their_methods() {
    let doc = std::fs::read_to_string(manifest_dir().join("docs/architecture.md")).unwrap();
    let dir = manifest_dir().join("src/ui/state");
    let mut public = Vec::new();
    for (file, part) in PARTS {
        assert!(
            doc.contains(&format!("`{part}`")),
            "docs/architecture.md names the lab's part `{part}`"
        );
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let head = format!("pub struct {part} {{");
        let start = (text.lines().position(|l| l == head))
            .unwrap_or_else(|| panic!("src/ui/state/{file} defines `{head}`"));
        let body = text.lines().skip(start + 1).take_while(|l| *l != "}");
        for (i, line) in body.enumerate() {
            if line.trim_start().starts_with("pub") {
                public.push(format!(
                    "src/ui/state/{file}:{}: {}",
                    start + i + 2,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        public.is_empty(),
        "public fields of the lab's parts:\n{}",
        public.join("\n")
    );
}
