//! A kernel file made into a one-off lesson (`gpulab try`): its `// gpulab:` header read
//! (`header`), the files' sizes and buffers shared (`share`), a variant made of each file and
//! `-D` setting (`plan`), the lesson's text written (`write`) for the loader to read as any
//! other, and each problem the loader finds placed back in the header (`yaml`); `lesson`
//! ties them together.

pub mod header;
pub mod lesson;
mod parts;
mod plan;
mod share;
mod write;
mod yaml;
