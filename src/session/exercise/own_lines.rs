//! The lines every exercise check adds of its own, written in no lesson: whether yours races
//! in shared memory (where it uses it), and whether it moves global memory by atomics or bulk
//! copies where the solution takes neither path, or by instructions no tracer follows.

use super::report::{CheckLine, CheckReport, Mark, REFUSED, not_interpreted, yours_of};
use crate::model::exercise::{Exercise, SOLUTION};
use crate::model::results::{LessonResult, Source, VariantResult};

/// The words the race line is known by.
pub const RACE_LINE: &str = "yours has no race in shared memory";

/// For a kernel that uses shared memory and was traced with barriers followed: whether
/// two of its warps met on a shared word with no barrier between, named by its lines.
pub(super) fn race_line(y: Option<&VariantResult>) -> Option<CheckLine> {
    let mem = y?.memory.as_ref().filter(|m| m.races_checked)?;
    let Some(first) = mem.races.first() else {
        if mem.shared.requests == 0 && mem.cluster.requests == 0 && mem.copies.shared.requests == 0
        {
            return None;
        }
        let b = mem.traced_blocks;
        let s = if b == 1 { "" } else { "s" };
        // A trace cut short may hide the race its lost part holds: never a pass.
        if mem.overflow > 0 {
            return Some(CheckLine {
                check: RACE_LINE.into(),
                mark: Mark::NotMeasured,
                detail: format!(
                    "not judged: the trace was cut short ({} records past what it could \
                     keep, with {b} block{s} traced), and a race may be in the part lost",
                    mem.overflow
                ),
                at: None,
            });
        }
        let detail = format!(
            "no two warps, two lanes of a warp or two blocks of a cluster met on a shared \
             word with nothing ordering them ({b} traced block{s})"
        );
        return Some(CheckLine {
            check: RACE_LINE.into(),
            mark: Mark::Pass,
            detail,
            at: None,
        });
    };
    let mut detail = crate::analysis::race_words::race_why(first);
    if mem.races.len() > 1 {
        detail.push_str(&format!(
            "; {} more pair{} of lines race",
            mem.races.len() - 1,
            if mem.races.len() == 2 { "" } else { "s" }
        ));
    }
    Some(CheckLine {
        check: RACE_LINE.into(),
        mark: Mark::Fail,
        detail,
        at: None,
    })
}

/// The words the line about untraced instructions is known by.
pub const UNSEEN_LINE: &str = "yours moves memory only in ways the trace follows";

/// For a kernel with instructions that move memory where no tracer looks (`prefetch`, a
/// tensor-map copy, `st.async`, …) and the solution has none of that opcode: a fail, since
/// every count the checks judge leaves out what those did (a chase whose chain was
/// prefetched into the L2 reads like a cold one). Nothing is said when yours has none.
pub(super) fn unseen_line(
    y: Option<&VariantResult>,
    solution: Option<&VariantResult>,
) -> Option<CheckLine> {
    let ym = y?.memory.as_ref()?;
    let theirs = |op: &str| {
        (solution.and_then(|v| v.memory.as_ref()))
            .is_some_and(|m| m.unseen.iter().any(|u| u.op == op))
    };
    let new: Vec<_> = ym.unseen.iter().filter(|u| !theirs(&u.op)).collect();
    let which = crate::analysis::describe::unseen_at(&new)?;
    Some(CheckLine {
        check: UNSEEN_LINE.into(),
        mark: Mark::Fail,
        detail: format!(
            "{which} moves memory that no count the checks judge includes, and the solution \
             needs none: take the lesson's loads and stores instead"
        ),
        at: None,
    })
}

/// The words the lines about global paths are known by.
pub const ATOMICS_LINE: &str = "yours moves global memory without atomics, as the solution";
pub const BULK_LINE: &str = "yours moves global memory without bulk copies, as the solution";

/// A share of a kernel's global traffic a path the solution never takes may have: a
/// block's one atomic to combine its partial sums is another style; a copy made of atomics,
/// or data brought in by one bulk copy a block where the lesson teaches lanes' loads, is
/// not what the exercise asks, whatever its loads and stores show.
const OTHER_PATH_SHARE: f64 = 0.05;

