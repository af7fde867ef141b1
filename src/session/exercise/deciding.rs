//! `ex check --deciding CHECK`: a table of answers that must fail, each naming the check
//! that must catch it, judges that check first, with only the runs it needs: the output
//! alone for `correct`, a trace and no timing for a figure of the trace, timing and no
//! trace for a time, the interpreter's rerun for a figure only the interpreter makes.
//! Where it fails the check stops there, its verdict made (a failed check is a failed
//! check, whatever else would fail); where it holds, every check runs as `--fail-fast`
//! runs them, so an answer is never passed on the deciding check's runs alone.

use super::own_lines::{ATOMICS_LINE, BULK_LINE, RACE_LINE, UNSEEN_LINE};
use super::report::{CORRECT_LINE, CheckReport, Mark, Target};
use crate::model::claim::{Claim, ClaimKind};
use crate::model::exercise::Exercise;

/// What judging a check needs of the live run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// The output only: no trace, no timing.
    Output,
    /// A trace, no timing.
    Trace,
    /// Timing, no trace.
    Time,
    /// The whole run (a figure the kernel measures itself, read from what it wrote).
    Whole,
    /// The interpreter's rerun: a figure only the CPU interpreter makes.
    Interpreter,
}

impl Needs {
    /// Whether the runs judging the check trace.
    pub fn trace(self) -> bool {
        matches!(self, Needs::Trace | Needs::Whole)
    }

    /// Whether the runs judging the check are timed.
    pub fn time(self) -> bool {
        matches!(self, Needs::Time | Needs::Whole)
    }
}

/// A wrong answer's header naming a compile error as what catches it.
const COMPILE: &str = "compile";

/// The line a check report gives `check`, named as a wrong answer's header names it
/// (`correct`, `race`, `atomics`, `bulk`, `unseen`, or a check's own text; `compile` is
/// no line but the report's compile error).
pub fn line_of(check: &str) -> &str {
    match check {
        "correct" => CORRECT_LINE,
        "race" => RACE_LINE,
        "atomics" => ATOMICS_LINE,
        "bulk" => BULK_LINE,
        "unseen" => UNSEEN_LINE,
        other => other,
    }
}

/// What judging `check` needs, or None where `ex` has no such check.
pub fn needs(ex: &Exercise, check: &str) -> Option<Needs> {
    match line_of(check) {
        // A compile error stops every check before any run.
        CORRECT_LINE | COMPILE => return Some(Needs::Output),
        RACE_LINE | ATOMICS_LINE | BULK_LINE | UNSEEN_LINE => return Some(Needs::Trace),
        _ => {}
    }
    let c = ex.checks.iter().find(|c| c.text == check)?;
    Some(claim_needs(c))
}

fn claim_needs(c: &Claim) -> Needs {
    if c.metric().is_some_and(|m| m.judged_on_cpu()) {
        return Needs::Interpreter;
    }
    match &c.kind {
        ClaimKind::Correct { .. } => Needs::Output,
        ClaimKind::Ratio { .. } | ClaimKind::Within { .. } => Needs::Time,
        ClaimKind::Metric { metric, .. } | ClaimKind::MetricRatio { metric, .. }
            if metric.is_timing() =>
        {
            Needs::Time
        }
        ClaimKind::Measured { .. } | ClaimKind::MeasuredRatio { .. } => Needs::Whole,
        _ => Needs::Trace,
    }
}

/// What the deciding check of `t` needs, where it names one.
pub(super) fn of(t: &Target) -> Option<Needs> {
    needs(t.ex, t.deciding?)
}

/// Whether `report` has the deciding check of `t` failing.
pub(super) fn failed(t: &Target, report: &CheckReport) -> bool {
    let Some(check) = t.deciding else {
        return false;
    };
    if check == COMPILE {
        return report.compile_error.is_some();
    }
    let line = line_of(check);
    (report.lines.iter()).any(|l| l.check == line && l.mark == Mark::Fail)
}

/// Whether the deciding check of `t` is judged again at the extra sizes: the output is,
/// and a figure of the trace or a time where `sizes` says so.
pub(super) fn at_sizes(t: &Target) -> bool {
    let Some(check) = t.deciding else {
        return false;
    };
    match line_of(check) {
        CORRECT_LINE => true,
        RACE_LINE | ATOMICS_LINE | BULK_LINE | UNSEEN_LINE => super::sizes::traced(t.ex, true),
        text => (t.ex.checks.iter())
            .find(|c| c.text == text)
            .is_some_and(|c| super::sizes::judged_at_every_size(t.ex, c, true)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::claims::parse_claim;

    fn claim(text: &str) -> Claim {
        parse_claim(text, &["yours", "solution", "naive"]).unwrap()
    }

    #[test]
    fn each_kind_of_check_asks_only_for_the_runs_that_judge_it() {
        for (text, want) in [
            ("yours global.requests at most 1.1x solution", Needs::Trace),
            ("yours shared.conflicts_per_request == 0", Needs::Trace),
            ("yours spill_stores == 0", Needs::Trace),
            ("yours faster than naive by >= 1.2x", Needs::Time),
            ("yours pct_of_peak >= 70", Needs::Time),
            ("yours shared.feeds_output_pct == 100", Needs::Interpreter),
            (
                "yours global.unfenced_handover_words == 0",
                Needs::Interpreter,
            ),
            (
                "yours measured.cycles_per_access at most 1.5x solution",
                Needs::Whole,
            ),
        ] {
            assert_eq!(claim_needs(&claim(text)), want, "{text}");
        }
        assert!(Needs::Trace.trace() && !Needs::Trace.time());
        assert!(!Needs::Output.trace() && !Needs::Output.time());
        assert!(Needs::Time.time() && !Needs::Time.trace());
    }

    #[test]
    fn the_headers_short_names_are_the_reports_lines() {
        assert_eq!(line_of("correct"), CORRECT_LINE);
        assert_eq!(line_of("race"), RACE_LINE);
        assert_eq!(line_of("yours calls == 0"), "yours calls == 0");
    }
}
