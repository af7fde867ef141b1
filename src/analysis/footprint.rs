//! Where a warp's texture fetches land in the image, as plain numbers: the texels the traced
//! warps named (every texture instruction of a variant together), counted per texel over a
//! window around them. The view turns the counts into characters.

use crate::model::access::{InstructionSummary, Space};
use crate::model::results::VariantResult;
use std::collections::BTreeMap;

/// Texels a side of the window drawn at most; a footprint larger than this is cut, and says so.
pub const MAX_SIDE: i64 = 64;

/// One window of the image with the fetches counted on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Footprint {
    /// What is shown: one warp ("block 0 warp 3") or all the sampled ones.
    pub label: String,
    /// The window's first texel (x, y) and its size in texels.
    pub origin: (i64, i64),
    pub width: usize,
    pub height: usize,
    /// `cells[row][column]`: fetches of the texel (origin.0 + column, origin.1 + row).
    pub cells: Vec<Vec<u32>>,
    /// Fetches counted, distinct texels and distinct rows among them.
    pub fetches: usize,
    pub texels: usize,
    pub rows: usize,
    /// Whether texels outside the window were left out.
    pub cut: bool,
    /// Texel and row counts per request over the whole trace (every texture instruction).
    pub texels_per_request: f64,
    pub rows_per_request: f64,
}

fn texture_instructions(v: &VariantResult) -> Vec<&InstructionSummary> {
    v.memory.as_ref().map_or_else(Vec::new, |m| {
        m.instructions
            .iter()
            .filter(|i| i.space == Space::Texture)
            .collect()
    })
}

/// The warps whose fetches were kept, as (block, warp), in the order they were traced.
pub fn warps(v: &VariantResult) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for i in texture_instructions(v) {
        for w in &i.footprint {
            if !out.contains(&(w.block, w.warp)) {
                out.push((w.block, w.warp));
            }
        }
    }
    out
}

/// The footprint of warp `which` (an index into `warps`), or of all kept warps together;
/// None when the variant traced no texture fetch with coordinates kept.
pub fn footprint(v: &VariantResult, which: Option<usize>) -> Option<Footprint> {
    let list = warps(v);
    let chosen: Vec<(u32, u32)> = match which {
        Some(i) => vec![*list.get(i.min(list.len().checked_sub(1)?))?],
        None => list.clone(),
    };
    let instrs = texture_instructions(v);
    let mut counts: BTreeMap<(i64, i64), u32> = BTreeMap::new();
    let mut fetches = 0;
    for i in &instrs {
        for w in i
            .footprint
            .iter()
            .filter(|w| chosen.contains(&(w.block, w.warp)))
        {
            for &(_, x, y) in &w.texels {
                *counts.entry((y, x)).or_default() += 1;
                fetches += 1;
            }
        }
    }
    let (&(y0, _), _) = counts.first_key_value()?;
    let x0 = counts.keys().map(|k| k.1).min().unwrap_or(0);
    let (x1, y1) = (
        counts.keys().map(|k| k.1).max().unwrap_or(0),
        counts.keys().map(|k| k.0).max().unwrap_or(0),
    );
    let width = (x1 - x0 + 1).min(MAX_SIDE) as usize;
    let height = (y1 - y0 + 1).min(MAX_SIDE) as usize;
    let mut cells = vec![vec![0u32; width]; height];
    for (&(y, x), &n) in &counts {
        let (c, r) = ((x - x0) as usize, (y - y0) as usize);
        if c < width && r < height {
            cells[r][c] = n;
        }
    }
    let mut rows: Vec<i64> = counts.keys().map(|k| k.0).collect();
    rows.dedup();
    let requests: u64 = instrs.iter().map(|i| i.requests).sum();
    let per = |n: u64| n as f64 / requests.max(1) as f64;
    Some(Footprint {
        label: match which {
            Some(_) => format!("block {} warp {}", chosen[0].0, chosen[0].1),
            None => format!("all {} sampled warps", chosen.len()),
        },
        origin: (x0, y0),
        width,
        height,
        cells,
        fetches,
        texels: counts.len(),
        rows: rows.len(),
        cut: x1 - x0 + 1 > MAX_SIDE || y1 - y0 + 1 > MAX_SIDE,
        texels_per_request: per(instrs.iter().map(|i| i.texels).sum()),
        rows_per_request: per(instrs.iter().map(|i| i.texel_rows).sum()),
    })
}

#[cfg(test)]
#[path = "footprint_tests.rs"]
mod tests;
