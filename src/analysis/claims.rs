//! Judging a lesson's claims against a run's results. A claim whose figure was not measured
//! is "not measured", never "holds".

use crate::analysis::describe::first_race;
use crate::analysis::race_words::race_words;
use crate::model::access::{AccessKind, Space};
use crate::model::claim::{Claim, ClaimKind, CmpOp, Metric};
use crate::model::results::{ClaimResult, Failure, LessonResult, Source, VariantResult};
pub use figures::GlobalPaths;
use figures::read;

#[path = "claim_figures.rs"]
mod figures;

/// Check a claim against a run's results.
pub fn evaluate(claim: &Claim, result: &LessonResult) -> ClaimResult {
    let not_judged = |why: &str| ClaimResult {
        claim: claim.text.clone(),
        holds: None,
        detail: format!("{NOT_JUDGED}, as {why}"),
        needs_gpu: true,
        margin: None,
    };
    let interpreted = result.source == Source::Interpreted;
    if interpreted && needs_gpu(&claim.kind) {
        return not_judged("the CPU interpreter has no times");
    }
    // A variant the interpreter does not run whole (a texture fetch in some of its blocks)
    // is left to a GPU whole: its trace, where the sample met no fetch, saw a part of the
    // grid that a fresh sample may not see again, so a verdict from it would change from
    // one check to the next. Only its compile report is judged here.
    if interpreted && names_refused(&claim.kind, result) && !from_compile_report(&claim.kind) {
        return not_judged("the CPU interpreter does not run its kernel");
    }
    let (holds, detail) = match judge(&claim.kind, result) {
        Ok((holds, detail)) => (Some(holds), detail),
        Err(Verdict::NotMeasured(d)) => (None, d),
        Err(Verdict::Wrong(d)) => (Some(false), d),
    };
    // A margin only where the claim was judged: a missing or wrong figure has none.
    let margin = holds.and_then(|_| crate::analysis::margin::margin(claim, result));
    ClaimResult {
        claim: claim.text.clone(),
        holds,
        detail,
        needs_gpu: false,
        margin,
    }
}

/// What a claim the CPU interpreter cannot judge says instead of a verdict, and why.
pub const NOT_JUDGED: &str = "not judged: needs a GPU";

/// Claims about times, rates, occupancy or figures a kernel measured with its clock: a run
/// on the CPU interpreter has none of them.
pub fn needs_gpu(kind: &ClaimKind) -> bool {
    match kind {
        ClaimKind::Ratio { .. } | ClaimKind::Within { .. } => true,
        ClaimKind::Measured { .. } | ClaimKind::MeasuredRatio { .. } => true,
        ClaimKind::Metric { metric, .. } | ClaimKind::MetricRatio { metric, .. } => matches!(
            metric,
            Metric::TimeMs | Metric::Gbps | Metric::Gflops | Metric::PctOfPeak | Metric::Occupancy
        ),
        _ => false,
    }
}

/// Whether the claim's figure comes from ptxas's report alone, which needs no run.
pub fn from_compile_report(kind: &ClaimKind) -> bool {
    match kind {
        ClaimKind::Metric { metric, .. } | ClaimKind::MetricRatio { metric, .. } => {
            metric.from_compile_report()
        }
        ClaimKind::OutOfLine { .. } => true,
        _ => false,
    }
}

/// Whether the claim is about a variant the CPU interpreter refused to run.
fn names_refused(kind: &ClaimKind, result: &LessonResult) -> bool {
    let (a, b) = match kind {
        ClaimKind::Ratio { a, b, .. }
        | ClaimKind::Within { a, b, .. }
        | ClaimKind::MeasuredRatio { a, b, .. }
        | ClaimKind::MetricRatio { a, b, .. } => (a, Some(b)),
        ClaimKind::Metric { a, .. }
        | ClaimKind::Correct { a }
        | ClaimKind::Measured { a, .. }
        | ClaimKind::Makes { a, .. }
        | ClaimKind::OutOfLine { a, .. } => (a, None),
    };
    let refused = |name: &String| {
        (result.variants.iter())
            .any(|v| &v.name == name && v.failure == Some(Failure::NotInterpreted))
    };
    refused(a) || b.is_some_and(refused)
}

