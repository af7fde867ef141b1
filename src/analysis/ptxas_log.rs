//! Reads the resource report ptxas prints with `-Xptxas -v` out of NVRTC's program log.
//!
//! NVRTC 13.0 (sm_90) writes one module line, then a block per entry function (real logs are
//! kept in `tests/fixtures/ptxas/`):
//!
//! ```text
//! ptxas info    : 0 bytes gmem
//! ptxas info    : Compiling entry function 'stencil' for 'sm_90'
//! ptxas info    : Function properties for stencil
//! ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ptxas info    : Used 15 registers, used 1 barriers, 1032 bytes smem
//! ptxas info    : Compile time = 10.299 ms
//! ptxas info    : Function properties for _Z8gather16PKfi
//! ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ```
//!
//! How each line is handled, and why:
//! - The `ptxas <severity> :` / `ptxas         .` prefix is stripped; standalone ptxas prints
//!   the same bodies with plain indentation, so a line without the prefix is read as it is.
//! - `Compiling entry function 'NAME' for 'sm_XX'` opens a kernel. NAME is what the report is
//!   keyed by: the source name for `extern "C"` kernels, the Itanium-mangled name otherwise
//!   (`_Z5scalePff`, `_Z12unrolled_sumILi4EEvPKfPf`). Quoted names on other lines (the
//!   `-maxrregcount` "Overriding maximum register limit ... for 'spill'" notice) open nothing.
//! - `Function properties for NAME` says whose stack/spill line follows. A non-inlined device
//!   function gets such a block too, after the kernel's, so the line only counts when NAME is
//!   the kernel being compiled; otherwise the device function's figures would replace the
//!   kernel's.
//! - `Used N registers, used N barriers, N bytes smem, ...` belongs to the open kernel. Its
//!   items vary (no `barriers` before CUDA 12, `smem` only when there is shared memory,
//!   `cumulative stack size`, `textures`...), so the line is split at commas into
//!   "number + label" items and matched by label; unknown labels are ignored.
//! - A line with a `gmem` item describes the whole module.
//!
//! - Every `Function properties for NAME` whose NAME opened no kernel is a device function
//!   compiled out of line (`__noinline__`); each kernel's report lists them in `functions`.
//!
//! cmem: CUDA 12 and older printed `N bytes cmem[K]` items — bank 0 (kernel parameters and
//! launch constants) and bank 2 (literals) on the `Used` line, bank 3 (`__constant__`
//! variables) on the module line. The report's `cmem` is the sum of every bank the kernel can
//! read: its own banks plus the module's, since every kernel of the module sees its
//! `__constant__` data. ptxas 13.0 prints no cmem items at all, so with it `cmem` is 0.

use std::collections::BTreeMap;

use crate::model::results::PtxasReport;

/// Every kernel the log reports on, keyed by the name ptxas gives it (see the module notes).
pub fn parse_ptxas_log(log: &str) -> BTreeMap<String, PtxasReport> {
    let mut kernels: BTreeMap<String, PtxasReport> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut properties_for: Option<String> = None;
    let mut module_cmem = 0u32;

    for line in log.lines() {
        let body = strip_prefix(line);
        if let Some(rest) = body.strip_prefix("Compiling entry function '") {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            kernels.insert(name.clone(), PtxasReport::default());
            current = Some(name);
            properties_for = None;
            continue;
        }
        if let Some(name) = body.strip_prefix("Function properties for ") {
            properties_for = Some(name.trim().to_string());
            continue;
        }
        let items = items(body);
        if items.iter().any(|(_, label)| label == "gmem") {
            module_cmem += items
                .iter()
                .filter(|(_, label)| label.starts_with("cmem["))
                .map(|(n, _)| n)
                .sum::<u32>();
            continue;
        }
        let Some(report) = current.as_ref().and_then(|name| kernels.get_mut(name)) else {
            continue;
        };
        if body.starts_with("Used ") {
            take_used(report, &items);
        } else if items.iter().any(|(_, label)| label == "stack frame") && properties_for == current
        {
            take_stack(report, &items);
        }
    }

    // A block of properties for a name that is no entry function is a device function
    // compiled out of line; every kernel of the module may call it.
    let entries: Vec<String> = kernels.keys().cloned().collect();
    let functions: Vec<String> = (log.lines().map(strip_prefix))
        .filter_map(|b| b.strip_prefix("Function properties for "))
        .map(|n| n.trim().to_string())
        .filter(|n| !entries.contains(n))
        .collect();
    for report in kernels.values_mut() {
        report.cmem += module_cmem;
        report.functions = functions.clone();
    }
    kernels
}

