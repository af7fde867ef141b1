//! Reading YAML with positions: a file's nesting checked before any parser sees it
//! (`depth`), the positioned tree of its nodes (`tree`), where each value is written
//! (`spans`), and its parts read on their own (`part`).

pub mod depth;
pub mod part;
pub mod spans;
mod tree;
