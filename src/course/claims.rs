//! Reading a lesson's `expect` entries into `model::claim::Claim`s. Judging them against a
//! run is `analysis::claims`.

use crate::model::access::{AccessKind, Space};
use crate::model::claim::{Claim, ClaimKind, CmpOp, Metric};
use thiserror::Error;

const FORMS: &str = "`A slower than B by >= Kx`, `A faster than B by >= Kx`, \
                     `A within P% of B`, `A <metric> <op> <number>`, \
                     `A measured.NAME <op> <number>`, \
                     `A measured.NAME greater than B by >= Kx` (or `less than`), \
                     `A <metric> greater than B by >= Kx` (or `less than`), \
                     `A <metric> at most Kx B` (or `at least`; a metric or `measured.NAME`), \
                     `A makes SPACE loads` (or `stores`, `requests`), \
                     `A keeps FUNCTION out of line` or `A correct`";

/// Why an `expect` entry is not a claim; the text is what the lesson's author reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClaimError {
    #[error("empty claim; write {FORMS}")]
    Empty,
    #[error("unknown variant `{name}` in claim (variants: {known})")]
    UnknownVariant { name: String, known: String },
    #[error("expected `by >= Kx` (e.g. `by >= 5x`), found `by {0}`")]
    Factor(String),
    #[error("`{0}` is not a percentage such as `10%`")]
    Percentage(String),
    #[error("unknown metric `{name}` (metrics: {known})")]
    UnknownMetric { name: String, known: String },
    #[error("unknown comparison `{0}` (use one of == != < <= > >=)")]
    UnknownComparison(String),
    #[error("`{0}` is not a number")]
    NotANumber(String),
    #[error("`{0}` names no measured figure; write `measured.NAME`")]
    NoMeasureName(String),
    #[error("unknown space `{0}` (spaces: {SPACES}); write `A makes SPACE loads`")]
    UnknownSpace(String),
    #[error(
        "`{0}` is not `loads`, `stores`, `atomics`, `copies`, `matrix-loads` or `requests`; write `A makes SPACE loads`"
    )]
    UnknownAccess(String),
    #[error("cannot read claim `{0}`; write {FORMS}")]
    Unreadable(String),
}

/// Parse one `expect` entry; variant names must be among `variant_names`.
pub fn parse_claim(text: &str, variant_names: &[&str]) -> Result<Claim, ClaimError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let variant = |w: &str| -> Result<String, ClaimError> {
        if variant_names.contains(&w) {
            Ok(w.to_string())
        } else {
            Err(ClaimError::UnknownVariant {
                name: w.to_string(),
                known: variant_names.join(", "),
            })
        }
    };
    let Some(&first) = words.first() else {
        return Err(ClaimError::Empty);
    };
    let a = variant(first)?;
    let kind = match words[1..] {
        ["correct"] => ClaimKind::Correct { a },
        ["makes", space, access] => ClaimKind::Makes {
            space: parse_space(space)?,
            access: parse_access(access)?,
            a,
        },
        ["keeps", function, "out", "of", "line"] => ClaimKind::OutOfLine {
            function: function.to_string(),
            a,
        },
        [dir @ ("slower" | "faster"), "than", b, "by", ref rest @ ..] => ClaimKind::Ratio {
            factor: parse_factor(&rest.concat())?,
            a,
            b: variant(b)?,
            slower: dir == "slower",
        },
        ["within", pct, "of", b] | ["within", pct, "%", "of", b] => ClaimKind::Within {
            pct: parse_percentage(pct)?,
            a,
            b: variant(b)?,
        },
        [
            metric,
            dir @ ("greater" | "less"),
            "than",
            b,
            "by",
            ref rest @ ..,
        ] if metric.starts_with(MEASURED) => ClaimKind::MeasuredRatio {
            name: measure_name(metric)?,
            factor: parse_factor(&rest.concat())?,
            a,
            b: variant(b)?,
            greater: dir == "greater",
            bound: false,
        },
        [
            metric,
            dir @ ("greater" | "less"),
            "than",
            b,
            "by",
            ref rest @ ..,
        ] => ClaimKind::MetricRatio {
            metric: find_metric(metric)?,
            factor: parse_factor(&rest.concat())?,
            a,
            b: variant(b)?,
            greater: dir == "greater",
            bound: false,
        },
        // `at most Kx B`: A <= K B, the ratio B/A at least 1/K; `at least Kx B`: A >= K B.
        [metric, "at", dir @ ("most" | "least"), k, b] => {
            let factor = parse_factor(&format!(">={k}"))?;
            let (greater, factor) = match dir {
                "most" => (false, 1.0 / factor),
                _ => (true, factor),
            };
            let b = variant(b)?;
            match metric.starts_with(MEASURED) {
                true => ClaimKind::MeasuredRatio {
                    name: measure_name(metric)?,
                    factor,
                    a,
                    b,
                    greater,
                    bound: true,
                },
                false => ClaimKind::MetricRatio {
                    metric: find_metric(metric)?,
                    factor,
                    a,
                    b,
                    greater,
                    bound: true,
                },
            }
        }
        [metric, op, number] if metric.starts_with(MEASURED) => ClaimKind::Measured {
            name: measure_name(metric)?,
            op: parse_op(op)?,
            value: parse_number(number)?,
            a,
        },
        [metric, op, number] => parse_metric(a, metric, op, number)?,
        _ => return Err(ClaimError::Unreadable(text.to_string())),
    };
    Ok(Claim {
        text: text.to_string(),
        kind,
    })
}

