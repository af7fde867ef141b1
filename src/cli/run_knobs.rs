//! `gpulab run --size NAME=VALUE` and `gpulab run --knobs`: the lesson read again at other
//! problem sizes (every figure the sizes decide, the reference's too: a cuBLAS reference
//! runs, and is timed, at the new size), and every value of its knobs run after its
//! variants, live or on the CPU interpreter, each knob as one request the way `gpulab
//! record` sends it.

use super::RunArgs;
use super::say::say_err;
use crate::course::bundle::CourseRoot;
use crate::course::device_sizes::is_device_name;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{LessonResult, Source};
use crate::model::{Knob, KnobKind, KnobSetting, Lesson};
use crate::session::client::WorkerClient;
use crate::session::fold::Capabilities;
use crate::session::source::{self, Ask, Plan, Subject};
use crate::session::{fold, knobs};
use anyhow::{Result, bail};

/// `lesson` read again with the `--size` values; None when none is given. On the
/// interpreter (`cpu`) the GPU's figures (`gpu_l2_bytes`, ...) may be given too: no GPU
/// says them there, so they say which GPU the interpreter stands in for.
pub fn at_sizes(
    root: &CourseRoot,
    lesson: &Lesson,
    given: &[String],
    cpu: bool,
) -> Result<Option<Lesson>> {
    if given.is_empty() {
        return Ok(None);
    }
    let sizes = parse_sizes(lesson, given)?;
    // A lesson sized from the GPU's figures is read again with them on a live run, which
    // would drop these: refused rather than quietly run at the written size.
    if let Some((name, _)) = (lesson.problem.iter()).find(|(n, _)| !cpu && is_device_name(n)) {
        bail!(
            "--size: lesson {} takes `{name}` from the GPU, and a live run reads it again \
             with the GPU's figures; --size is offered for lessons sized by their own numbers",
            lesson.id
        );
    }
    match crate::course::reload_sized(root, &lesson.file, &sizes) {
        Ok(l) => Ok(Some(l)),
        Err(errs) => {
            for e in &errs {
                say_err!("{e}");
            }
            let shown: Vec<String> = sizes.iter().map(|(n, v)| format!("{n}={v}")).collect();
            bail!(
                "lesson {} does not load at {}: {} problem(s), above",
                lesson.id,
                shown.join(", "),
                errs.len()
            )
        }
    }
}

/// Each `NAME=VALUE`: NAME one of the lesson's problem sizes, VALUE an integer above 0.
pub fn parse_sizes(lesson: &Lesson, given: &[String]) -> Result<Vec<(String, i64)>> {
    let names: Vec<&str> = lesson.problem.iter().map(|(n, _)| n.as_str()).collect();
    let mut out: Vec<(String, i64)> = Vec::new();
    for g in given {
        let Some((name, value)) = g.split_once('=') else {
            bail!("--size {g}: write NAME=VALUE, e.g. --size m=2048");
        };
        let (name, value) = (name.trim(), value.trim());
        if !names.contains(&name) {
            bail!(
                "--size {g}: lesson {} has no problem size `{name}`; it has: {}",
                lesson.id,
                names.join(", ")
            );
        }
        let v: i64 = match value.parse() {
            Ok(v) if v > 0 => v,
            _ => bail!("--size {g}: the value is a whole number above 0"),
        };
        if out.iter().any(|(n, _)| n == name) {
            bail!("--size {g}: `{name}` is given twice");
        }
        out.push((name.to_string(), v));
    }
    Ok(out)
}

