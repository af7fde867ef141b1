//! The fingerprint of a variant: what a recording stores, so that a kernel edited since the
//! recording is shown as stale rather than with figures that no longer describe it.

use crate::model::results::VariantResult;
use crate::model::{Lesson, Variant};

/// `v`'s result before anything is known of it, with its fingerprint. Here rather than in
/// the model, which may not hash (the hash is the course's); the worker and the session
/// both reach it.
pub fn blank_result(lesson: &Lesson, v: &Variant) -> VariantResult {
    VariantResult::blank(v, variant_hash(lesson, v))
}

/// Hash of everything that decides what a variant computes and how it is launched: a
/// recording whose hash differs from the lesson's is stale.
pub fn variant_hash(lesson: &Lesson, v: &Variant) -> String {
    let lens: Vec<u64> = lesson.buffers.iter().map(|b| b.len).collect();
    variant_hash_at(lesson, &lens, v)
}

/// `variant_hash` with the lesson's buffers at the lengths `lens` (in the lesson's order):
/// a problem-size knob's setting runs the lesson at its own size.
pub fn variant_hash_at(lesson: &Lesson, lens: &[u64], v: &Variant) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(v.source.as_bytes());
    let buffers: Vec<_> = (lesson.buffers.iter())
        .zip(lens)
        .map(|(b, len)| (&b.name, len))
        .collect();
    let key = serde_json::json!({
        "kernel": v.kernel, "defines": v.defines, "options": v.options,
        "grid": v.grid, "block": v.block, "smem": v.smem, "args": v.args,
        "buffers": buffers,
    });
    h.update(key.to_string().as_bytes());
    // Only a variant that reads textures hashes them, so other variants keep their hashes.
    let textures: Vec<_> = v
        .args
        .iter()
        .filter_map(|a| match a {
            crate::model::Arg::Texture(i) => lesson.textures.get(*i),
            _ => None,
        })
        .collect();
    if !textures.is_empty() {
        h.update(serde_json::json!(textures).to_string().as_bytes());
    }
    // Likewise the host's keys: only where a variant has them, so that every other
    // variant's hash stays what recordings hold. A copy is its ends; a kernel reading
    // host memory is its buffers' kinds and whether it prefetches.
    let memories: Vec<_> = (v.args.iter())
        .filter_map(|a| match a {
            crate::model::Arg::Buffer(i) => lesson.buffers.get(*i),
            _ => None,
        })
        .filter(|b| !b.memory.is_device())
        .map(|b| (&b.name, b.memory))
        .collect();
    if v.transfer.is_some() || v.prefetch || !memories.is_empty() {
        let host = serde_json::json!({
            "transfer": v.transfer, "prefetch": v.prefetch, "memory": memories,
        });
        h.update(host.to_string().as_bytes());
    }
    // A carve-out changes what the launch is given (how much of the SM's pool is L1), so it
    // is hashed; only where it is written, so that every other variant keeps its hash.
    if let Some(c) = v.attrs.carveout {
        h.update(format!("carveout={c}").as_bytes());
    }
    h.finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}
