//! The lesson keys beyond the first format — `constants`, `tolerance`, `measures`,
//! `requires` and the `measured.NAME` claims — loaded, refused at their line and column,
//! judged, and honoured by the (fake) worker.

use crate::support::common;

use gpulab::analysis::claims::evaluate;
use gpulab::model::claim::ClaimKind;
use gpulab::model::protocol::{Reply, Request, RunOptions};
use gpulab::model::results::Source;
use gpulab::model::{ConstantFill, Lesson, Measured, Requires, Summary, Tolerance};
use gpulab::session::client::WorkerClient;
use gpulab::session::fold::blank_result;
use std::time::Duration;

const BASE: &str = r#"format_version: 1
id: probe
title: Probe
space: constant
pages: [{ title: t, text: x }]
problem: { n: 1024 }
buffers:
  - { name: in, type: f32, len: n, init: random }
  - { name: tbl, type: f32, len: 64, init: random }
  - { name: out, type: f32, len: n, init: poison }
  - { name: cycles, type: u64, len: n, init: poison }
variants:
  - name: uniform
    source: kernels/probe.cu
    kernel: probe
    defines: { ITERS: 4 }
    launch: { grid: "n / 256", block: 256 }
    args: [in, out, cycles, n]
    constants: [{ symbol: table, from: tbl }]
  - { name: divergent, like: uniform, defines: { ITERS: 8 } }
reference: uniform
tolerance: { rel: 1e-5, abs: 1e-6 }
measures:
  - { name: cycles_per_access, from: cycles, summary: median, per: "ITERS", unit: cycles }
requires: { cc: "9.0", gpus: 1 }
expect:
  - "divergent measured.cycles_per_access greater than uniform by >= 3x"
  - "uniform measured.cycles_per_access < 100"
"#;

fn load(text: &str) -> Result<Lesson, Vec<String>> {
    common::load_probe("07-probe.yaml", text)
}

fn single_error(from: &str, to: &str, phrase: &str) {
    common::single_probe_error("07-probe.yaml", BASE, from, to, phrase)
}

#[test]
fn the_new_keys_load_and_like_inherits_constants() {
    let l = load(BASE).unwrap();
    let fill = vec![ConstantFill {
        symbol: "table".into(),
        buffer: 1,
    }];
    assert_eq!(l.variants[0].constants, fill);
    assert_eq!(l.variants[1].constants, fill);
    assert_eq!(
        l.tolerance,
        Some(Tolerance {
            rel: 1e-5,
            abs: 1e-6
        })
    );
    let m = &l.measures[0];
    assert_eq!((m.name.as_str(), m.buffer), ("cycles_per_access", 3));
    assert_eq!(m.summary, Summary::Median);
    assert_eq!(
        (&l.variants[0].per, &l.variants[1].per),
        (&vec![4.0], &vec![8.0])
    );
    assert!(l.is_measured(3) && !l.is_measured(2));
    assert_eq!(
        l.requires,
        Requires {
            cc: Some((9, 0)),
            gpus: Some(1)
        }
    );
    assert!(matches!(
        l.expect[0].kind,
        ClaimKind::MeasuredRatio {
            greater: true,
            factor: 3.0,
            ..
        }
    ));
    assert!(matches!(l.expect[1].kind, ClaimKind::Measured { .. }));
}

#[test]
fn lessons_without_the_new_keys_keep_the_old_defaults() {
    let plain = BASE
        .replace("tolerance: { rel: 1e-5, abs: 1e-6 }\n", "")
        .replace("requires: { cc: \"9.0\", gpus: 1 }\n", "");
    let l = load(&plain).unwrap();
    assert_eq!(l.tolerance, None);
    assert_eq!(l.requires, Requires::default());
    assert_eq!(
        Tolerance::default(),
        Tolerance {
            rel: 1e-4,
            abs: 1e-6
        }
    );
}

#[test]
fn a_constant_needs_an_input_and_a_declared_symbol() {
    single_error(
        "{ symbol: table, from: tbl }",
        "{ symbol: table, from: out }",
        "`out` is an output",
    );
    // `ghost` is declared only in a comment of probe.cu.
    single_error(
        "{ symbol: table, from: tbl }",
        "{ symbol: ghost, from: tbl }",
        "declares no `__constant__` variable `ghost`",
    );
    single_error(
        "{ symbol: table, from: tbl }",
        "{ symbol: table, from: nothing }",
        "unknown buffer `nothing`",
    );
    single_error(
        "{ symbol: table, from: tbl }",
        "{ symbol: table, form: tbl }",
        "unknown field `form`",
    );
}

