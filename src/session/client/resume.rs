//! A lesson run that survives its variants: when the worker is lost on one variant (a
//! fault poisons its GPU context, a hang or a crash ends it), that variant is reported lost
//! and the rest of the lesson runs in a fresh worker, which makes its own inputs and
//! measures its own copy peak again. Both the lab and `gpulab run` send runs through here.

use super::{WorkerClient, WorkerFailure};
use crate::model::protocol::{Reply, Request, RunOptions};
use crate::model::results::Failure;
use crate::model::{Lesson, Reference};
use std::time::Duration;

impl WorkerFailure {
    /// The variant the failure names itself, if any (a crash names none).
    pub fn variant(&self) -> Option<&str> {
        match self {
            WorkerFailure::Fault {
                variant: Some(v), ..
            } => Some(v.as_str()),
            WorkerFailure::Timeout { variant, .. } => Some(variant.as_str()),
            _ => None,
        }
        .filter(|v| !v.is_empty())
    }

    /// The kind of loss, as `VariantResult::failure` keeps it.
    pub fn kind(&self) -> Failure {
        match self {
            WorkerFailure::Fault { code, .. } => {
                code.as_deref().map_or(Failure::Fault, Failure::from)
            }
            WorkerFailure::Timeout { .. } => Failure::Timeout,
            WorkerFailure::Crashed { .. } => Failure::Crashed,
            WorkerFailure::Start(_) => Failure::Start,
            WorkerFailure::NotRun(_) => Failure::NotRun,
        }
    }
}

/// The variants still to run: those asked for, in lesson order, not yet done.
fn remaining(lesson: &Lesson, options: &RunOptions, done: &[String]) -> Vec<String> {
    lesson
        .variants
        .iter()
        .map(|v| v.name.clone())
        .filter(|n| options.variants.is_empty() || options.variants.contains(n))
        .filter(|n| !done.contains(n))
        .collect()
}

fn reference_name(lesson: &Lesson) -> Option<&str> {
    match lesson.reference {
        Reference::Variant(i) => lesson.variants.get(i).map(|v| v.name.as_str()),
        _ => None,
    }
}

impl WorkerClient {
    /// Run `lesson`, going on past every variant the worker is lost on. Each loss reaches
    /// `on_reply` as a `Reply::Lost`, and the run's outcome is the first loss: a run with a
    /// lost variant failed, though all the others were measured. It stops early when it
    /// cannot go on: the loss names no variant (the inputs or the copy peak failed; that
    /// failure is the outcome), or the reference was lost, without which nothing can be
    /// checked.
    pub(super) fn run_resuming(
        &mut self,
        lesson: &Lesson,
        options: &RunOptions,
        stall: Duration,
        on_reply: &mut dyn FnMut(&Reply),
    ) -> Result<(), WorkerFailure> {
        let mut done: Vec<String> = Vec::new();
        let mut first: Option<WorkerFailure> = None;
        let mut opts = options.clone();
        loop {
            let req = Request::Run {
                lesson: Box::new(lesson.clone()),
                options: opts.clone(),
            };
            let mut current = String::new();
            let outcome = self.request_once(&req, stall, &mut |r| {
                match r {
                    Reply::Stage { variant, .. } => current = variant.clone(),
                    Reply::Variant { result } => done.push(result.name.clone()),
                    _ => {}
                }
                on_reply(r)
            });
            let f = match outcome {
                Ok(()) => return first.map_or(Ok(()), Err),
                Err(f) => f,
            };
            let lost = f.variant().map(str::to_string).unwrap_or(current);
            if lesson.variant(&lost).is_none() || done.contains(&lost) {
                return Err(f);
            }
            let is_reference = reference_name(lesson) == Some(lost.as_str());
            let error = self.with_memcheck_offer(&f, lesson, &lost, !is_reference);
            on_reply(&Reply::Lost {
                variant: lost.clone(),
                error,
                failure: f.kind(),
            });
            if is_reference {
                return Err(f);
            }
            first.get_or_insert(f);
            done.push(lost);
            opts.variants = remaining(lesson, options, &done);
            if opts.variants.is_empty() {
                return first.map_or(Ok(()), Err);
            }
        }
    }
}

impl WorkerClient {
    /// The failure's words, and for a fault, where compute-sanitizer is here, how to find
    /// the line that faulted. Asking starts the fresh worker the run goes on in, so it is
    /// asked only when the run goes on (`may_ask`); otherwise what is known is said.
    fn with_memcheck_offer(
        &mut self,
        f: &WorkerFailure,
        lesson: &Lesson,
        variant: &str,
        may_ask: bool,
    ) -> String {
        let mut words = f.to_string();
        // A learner's kernel (`yours`) is no variant of the lesson `gpulab run` reads: the
        // command would answer that there is no such variant, so none is offered.
        if !matches!(f, WorkerFailure::Fault { .. }) || variant == crate::model::exercise::YOURS {
            return words;
        }
        let present = match self.sanitizer {
            Some(p) => p,
            None if !may_ask => false,
            None => {
                let p = self.toolkit().is_ok_and(|t| t.compute_sanitizer.is_some());
                *self.sanitizer.insert(p)
            }
        };
        if present {
            words.push_str(&format!(
                " To see the line that faulted, rerun it under compute-sanitizer: \
                 gpulab run {} --variant {variant} --memcheck",
                lesson.id
            ));
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::LessonBuilder;

    #[test]
    fn a_fault_offers_memcheck_for_a_lesson_variant_and_not_for_a_learners_kernel() {
        let l = LessonBuilder::new("a").variant("bad").build();
        let mut client = WorkerClient::new();
        client.sanitizer = Some(true);
        let fault = WorkerFailure::Fault {
            variant: None,
            message: "an illegal address".into(),
            code: Some("CUDA_ERROR_ILLEGAL_ADDRESS".into()),
        };
        let words = client.with_memcheck_offer(&fault, &l, "bad", true);
        assert!(
            words.contains("gpulab run a --variant bad --memcheck"),
            "{words}"
        );
        let yours = crate::model::exercise::YOURS;
        let words = client.with_memcheck_offer(&fault, &l, yours, true);
        assert!(!words.contains("--memcheck"), "{words}");
    }

    #[test]
    fn the_rest_is_what_was_asked_for_and_not_yet_done() {
        let l = LessonBuilder::new("a")
            .variant("ref")
            .variant("bad")
            .variant("next")
            .build();
        let all = RunOptions::default();
        let done = vec!["ref".to_string(), "bad".to_string()];
        assert_eq!(remaining(&l, &all, &done), vec!["next"]);
        let some = RunOptions {
            variants: vec!["bad".into()],
            ..Default::default()
        };
        assert!(remaining(&l, &some, &done).is_empty());
        assert_eq!(reference_name(&l), Some("ref"));
    }

    #[test]
    fn a_failure_names_its_variant_and_kind() {
        let f = WorkerFailure::Fault {
            variant: Some("bad".into()),
            message: "synchronize: x".into(),
            code: Some("CUDA_ERROR_MISALIGNED_ADDRESS".into()),
        };
        assert_eq!(f.variant(), Some("bad"));
        assert_eq!(
            f.kind(),
            Failure::Cuda("CUDA_ERROR_MISALIGNED_ADDRESS".into())
        );
        let t = WorkerFailure::Timeout {
            secs: 1.0,
            variant: String::new(),
            stage: "starting".into(),
        };
        assert_eq!(t.variant(), None);
        assert_eq!(t.kind(), Failure::Timeout);
    }
}