/// `>=5x`, from `by >= 5x` or `by >= 5 x`.
fn parse_factor(s: &str) -> Result<f64, ClaimError> {
    let bad = || ClaimError::Factor(s.to_string());
    let k = s.strip_prefix(">=").ok_or_else(bad)?;
    let k = k
        .strip_suffix('x')
        .or_else(|| k.strip_suffix('×'))
        .ok_or_else(bad)?;
    match k.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(bad()),
    }
}

/// `10%` or `10` (when the `%` is a word of its own).
fn parse_percentage(pct: &str) -> Result<f64, ClaimError> {
    let p = pct.strip_suffix('%').unwrap_or(pct);
    match p.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.is_finite() => Ok(x),
        _ => Err(ClaimError::Percentage(pct.to_string())),
    }
}

/// `A <metric> <op> <number>`.
fn parse_metric(a: String, metric: &str, op: &str, number: &str) -> Result<ClaimKind, ClaimError> {
    Ok(ClaimKind::Metric {
        a,
        metric: find_metric(metric)?,
        op: parse_op(op)?,
        value: parse_number(number)?,
    })
}

fn find_metric(name: &str) -> Result<Metric, ClaimError> {
    match Metric::ALL.iter().find(|(n, _)| *n == name) {
        Some(&(_, m)) => Ok(m),
        None => {
            let names: Vec<&str> = Metric::ALL.iter().map(|(n, _)| *n).collect();
            Err(ClaimError::UnknownMetric {
                name: name.to_string(),
                known: names.join(", "),
            })
        }
    }
}

/// Figures the kernel measures itself are named `measured.NAME` in claims; the loader
/// checks that NAME is one of the lesson's `measures`.
const MEASURED: &str = "measured.";

fn measure_name(word: &str) -> Result<String, ClaimError> {
    let name = word.strip_prefix(MEASURED).unwrap_or(word);
    if name.is_empty() {
        return Err(ClaimError::NoMeasureName(word.to_string()));
    }
    Ok(name.to_string())
}

fn parse_op(op: &str) -> Result<CmpOp, ClaimError> {
    CmpOp::ALL
        .iter()
        .find(|(s, _)| *s == op)
        .map(|&(_, o)| o)
        .ok_or_else(|| ClaimError::UnknownComparison(op.to_string()))
}

fn parse_number(number: &str) -> Result<f64, ClaimError> {
    number
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| ClaimError::NotANumber(number.to_string()))
}

/// The spaces `A makes SPACE loads` can name, as a claim writes them.
pub const SPACE_WORDS: [(&str, Space); 6] = [
    ("shared", Space::Shared),
    ("global", Space::Global),
    ("local", Space::Local),
    ("constant", Space::Constant),
    ("cluster", Space::Cluster),
    ("texture", Space::Texture),
];

const SPACES: &str = "shared, global, local, constant, cluster, texture";

fn parse_space(word: &str) -> Result<Space, ClaimError> {
    SPACE_WORDS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|&(_, s)| s)
        .ok_or_else(|| ClaimError::UnknownSpace(word.to_string()))
}

/// `loads`, `stores`, `atomics` (atomics and reductions alike), `copies` (asynchronous
/// copies, `cp.async`), `matrix-loads` (the tensor cores' `ldmatrix`), or `requests` (any).
fn parse_access(word: &str) -> Result<Option<AccessKind>, ClaimError> {
    match word {
        "loads" => Ok(Some(AccessKind::Load)),
        "stores" => Ok(Some(AccessKind::Store)),
        "atomics" => Ok(Some(AccessKind::Atomic)),
        "copies" => Ok(Some(AccessKind::AsyncCopy)),
        "matrix-loads" => Ok(Some(AccessKind::Matrix)),
        "requests" => Ok(None),
        _ => Err(ClaimError::UnknownAccess(word.to_string())),
    }
}
