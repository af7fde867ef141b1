//! Variants of the host: a `transfer:` (a copy between host and device in place of a
//! kernel) and `prefetch:` on a kernel that reads managed memory.

use super::cx::{Cx, Known};
use crate::course::schema::{RawTransfer, RawVariant};
use crate::model::host::{Memory, Side, Transfer};
use crate::model::{Arg, Variant};

/// A variant after `like:`, as a transfer needs it.
pub(super) struct Parts {
    pub transfer: Option<(RawTransfer, String)>,
    /// Where each kernel key it has was written: a copy runs no kernel.
    pub kernel_keys: Vec<String>,
    /// It has defines, options or `cold_l2`, which only a kernel uses.
    pub has_defines: bool,
    pub note: Option<String>,
}

/// The transfer variant, with every problem reported at its key.
pub(super) fn build(
    cx: &mut Cx,
    v: &RawVariant,
    at: &str,
    parts: &Parts,
    known: &Known,
) -> Option<Variant> {
    let (raw, path) = parts.transfer.as_ref()?;
    let mut ok = true;
    for key in &parts.kernel_keys {
        let name = key.rsplit('.').next().unwrap_or(key);
        cx.err_key(
            key,
            format!(
                "a `transfer` variant copies memory and runs no kernel: `{name}` has no place in it"
            ),
        );
        ok = false;
    }
    if parts.has_defines {
        cx.err(
            at,
            format!(
                "variant `{}` is a `transfer`: `defines`, `options` and `cold_l2` are for kernels",
                v.name
            ),
        );
        ok = false;
    }
    let buffer = transfer_buffer(cx, raw, path, known);
    let ends = match (raw.from, raw.to) {
        (Side::Device, Side::Device)
        | (Side::Pageable | Side::Pinned, Side::Pageable | Side::Pinned) => {
            cx.err(
                &format!("{path}.to"),
                format!(
                    "a transfer goes between the host and the device: one of `from` and `to` is \
                     `device`, the other `pageable` or `pinned` (this one is {} to {})",
                    raw.from.id(),
                    raw.to.id()
                ),
            );
            false
        }
        _ => true,
    };
    let transfer = Transfer {
        from: raw.from,
        to: raw.to,
        buffer: buffer?,
    };
    (ok && ends).then(|| Variant {
        name: v.name.clone(),
        source_path: String::new(),
        source: String::new(),
        kernel: String::new(),
        defines: Vec::new(),
        grid: [1, 1, 1],
        block: [1, 1, 1],
        smem: 0,
        args: Vec::new(),
        options: Vec::new(),
        note: Some(parts.note.clone().unwrap_or_else(|| transfer.describe())),
        constants: Vec::new(),
        attrs: Default::default(),
        cold_l2: false,
        transfer: Some(transfer),
        prefetch: false,
        per: vec![],
    })
}

/// The buffer a transfer copies: an input in device memory of the GPU that runs the lesson.
fn transfer_buffer(cx: &mut Cx, raw: &RawTransfer, path: &str, known: &Known) -> Option<usize> {
    let at = format!("{path}.buffer");
    let Some(i) = known.buffer_names.iter().position(|n| *n == raw.buffer) else {
        cx.err(
            &at,
            format!(
                "unknown buffer `{}` (buffers: {})",
                raw.buffer,
                known.buffer_names.join(", ")
            ),
        );
        return None;
    };
    // A buffer that failed was reported where it is written.
    let b = known.buffers.get(i)?.as_ref()?;
    if b.is_output() || !b.memory.is_device() || b.gpu != 0 {
        cx.err(
            &at,
            format!(
                "a transfer copies an input in device memory of the GPU that runs the lesson \
                 (`{}` is {})",
                b.name,
                if b.is_output() {
                    "an output, `init: poison`"
                } else if b.gpu != 0 {
                    "on the peer GPU"
                } else {
                    "not in device memory"
                }
            ),
        );
        return None;
    }
    Some(i)
}

/// `prefetch:` on a kernel variant: true only where one of its arguments is a managed
/// buffer, for there is nothing else to prefetch. None when that is not so (reported).
pub(super) fn prefetch(
    cx: &mut Cx,
    written: Option<&(bool, String)>,
    args: Option<&[Arg]>,
    known: &Known,
) -> Option<bool> {
    let Some((on, path)) = written else {
        return Some(false);
    };
    let managed = args.is_none_or(|args| {
        args.iter().any(|a| match a {
            Arg::Buffer(i) => known
                .buffers
                .get(*i)
                .and_then(Option::as_ref)
                .is_some_and(|b| b.memory == Memory::Managed),
            _ => false,
        })
    });
    if !managed {
        cx.err(
            path,
            "`prefetch` is for a kernel that reads a buffer with `memory: managed`, and this \
             variant's `args` name none",
        );
        return None;
    }
    Some(*on)
}

#[cfg(test)]
#[path = "transfer_tests.rs"]
mod tests;