/// Why a claim has no plain yes or no: its figure is missing, or its variant's output is
/// wrong (which makes its timings meaningless).
enum Verdict {
    NotMeasured(String),
    Wrong(String),
}

fn find<'r>(result: &'r LessonResult, name: &str) -> Result<&'r VariantResult, Verdict> {
    result
        .variants
        .iter()
        .find(|v| v.name == name)
        .ok_or_else(|| Verdict::NotMeasured(format!("not measured (`{name}` was not run)")))
}

/// A variant whose output is wrong has no meaningful time; nor has one with a race, whose
/// output matched on this run by luck.
fn timed(v: &VariantResult) -> Result<f64, Verdict> {
    if v.correct == Some(false) {
        let why = v
            .error
            .as_deref()
            .unwrap_or("output does not match the reference");
        return Err(Verdict::Wrong(format!("`{}` is incorrect: {why}", v.name)));
    }
    if let Some(r) = first_race(v) {
        return Err(Verdict::Wrong(format!(
            "`{}` has a race ({}): its time is not valid",
            v.name,
            race_words(r)
        )));
    }
    read(Metric::TimeMs, v)
}

fn judge(kind: &ClaimKind, result: &LessonResult) -> Result<(bool, String), Verdict> {
    match kind {
        ClaimKind::Correct { a } => judge_correct(find(result, a)?),
        ClaimKind::Ratio {
            a,
            b,
            slower,
            factor,
        } => {
            let ta = timed(find(result, a)?)?;
            let tb = timed(find(result, b)?)?;
            judge_ratio(ta, tb, *slower, *factor)
        }
        ClaimKind::Within { a, b, pct } => {
            let ta = timed(find(result, a)?)?;
            let tb = timed(find(result, b)?)?;
            Ok(judge_within(ta, tb, *pct))
        }
        ClaimKind::Metric {
            a,
            metric,
            op,
            value,
        } => judge_metric(find(result, a)?, *metric, *op, *value),
        ClaimKind::Measured { a, name, op, value } => {
            let x = measured(find(result, a)?, name)?;
            let detail = format!(
                "measured.{name} = {} (needs {} {value})",
                sig3(x),
                op.symbol()
            );
            Ok((holds(*op, x, *value), detail))
        }
        ClaimKind::MeasuredRatio {
            a,
            b,
            name,
            greater,
            factor,
            bound,
        } => {
            let xa = measured(find(result, a)?, name)?;
            let xb = measured(find(result, b)?, name)?;
            let name = format!("measured.{name}");
            judge_measured_ratio(&name, (xa, xb), (*greater, *factor, *bound))
        }
        ClaimKind::MetricRatio {
            a,
            b,
            metric,
            greater,
            factor,
            bound,
        } => {
            let (va, vb) = (find(result, a)?, find(result, b)?);
            if metric.is_timing() {
                timed(va)?;
                timed(vb)?;
            }
            let (xa, xb) = (read(*metric, va)?, read(*metric, vb)?);
            judge_measured_ratio(metric.name(), (xa, xb), (*greater, *factor, *bound))
        }
        ClaimKind::Makes { a, space, access } => judge_makes(find(result, a)?, *space, *access),
        ClaimKind::OutOfLine { a, function } => judge_out_of_line(find(result, a)?, function),
    }
}

/// The words a report uses for a space.
pub fn space_words(space: Space) -> &'static str {
    match space {
        Space::Shared => "shared",
        Space::Global => "global",
        Space::Local => "local",
        Space::Constant => "constant",
        Space::Cluster => "shared::cluster",
        Space::Texture => "texture",
        Space::Generic => "generic",
        Space::Param => "param",
    }
}

