//! The `exercises:` key of the lesson format: a good one loads with its `yours` variant
//! built from `like:`, and every mistake is reported at its line and column.

use crate::support::common;

use common::fixture;
use gpulab::course::bundle::CourseRoot;
use gpulab::model::exercise::YOURS;

fn base() -> String {
    std::fs::read_to_string(fixture("expack/lessons/01-tiny.yaml")).unwrap()
}

fn load(text: &str) -> Result<gpulab::model::Lesson, Vec<String>> {
    let root = CourseRoot::Dir(fixture("expack/lessons"));
    gpulab::course::load_file(&root, "01-tiny.yaml", text).map_err(|errs| {
        errs.iter()
            .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
            .collect()
    })
}

/// `base` with `from` replaced by `to`: exactly one error, at `line:col`, saying `phrase`.
fn one_error(from: &str, to: &str, at: (usize, usize), phrase: &str) {
    let b = base();
    assert!(b.contains(from), "{from}");
    let errs = load(&b.replacen(from, to, 1)).expect_err("should fail");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(
        errs[0].starts_with(&format!("{}:{}:", at.0, at.1)),
        "{errs:?}"
    );
    assert!(errs[0].contains(phrase), "{errs:?}");
}

/// The line and column of the first `needle` in the fixture (1-based).
fn at(needle: &str) -> (usize, usize) {
    let b = base();
    let (i, line) = b
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap();
    (i + 1, line.find(needle).unwrap() + 1)
}

#[test]
fn an_exercise_loads_with_its_variant_built_like_the_lessons() {
    let l = load(&base()).unwrap_or_else(|e| panic!("{e:#?}"));
    let ex = &l.exercises[0];
    assert_eq!(ex.id, "fix-copy");
    assert_eq!(ex.yours.name, YOURS);
    assert_eq!(ex.yours.kernel, "copy_mine");
    assert_eq!(ex.yours.grid, [16, 1, 1], "inherited from `plain`");
    assert_eq!(ex.yours.options, ["-maxrregcount=32"]);
    assert!(
        ex.yours.source.contains("if (i < n)"),
        "the solution's text"
    );
    assert_eq!(ex.hints.len(), 2);
    assert_eq!((ex.difficulty, ex.minutes), (1, 5));
    assert_eq!(ex.checks.len(), 2);
    assert_eq!(ex.sizes, vec![vec![("n".to_string(), 1000)]]);
    assert_eq!(ex.seeds, 2);
    let at_1000 = gpulab::course::load_file_sized(
        &CourseRoot::Dir(fixture("expack/lessons")),
        "01-tiny.yaml",
        &base(),
        &ex.sizes[0],
    )
    .unwrap();
    assert_eq!(at_1000.buffers[0].len, 1000);
    assert_eq!(at_1000.exercises[0].yours.grid, [4, 1, 1]);
}

#[test]
fn an_unknown_key_in_an_exercise_is_placed() {
    let (line, _) = at("hints:");
    one_error(
        "    hints:",
        "    hintz:",
        (line, 5),
        "unknown field `hintz`",
    );
}

#[test]
fn a_check_about_another_variant_is_placed_on_the_check() {
    let (line, col) = at("\"yours spill_stores == 0\"");
    one_error(
        "\"yours spill_stores == 0\"",
        "\"plain spill_stores == 0\"",
        (line, col),
        "a check is about `yours`",
    );
}

#[test]
fn an_unreadable_check_is_placed_on_the_check() {
    let (line, col) = at("\"yours global.sectors_per_request <= 4\"");
    one_error(
        "\"yours global.sectors_per_request <= 4\"",
        "\"yours sectors <= 4\"",
        (line, col),
        "unknown metric `sectors`",
    );
}

#[test]
fn a_missing_starter_is_placed_on_its_path() {
    let (line, col) = at("exercises/tiny/fix-copy/starter.cu");
    one_error(
        "fix-copy/starter.cu",
        "fix-copy/nothing.cu",
        (line, col),
        "nothing.cu",
    );
}

#[test]
fn a_starter_without_the_kernel_is_an_error() {
    let (line, col) = at("kernel: copy_mine");
    let errs = load(&base().replacen("kernel: copy_mine", "kernel: copy_other", 1))
        .expect_err("should fail");
    assert!(
        errs.iter()
            .any(|e| e.starts_with(&format!("{line}:{}:", col + 8)) && e.contains("copy_other")),
        "{errs:?}"
    );
}

#[test]
fn an_unknown_size_and_an_unknown_like_are_placed() {
    let (line, _) = at("sizes:");
    let b = base();
    let col = b.lines().nth(line - 1).unwrap().find("n: 1000").unwrap() + 1;
    one_error(
        "{ n: 1000 }",
        "{ m: 1000 }",
        (line, col),
        "`m` is not a problem size",
    );
    let (line, col) = at("like: plain");
    one_error(
        "like: plain",
        "like: fancy",
        (line, col + 6),
        "unknown variant `fancy`",
    );
}

