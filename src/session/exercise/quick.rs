//! What a quick exercise check (a save while the learner edits) reuses or defers, so the
//! learner's figures come soon: the compared variants' earlier figures, and the trace.

use super::report::{Target, progress};
use crate::model::Lesson;
use crate::model::exercise::{Exercise, YOURS};
use crate::model::protocol::{JobKind, RunOptions};
use crate::model::results::{LessonResult, Source, VariantResult};
use crate::session::client::WorkerClient;
use crate::session::fold;

/// The lesson's variants a check compares with, as this process last measured them on this
/// GPU: they do not change while the learner edits, so a quick check times only theirs.
type Compared = std::sync::Mutex<std::collections::HashMap<String, Vec<VariantResult>>>;

fn compared_cache() -> &'static Compared {
    static CACHE: std::sync::OnceLock<Compared> = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

pub(super) fn compared_earlier(key: &str) -> Option<Vec<VariantResult>> {
    compared_cache().lock().ok()?.get(key).cloned()
}

/// Kept only when every compared variant was timed.
pub(super) fn remember_compared(key: &str, ex: &Exercise, result: &LessonResult) {
    let names = ex.compared();
    let vs: Vec<VariantResult> = result
        .variants
        .iter()
        .filter(|v| names.contains(&v.name))
        .cloned()
        .collect();
    if vs.len() == names.len()
        && vs.iter().all(|v| v.time_ms.is_some())
        && let Ok(mut c) = compared_cache().lock()
    {
        c.insert(key.to_string(), vs);
    }
}

/// The earlier figures of the compared variants in place of their empty entries, and the
/// checks judged again with them.
pub(super) fn splice(lesson: &Lesson, result: &mut LessonResult, earlier: Vec<VariantResult>) {
    for e in earlier {
        if let Some(v) = result.variants.iter_mut().find(|v| v.name == e.name) {
            *v = e;
        }
    }
    fold::evaluate_claims(lesson, result);
}

/// A quick check shows its figures before the trace: the learner's kernel is traced after,
/// on the same inputs, and the checks that need the trace are judged then.
pub(super) fn trace_yours(
    client: &mut WorkerClient,
    main: &Lesson,
    result: &mut LessonResult,
    say: &mut impl FnMut(&str),
) {
    let options = RunOptions {
        variants: vec![YOURS.to_string()],
        time: false,
        guard: true,
        keep_inputs: true,
        check: false,
        job: JobKind::ExerciseCheck,
        sample_seed: super::sample::fresh_sample_seed(),
        ..RunOptions::default()
    };
    let mut traced = fold::blank_result(main, Source::Live, result.device.clone());
    if fold::run_lesson(client, main, &options, &mut traced, progress(say)).is_err() {
        return;
    }
    let got = traced.variants.iter().find(|v| v.name == YOURS);
    if let (Some(src), Some(dst)) = (got, result.variants.iter_mut().find(|v| v.name == YOURS)) {
        dst.memory = src.memory.clone();
        dst.trace_error = src.trace_error.clone();
    }
    fold::evaluate_claims(main, result);
}

/// The lesson and exercise at the exercise's editing size (`editing:`), when it has one
/// and the lesson loads at it; else None, and the check runs at the lesson's size.
pub(super) fn editing_size(t: &Target) -> Option<(Lesson, Exercise)> {
    if t.ex.editing.is_empty() {
        return None;
    }
    let at = crate::session::source::keeping_device_figures(t.lesson, &t.ex.editing);
    let sized = crate::course::reload_sized(t.root, &t.lesson.file, &at).ok()?;
    let ex = sized.exercises.iter().find(|e| e.id == t.ex.id)?.clone();
    Some((sized, ex))
}