/// `A makes SPACE loads`: requests of that space (and kind) in the trace.
fn judge_makes(
    v: &VariantResult,
    space: Space,
    access: Option<AccessKind>,
) -> Result<(bool, String), Verdict> {
    let name = &v.name;
    let mem = v
        .memory
        .as_ref()
        .ok_or_else(|| Verdict::NotMeasured(format!("not measured (no trace of `{name}`)")))?;
    let what = match access {
        Some(AccessKind::Load) => "loads",
        Some(AccessKind::Store) => "stores",
        Some(AccessKind::Atomic | AccessKind::Reduction) => "atomics",
        Some(AccessKind::AsyncCopy) => "async copies",
        Some(AccessKind::BulkCopy) => "bulk copies",
        Some(AccessKind::Matrix) => "matrix loads",
        None => "",
    };
    let words = space_words(space);
    // `atomics` are atomics and reductions alike: which one the SASS made is ptxas's
    // choice, not the kernel's.
    let kind_is = |k: AccessKind| match access {
        None => true,
        Some(a) if a.is_atomic() => k.is_atomic(),
        Some(a) => k == a,
    };
    let requests: u64 = (mem.instructions.iter())
        .filter(|i| i.space == space && kind_is(i.kind))
        .map(|i| i.requests)
        .sum();
    // Recordings made before per-instruction figures were kept have only the totals.
    let requests = match (mem.instructions.is_empty(), space, access) {
        (false, ..) => requests,
        (true, Space::Shared, Some(AccessKind::Load)) => mem.shared.ld.requests,
        (true, Space::Shared, Some(AccessKind::Store)) => mem.shared.st.requests,
        (true, Space::Shared, None) => mem.shared.requests,
        (true, Space::Global, None) => mem.global.requests,
        (true, Space::Constant, _) => mem.constant.requests,
        (true, Space::Cluster, None) => mem.cluster.requests,
        (true, Space::Texture, _) => mem.texture.requests,
        (true, Space::Local, _) => u64::from(mem.local.bytes > 0),
        (true, ..) => {
            return Err(Verdict::NotMeasured(format!(
                "not measured (the trace of `{name}` has no figures per instruction)"
            )));
        }
    };
    let kind = if what.is_empty() {
        format!("{words} memory requests")
    } else {
        format!("{words} {what}")
    };
    if requests == 0 {
        let blocks = mem.traced_blocks;
        return Ok((
            false,
            format!(
                "`{name}` makes no {kind} (none in the {blocks} traced block{}): \
                 the task wants them",
                if blocks == 1 { "" } else { "s" }
            ),
        ));
    }
    Ok((
        true,
        format!("`{name}` makes {kind}: {requests} warp requests traced"),
    ))
}

/// `A keeps NAME out of line`: ptxas compiled NAME as a function of its own.
fn judge_out_of_line(v: &VariantResult, function: &str) -> Result<(bool, String), Verdict> {
    let name = &v.name;
    let ptxas = v.ptxas.as_ref().ok_or_else(|| {
        Verdict::NotMeasured(format!("not measured (no compile report for `{name}`)"))
    })?;
    // `extern "C"` functions keep their name; others are mangled (`declared_name`).
    let found =
        (ptxas.functions.iter()).any(|f| f == function || declared_name(f) == Some(function));
    if found {
        Ok((
            true,
            format!("ptxas compiled {function} as a function of its own"),
        ))
    } else if ptxas.functions.is_empty() {
        Ok((
            false,
            format!(
                "{function} is inlined: ptxas compiled no function of its own, so nothing \
                 is passed through a call"
            ),
        ))
    } else {
        Ok((
            false,
            format!(
                "{function} is inlined: ptxas compiled only {} out of line",
                ptxas.functions.join(", ")
            ),
        ))
    }
}

