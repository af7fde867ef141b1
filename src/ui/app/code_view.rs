//! The code view's keys and requests: panes, SASS asked of the worker.

use super::App;
use crate::analysis::sass::{self};
use crate::model::target::{Gpus, Target, target};
use crate::session::client::NoListing;
use crate::ui::event::Job;
use crate::ui::state::code_view::*;
use crate::ui::state::view::Overlay;

impl App {
    /// `c`: the focused variant's code, its SASS asked for.
    pub(in crate::ui) fn open_code(&mut self) {
        if let Some(words) = self.copy_has_no_code(self.view.variant()) {
            self.message = Some(words);
            return;
        }
        self.view.open(Overlay::Code);
        if self.view.code().shows_sass() {
            self.ask_sass(self.view.variant());
        }
        self.code_at_costliest();
    }

    /// Show the code from its costliest memory line, where a learner should look first,
    /// until the learner scrolls.
    fn code_at_costliest(&mut self) {
        self.view.code_at_worst();
    }

    /// `s` in the code view: source, then SASS, then both side by side.
    pub(in crate::ui) fn cycle_panes(&mut self) {
        self.view.code_mut().cycle_panes();
        if self.view.code().shows_sass() {
            self.ask_sass(self.view.variant());
        }
        self.code_at_costliest();
    }

    /// `d`: the focused variant against its neighbour, both listings asked for.
    pub(in crate::ui) fn open_diff(&mut self) {
        let Some(other) = self.diff_partner() else {
            self.message = Some("a diff needs a second variant".into());
            return;
        };
        self.view.open(Overlay::Diff);
        self.ask_sass(self.view.variant());
        self.ask_sass(other);
    }

    /// Another variant came into focus under the code or diff view: its SASS asked for.
    pub(in crate::ui) fn ask_for_overlay(&mut self) {
        match self.view.overlay() {
            Overlay::Code => {
                if self.view.code().shows_sass() {
                    self.ask_sass(self.view.variant())
                }
                self.code_at_costliest();
            }
            Overlay::Diff => {
                self.ask_sass(self.view.variant());
                if let Some(other) = self.diff_partner() {
                    self.ask_sass(other);
                }
            }
            _ => {}
        }
    }

    /// The variant the focused one is compared with: the one before it (the lesson's
    /// variants go from slow to fast), else the one after.
    pub fn diff_partner(&self) -> Option<usize> {
        let n = self.lesson()?.variants.len();
        match self.view.variant() {
            0 if n > 1 => Some(1),
            0 => None,
            v => Some(v - 1),
        }
    }

    pub fn sass_of(&self, variant: usize) -> Option<&SassState> {
        let l = self.lesson()?;
        let v = l.variants.get(variant)?;
        self.view.code().listing(&l.id, &v.name)
    }

    /// Why variant `variant` has no code to show, when it is a copy between the host and
    /// the GPU (`transfer:`): no source, no kernel, no SASS.
    fn copy_has_no_code(&self, variant: usize) -> Option<String> {
        let v = self.lesson()?.variants.get(variant)?;
        let t = v.transfer.as_ref()?;
        Some(format!(
            "`{}` is a copy ({}), not a kernel: it has no code or SASS to show",
            v.name,
            v.note.as_deref().unwrap_or(&format!("{t:?}"))
        ))
    }

    /// Ask the worker for a variant's SASS, once; said at once where it cannot come.
    fn ask_sass(&mut self, variant: usize) {
        let Some(l) = self.lesson() else { return };
        let Some(v) = l.variants.get(variant) else {
            return;
        };
        let key = (l.id.clone(), v.name.clone());
        if self.view.code().has(&key) {
            return;
        }
        if let Some(words) = self.copy_has_no_code(variant) {
            self.view.code_mut().set(key, SassState::Failed(words));
            return;
        }
        let nvrtc = self.runs.caps().as_ref().is_some_and(|c| c.nvrtc.is_some());
        if !nvrtc {
            let why = match &self.runs.caps() {
                None => "looking for NVRTC…",
                Some(_) => "no NVRTC here: the SASS needs NVRTC and nvdisasm (`gpulab doctor`)",
            };
            // Not kept while the worker has not said: asked again when it has.
            if self.runs.caps().is_some() {
                self.view.code_mut().set(key, SassState::Failed(why.into()));
            } else {
                self.message = Some(why.into());
            }
            return;
        }
        let job = Job::Sass {
            lesson: Box::new(l.clone()),
            variant: v.name.clone(),
            arch: self.sass_target().arch,
        };
        self.outbox.push(job);
        self.view.code_mut().set(key, SassState::Asked);
    }

    /// Where the SASS on screen is built (`model::target`, as `gpulab sass` builds it): for
    /// the GPU the figures shown were measured on, so the SASS sits beside figures of the
    /// same code; else this GPU's; else the lab's default.
    pub fn sass_target(&self) -> Target {
        let gpus = Gpus {
            named: Some(self.runs.device()),
            shown: self.result().and_then(|r| r.device.as_ref()),
            here: self.runs.caps().as_ref().and_then(|c| c.device.as_ref()),
            arch: None,
        };
        target(self.lesson(), &gpus)
    }

    /// The worker's listing of a variant: the kernel's own instructions kept.
    pub(in crate::ui) fn on_sass(
        &mut self,
        lesson: String,
        variant: String,
        listing: Result<String, NoListing>,
    ) {
        let kernel = (self.reading.lessons().iter().find(|l| l.id == lesson))
            .and_then(|l| l.variants.iter().find(|v| v.name == variant))
            .map(|v| v.kernel.clone())
            .unwrap_or_default();
        let state = match listing {
            Ok(text) => {
                let mut all = sass::parse(&text);
                let at = all.iter().position(|l| l.kernel == kernel).unwrap_or(0);
                match at < all.len() {
                    true => SassState::Ready(all.swap_remove(at)),
                    false => SassState::Failed("nvdisasm listed no kernel".into()),
                }
            }
            Err(why) => SassState::Failed(why.to_string()),
        };
        self.view.code_mut().set((lesson, variant), state);
    }
}
