//! The one fold of worker replies into a `LessonResult`. The headless commands and the UI feed
//! every reply of a request through a `Fold` and end it with `Fold::finish`, so a failure
//! reads the same on the screen as in `gpulab run`.

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
}

impl Capabilities {
    /// "no GPU here: no NVIDIA driver (libcuda.so.1 not found)": the reason after a colon,
    /// since it may carry brackets of its own, which a pair around it would nest.
    pub fn no_gpu_words(&self) -> String {
        match self.no_gpu.as_deref().filter(|w| !w.is_empty()) {
            Some(why) => format!("no GPU here: {why}"),
            None => "no GPU here".into(),
        }
    }

    /// From the worker's `Hello` reply; NVRTC's absence needs no words here, since nothing
    /// shows it: without NVRTC the compile reports simply stay the recording's.
    pub fn from_hello(reply: &Reply) -> Option<Capabilities> {
        match reply {
            Reply::Hello {
                device,
                no_gpu,
                nvrtc,
            } => Some(Capabilities {
                device: device.clone(),
                no_gpu: no_gpu.clone(),
                nvrtc: nvrtc.as_ref().ok().cloned(),
            }),
            _ => None,
        }
    }
}

pub fn hello(client: &mut WorkerClient, device: u32) -> Result<Capabilities, WorkerFailure> {
    let mut caps = Capabilities::default();
    client.request(&Request::Hello { device }, default_stall_timeout(), |r| {
        if let Some(c) = Capabilities::from_hello(r) {
            caps = c;
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
            .map(|v| crate::analysis::fingerprint::blank_result(lesson, v))
            .collect(),
        expect: Vec::new(),
        compile: None,
        knobs: Vec::new(),
    }
}

/// One request's replies as they arrive, beside the result they fill in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fold {
    /// The variant the worker last said it was on: a failure that names no variant of its
    /// own (a crash, a refusal) is marked there, so what was measured before it stands.
    variant: String,
    /// A request the worker refused (no GPU to run on, a bad request), in its words.
    refused: Option<String>,
    /// A run reached its variants: one that stops early leaves the rest "not run".
    ran: bool,
    /// The client reported a variant lost: the run's failure is already marked.
    lost: bool,
}

impl Fold {
    pub fn new() -> Fold {
        Fold::default()
    }

    /// Apply one reply to the result being built.
    pub fn apply(&mut self, result: &mut LessonResult, reply: &Reply) {
        match reply {
            // A wait for the GPU is news of the variant the worker is on, like a stage.
            Reply::Stage { variant, .. } | Reply::Queue { variant, .. } => {
                self.ran |= !variant.is_empty();
                self.variant = variant.clone();
            }
            Reply::Error { message } => {
                self.refused.get_or_insert_with(|| message.clone());
            }
            Reply::Peak { peak } => result.peak = peak.clone(),
            Reply::Compiled {
                variant,
                ptxas,
                error,
            } => {
                // A report made now, whatever the timings beside it are.
                result.compile = Some(Source::Live);
                if let Some(v) = find(result, variant) {
                    v.ptxas = ptxas.clone();
                    if error.is_some() {
                        // Figures beside code that no longer compiles are not its figures:
                        // the error is its status, and its claims are not measured.
                        *v = VariantResult {
                            error: error.clone(),
                            ..v.blanked()
                        };
                    }
                }
            }
            Reply::Sample { variant, ms } => {
                if let Some(v) = find(result, variant) {
                    v.samples_ms.push(*ms);
                }
            }
            Reply::Variant { result: r } => {
                if let Some(v) = find(result, &r.name) {
                    *v = (**r).clone();
                }
            }
            // Judged after the figures came: it marks them, it does not replace them, nor
            // what the clocks said of them (which came with the figures).
            Reply::Noise { variant, noise } => {
                if let Some(v) = find(result, variant) {
                    v.noise = Some(match v.noise.take() {
                        Some(clocks) if clocks != *noise => format!("{clocks}; {noise}"),
                        _ => noise.clone(),
                    });
                }
            }
            Reply::Lost {
                variant,
                error,
                failure,
            } => {
                self.lost = true;
                if let Some(v) = find(result, variant) {
                    v.correct = Some(false);
                    v.error = Some(error.clone());
                    v.failure = Some(failure.clone());
                }
            }
            Reply::Hello { .. }
            | Reply::Tools { .. }
            | Reply::Sass { .. }
            | Reply::Done
            | Reply::Fault { .. } => {}
        }
    }

    /// The request is over with `outcome`: a refusal counts as a failure too. The failure
    /// is marked on its variant, the claims are judged on what was measured, and the
    /// failure, if any, is handed back for the caller to say.
    pub fn finish(
        self,
        lesson: &Lesson,
        result: &mut LessonResult,
        outcome: Result<(), WorkerFailure>,
    ) -> Result<(), WorkerFailure> {
        let outcome = match (outcome, self.refused) {
            (Ok(()), Some(message)) => Err(WorkerFailure::Start(message)),
            (outcome, _) => outcome,
        };
        if let Err(f) = &outcome {
            // After a loss the worker's last word may be about a later variant: the loss
            // was marked where it happened.
            let marked = self.lost || mark_failure(result, f, &self.variant);
            if self.ran {
                mark_not_run(result, f);
            } else if !marked {
                // Over before any variant (the worker died, or refused the request): every
                // variant says why it has no figures, so the run fails with the reason.
                not_reached(result, f);
            }
        }
        evaluate_claims(lesson, result);
        outcome
    }
}

fn find<'a>(result: &'a mut LessonResult, name: &str) -> Option<&'a mut VariantResult> {
    result.variants.iter_mut().find(|v| v.name == name)
}

