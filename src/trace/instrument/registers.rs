//! What the instrumenter knows inside one function: register widths, so an address register
//! is widened the right way, and the last `.loc`, so a site names its source line.

use std::collections::HashMap;

/// Per-function knowledge: register widths, the last `.loc`, and where the body's first
/// instruction is (the logger's prologue goes before it).
#[derive(Default)]
pub(super) struct FuncState {
    pub(super) regs: RegTable,
    /// (`.file` index, line) of the last `.loc`.
    pub(super) loc: Option<(u32, u32)>,
    /// (`.file` index, line) of the calls its function was inlined through, innermost
    /// first (`inlined_at`), where the last `.loc` is inside an inlined function.
    pub(super) called_at: Vec<(u32, u32)>,
    /// The calls each `.loc`'s place was last seen inlined through: a helper's `.loc`
    /// names only the call it was inlined at, inside another helper; that call's own
    /// `.loc`, which comes first, says where that helper was inlined in turn.
    inlined: HashMap<(u32, u32), Vec<(u32, u32)>>,
    /// Braces open: 1 in the function's body, more in its nested scopes.
    depth: u32,
    begun: bool,
}

impl FuncState {
    pub(super) fn scope(&mut self, seg: &super::statements::Seg<'_>) {
        match seg {
            super::statements::Seg::Open => self.depth += 1,
            super::statements::Seg::Close => self.depth = self.depth.saturating_sub(1),
            super::statements::Seg::Stmt(_) => {}
        }
    }

    /// Whether `stmt` is the first instruction (or label) of the function's body, in its
    /// outermost scope, so that what goes before it runs first and is seen everywhere.
    pub(super) fn first_instruction(&mut self, stmt: &str) -> bool {
        if self.begun || self.depth != 1 || stmt.trim_start().starts_with('.') {
            return false;
        }
        self.begun = true;
        true
    }

    pub(super) fn observe(&mut self, stmt: &str) {
        let stmt = stmt.trim_end_matches(';');
        if let Some(rest) = stmt.strip_prefix(".reg") {
            self.regs.declare(rest);
        } else if let Some(rest) = stmt.strip_prefix(".loc") {
            let mut nums = rest
                .split([' ', '\t', ','])
                .filter(|t| !t.is_empty())
                .map(|t| t.parse::<u32>().ok());
            let at = rest.split_once("inlined_at").and_then(|(_, at)| {
                let mut nums = (at.split([' ', '\t', ',']).filter(|t| !t.is_empty()))
                    .map(|t| t.parse::<u32>().ok());
                match (nums.next(), nums.next()) {
                    (Some(Some(file)), Some(Some(line))) => Some((file, line)),
                    _ => None,
                }
            });
            self.called_at = match at {
                Some(at) => std::iter::once(at)
                    .chain(self.inlined.get(&at).into_iter().flatten().copied())
                    .take(64)
                    .collect(),
                None => Vec::new(),
            };
            if let (Some(Some(file)), Some(Some(line))) = (nums.next(), nums.next()) {
                self.loc = Some((file, line));
                self.inlined.insert((file, line), self.called_at.clone());
            }
        }
    }
}

/// Register name → width in bits, from `.reg .b32 %r<12>;` (a family) or `.reg .b64 %SP;`.
#[derive(Default)]
pub(super) struct RegTable {
    exact: HashMap<String, u32>,
    families: HashMap<String, u32>,
}

impl RegTable {
    fn declare(&mut self, decl: &str) {
        let mut bits = 0;
        for tok in decl.split([' ', '\t', ',']).filter(|t| !t.is_empty()) {
            if let Some(ty) = tok.strip_prefix('.') {
                if !ty.starts_with('v') {
                    bits = type_bits(ty).unwrap_or(0);
                }
            } else if let Some((family, _)) = tok.split_once('<') {
                self.families.insert(family.to_string(), bits);
            } else {
                self.exact.insert(tok.to_string(), bits);
            }
        }
    }

    pub(super) fn bits(&self, name: &str) -> Option<u32> {
        if let Some(&b) = self.exact.get(name) {
            return Some(b);
        }
        let family = name.trim_end_matches(|c: char| c.is_ascii_digit());
        (family.len() < name.len())
            .then(|| self.families.get(family).copied())
            .flatten()
    }
}

pub(super) fn type_bits(ty: &str) -> Option<u32> {
    Some(match ty {
        "pred" => 1,
        "b8" | "u8" | "s8" => 8,
        "b16" | "u16" | "s16" | "f16" | "bf16" | "e4m3x2" | "e5m2x2" => 16,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 32,
        "b64" | "u64" | "s64" | "f64" => 64,
        "b128" => 128,
        _ => return None,
    })
}
