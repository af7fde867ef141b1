//! Folding the worker's replies into a `LessonResult`, and the request sequences the
//! headless commands and the UI share (so what the tests see is what the learner sees).

use super::client::{WorkerClient, WorkerFailure, default_stall_timeout};
use crate::analysis::claims;
use crate::model::Lesson;
use crate::model::protocol::{Reply, Request, RunOptions};
use crate::model::results::{DeviceInfo, LessonResult, Peak, Source, VariantResult};

/// What the worker found on this machine.
#[derive(Debug, Clone, Default)]
pub struct Capabilities {
    pub device: Option<DeviceInfo>,
    pub no_gpu: Option<String>,
    pub nvrtc: Option<String>,
    pub nvrtc_missing: Option<String>,
}

pub fn hello(client: &mut WorkerClient, device: u32) -> Result<Capabilities, WorkerFailure> {
    let mut caps = Capabilities::default();
    client.request(&Request::Hello { device }, default_stall_timeout(), |r| {
        if let Reply::Hello {
            device,
            no_gpu,
            nvrtc,
        } = r
        {
            caps.device = device.clone();
            caps.no_gpu = no_gpu.clone();
            match nvrtc {
                Ok(v) => caps.nvrtc = Some(v.clone()),
                Err(e) => caps.nvrtc_missing = Some(e.clone()),
            }
        }
    })?;
    Ok(caps)
}

/// An empty result for `lesson`: one entry per variant, in lesson order.
pub fn blank_result(lesson: &Lesson, source: Source, device: Option<DeviceInfo>) -> LessonResult {
    LessonResult {
        lesson: lesson.id.clone(),
        source,
        device,
        peak: Peak::default(),
        variants: lesson
            .variants
            .iter()
            .map(|v| VariantResult {
                name: v.name.clone(),
                source_hash: crate::worker::runner::variant_hash(lesson, v),
                grid: v.grid,
                block: v.block,
                ..Default::default()
            })
            .collect(),
        expect: Vec::new(),
        compile: None,
    }
}

/// Apply one reply to the result being built.
pub fn apply(result: &mut LessonResult, reply: &Reply) {
    let find = |result: &mut LessonResult, name: &str| -> Option<usize> {
        result.variants.iter().position(|v| v.name == name)
    };
    match reply {
        Reply::Peak { peak } => result.peak = peak.clone(),
        Reply::Compiled {
            variant,
            ptxas,
            error,
        } => {
            if let Some(i) = find(result, variant) {
                result.variants[i].ptxas = ptxas.clone();
                if error.is_some() {
                    result.variants[i].error = error.clone();
                }
            }
        }
        Reply::Sample { variant, ms } => {
            if let Some(i) = find(result, variant) {
                result.variants[i].samples_ms.push(*ms);
            }
        }
        Reply::Variant { result: r } => {
            if let Some(i) = find(result, &r.name) {
                result.variants[i] = (**r).clone();
            }
        }
        _ => {}
    }
}

/// Evaluate the lesson's claims against the figures, and copy each into its subject's entry.
pub fn evaluate_claims(lesson: &Lesson, result: &mut LessonResult) {
    result.expect = lesson
        .expect
        .iter()
        .map(|c| claims::evaluate(c, result))
        .collect();
    for v in &mut result.variants {
        v.expect.clear();
    }
    for (c, r) in lesson.expect.iter().zip(result.expect.clone()) {
        if let Some(v) = result.variants.iter_mut().find(|v| v.name == c.subject()) {
            v.expect.push(r);
        }
    }
}

/// Compile every variant (NVRTC only, no GPU): live ptxas figures.
pub fn compile_lesson(
    client: &mut WorkerClient,
    lesson: &Lesson,
    arch: &str,
    result: &mut LessonResult,
    mut on_reply: impl FnMut(&Reply),
) -> Result<(), WorkerFailure> {
    let req = Request::Compile {
        lesson: Box::new(lesson.clone()),
        arch: arch.to_string(),
    };
    client.request(&req, default_stall_timeout(), |r| {
        apply(result, r);
        on_reply(r);
    })?;
    result.compile = Some(Source::Live);
    Ok(())
}

/// Run a lesson live on the GPU.
pub fn run_lesson(
    client: &mut WorkerClient,
    lesson: &Lesson,
    options: &RunOptions,
    result: &mut LessonResult,
    mut on_reply: impl FnMut(&Reply),
) -> Result<(), WorkerFailure> {
    let req = Request::Run {
        lesson: Box::new(lesson.clone()),
        options: options.clone(),
    };
    let mut error: Option<String> = None;
    let res = client.request(&req, default_stall_timeout(), |r| {
        apply(result, r);
        if let Reply::Error { message } = r {
            error = Some(message.clone());
        }
        on_reply(r);
    });
    result.compile = Some(Source::Live);
    if let Err(f) = &res {
        mark_failure(result, f);
    }
    evaluate_claims(lesson, result);
    res?;
    match error {
        Some(e) => Err(WorkerFailure::Start(e)),
        None => Ok(()),
    }
}

/// A failed run leaves its words on the variant it was on, so that variant shows as wrong
/// with the reason, and what was measured before it stands.
pub fn mark_failure(res: &mut LessonResult, f: &WorkerFailure) {
    let name = match f {
        WorkerFailure::Fault {
            variant: Some(v), ..
        } => Some(v.clone()),
        WorkerFailure::Timeout { variant, .. } if !variant.is_empty() => Some(variant.clone()),
        _ => None,
    };
    if let Some(v) = name.and_then(|n| res.variants.iter_mut().find(|v| v.name == n)) {
        v.correct = Some(false);
        v.error = Some(f.to_string());
    }
}
