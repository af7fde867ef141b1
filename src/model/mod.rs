//! Plain data shared by every part of the lab: lessons, claims, results, traced accesses and
//! the worker protocol. Imports nothing of ours.

pub mod access;
pub mod attrs;
pub mod builder;
pub mod claim;
pub mod exercise;
pub mod extras;
pub mod knob;
pub mod lesson;
pub mod protocol;
pub mod results;
pub mod sizes;
pub mod texture;

pub use attrs::{L2Access, L2Window, LaunchAttrs};
pub use extras::*;
pub use knob::{Knob, KnobKind, KnobSetting};
pub use lesson::*;
pub use texture::Texture;