/// For a kernel that moves global memory by atomics or bulk copies where the solution moves
/// none that way: whether that is more than a small share of its traffic. Nothing is said
/// when yours takes the solution's paths only, or when the solution takes these too.
pub(super) fn path_lines(
    y: Option<&VariantResult>,
    solution: Option<&VariantResult>,
) -> Vec<CheckLine> {
    use crate::analysis::claims::GlobalPaths;
    let (Some(ym), Some(sm)) = (
        y.and_then(|v| v.memory.as_ref()),
        solution.and_then(|v| v.memory.as_ref()),
    ) else {
        return Vec::new();
    };
    let (mine, theirs) = (GlobalPaths::of(ym), GlobalPaths::of(sm));
    let cut = ym.overflow > 0 || sm.overflow > 0;
    let mut out = Vec::new();
    let mut judge = |check: &str, share: f64, what: String| {
        let mark = if cut {
            Mark::NotMeasured
        } else if share > OTHER_PATH_SHARE {
            Mark::Fail
        } else {
            Mark::Pass
        };
        let detail = if cut {
            "not judged: a trace was cut short, and a share of part of a trace says \
             nothing of the rest"
                .to_string()
        } else {
            format!(
                "{what} ({:.1}%; the solution takes none, and at most {:.0}% may): the \
                 exercise is about the loads and stores the lesson teaches",
                share * 100.0,
                OTHER_PATH_SHARE * 100.0
            )
        };
        out.push(CheckLine {
            check: check.into(),
            mark,
            detail,
            at: None,
        });
    };
    if theirs.atomic_requests == 0 && mine.atomic_requests > 0 {
        let share = mine.atomic_requests as f64 / mine.requests.max(1) as f64;
        let what = format!(
            "{} of {} global requests are atomics",
            mine.atomic_requests, mine.requests
        );
        judge(ATOMICS_LINE, share, what);
    }
    if theirs.bulk_bytes == 0 && mine.bulk_bytes > 0 {
        let share = mine.bulk_bytes as f64 / mine.bytes.max(1) as f64;
        let what = format!(
            "{} of {} global bytes came by bulk copies",
            mine.bulk_bytes, mine.bytes
        );
        judge(BULK_LINE, share, what);
    }
    out
}

/// The lines of a check whose kernel the interpreter refused at some size, left to a GPU
/// whole: every check but those of the compile report needs one, and the lines of its
/// own, which judge the trace, are not said.
pub(super) fn leave_to_gpu(ex: &Exercise, lines: &mut Vec<CheckLine>) {
    let own = [RACE_LINE, UNSEEN_LINE, ATOMICS_LINE, BULK_LINE];
    lines.retain(|l| !own.contains(&l.check.as_str()));
    for l in lines.iter_mut() {
        let claim = ex.checks.iter().find(|c| c.text == l.check);
        if claim.is_some_and(|c| crate::analysis::claims::from_compile_report(&c.kind)) {
            continue;
        }
        l.mark = Mark::NeedsGpu;
        l.detail = REFUSED.to_string();
        l.at = None;
    }
}