#[test]
fn measures_are_checked_where_they_are_written() {
    let m = "{ name: cycles_per_access, from: cycles,";
    single_error(
        m,
        "{ name: cycles_per_access, from: in,",
        "must be an output",
    );
    single_error("summary: median", "summary: mode", "unknown summary `mode`");
    single_error("per: \"ITERS\"", "per: \"ITERS - 4\"", "`per` must be > 0");
    single_error("per: \"ITERS\"", "per: \"WIDTH\"", "WIDTH");
    single_error(
        "uniform measured.cycles_per_access < 100",
        "uniform measured.cycles < 100",
        "unknown measure `cycles`",
    );
}

#[test]
fn requires_and_tolerance_values_are_checked() {
    single_error("cc: \"9.0\"", "cc: \"nine\"", "compute capability");
    single_error("gpus: 1 }", "gpus: 0 }", "at least 1");
    single_error("rel: 1e-5", "rel: -1.0", "`rel` must be a number >= 0");
}

#[test]
fn measured_claims_are_judged_and_unmeasured_ones_are_not_held() {
    let l = load(BASE).unwrap();
    let mut r = blank_result(&l, Source::Live, None);
    let put = |r: &mut gpulab::model::results::LessonResult, i: usize, x: f64| {
        r.variants[i].measured.insert(
            "cycles_per_access".into(),
            Measured {
                value: x,
                unit: "cycles".into(),
            },
        );
    };
    let not_yet = evaluate(&l.expect[0], &r);
    assert_eq!(not_yet.holds, None, "{not_yet:?}");
    put(&mut r, 0, 20.0);
    put(&mut r, 1, 80.0);
    let ratio = evaluate(&l.expect[0], &r);
    assert_eq!(ratio.holds, Some(true), "{ratio:?}");
    assert!(ratio.detail.contains("4.00x"), "{}", ratio.detail);
    assert_eq!(evaluate(&l.expect[1], &r).holds, Some(true));
    put(&mut r, 1, 50.0);
    assert_eq!(evaluate(&l.expect[0], &r).holds, Some(false));
}

#[test]
fn a_missing_capability_is_said_and_is_not_an_error() {
    let mut l = load(BASE).unwrap();
    l.requires.cc = Some((10, 0));
    let mut c = WorkerClient::with_command(common::bin(), vec!["worker".into()])
        .env("GPULAB_WORKER_FAKE", "gpu");
    let req = Request::Run {
        lesson: Box::new(l),
        options: RunOptions::default(),
    };
    let mut results = Vec::new();
    c.request(&req, Duration::from_secs(30), |r| {
        if let Reply::Variant { result } = r {
            results.push(result.clone());
        }
    })
    .unwrap();
    assert_eq!(results.len(), 2);
    for v in &results {
        let why = "needs compute capability 10.0, this GPU has 9.0";
        assert_eq!(v.unmet.as_deref(), Some(why));
        assert_eq!((v.correct, v.error.as_deref()), (None, None));
        let status = gpulab::analysis::describe::status(v);
        assert_eq!(status, format!("not run: {why}"));
    }
}

#[test]
fn measured_claims_parse_in_both_forms_and_refuse_what_is_not_one() {
    use gpulab::course::claims::{ClaimError, parse_claim};
    let names = ["a", "b"];
    let c = parse_claim("a measured.cpa less than b by >= 2x", &names).unwrap();
    assert!(matches!(
        c.kind,
        ClaimKind::MeasuredRatio {
            greater: false,
            factor: 2.0,
            ..
        }
    ));
    assert_eq!(c.measure(), Some("cpa"));
    let c = parse_claim("a measured.cpa >= 1.5", &names).unwrap();
    assert!(matches!(c.kind, ClaimKind::Measured { value: 1.5, .. }));
    assert_eq!(
        parse_claim("a measured. >= 1", &names),
        Err(ClaimError::NoMeasureName("measured.".into()))
    );
    assert!(matches!(
        parse_claim("a measured.cpa greater than c by >= 2x", &names),
        Err(ClaimError::UnknownVariant { .. })
    ));
    assert!(matches!(
        parse_claim("a measured.cpa greater than b by 2x", &names),
        Err(ClaimError::Factor(_))
    ));
    // Ordinary metrics are untouched by the new forms.
    assert!(parse_claim("a time_ms < 3", &names).is_ok());
}