/// The items of a kernel's `Used ...` line.
fn take_used(report: &mut PtxasReport, items: &[(u32, String)]) {
    for (n, label) in items {
        match label.as_str() {
            "registers" => report.registers = *n,
            "barriers" => report.barriers = *n,
            "smem" => report.smem = *n,
            l if l.starts_with("cmem[") => report.cmem += n,
            _ => {}
        }
    }
}

/// The items of a kernel's own stack frame and spill line.
fn take_stack(report: &mut PtxasReport, items: &[(u32, String)]) {
    for (n, label) in items {
        match label.as_str() {
            "stack frame" => report.stack_frame = *n,
            "spill stores" => report.spill_stores = *n,
            "spill loads" => report.spill_loads = *n,
            _ => {}
        }
    }
}

/// The report of `kernel`, named as in the source: an exact key (an `extern "C"` kernel, or a
/// full mangled name) first, else the one mangled name `_Z<len><kernel>...`. None when no
/// kernel matches, or when several do (two template instances) and picking one would be a
/// guess.
pub fn report_for(log: &str, kernel: &str) -> Option<PtxasReport> {
    let mut kernels = parse_ptxas_log(log);
    if let Some(report) = kernels.remove(kernel) {
        return Some(report);
    }
    let prefix = format!("_Z{}{}", kernel.len(), kernel);
    let mut matches = kernels
        .into_iter()
        .filter(|(name, _)| name.starts_with(&prefix));
    match (matches.next(), matches.next()) {
        (Some((_, report)), None) => Some(report),
        _ => None,
    }
}

/// The text after `ptxas info    :` or `ptxas         .`, trimmed.
fn strip_prefix(line: &str) -> &str {
    let Some(rest) = line.trim_start().strip_prefix("ptxas") else {
        return line.trim();
    };
    let rest = rest.trim_start();
    // Skip the severity word ("info", "warning"); the continuation line has none.
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let rest = rest.trim_start();
    rest.strip_prefix([':', '.']).unwrap_or(rest).trim()
}

/// "Used 15 registers, used 1 barriers, 1032 bytes smem" →
/// [(15, "registers"), (1, "barriers"), (1032, "smem")]. Items without a leading count
/// ("Compile time = 3 ms") are dropped.
fn items(body: &str) -> Vec<(u32, String)> {
    body.split(',')
        .filter_map(|item| {
            let mut words = item.split_whitespace().peekable();
            if words.peek().is_some_and(|w| w.eq_ignore_ascii_case("used")) {
                words.next();
            }
            let n: u32 = words.next()?.parse().ok()?;
            if words.peek() == Some(&"bytes") {
                words.next();
            }
            let label = words.collect::<Vec<_>>().join(" ");
            (!label.is_empty()).then_some((n, label))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_nvrtc_and_standalone_prefixes() {
        assert_eq!(
            strip_prefix("ptxas info    : Used 8 registers"),
            "Used 8 registers"
        );
        assert_eq!(
            strip_prefix("ptxas         .     0 bytes stack frame"),
            "0 bytes stack frame"
        );
        assert_eq!(
            strip_prefix("    0 bytes stack frame"),
            "0 bytes stack frame"
        );
    }

    #[test]
    fn splits_items_into_count_and_label() {
        assert_eq!(
            items("Used 64 registers, 368 bytes cmem[0], 1 textures"),
            vec![
                (64, "registers".to_string()),
                (368, "cmem[0]".to_string()),
                (1, "textures".to_string())
            ]
        );
        assert!(items("Compile time = 5.014 ms").is_empty());
    }
}