/// The checks as the fold judged them on `result`.
pub(super) fn report(ex: &Exercise, result: LessonResult, live: bool) -> CheckReport {
    let y = yours_of(&result);
    // On the CPU interpreter only times need a GPU; a trace figure it lacks was lost (a
    // fault, say), not out of its reach, unless the interpreter does not run the kernel at
    // all (a texture fetch): then every figure of it needs a GPU.
    let interpreted = result.source == Source::Interpreted;
    let refused = interpreted && y.is_some_and(not_interpreted);
    let compile_error = y
        .filter(|v| v.ptxas.is_none() && v.time_ms.is_none() && v.correct.is_none())
        .and_then(|v| v.error.clone());
    let lines = result
        .expect
        .iter()
        .map(|c| {
            let mark = match c.holds {
                Some(true) => Mark::Pass,
                Some(false) => Mark::Fail,
                None if live => Mark::NotMeasured,
                None if interpreted && !c.needs_gpu && !refused => Mark::NotMeasured,
                None => Mark::NeedsGpu,
            };
            let detail = match mark {
                Mark::NeedsGpu if refused => REFUSED.to_string(),
                Mark::NeedsGpu => "needs a GPU".to_string(),
                _ => c.detail.clone(),
            };
            CheckLine {
                check: c.claim.clone(),
                mark,
                detail,
                at: None,
            }
        })
        .collect::<Vec<_>>();
    let solution = result.variants.iter().find(|v| v.name == SOLUTION);
    // Nor do the lines of its own judge a trace of a kernel refused in part (`evaluate`).
    let traced = y.filter(|_| !refused);
    let lines = (super::own_lines::race_line(traced).into_iter())
        .chain(super::own_lines::path_lines(traced, solution))
        .chain(super::own_lines::unseen_line(traced, solution))
        .chain(lines)
        .collect();
    CheckReport {
        exercise: ex.id.clone(),
        live,
        compile_error,
        ptxas: y.and_then(|v| v.ptxas.clone()),
        time_ms: y.and_then(|v| v.time_ms.as_ref()).map(|t| t.median),
        solution_ms: (result.variants.iter())
            .find(|v| v.name == SOLUTION && v.correct == Some(true))
            .and_then(|v| v.time_ms.as_ref())
            .map(|t| t.median),
        lines,
        result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::claims::parse_claim;
    use crate::model::access::UnseenAccess;
    use crate::model::results::MemoryStats;

    fn with_unseen(ops: &[(&str, Option<u32>)]) -> VariantResult {
        let unseen = (ops.iter())
            .map(|&(op, source_line)| UnseenAccess {
                op: op.into(),
                ptx_line: 40,
                source_line,
                entry: None,
            })
            .collect();
        VariantResult {
            memory: Some(MemoryStats {
                unseen,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn an_untraced_move_fails_by_its_line_unless_the_solution_makes_it_too() {
        let yours = with_unseen(&[("prefetch.global.L2", Some(72)), ("st.async.u32", None)]);
        let plain = with_unseen(&[]);
        let line = unseen_line(Some(&yours), Some(&plain)).expect("a line");
        assert_eq!(line.mark, Mark::Fail);
        assert!(
            line.detail
                .starts_with("`prefetch.global.L2` at line 72 and 1 more"),
            "{}",
            line.detail
        );
        let prefetching = with_unseen(&[("prefetch.global.L2", None)]);
        let line = unseen_line(Some(&yours), Some(&prefetching)).expect("a line");
        assert!(
            line.detail
                .starts_with("`st.async.u32` at PTX line 40 moves"),
            "{}",
            line.detail
        );
        assert!(unseen_line(Some(&plain), Some(&plain)).is_none());
        let only_prefetch = with_unseen(&[("prefetch.global.L2", Some(3))]);
        assert!(unseen_line(Some(&only_prefetch), Some(&prefetching)).is_none());
    }

    #[test]
    fn a_kernel_refused_at_some_size_has_only_its_compile_report_judged() {
        let root = crate::course::bundle::CourseRoot::Bundled;
        let (lessons, _) = crate::course::load_course(&root);
        let any = lessons.iter().flat_map(|l| &l.exercises).next().unwrap();
        let texts = [
            "yours registers <= 32",
            "yours global.load_requests == 0",
            "yours global.sectors at most 1.1x solution",
        ];
        let ex = Exercise {
            checks: (texts.iter())
                .map(|t| parse_claim(t, &["yours", "solution"]).unwrap())
                .collect(),
            ..any.clone()
        };
        let line = |check: &str, mark: Mark| CheckLine {
            check: check.into(),
            mark,
            detail: "from the trace".into(),
            at: Some("n = 1000".into()),
        };
        // A trace whose sample met no texture fetch failed one check and passed another.
        let mut lines = vec![
            line(RACE_LINE, Mark::Fail),
            line(texts[0], Mark::Pass),
            line(texts[1], Mark::Fail),
            line(texts[2], Mark::Pass),
        ];
        leave_to_gpu(&ex, &mut lines);
        let marks: Vec<_> = lines.iter().map(|l| (l.check.as_str(), l.mark)).collect();
        assert_eq!(
            marks,
            [
                (texts[0], Mark::Pass),
                (texts[1], Mark::NeedsGpu),
                (texts[2], Mark::NeedsGpu),
            ]
        );
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.detail == REFUSED && l.at.is_none())
        );
    }
}
