//! Heatmaps of where a warp's accesses went: lanes × banks for shared memory (each cell the
//! conflict degree of the bank that lane used, phases split), lanes × sectors for global
//! memory, and an aggregate of all instructions × banks. Readable without colour: every cell
//! is a character of a ramp; colour only adds emphasis.

use super::theme::Theme;
use crate::analysis::banks;
use crate::model::access::{InstructionSummary, Space, WarpAccess};
use crate::model::results::VariantResult;
use crate::ui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget};

/// A lane × column grid of small counts, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub title: String,
    pub columns: usize,
    /// 32 rows (lanes); 0 = not touched.
    pub cells: Vec<Vec<u32>>,
    pub active: u32,
    /// Lanes at which a new phase starts (8- and 16-byte shared accesses).
    pub phase_starts: Vec<usize>,
    pub legend: String,
}

/// Instructions of a variant, worst first (most wavefronts or sectors per request).
pub fn worst_first(v: &VariantResult) -> Vec<&InstructionSummary> {
    let Some(m) = &v.memory else {
        return Vec::new();
    };
    let mut list: Vec<&InstructionSummary> = m
        .instructions
        .iter()
        .filter(|i| matches!(i.space, Space::Shared | Space::Global) && i.sample.is_some())
        .collect();
    // Worst first; among equals, the busiest (the hot loop before a one-off fill).
    list.sort_by(|a, b| {
        cost(b)
            .total_cmp(&cost(a))
            .then(b.requests.cmp(&a.requests))
            .then(a.id.cmp(&b.id))
    });
    list
}

fn cost(i: &InstructionSummary) -> f64 {
    let r = i.requests.max(1) as f64;
    match i.space {
        Space::Shared => (i.wavefronts as f64 - i.ideal_wavefronts as f64) / r,
        _ => i.sectors as f64 / r - (i.bytes_used as f64 / 32.0) / r,
    }
}

pub fn instruction_title(v: &str, i: &InstructionSummary) -> String {
    let r = i.requests.max(1) as f64;
    let line = i
        .source_line
        .map(|l| format!("line {l}"))
        .unwrap_or_else(|| format!("ptx {}", i.ptx_line));
    match i.space {
        Space::Shared => {
            let wf = i.wavefronts as f64 / r;
            let ideal = i.ideal_wavefronts as f64 / r;
            let ways = if ideal > 0.0 { wf / ideal } else { 0.0 };
            let conflict = if ways > 1.01 {
                format!("{ways:.0}-way conflict")
            } else {
                "no conflict".into()
            };
            format!("{v} · {line} · {} · {conflict} · {wf:.0} wavefronts", i.op)
        }
        _ => format!(
            "{v} · {line} · {} · {:.1} sectors/request ({:.0}% of bytes used)",
            i.op,
            i.sectors as f64 / r,
            100.0 * i.bytes_used as f64 / (32.0 * i.sectors.max(1) as f64)
        ),
    }
}

/// Lane × bank: the conflict degree of each bank a lane used (distinct words that bank must
/// serve in the lane's phase). Same-word reads are one word (broadcast).
pub fn shared_grid(s: &WarpAccess) -> Vec<Vec<u32>> {
    let per = banks::lanes_per_phase(s.width) as usize;
    let addrs: [u64; 32] = std::array::from_fn(|l| s.addrs.get(l).copied().unwrap_or(0));
    let mut cells = vec![vec![0u32; 32]; 32];
    for phase in 0..32 / per {
        let pmask = s.mask & (((1u64 << per) - 1) << (phase * per)) as u32;
        // The cost of this phase alone: the per-bank distinct words are its degrees.
        let degree = banks::shared_request(pmask, s.width, &addrs).per_bank_words;
        for l in (0..32).filter(|l| pmask >> l & 1 == 1) {
            let first = addrs[l] >> 2;
            for w in first..first + banks::words_per_lane(s.width) as u64 {
                let b = (w & 31) as usize;
                cells[l][b] = degree[b];
            }
        }
    }
    cells
}

/// Lane × sector: which of the distinct 32-byte sectors (in address order) each lane touched.
pub fn global_grid(s: &WarpAccess) -> (Vec<Vec<u32>>, usize) {
    let mut sectors: Vec<u64> = Vec::new();
    for l in 0..32 {
        if s.mask >> l & 1 == 1 {
            let (a, b) = (
                s.addrs[l] / 32,
                (s.addrs[l] + s.width.max(1) as u64 - 1) / 32,
            );
            sectors.extend(a..=b);
        }
    }
    sectors.sort_unstable();
    sectors.dedup();
    let mut cells = vec![vec![0u32; sectors.len()]; 32];
    for (l, row) in cells.iter_mut().enumerate() {
        if s.mask >> l & 1 == 1 {
            let (a, b) = (
                s.addrs[l] / 32,
                (s.addrs[l] + s.width.max(1) as u64 - 1) / 32,
            );
            for (c, sec) in sectors.iter().enumerate() {
                if (a..=b).contains(sec) {
                    row[c] = 1;
                }
            }
        }
    }
    (cells, sectors.len())
}