/// The name a mangled function was declared with: `stir_group` from
/// `_Z10stir_group5uint4j`, and from a `static` function's, nested in the internal
/// namespace NVRTC gives the file (`_ZN42_INTERNAL_..._by_value_cu_7962006310stir_groupE5uint4j`:
/// the last name before `E`). The length before each name makes it exact: `_Z9stir_grou...`
/// is not `stir_group`.
fn declared_name(mangled: &str) -> Option<&str> {
    let mut rest = mangled.strip_prefix("_Z")?;
    let nested = rest.starts_with('N');
    if nested {
        rest = rest[1..].trim_start_matches(['K', 'V', 'r']);
    }
    let mut last = None;
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            break;
        }
        let len: usize = rest[..digits].parse().ok()?;
        last = Some(rest.get(digits..digits + len)?);
        rest = &rest[digits + len..];
        if !nested {
            break;
        }
    }
    match nested && !rest.starts_with('E') {
        true => None,
        false => last,
    }
}

fn judge_within(ta: f64, tb: f64, pct: f64) -> (bool, String) {
    let apart = if tb > 0.0 {
        (ta - tb).abs() / tb * 100.0
    } else {
        f64::INFINITY
    };
    let detail = format!(
        "{} ms vs {} ms = {}% apart (needs <= {pct}%)",
        sig3(ta),
        sig3(tb),
        sig3(apart)
    );
    ((ta - tb).abs() <= pct / 100.0 * tb, detail)
}

fn judge_metric(
    v: &VariantResult,
    metric: Metric,
    op: CmpOp,
    value: f64,
) -> Result<(bool, String), Verdict> {
    if metric.is_timing() {
        timed(v)?;
    }
    let x = read(metric, v)?;
    let mut detail = format!(
        "{} = {} (needs {} {value})",
        metric.name(),
        figure(x),
        op.symbol()
    );
    if metric == Metric::LoadsUnusedPct
        && let Some(mem) = &v.memory
    {
        detail.push_str(&figures::unused_lines(mem));
    }
    Ok((holds(op, x, value), detail))
}

/// A figure the kernel measured itself; like a time, it means nothing when the output is
/// wrong (the kernel did not do what it was timed doing).
fn measured(v: &VariantResult, name: &str) -> Result<f64, Verdict> {
    if v.correct == Some(false) || first_race(v).is_some() {
        timed(v)?;
    }
    v.measured.get(name).map(|m| m.value).ok_or_else(|| {
        Verdict::NotMeasured(format!(
            "not measured (no measured.{name} for `{}`)",
            v.name
        ))
    })
}

/// `A measured.NAME greater than B by >= factor` (or less), from the two figures; `bound`:
/// written `at least Kx B` or `at most Kx B` (`factor` 1/K), judged and said that way.
fn judge_measured_ratio(
    name: &str,
    (xa, xb): (f64, f64),
    (greater, factor, bound): (bool, f64, bool),
) -> Result<(bool, String), Verdict> {
    if bound {
        // A against K times B, so that 0 is at most anything and at least nothing but 0.
        let (k, sign, holds) = match greater {
            true => (factor, ">=", xa >= factor * xb * (1.0 - 1e-12)),
            false => (1.0 / factor, "<=", xa <= xb / factor * (1.0 + 1e-12)),
        };
        let times = if xb > 0.0 {
            format!("{}x", sig3(xa / xb))
        } else {
            "-".to_string()
        };
        let detail = format!(
            "{name}: {} vs {} = {times} (needs {sign} {}x)",
            sig3(xa),
            sig3(xb),
            sig3(k)
        );
        return Ok((holds, detail));
    }
    let (num, den) = if greater { (xa, xb) } else { (xb, xa) };
    if den <= 0.0 {
        return Err(Verdict::NotMeasured(format!(
            "not measured ({name} is {})",
            sig3(den)
        )));
    }
    let ratio = num / den;
    let word = if greater { "" } else { " less" };
    let detail = format!(
        "{name}: {} vs {} = {}x{word} (needs >= {factor}x)",
        sig3(xa),
        sig3(xb),
        sig3(ratio)
    );
    Ok((ratio >= factor, detail))
}