/// A failed request leaves its words on the variant it was on, so that variant shows as
/// wrong with the reason. `current` is the variant the worker last named.
fn mark_failure(res: &mut LessonResult, f: &WorkerFailure, current: &str) -> bool {
    let name = match f {
        WorkerFailure::Fault {
            variant: Some(v), ..
        } => v.as_str(),
        WorkerFailure::Timeout { variant, .. } if !variant.is_empty() => variant.as_str(),
        _ => current,
    };
    let Some(v) = find(res, name) else {
        return false;
    };
    v.correct = Some(false);
    v.error = Some(f.to_string());
    v.failure = Some(f.kind());
    true
}

/// A request that ended before it reached any variant: each variant without figures says
/// why (an error, not a wrong answer: nothing ran).
fn not_reached(res: &mut LessonResult, f: &WorkerFailure) {
    for v in &mut res.variants {
        if v.correct.is_none() && v.error.is_none() && v.time_ms.is_none() {
            v.error = Some(format!("not run: {f}"));
            v.failure = Some(f.kind());
        }
    }
}

/// A run that stopped (its reference or its inputs failed) says why the variants it never
/// reached have no figures, rather than leaving them blank.
fn mark_not_run(res: &mut LessonResult, f: &WorkerFailure) {
    let why = match f.variant() {
        Some(v) => format!("not run: the run stopped at `{v}`, which failed"),
        None => "not run: the run stopped early".to_string(),
    };
    for v in &mut res.variants {
        if v.correct.is_none() && v.error.is_none() && v.time_ms.is_none() {
            v.error = Some(why.clone());
        }
    }
}

/// What this machine lacks for `lesson`, from the worker's `Hello`: then the lab replays
/// the recording instead of running live. Only the compute capability can be judged here;
/// the GPU count is the worker's to check (its results then say so in `unmet`).
pub fn unmet(lesson: &Lesson, caps: &Capabilities) -> Option<String> {
    let d = caps.device.as_ref()?;
    let assumed_gpus = lesson.requires.gpus.unwrap_or(1);
    lesson.requires.unmet(&d.cc, assumed_gpus)
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

/// Send `req` about `lesson` and fold every reply into `result` (also passed to `on_reply`).
pub fn request(
    client: &mut WorkerClient,
    req: &Request,
    lesson: &Lesson,
    result: &mut LessonResult,
    mut on_reply: impl FnMut(&Reply),
) -> Result<(), WorkerFailure> {
    let mut fold = Fold::new();
    let outcome = client.request(req, default_stall_timeout(), |r| {
        fold.apply(result, r);
        on_reply(r);
    });
    fold.finish(lesson, result, outcome)
}

/// Compile every variant (NVRTC only, no GPU): live ptxas figures.
pub fn compile_lesson(
    client: &mut WorkerClient,
    lesson: &Lesson,
    arch: &str,
    result: &mut LessonResult,
    on_reply: impl FnMut(&Reply),
) -> Result<(), WorkerFailure> {
    let req = Request::Compile {
        lesson: Box::new(lesson.clone()),
        arch: arch.to_string(),
    };
    request(client, &req, lesson, result, on_reply)
}

/// Run a lesson live on the GPU.
pub fn run_lesson(
    client: &mut WorkerClient,
    lesson: &Lesson,
    options: &RunOptions,
    result: &mut LessonResult,
    on_reply: impl FnMut(&Reply),
) -> Result<(), WorkerFailure> {
    let req = Request::Run {
        lesson: Box::new(lesson.clone()),
        options: options.clone(),
    };
    request(client, &req, lesson, result, on_reply)
}

#[cfg(test)]
#[path = "fold_tests.rs"]
mod tests;