#[test]
fn an_exercise_id_given_twice_is_an_error() {
    let b = base();
    let start = b.find("  - id: fix-copy").unwrap();
    let doubled = format!("{b}{}", &b[start..]);
    let errs = load(&doubled).expect_err("should fail");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(
        errs[0].contains("exercise `fix-copy` is defined twice"),
        "{errs:?}"
    );
}

#[test]
fn an_exercise_id_is_unique_across_the_course() {
    let tmp = tempfile::tempdir().unwrap();
    let lessons = tmp.path().join("lessons");
    std::fs::create_dir_all(&lessons).unwrap();
    for dir in ["kernels/tiny", "exercises/tiny/fix-copy"] {
        let from = fixture(&format!("expack/{dir}"));
        std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), tmp.path().join(dir).join(e.file_name())).unwrap();
        }
    }
    std::fs::write(lessons.join("01-tiny.yaml"), base()).unwrap();
    let second = base().replace("id: tiny", "id: tiny-two");
    std::fs::write(lessons.join("02-tiny-two.yaml"), &second).unwrap();
    let (loaded, errs) = gpulab::course::load_course(&CourseRoot::Dir(lessons));
    // The later lesson does not load: `ex start fix-copy` would name two exercises.
    let ids: Vec<&str> = loaded.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["tiny"]);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    let (line, col) = at("id: fix-copy");
    assert_eq!((errs[0].line, errs[0].col), (line, col + 4), "{errs:?}");
    assert!(errs[0].file.ends_with("02-tiny-two.yaml"), "{errs:?}");
    assert!(errs[0].message.contains("already used by"), "{errs:?}");
}

#[test]
fn a_check_on_a_measure_the_lesson_lacks_is_placed_on_the_check() {
    let (line, col) = at("\"yours global.sectors_per_request <= 4\"");
    one_error(
        "\"yours global.sectors_per_request <= 4\"",
        "\"yours measured.cycles < 3\"",
        (line, col),
        "unknown measure `cycles`",
    );
}

#[test]
fn an_editing_size_loads_and_a_bad_one_is_placed() {
    let (line, _) = at("sizes:");
    let b = base();
    let indent: String = b
        .lines()
        .nth(line - 1)
        .unwrap()
        .chars()
        .take_while(|c| *c == ' ')
        .collect();
    let sizes_line = b.lines().nth(line - 1).unwrap().to_string();
    let with = |v: &str| {
        b.replacen(
            &sizes_line,
            &format!("{sizes_line}\n{indent}editing: {{ {v} }}"),
            1,
        )
    };
    let l = load(&with("n: 512")).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(l.exercises[0].editing, vec![("n".to_string(), 512)]);
    assert!(load(&b).unwrap().exercises[0].editing.is_empty());
    let errs = load(&with("n: 0")).unwrap_err();
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs[0].starts_with(&format!("{}:", line + 1)), "{errs:?}");
    assert!(errs[0].contains("a size must be > 0"), "{errs:?}");
    let errs = load(&with("q: 4")).unwrap_err();
    assert!(errs[0].contains("`q` is not a problem size"), "{errs:?}");
}

#[test]
fn cpu_sizes_load_beside_the_gpus_and_an_unknown_one_is_placed() {
    assert_eq!(load(&base()).unwrap().exercises[0].sizes_cpu, None);
    let b = base().replacen(
        "    sizes: [{ n: 1000 }]",
        "    sizes: [{ n: 1000 }]\n    sizes_cpu: [{ n: 37 }]",
        1,
    );
    let l = load(&b).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(
        l.exercises[0].sizes_cpu,
        Some(vec![vec![("n".to_string(), 37)]])
    );
    let errs = load(&b.replacen("{ n: 37 }", "{ k: 37 }", 1)).expect_err("should fail");
    let (line, _) = b
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("sizes_cpu"))
        .map(|(i, l)| (i + 1, l))
        .unwrap();
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert!(errs[0].starts_with(&format!("{line}:")), "{errs:?}");
    assert!(errs[0].contains("`k` is not a problem size"), "{errs:?}");
}

