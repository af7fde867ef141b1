//! `textures:` in a lesson: a 2D texture object over a CUDA array, filled from an input
//! buffer's host data and passed to kernels as a `cudaTextureObject_t` (a 64-bit handle).

use serde::{Deserialize, Serialize};

/// What a fetch outside [0, width) × [0, height) returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMode {
    /// The nearest edge texel.
    Clamp,
    /// Zero.
    Border,
    /// The coordinate modulo the size (normalized coordinates only).
    Wrap,
    /// The coordinate reflected at each edge (normalized coordinates only).
    Mirror,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FilterMode {
    /// The texel that holds the coordinate.
    Point,
    /// Bilinear interpolation of the four nearest texels (float reads only).
    Linear,
}

/// How a texel's value reaches the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadMode {
    /// The stored value as it is.
    Element,
    /// Integers mapped to [0, 1] or [-1, 1] as floats.
    NormalizedFloat,
}

impl AddressMode {
    pub const ALL: [(&'static str, AddressMode); 4] = [
        ("clamp", AddressMode::Clamp),
        ("border", AddressMode::Border),
        ("wrap", AddressMode::Wrap),
        ("mirror", AddressMode::Mirror),
    ];
}

impl FilterMode {
    pub const ALL: [(&'static str, FilterMode); 2] =
        [("point", FilterMode::Point), ("linear", FilterMode::Linear)];
}

impl ReadMode {
    pub const ALL: [(&'static str, ReadMode); 2] = [
        ("element", ReadMode::Element),
        ("normalized_float", ReadMode::NormalizedFloat),
    ];
}

/// One texture of the lesson; `Arg::Texture(i)` passes the i-th to a kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Texture {
    pub name: String,
    /// Index into `Lesson::buffers`: an input of `width * height` elements, row-major.
    pub buffer: usize,
    pub width: u64,
    pub height: u64,
    pub address: AddressMode,
    pub filter: FilterMode,
    /// Coordinates in [0, 1) rather than [0, width).
    pub normalized: bool,
    pub read: ReadMode,
}