/// Every value of every knob of the variants the run asked for (all, without
/// `--variant`), added to `result.knobs`: live where `result` was measured live, on the
/// CPU interpreter with `--cpu`; otherwise said and skipped.
pub fn run_knobs(
    root: &CourseRoot,
    (device, a): (u32, &RunArgs),
    lesson: &Lesson,
    result: &mut LessonResult,
) -> Result<()> {
    let chosen: Vec<&Knob> = (lesson.knobs.iter())
        .filter(|k| a.variants.is_empty() || a.variants.contains(&k.variant))
        .collect();
    if chosen.is_empty() {
        say_err!("· --knobs: no knobs on the variants run");
        return Ok(());
    }
    let mut client = WorkerClient::new();
    // `--cpu` asks nothing of this machine; a live run's knobs need the GPU it ran on.
    let caps = if a.cpu {
        Capabilities::default()
    } else {
        if result.source != Source::Live {
            say_err!("· --knobs: knobs run live on a GPU, or with --cpu on the CPU interpreter");
            return Ok(());
        }
        client = client.on_device(device);
        fold::hello(&mut client, device)?
    };
    let of = Subject::Lesson {
        lesson,
        shown: result.device.as_ref(),
    };
    let plan = source::plan(if a.cpu { Ask::Cpu } else { Ask::Figures }, &caps, of);
    let (lesson, sized) = match &plan {
        Plan::Interpreted => (lesson.clone(), source::cpu_sized(root, lesson)?),
        // As the variants ran: sized for this GPU where the lesson takes sizes from it.
        Plan::Live(dev) => {
            let on_device = source::device_sized(root, lesson, dev)?;
            (on_device.unwrap_or_else(|| lesson.clone()), None)
        }
        _ => bail!("--knobs: the GPU that ran the variants is gone"),
    };
    let count: usize = chosen.iter().map(|k| k.settings.len()).sum();
    say_err!("· knobs: {count} settings");
    for knob in chosen {
        // The knob of the lesson as it runs (read again for this GPU where it takes sizes
        // from it), and below of the lesson at the size the interpreter checks outputs at.
        let mine = lesson.knobs.iter().find(|k| same_knob(k, knob));
        let Some(knob) = mine else { continue };
        if plan == Plan::Interpreted && matches!(knob.kind, KnobKind::Problem(_)) {
            say_err!(
                "· {} knob: the CPU interpreter checks outputs at the lesson's CPU size; \
                 problem sizes are turned on a GPU",
                knob.label
            );
            continue;
        }
        let at_cpu = sized.as_ref().and_then(|s| {
            let k = s.knobs.iter().find(|k| same_knob(k, knob))?;
            Some(knobs::knob_lesson(
                s,
                &k.settings.iter().collect::<Vec<_>>(),
            ))
        });
        for settings in knobs::batches(knob) {
            run_batch(
                &mut client,
                (&plan, a),
                &lesson,
                &settings,
                at_cpu.as_ref(),
                result,
            );
        }
    }
    Ok(())
}

/// One request: `settings` run as the knob lesson, their figures added to `result.knobs`.
fn run_batch(
    client: &mut WorkerClient,
    (plan, a): (&Plan, &RunArgs),
    lesson: &Lesson,
    settings: &[&KnobSetting],
    at_cpu: Option<&Lesson>,
    result: &mut LessonResult,
) {
    let kl = knobs::knob_lesson(lesson, settings);
    let options = RunOptions {
        trace: !a.no_trace,
        time: !a.no_time,
        ..knobs::options(settings)
    };
    let Some(req) = plan.request(&kl, &options, at_cpu) else {
        return;
    };
    let mut r = fold::blank_result(&kl, result.source, result.device.clone());
    if let Err(e) = fold::request(client, &req, &kl, &mut r, progress) {
        let names: Vec<&str> = settings.iter().map(|s| s.variant.name.as_str()).collect();
        say_err!("· {}: error: {e}", names.join(", "));
    }
    result.knobs.extend(
        (r.variants.into_iter())
            .filter(|v| settings.iter().any(|s| s.variant.name == v.name))
            .map(|mut v| {
                // The lesson's claims are about its named variants, not a setting.
                v.expect.clear();
                v
            }),
    );
}

fn same_knob(a: &Knob, b: &Knob) -> bool {
    a.variant == b.variant && a.kind == b.kind
}

fn progress(r: &Reply) {
    if let Reply::Stage { variant, stage } = r {
        say_err!("· {variant} {stage}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;

    fn lesson() -> Lesson {
        let mut l = LessonBuilder::new("g").variant("a").build();
        l.problem = vec![("m".into(), 4096), ("n".into(), 64)];
        l
    }

    #[test]
    fn sizes_name_the_lessons_problem_and_whole_numbers() {
        let l = lesson();
        let got = parse_sizes(&l, &["m=2048".into(), " n = 8 ".into()]).unwrap();
        assert_eq!(got, [("m".to_string(), 2048), ("n".to_string(), 8)]);
        let err = |g: &str| parse_sizes(&l, &[g.into()]).unwrap_err().to_string();
        assert!(
            err("k=4").contains("no problem size `k`; it has: m, n"),
            "{}",
            err("k=4")
        );
        assert!(err("m").contains("write NAME=VALUE"));
        assert!(err("m=0").contains("above 0"));
        assert!(err("m=two").contains("above 0"));
        let twice = parse_sizes(&l, &["m=1".into(), "m=2".into()]).unwrap_err();
        assert!(twice.to_string().contains("given twice"), "{twice}");
    }
}