#[test]
fn a_drawn_size_loads_and_a_bad_name_or_range_is_placed() {
    assert!(load(&base()).unwrap().exercises[0].drawn_size.is_empty());
    let b = base().replacen(
        "    sizes: [{ n: 1000 }]",
        "    sizes: [{ n: 1000 }]\n    drawn_size: { n: [2000, 90000] }",
        1,
    );
    let l = load(&b).unwrap_or_else(|e| panic!("{e:#?}"));
    let d = &l.exercises[0].drawn_size;
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].name.as_str(), d[0].lo, d[0].hi), ("n", 2000, 90000));
    let line = (b.lines().position(|l| l.contains("drawn_size")).unwrap() + 1).to_string();
    for (bad, phrase) in [
        ("{ k: [2000, 90000] }", "`k` is not a problem size"),
        ("{ n: [90000, 2000] }", "is no range of sizes"),
        ("{ n: [0, 2000] }", "is no range of sizes"),
    ] {
        let errs = load(&b.replacen("{ n: [2000, 90000] }", bad, 1)).expect_err(bad);
        assert_eq!(errs.len(), 1, "{errs:#?}");
        assert!(errs[0].starts_with(&format!("{line}:")), "{errs:?}");
        assert!(errs[0].contains(phrase), "{errs:?}");
    }
}

#[test]
fn a_difficulty_outside_one_to_three_is_placed() {
    let (line, col) = at("difficulty: 1");
    one_error(
        "difficulty: 1",
        "difficulty: 4",
        (line, col + "difficulty: ".len()),
        "difficulty 4 is not 1",
    );
}

#[test]
fn an_exercise_without_minutes_is_placed() {
    let b = base();
    let errs = load(&b.replacen("    minutes: 5\n", "", 1)).expect_err("should fail");
    assert!(errs.iter().any(|e| e.contains("minutes")), "{errs:?}");
}

/// `text` loaded from a course whose exercise kernel takes a step: `copy_mine(in, out,
/// float step, int n)`.
fn load_stepped(text: &str) -> Result<gpulab::model::Lesson, Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let kernel = "extern \"C\" __global__ void copy_mine(const float* in, float* out, \
                  float step, int n) { int i = threadIdx.x; if (i < n) out[i] = in[i] + step; }\n";
    for (path, body) in [
        (
            "kernels/tiny/copy.cu",
            std::fs::read_to_string(fixture("expack/kernels/tiny/copy.cu")).unwrap(),
        ),
        ("exercises/tiny/fix-copy/starter.cu", kernel.to_string()),
        ("exercises/tiny/fix-copy/solution.cu", kernel.to_string()),
    ] {
        let at = dir.path().join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, body).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("lessons")).unwrap();
    let root = CourseRoot::Dir(dir.path().join("lessons"));
    gpulab::course::load_file(&root, "01-tiny.yaml", text).map_err(|errs| {
        errs.iter()
            .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
            .collect()
    })
}

#[test]
fn an_argument_drawn_at_random_needs_a_range_and_the_solution_as_reference() {
    let (line, col) = at("kernel: copy_mine");
    // The solution takes the place of a reference variant (a built-in one is given no
    // arguments).
    let variant = "reference: plain";
    let b = base().replacen(
        "reference: { builtin: copy, from: in, to: out }",
        variant,
        1,
    );
    let indent = " ".repeat(col - 1);
    let with = |arg: &str, more: &str| {
        b.replacen(
            "    kernel: copy_mine\n",
            &format!("    kernel: copy_mine\n{indent}args: [in, out, {arg}, n]\n{more}"),
            1,
        )
    };
    let reference = format!("{indent}reference: solution\n");
    let l = load_stepped(&with("{ f32: 0.5, random: [0.25, 4] }", &reference))
        .unwrap_or_else(|e| panic!("{e:#?}"));
    let d = &l.exercises[0].drawn_args;
    assert_eq!((d.len(), d[0].index, d[0].lo, d[0].hi), (1, 2, 0.25, 4.0));
    // No range, and the lesson's reference as the oracle: each said at the arg's line.
    for (arg, more, phrase) in [
        (
            "{ f32: 0.5, random: [4, 0.25] }",
            reference.as_str(),
            "is no range",
        ),
        (
            "{ f32: 0.5, random: [0.25, 4] }",
            "",
            "needs `reference: solution`",
        ),
    ] {
        let errs = load_stepped(&with(arg, more)).unwrap_err();
        assert_eq!(errs.len(), 1, "{errs:#?}");
        assert!(errs[0].starts_with(&format!("{}:", line + 1)), "{errs:?}");
        assert!(errs[0].contains(phrase), "{errs:?}");
    }
    let builtin = with("{ f32: 0.5, random: [0.25, 4] }", &reference).replacen(
        variant,
        "reference: { builtin: copy, from: in, to: out }",
        1,
    );
    let errs = load_stepped(&builtin).unwrap_err();
    assert!(
        errs[0].contains("a lesson whose reference is a variant"),
        "{errs:?}"
    );
    // Any other key beside f32 is refused.
    let errs = load_stepped(&with("{ f32: 0.5, range: [0.25, 4] }", &reference)).unwrap_err();
    assert!(
        errs[0].contains("at most the keys f32 and random"),
        "{errs:?}"
    );
}
