//! Plain data shared by every part of the lab: lessons, claims, results, traced accesses and
//! the worker protocol. Imports nothing of ours.

pub mod access;
pub mod attrs;
pub mod builder;
pub mod claim;
pub mod exercise;
pub mod host;
pub mod knob;
pub mod lesson;
pub mod measure;
pub mod protocol;
pub mod requires;
pub mod results;
pub mod sizes;
pub mod target;
pub mod texture;

pub use attrs::{L2Access, L2Window, LaunchAttrs};
pub use knob::{Knob, KnobKind, KnobSetting, SizedSetting};
pub use lesson::*;
pub use measure::*;
pub use requires::*;
pub use texture::Texture;
