//! `gpulab run --format ncu-csv`, with no GPU: the recording's (and the CPU interpreter's)
//! traced counters in Nsight Compute's names and `ncu --csv` layout. The CSV parses, names
//! exactly the counters the trace determines, and its values are the traced figures
//! scaled to the grid, as `--json` gives them. Against a real ncu: scripts/ncu_compare.sh.

use crate::support::common;

use common::bin;
use gpulab::cli::ncu_csv::{self, COLUMNS, METRICS, SECTION};
use gpulab::course::bundle::CourseRoot;
use gpulab::model::results::{LessonResult, VariantResult};
use std::collections::BTreeMap;
use std::process::{Command, Output};

fn gpulab(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = gpulab(args);
    assert!(
        out.status.success(),
        "gpulab {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// One CSV line's fields: every field quoted, a quote inside doubled.
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A row by column name.
type Row = BTreeMap<String, String>;

/// The comment lines, the header, and the rows.
fn parse(text: &str) -> (Vec<&str>, Vec<String>, Vec<Row>) {
    let comments: Vec<&str> = text.lines().filter(|l| l.starts_with('#')).collect();
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header = fields(lines.next().expect("a header"));
    let rows = lines
        .map(|l| {
            let f = fields(l);
            assert_eq!(f.len(), header.len(), "every row has every column: {l}");
            header.iter().cloned().zip(f).collect()
        })
        .collect();
    (comments, header, rows)
}

fn value(r: &Row) -> u64 {
    r["Metric Value"].replace(',', "").parse().unwrap()
}

/// The variant's kernel rows: metric name → value, in the file's order.
fn kernel_rows(rows: &[Row], id: usize) -> Vec<(String, u64)> {
    (rows.iter())
        .filter(|r| r["ID"] == id.to_string() && r["Section Name"] == SECTION)
        .map(|r| (r["Metric Name"].clone(), value(r)))
        .collect()
}

fn get(k: &[(String, u64)], m: ncu_csv::Metric) -> u64 {
    k.iter().find(|(n, _)| n == m.name).unwrap().1
}

/// The recording's CSV and JSON of `lesson`.
fn recorded(lesson: &str) -> (String, LessonResult) {
    let csv = stdout(&["run", lesson, "--replay", "--format", "ncu-csv"]);
    let json = stdout(&["run", lesson, "--replay", "--json"]);
    (csv, serde_json::from_str(&json).unwrap())
}

/// The traced figures of `v` the CSV must hold, from `--json`'s totals.
fn check_against_the_trace(lesson: &str, id: usize, v: &VariantResult, rows: &[Row]) {
    let m = v.memory.as_ref().unwrap();
    let k = kernel_rows(rows, id);
    let names: Vec<&str> = k.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
    assert_eq!(names, expected, "{lesson} {}: every counter, once", v.name);
    let at = format!("{lesson} {}", v.name);
    // Shared memory: the totals `--json` scales from the same traced counts.
    assert_eq!(
        get(&k, ncu_csv::SHARED_LD_INST),
        m.shared.ld.requests,
        "{at}"
    );
    assert_eq!(
        get(&k, ncu_csv::SHARED_ST_INST),
        m.shared.st.requests,
        "{at}"
    );
    assert_eq!(
        get(&k, ncu_csv::SHARED_LD_WAVEFRONTS),
        m.shared.ld.wavefronts,
        "{at}"
    );
    assert_eq!(
        get(&k, ncu_csv::SHARED_ST_WAVEFRONTS),
        m.shared.st.wavefronts,
        "{at}"
    );
    assert_eq!(
        get(&k, ncu_csv::SHARED_LD_CONFLICTS),
        m.shared.ld.wavefronts - m.shared.ld.ideal_wavefronts,
        "{at}: conflicts are the wavefronts beyond the ideal"
    );
    assert_eq!(
        get(&k, ncu_csv::SHARED_ST_CONFLICTS),
        m.shared.st.wavefronts - m.shared.st.ideal_wavefronts,
        "{at}"
    );
    // Global memory: loads and stores apart, which `--json` sums (each rounded apart).
    let requests = get(&k, ncu_csv::GLOBAL_LD_REQUESTS) + get(&k, ncu_csv::GLOBAL_ST_REQUESTS);
    let sectors = get(&k, ncu_csv::GLOBAL_LD_SECTORS) + get(&k, ncu_csv::GLOBAL_ST_SECTORS);
    assert!(
        requests.abs_diff(m.global.requests) <= 1,
        "{at}: {requests} {:?}",
        m.global
    );
    assert!(
        sectors.abs_diff(m.global.sectors) <= 1,
        "{at}: {sectors} {:?}",
        m.global
    );
    // The lines add up to the kernel (each line rounded apart), where every traced access
    // has its line.
    assert!(
        m.instructions.iter().all(|i| i.source_line.is_some()),
        "{at}"
    );
    let lines: Vec<&Row> = (rows.iter())
        .filter(|r| r["ID"] == id.to_string() && r["Section Name"].starts_with("Source line "))
        .collect();
    assert!(!lines.is_empty(), "{at}: per-line rows");
    let n_lines = (lines.iter().map(|r| &r["Section Name"]))
        .collect::<std::collections::BTreeSet<_>>()
        .len() as u64;
    for (name, total) in &k {
        let sum: u64 = (lines.iter())
            .filter(|r| &r["Metric Name"] == name)
            .map(|r| value(r))
            .sum();
        assert!(
            sum.abs_diff(*total) <= n_lines,
            "{at} {name}: lines {sum}, kernel {total}"
        );
    }
    // The launch, as ncu writes it.
    let first = rows.iter().find(|r| r["ID"] == id.to_string()).unwrap();
    let dims = |d: [u32; 3]| format!("({}, {}, {})", d[0], d[1], d[2]);
    assert_eq!(first["Block Size"], dims(v.block), "{at}");
    assert_eq!(first["Grid Size"], dims(v.grid), "{at}");
    assert_eq!(first["CC"], "9.0", "{at}: the recording's H100");
}

#[test]
fn recorded_counters_in_ncu_names_equal_the_traced_figures() {
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    for lesson in ["shared-banks", "global-coalescing"] {
        let (csv, r) = recorded(lesson);
        let (comments, header, rows) = parse(&csv);
        assert_eq!(header, COLUMNS, "ncu's columns, in its order");
        assert!(
            comments[0].contains("derived from traced addresses, not read from hardware"),
            "{comments:?}"
        );
        let l = lessons.iter().find(|l| l.id == lesson).unwrap();
        for (id, v) in r.variants.iter().enumerate() {
            assert!(
                comments
                    .iter()
                    .any(|c| c.starts_with(&format!("# ID {id}: variant {},", v.name))),
                "{comments:?}"
            );
            check_against_the_trace(lesson, id, v, &rows);
            let kernel = &l.variant(&v.name).unwrap().kernel;
            assert!(
                (rows.iter())
                    .filter(|row| row["ID"] == id.to_string())
                    .all(|row| &row["Kernel Name"] == kernel),
                "{lesson} {}: kernel {kernel}",
                v.name
            );
        }
    }
}

/// What each lesson teaches, in ncu's terms: sectors per request for the strides of
/// global-coalescing, wavefronts and conflicts per shared load for shared-banks.
#[test]
fn the_lessons_per_request_figures_read_in_ncu_terms() {
    let (csv, r) = recorded("global-coalescing");
    let (_, _, rows) = parse(&csv);
    let id = |name: &str| r.variants.iter().position(|v| v.name == name).unwrap();
    for (variant, per_request) in [("coalesced", 4), ("stride-2", 8), ("stride-32", 32)] {
        let k = kernel_rows(&rows, id(variant));
        let requests = get(&k, ncu_csv::GLOBAL_LD_REQUESTS);
        assert!(requests > 0, "{variant}");
        assert_eq!(
            get(&k, ncu_csv::GLOBAL_LD_SECTORS),
            requests * per_request,
            "{variant}: sectors = requests × {per_request}"
        );
    }
    let (csv, r) = recorded("shared-banks");
    let (_, _, rows) = parse(&csv);
    let id = |name: &str| r.variants.iter().position(|v| v.name == name).unwrap();
    for (variant, wavefronts) in [
        ("stride-1", 1),
        ("stride-2", 2),
        ("stride-32", 32),
        ("stride-33", 1),
    ] {
        let k = kernel_rows(&rows, id(variant));
        let inst = get(&k, ncu_csv::SHARED_LD_INST);
        assert!(inst > 0, "{variant}");
        assert_eq!(
            get(&k, ncu_csv::SHARED_LD_WAVEFRONTS),
            inst * wavefronts,
            "{variant}"
        );
        assert_eq!(
            get(&k, ncu_csv::SHARED_LD_CONFLICTS),
            inst * (wavefronts - 1),
            "{variant}: the ideal is one wavefront a load"
        );
    }
}

/// The CPU interpreter traces the same sampled blocks as the GPU tracer: its CSV's counters
/// are the recording's.
#[test]
fn the_interpreters_counters_are_the_recordings() {
    if !common::nvrtc_or_skip("the_interpreters_counters_are_the_recordings") {
        return;
    }
    let args = |how: &'static str| {
        [
            "run",
            "shared-banks",
            "--variant",
            "stride-2",
            "--format",
            "ncu-csv",
            how,
        ]
    };
    let cpu = stdout(&args("--cpu"));
    assert!(
        cpu.contains("# figures: run on the CPU interpreter"),
        "{cpu}"
    );
    let (_, _, cpu_rows) = parse(&cpu);
    let (_, _, rec_rows) = parse(&stdout(&args("--replay")));
    let values = |rows: &[Row]| -> Vec<(String, String, u64)> {
        (rows.iter())
            .map(|r| {
                (
                    r["Section Name"].clone(),
                    r["Metric Name"].clone(),
                    value(r),
                )
            })
            .collect()
    };
    assert!(!cpu_rows.is_empty());
    assert_eq!(values(&cpu_rows), values(&rec_rows));
}

#[test]
fn ncu_csv_needs_the_trace_and_is_one_format() {
    let out = gpulab(&[
        "run",
        "shared-banks",
        "--replay",
        "--no-trace",
        "--format",
        "ncu-csv",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("leave out --no-trace"), "{err}");
    let out = gpulab(&[
        "run",
        "shared-banks",
        "--replay",
        "--json",
        "--format",
        "ncu-csv",
    ]);
    assert!(!out.status.success(), "--json and --format are one choice");
    // `--format json` is `--json`.
    let a = stdout(&["run", "shared-banks", "--replay", "--format", "json"]);
    let b = stdout(&["run", "shared-banks", "--replay", "--json"]);
    assert_eq!(a, b);
}

/// The atomics lesson in ncu's terms: global atomics under `op_atom` or `op_red` and shared
/// ones under `op_shared_atom`, as the trace counts them apart; none of them under the
/// loads' or stores' counters, which hold only the loads and stores.
#[test]
fn atomics_are_written_under_their_own_counters_never_as_stores() {
    let (csv, r) = recorded("atomics");
    let (_, _, rows) = parse(&csv);
    let mut seen = 0;
    for (id, v) in r.variants.iter().enumerate() {
        let Some(m) = v.memory.as_ref() else { continue };
        let k = kernel_rows(&rows, id);
        let find = |metric: ncu_csv::Metric| {
            (k.iter().find(|(n, _)| n == metric.name)).map_or(0, |(_, v)| *v)
        };
        // Each instruction's count is rounded on its own when scaled to the grid.
        let close = |a: u64, b: u64| a.abs_diff(b) <= m.instructions.len() as u64;
        let at = format!("atomics {}", v.name);
        let a = &m.atomics;
        assert!(
            close(find(ncu_csv::GLOBAL_ATOM_REQUESTS), a.global_atom.requests),
            "{at}"
        );
        assert!(
            close(find(ncu_csv::GLOBAL_RED_REQUESTS), a.global_red.requests),
            "{at}"
        );
        assert!(
            close(find(ncu_csv::GLOBAL_ATOM_SECTORS), a.global_atom.sectors),
            "{at}"
        );
        assert!(
            close(find(ncu_csv::SHARED_ATOM_INST), a.shared.requests),
            "{at}"
        );
        assert!(
            close(find(ncu_csv::SHARED_ATOM_WAVEFRONTS), a.shared.wavefronts),
            "{at}"
        );
        // The stores' counters hold the stores alone.
        let stores: u64 = (m.instructions.iter())
            .filter(|i| i.space == gpulab::model::access::Space::Global)
            .filter(|i| i.kind == gpulab::model::access::AccessKind::Store)
            .map(|i| i.requests)
            .sum();
        let scale = m.total_blocks as f64 / m.traced_blocks.max(1) as f64;
        let stores = (stores as f64 * scale).round() as u64;
        assert!(close(get(&k, ncu_csv::GLOBAL_ST_REQUESTS), stores), "{at}");
        seen += u64::from(a.global_atom.requests + a.global_red.requests + a.shared.requests > 0);
    }
    assert!(seen >= 3, "the lesson's atomics variants: {seen}");
}
