//! Knobs on the parent's side: the lesson that a knob setting runs as (the lab and
//! `gpulab record` send the same one through the ordinary run path), and a setting's
//! figures found again in a recording.

use super::client::{WorkerClient, WorkerFailure};
use super::fold;
use crate::analysis::fingerprint::{variant_hash, variant_hash_at};
use crate::model::protocol::{JobKind, Reply, RunOptions};
use crate::model::results::{LessonResult, Source, VariantResult};
use crate::model::{Knob, KnobKind, KnobSetting, Lesson, Reference};

/// The id a knob run of `lesson` is sent under, so that its replies are never folded into
/// the lesson's own figures.
pub fn run_id(lesson: &str) -> String {
    format!("{lesson}@knob")
}

/// `lesson` cut down to `settings` (each one more variant) and the variant the output is
/// checked against, with no claims: a knob's figures are for comparing, the lesson's claims
/// stay about its named variants. A problem-size setting brings the lesson to its size
/// (buffers, launches, the reference and the rates); such settings go one a request
/// (`batches`), and given several the lesson takes the first's size.
pub fn knob_lesson(lesson: &Lesson, settings: &[&KnobSetting]) -> Lesson {
    let sized = settings.iter().find_map(|s| s.sized.as_deref());
    let mut l = match sized.map(|s| s.sizes.apply(lesson)) {
        Some(Ok(at_size)) => at_size,
        _ => lesson.clone(),
    };
    if let Some(s) = sized {
        l.metrics = s.metrics.clone();
        l.l2_persisting_bytes = s.l2_persisting_bytes;
    }
    l.id = run_id(&lesson.id);
    l.expect.clear();
    l.sweeps.clear();
    l.knobs.clear();
    l.exercises.clear();
    // The reference variant as the size has it (`apply` keeps the variants' order).
    let reference = match lesson.reference {
        Reference::Variant(i) => (l.variants.iter())
            .find(|v| v.name == lesson.variants[i].name)
            .cloned(),
        _ => None,
    };
    l.variants = settings.iter().map(|s| s.variant.clone()).collect();
    if let Some(r) = reference {
        l.variants.push(r);
        l.reference = Reference::Variant(l.variants.len() - 1);
    }
    l
}

/// The settings of `knob` as they are sent: all in one request, or one a request for a
/// problem-size knob, whose every setting is a lesson of its own size.
pub fn batches(knob: &Knob) -> Vec<Vec<&KnobSetting>> {
    match knob.kind {
        KnobKind::Problem(_) => knob.settings.iter().map(|s| vec![s]).collect(),
        _ => vec![knob.settings.iter().collect()],
    }
}

/// Run only the settings: the reference is checked against, not timed or traced.
pub fn options(settings: &[&KnobSetting]) -> RunOptions {
    RunOptions {
        variants: settings.iter().map(|s| s.variant.name.clone()).collect(),
        ..RunOptions::default()
    }
}

/// The figures of `setting` among those `shown` for its lesson: recorded (or measured)
/// under its own name, marked stale if its kernel changed since; else those of a variant
/// that is the very same kernel, defines, options and launch (its fingerprint), so a knob
/// standing where a named variant stands shows that variant's figures.
pub fn figures(
    lesson: &Lesson,
    shown: &LessonResult,
    setting: &KnobSetting,
) -> Option<VariantResult> {
    // A problem-size setting ran with its own buffers, which its fingerprint includes.
    let hash = match &setting.sized {
        Some(s) => variant_hash_at(lesson, &s.sizes.lens, &setting.variant),
        None => variant_hash(lesson, &setting.variant),
    };
    let name = &setting.variant.name;
    let mut v = match shown.knobs.iter().find(|v| v.name == *name) {
        Some(v) => {
            let mut v = v.clone();
            v.stale = v.source_hash != hash;
            v
        }
        None => shown
            .variants
            .iter()
            .chain(&shown.knobs)
            .find(|v| v.source_hash == hash && !v.stale && has_figures(v))?
            .clone(),
    };
    v.name = name.clone();
    // The lesson's claims are about the named variant, not this setting of the knob.
    v.expect.clear();
    Some(v)
}

/// Measured or compiled: something to show beside the knob's value.
fn has_figures(v: &VariantResult) -> bool {
    v.time_ms.is_some() || v.ptxas.is_some() || v.error.is_some()
}