fn judge_correct(v: &VariantResult) -> Result<(bool, String), Verdict> {
    match v.correct {
        Some(true) => Ok((true, "output matches the reference".into())),
        Some(false) => Ok((
            false,
            v.error
                .clone()
                .unwrap_or_else(|| "output does not match the reference".into()),
        )),
        None => Err(Verdict::NotMeasured(format!(
            "not measured (`{}` was not checked)",
            v.name
        ))),
    }
}

/// `A slower than B by >= factor` (or faster), from the two median times.
fn judge_ratio(ta: f64, tb: f64, slower: bool, factor: f64) -> Result<(bool, String), Verdict> {
    let (num, den) = if slower { (ta, tb) } else { (tb, ta) };
    if den <= 0.0 {
        return Err(Verdict::NotMeasured(format!(
            "not measured (a time of {} ms)",
            sig3(den)
        )));
    }
    let ratio = num / den;
    let word = if slower { "" } else { " faster" };
    let detail = format!(
        "{} ms vs {} ms = {}x{word} (needs >= {factor}x)",
        sig3(ta),
        sig3(tb),
        sig3(ratio)
    );
    Ok((ratio >= factor, detail))
}

fn holds(op: CmpOp, x: f64, y: f64) -> bool {
    // Per-request figures are ratios of counts; compare them with a little slack so that
    // 31.999999 (from scaling a sample) equals 32.
    let eq = (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0);
    match op {
        CmpOp::Eq => eq,
        CmpOp::Ne => !eq,
        CmpOp::Lt => x < y && !eq,
        CmpOp::Le => x < y || eq,
        CmpOp::Gt => x > y && !eq,
        CmpOp::Ge => x > y || eq,
    }
}

/// Three significant figures, the way times are shown: 17.0, 1.63, 0.412.
pub fn sig3(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() {
        format!("{x}")
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// Counts as integers, ratios with three significant figures.
fn figure(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        sig3(x)
    }
}

/// How a run's claims fare, in a few words. A claim with no figure is never counted as
/// judged: those a GPU would judge and those not measured here are counted apart ("2 hold,
/// 1 not measured here, 15 need a GPU", the words `tally` gives the CLI and the lab).
/// None: no claims.
pub fn summary(claims: &[ClaimResult]) -> Option<String> {
    if claims.is_empty() {
        return None;
    }
    let count = |f: &dyn Fn(&ClaimResult) -> bool| claims.iter().filter(|c| f(c)).count();
    let held = count(&|c| c.holds == Some(true));
    let failed = count(&|c| c.holds == Some(false));
    let gpu = count(&|c| c.holds.is_none() && c.needs_gpu);
    let unmeasured = count(&|c| c.holds.is_none() && !c.needs_gpu);
    Some(match (held + failed, unmeasured, gpu) {
        (n, 0, 0) => format!("{held} of {n} claims hold on these figures"),
        (0, 0, 1) => "no claim judged here: it needs a GPU".to_string(),
        (0, 0, g) => format!("no claim judged here: all {g} need a GPU"),
        _ => tally(held, failed, unmeasured, gpu),
    })
}

/// Counts of checks or claims in the words every screen uses: "4 hold, 1 fails, 1 not
/// measured here, 2 need a GPU" (the parts that are nought left out, but for the held).
pub fn tally(held: usize, failed: usize, not_measured: usize, need_gpu: usize) -> String {
    let verb = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = vec![verb(held, "holds", "hold")];
    if failed > 0 {
        parts.push(verb(failed, "fails", "fail"));
    }
    if not_measured > 0 {
        parts.push(format!("{not_measured} not measured here"));
    }
    if need_gpu > 0 {
        parts.push(verb(need_gpu, "needs a GPU", "need a GPU"));
    }
    parts.join(", ")
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
