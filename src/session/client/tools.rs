//! What the worker can tell without a GPU run: the CUDA tools it finds, and a variant's
//! SASS.

use super::{WorkerClient, WorkerFailure, default_stall_timeout};
use crate::model::Lesson;
use crate::model::protocol::{Reply, Request, Toolkit};

/// Why there is no SASS listing of a variant.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NoListing {
    /// The worker could not make one (no nvdisasm, the build failed): its words, which
    /// cross the protocol as text.
    #[error("{0}")]
    Refused(String),
    /// The request itself did not finish.
    #[error(transparent)]
    Worker(#[from] WorkerFailure),
}

impl WorkerClient {
    /// nvdisasm's listing of `variant` built for `arch`, or why there is none.
    pub fn sass(
        &mut self,
        lesson: &Lesson,
        variant: &str,
        arch: &str,
    ) -> Result<String, NoListing> {
        let req = Request::Sass {
            lesson: Box::new(lesson.clone()),
            variant: variant.to_string(),
            arch: arch.to_string(),
        };
        let mut listing = None;
        self.request(&req, default_stall_timeout(), |r| {
            if let Reply::Sass { listing: l, .. } = r {
                listing = Some(l.clone());
            }
        })?;
        let listing = listing.ok_or_else(|| WorkerFailure::Crashed {
            detail: "it finished without a listing".into(),
        })?;
        listing.map_err(NoListing::Refused)
    }

    /// Which CUDA tools the worker finds on this machine (no GPU is opened).
    pub fn toolkit(&mut self) -> Result<Toolkit, WorkerFailure> {
        let mut tools = None;
        self.request(&Request::Tools, default_stall_timeout(), |r| {
            if let Reply::Tools { tools: t } = r {
                tools = Some(t.clone());
            }
        })?;
        tools.ok_or_else(|| WorkerFailure::Crashed {
            detail: "it finished without saying which tools it has".into(),
        })
    }
}

#[cfg(test)]
mod fault_words {
    use super::WorkerFailure;

    #[test]
    fn a_fault_before_any_variant_is_said_as_the_lesson_setup_not_an_empty_name() {
        let f = |v: Option<&str>| {
            WorkerFailure::Fault {
                variant: v.map(str::to_string),
                message: "setting the persisting-L2 size: invalid argument".into(),
                code: Some("CUDA_ERROR_INVALID_VALUE".into()),
            }
            .to_string()
        };
        assert!(
            f(Some("")).starts_with("preparing the lesson faulted"),
            "{}",
            f(Some(""))
        );
        // No kernel ran: nothing about kernels faulting on the GPU.
        assert!(!f(Some("")).contains("kernel"), "{}", f(Some("")));
        assert!(
            !f(Some("")).contains("  ") && !f(None).contains("  "),
            "{}",
            f(None)
        );
        assert!(f(Some("remote")).starts_with("`remote` faulted"));
        assert!(f(None).starts_with("the kernel faulted"));
    }
}
