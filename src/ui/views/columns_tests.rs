use super::*;
use crate::model::{Measured, Tolerance};

fn text(line: &Line) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[test]
fn measured_figures_and_a_lesson_tolerance_are_shown() {
    let th = Theme::new(false);
    let mut v = VariantResult::default();
    assert!(measured_lines(&v, &th).is_empty());
    assert!(tolerance_line(&v, &th).is_none());
    v.measured.insert(
        "cycles_per_access".into(),
        Measured {
            value: 412.25,
            unit: "cycles".into(),
        },
    );
    v.tolerance = Some(Tolerance {
        rel: 1e-5,
        abs: 1e-6,
    });
    let lines = measured_lines(&v, &th);
    assert_eq!(text(&lines[0]), "cycles_per_access 412 cycles");
    let tol = tolerance_line(&v, &th).unwrap();
    assert_eq!(text(&tol), "floats within rel 1e-5 · abs 1e-6");
}