/// Run every value of every knob of `lesson` (one request per knob), adding each setting's
/// figures to `result.knobs`; the first failure, if any, is handed back once all have run.
pub fn run_all(
    client: &mut WorkerClient,
    lesson: &Lesson,
    result: &mut LessonResult,
    mut on_reply: impl FnMut(&Reply),
) -> Result<(), WorkerFailure> {
    let mut first_failure = Ok(());
    for knob in &lesson.knobs {
        let (outcome, figures) = run_knob(client, lesson, knob, result, &mut on_reply);
        result.knobs.extend(figures);
        if first_failure.is_ok() {
            first_failure = outcome;
        }
    }
    first_failure
}

fn run_knob(
    client: &mut WorkerClient,
    lesson: &Lesson,
    knob: &Knob,
    shown: &LessonResult,
    on_reply: &mut impl FnMut(&Reply),
) -> (Result<(), WorkerFailure>, Vec<VariantResult>) {
    let mut outcome = Ok(());
    let mut figures = Vec::new();
    for settings in batches(knob) {
        let (o, f) = run_batch(client, lesson, &settings, shown, on_reply);
        figures.extend(f);
        if outcome.is_ok() {
            outcome = o;
        }
    }
    (outcome, figures)
}

fn run_batch(
    client: &mut WorkerClient,
    lesson: &Lesson,
    settings: &[&KnobSetting],
    shown: &LessonResult,
    on_reply: &mut impl FnMut(&Reply),
) -> (Result<(), WorkerFailure>, Vec<VariantResult>) {
    let kl = knob_lesson(lesson, settings);
    let mut r = fold::blank_result(&kl, Source::Live, shown.device.clone());
    // Every knob at once is what `gpulab record` asks; the lab turns one at a time.
    let opts = RunOptions {
        job: JobKind::Recording,
        ..options(settings)
    };
    let outcome = fold::run_lesson(client, &kl, &opts, &mut r, on_reply);
    let figures = r
        .variants
        .into_iter()
        .filter(|v| settings.iter().any(|s| s.variant.name == v.name))
        .map(|mut v| {
            v.expect.clear();
            v
        })
        .collect();
    (outcome, figures)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::course::bundle::CourseRoot;

    fn shipped(id: &str) -> Lesson {
        let (lessons, errors) = crate::course::load_course(&CourseRoot::Bundled);
        assert!(errors.is_empty(), "{errors:?}");
        lessons.into_iter().find(|l| l.id == id).unwrap()
    }

    #[test]
    fn a_knob_lesson_holds_the_settings_and_the_reference_variant() {
        let l = shipped("shared-banks");
        let k = &l.knobs[0];
        let x = knob_lesson(&l, &[&k.settings[2]]);
        let names: Vec<&str> = x.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["stride-1@STRIDE=4", "stride-1"]);
        assert_eq!(x.reference, Reference::Variant(1));
        assert!(x.expect.is_empty() && x.knobs.is_empty());
        assert_ne!(x.id, l.id);
        let built = knob_lesson(&shipped("global-coalescing"), &[]);
        assert!(
            built.variants.is_empty(),
            "a built-in reference needs no variant"
        );
    }

    #[test]
    fn a_setting_where_a_named_variant_stands_shows_its_figures() {
        let l = shipped("global-coalescing");
        let mut shown = fold::blank_result(&l, Source::Recorded, None);
        shown.variants[1].time_ms = Some(crate::model::results::TimeMs {
            median: 2.0,
            min: 2.0,
            max: 2.0,
            runs: 1,
            spread_pct: 0.0,
        });
        let k = &l.knobs[0];
        // STRIDE = 2 is the `stride-2` variant; STRIDE = 4 is no variant of the lesson.
        let two = figures(&l, &shown, &k.settings[1]).expect("stride-2's figures");
        assert_eq!(two.name, "coalesced@STRIDE=2");
        assert_eq!(two.time_ms.as_ref().unwrap().median, 2.0);
        assert!(figures(&l, &shown, &k.settings[2]).is_none());
        // Recorded under its own name, with a kernel changed since: stale.
        let mut own = two.clone();
        own.name = "coalesced@STRIDE=4".into();
        own.source_hash = "old".into();
        shown.knobs.push(own);
        assert!(figures(&l, &shown, &k.settings[2]).unwrap().stale);
    }
}
