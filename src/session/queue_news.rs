//! A wait for the GPU in words, once per change. The worker repeats an unchanged queue
//! every second (so its silence is never taken for a hang); the learner reads each change
//! once: "waiting for the GPU: 2 ahead (a recording, an exercise check)", then "1 ahead",
//! then "the GPU is free: waited 3.2 s".

use crate::analysis::gpu_share::{queue_words, turn_words};
use crate::model::protocol::{QueuedJob, Reply};

/// What was last said about the queue.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueNews {
    last: Option<(String, Vec<QueuedJob>)>,
}

impl QueueNews {
    /// The variant and the words for `reply` when it is news about the queue; None when it
    /// is not about the queue, or says what was said last.
    pub fn words<'r>(&mut self, reply: &'r Reply) -> Option<(&'r str, String)> {
        let Reply::Queue {
            variant,
            ahead,
            waited_ms,
        } = reply
        else {
            return None;
        };
        if ahead.is_empty() {
            self.last = None;
            return Some((variant, turn_words(*waited_ms)));
        }
        let now = (variant.clone(), ahead.clone());
        if self.last.as_ref() == Some(&now) {
            return None;
        }
        self.last = Some(now);
        Some((variant, queue_words(ahead)))
    }
}

/// What a status line shows for `reply`, with the variant it is about: a stage as it is,
/// a wait for the GPU in words (every repeat alike, so nothing need be remembered).
pub fn shown_stage(reply: &Reply) -> Option<(&str, String)> {
    match reply {
        Reply::Stage { variant, stage } => Some((variant, stage.clone())),
        Reply::Queue {
            variant,
            ahead,
            waited_ms,
        } => Some((
            variant,
            match ahead.is_empty() {
                true => turn_words(*waited_ms),
                false => queue_words(ahead),
            },
        )),
        _ => None,
    }
}

/// Progress that says only the queue's news, as `· variant waiting for the GPU: …`: for
/// runs whose other stages go unsaid (an exercise's checks at other sizes).
pub fn queue_only(say: &mut impl FnMut(&str)) -> impl FnMut(&Reply) + '_ {
    let mut news = QueueNews::default();
    move |r| {
        if let Some((variant, words)) = news.words(r) {
            say(&format!("{variant} {words}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::protocol::JobKind;

    fn queue(ahead: &[JobKind], waited_ms: f64) -> Reply {
        Reply::Queue {
            variant: "coalesced".into(),
            ahead: ahead.iter().map(|&job| QueuedJob { pid: 9, job }).collect(),
            waited_ms,
        }
    }

    #[test]
    fn each_change_is_said_once_and_the_turn_with_its_wait() {
        let mut news = QueueNews::default();
        let two = queue(&[JobKind::Recording, JobKind::ExerciseCheck], 0.0);
        let said = |n: &mut QueueNews, r: &Reply| n.words(r).map(|(v, w)| format!("{v} {w}"));
        assert_eq!(
            said(&mut news, &two).as_deref(),
            Some("coalesced waiting for the GPU: 2 ahead (a recording, an exercise check)")
        );
        assert_eq!(said(&mut news, &two), None, "a heartbeat repeats it");
        let one = queue(&[JobKind::ExerciseCheck], 0.0);
        assert_eq!(
            said(&mut news, &one).as_deref(),
            Some("coalesced waiting for the GPU: 1 ahead (an exercise check)")
        );
        assert_eq!(
            said(&mut news, &queue(&[], 2500.0)).as_deref(),
            Some("coalesced the GPU is free: waited 2.5 s")
        );
        // The next wait starts afresh, though it looks like the last.
        assert!(said(&mut news, &one).is_some());
        let stage = Reply::Stage {
            variant: "coalesced".into(),
            stage: "timing".into(),
        };
        assert_eq!(said(&mut news, &stage), None);
    }
}