pub fn grid_for(v: &str, i: &InstructionSummary) -> Option<Grid> {
    let s = i.sample.as_ref()?;
    let title = instruction_title(v, i);
    Some(match i.space {
        Space::Shared => {
            let per = banks::lanes_per_phase(s.width) as usize;
            Grid {
                title,
                columns: 32,
                cells: shared_grid(s),
                active: s.mask,
                phase_starts: (per..32).step_by(per).collect(),
                legend: "rows: lanes (2 a row) · columns: banks 0–31 · cell: words that bank \
                         serves in the lane's phase (1 = no conflict, + = 10 or more)"
                    .into(),
            }
        }
        _ => {
            let (cells, n) = global_grid(s);
            Grid {
                title,
                columns: n,
                cells,
                active: s.mask,
                phase_starts: Vec::new(),
                legend: format!(
                    "rows: lanes (2 a row) · columns: the {n} distinct 32-byte sectors touched, in address order"
                ),
            }
        }
    })
}

fn cell_char(v: u32) -> char {
    match v {
        0 => '·',
        1..=9 => char::from_digit(v, 10).unwrap_or('?'),
        _ => '+',
    }
}

fn cell_style(v: u32, th: &Theme) -> Style {
    if !th.color {
        return Style::default();
    }
    match v {
        0 => th.dim,
        1 => Style::default().fg(Color::Green),
        2..=3 => Style::default().fg(Color::Yellow),
        4..=15 => Style::default().fg(Color::LightRed),
        _ => Style::default().fg(Color::Red).bg(Color::Rgb(60, 0, 0)),
    }
}

/// The grid as lines: two lanes a row (the larger count of the pair), phase splits drawn.
pub fn grid_lines(g: &Grid, max_cols: usize, th: &Theme) -> Vec<Line<'static>> {
    let shown = g.columns.min(max_cols.saturating_sub(6));
    let mut lines = Vec::new();
    let mut ticks = String::from("      ");
    for c in 0..shown {
        ticks.push(if c % 8 == 0 { '|' } else { ' ' });
    }
    if shown < g.columns {
        ticks.push('…');
    }
    lines.push(Line::styled(ticks, th.dim));
    for pair in 0..16 {
        let (a, b) = (pair * 2, pair * 2 + 1);
        if g.phase_starts.contains(&a) {
            lines.push(Line::styled(format!("      {}", "─".repeat(shown)), th.dim));
        }
        let mut spans = vec![Span::styled(format!("{a:>2}-{b:<2} "), th.dim)];
        for c in 0..shown {
            let act = |l: usize| g.active >> l & 1 == 1;
            let v = g.cells[a][c].max(g.cells[b][c]);
            let ch = if !act(a) && !act(b) {
                ' '
            } else {
                cell_char(v)
            };
            spans.push(Span::styled(ch.to_string(), cell_style(v, th)));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// All traced instructions × banks: for each bank, the distinct words asked of it per request.
pub fn aggregate_lines(v: &VariantResult, max_cols: usize, th: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!(
            "{} · all shared instructions × banks · words per request",
            v.name
        ),
        th.strong,
    )];
    for i in worst_first(v)
        .into_iter()
        .filter(|i| i.space == Space::Shared)
    {
        let r = i.requests.max(1) as f64;
        let mut spans = vec![Span::styled(
            format!(
                "{:>5} ",
                i.source_line.map(|l| format!("L{l}")).unwrap_or_default()
            ),
            th.dim,
        )];
        for b in 0..32.min(max_cols.saturating_sub(6)) {
            let per = i.bank_words.get(b).copied().unwrap_or(0) as f64 / r;
            let v = per.round() as u32;
            spans.push(Span::styled(cell_char(v).to_string(), cell_style(v, th)));
        }
        lines.push(Line::from(spans));
    }
    lines
}

/// The heatmap in a variant's column: the focused column follows `[`/`]`; the others show
/// their worst instruction.
pub fn render_in_column(
    app: &App,
    v: &VariantResult,
    focused: bool,
    area: Rect,
    buf: &mut Buffer,
    th: &Theme,
) {
    let list = worst_first(v);
    if list.is_empty() {
        return;
    }
    let idx = if focused {
        app.instr.min(list.len() - 1)
    } else {
        0
    };
    let lines = if app.aggregate && focused {
        aggregate_lines(v, area.width as usize, th)
    } else {
        let Some(g) = grid_for(&v.name, list[idx]) else {
            return;
        };
        let mut l = vec![Line::styled(
            format!(
                "[{}/{}] {}",
                idx + 1,
                list.len(),
                g.title.split(" · ").skip(1).collect::<Vec<_>>().join(" · ")
            ),
            th.accent,
        )];
        l.extend(grid_lines(&g, area.width as usize, th));
        l
    };
    Paragraph::new(lines).render(area, buf);
}

pub fn render_overlay(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    let rect = super::overlays::centered(
        area,
        area.width.saturating_sub(2),
        area.height.saturating_sub(1),
    );
    Clear.render(rect, buf);
    let block = Block::default().borders(Borders::ALL).title(Line::styled(
        " heatmap · [ ] instruction · a all · ←→ variant · h closes ",
        th.title,
    ));
    let inner = block.inner(rect);
    block.render(rect, buf);
    let Some(v) = app.result().and_then(|r| r.variants.get(app.variant)) else {
        return;
    };
    let list = worst_first(v);
    if list.is_empty() {
        let why = v
            .trace_error
            .clone()
            .unwrap_or_else(|| "no shared or global accesses traced for this variant".into());
        Paragraph::new(why).render(inner, buf);
        return;
    }
    if app.aggregate {
        Paragraph::new(aggregate_lines(v, inner.width as usize, th)).render(inner, buf);
        return;
    }
    let idx = app.instr.min(list.len() - 1);
    let Some(g) = grid_for(&v.name, list[idx]) else {
        return;
    };
    let source_line = app
        .lesson()
        .and_then(|l| l.variant(&v.name))
        .and_then(|lv| {
            list[idx]
                .source_line
                .and_then(|n| lv.source.lines().nth(n as usize - 1))
        })
        .unwrap_or("")
        .trim()
        .to_string();
    let mut lines = vec![
        Line::styled(
            format!("[{}/{}] {}", idx + 1, list.len(), g.title),
            th.strong,
        ),
        Line::styled(format!("  {source_line}"), th.accent),
    ];
    lines.extend(grid_lines(&g, inner.width as usize, th));
    lines.push(Line::styled(g.legend.clone(), th.dim));
    Paragraph::new(lines).render(inner, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(width: u32, mask: u32, f: impl Fn(u64) -> u64) -> WarpAccess {
        WarpAccess {
            mask,
            width,
            addrs: (0..32).map(f).collect(),
        }
    }

    #[test]
    fn stride_32_puts_every_lane_in_bank_zero_with_degree_32() {
        let g = shared_grid(&access(4, u32::MAX, |l| l * 128));
        assert!((0..32).all(|l| g[l][0] == 32 && g[l][1..].iter().all(|&c| c == 0)));
    }

    #[test]
    fn stride_33_spreads_lanes_over_all_banks_without_conflict() {
        let g = shared_grid(&access(4, u32::MAX, |l| l * 132));
        for (l, row) in g.iter().enumerate() {
            assert_eq!(row.iter().filter(|&&c| c == 1).count(), 1);
            assert_eq!(row[l], 1);
        }
    }

    #[test]
    fn sixteen_byte_loads_are_split_into_quarter_warp_phases() {
        let g = shared_grid(&access(16, u32::MAX, |l| l * 16));
        // Each lane covers 4 banks once: no conflict inside its quarter-warp phase.
        assert!((0..32).all(|l| g[l].iter().filter(|&&c| c == 1).count() == 4));
        let grid = grid_for(
            "v",
            &InstructionSummary {
                id: 0,
                space: Space::Shared,
                kind: crate::model::access::AccessKind::Load,
                op: "ld.shared.v4.f32".into(),
                ptx_line: 1,
                source_line: Some(3),
                width: 16,
                requests: 1,
                wavefronts: 4,
                ideal_wavefronts: 4,
                sectors: 0,
                lines: 0,
                bytes_used: 0,
                distinct: 0,
                local_bytes: 0,
                bank_words: vec![],
                sample: Some(access(16, u32::MAX, |l| l * 16)),
            },
        )
        .unwrap();
        assert_eq!(grid.phase_starts, vec![8, 16, 24]);
        assert!(grid.title.contains("no conflict"), "{}", grid.title);
    }

    #[test]
    fn broadcast_is_one_word() {
        let g = shared_grid(&access(4, u32::MAX, |_| 64));
        assert!((0..32).all(|l| g[l][16] == 1));
    }

    #[test]
    fn global_grid_compresses_to_the_sectors_touched() {
        let (cells, n) = global_grid(&access(4, u32::MAX, |l| 4096 + l * 4));
        assert_eq!(n, 4);
        assert_eq!(cells[9], vec![0, 1, 0, 0]);
        let (_, n) = global_grid(&access(4, 0x0000_FFFF, |l| l * 128));
        assert_eq!(n, 16, "inactive lanes touch nothing");
    }
}
