use super::*;
use crate::model::access::{AccessKind, CoordType, TexCoords, WarpTexels};
use crate::model::results::MemoryStats;

/// A texture instruction whose kept warps each fetched `f(warp, lane)`.
fn fetch(id: u32, warps: &[(u32, u32)], f: impl Fn(u32, u32) -> (i64, i64)) -> InstructionSummary {
    InstructionSummary {
        id,
        space: Space::Texture,
        kind: AccessKind::Load,
        op: "tex.2d.v4.f32.f32".into(),
        ptx_line: 1,
        source_line: None,
        width: 16,
        requests: 10,
        wavefronts: 0,
        ideal_wavefronts: 0,
        sectors: 0,
        lines: 0,
        bytes_used: 0,
        distinct: 0,
        local_bytes: 0,
        local_sectors: 0,
        texels: 320,
        texel_rows: 320,
        remote_requests: 0,
        coords: Some(TexCoords {
            ty: CoordType::F32,
            dims: 2,
            normalized: None,
        }),
        footprint: warps
            .iter()
            .map(|&(block, warp)| WarpTexels {
                block,
                warp,
                texels: (0..32)
                    .map(|l| {
                        let (x, y) = f(warp, l);
                        (l, x, y)
                    })
                    .collect(),
            })
            .collect(),
        bank_words: vec![],
        sample: None,
        lanes: 0,
        sass: None,
        atomic: None,
        unused: false,
        staged: false,
        relayed: false,
    }
}

fn variant(instructions: Vec<InstructionSummary>) -> VariantResult {
    VariantResult {
        name: "v".into(),
        memory: Some(MemoryStats {
            instructions,
            ..MemoryStats::default()
        }),
        ..VariantResult::default()
    }
}

#[test]
fn two_fetches_down_neighbouring_columns_make_a_two_wide_strip() {
    let warps = [(0, 0), (0, 1)];
    let v = variant(vec![
        fetch(0, &warps, |w, l| (5, i64::from(32 * w + l))),
        fetch(1, &warps, |w, l| (6, i64::from(32 * w + l))),
    ]);
    assert_eq!(super::warps(&v), warps);
    let f = footprint(&v, Some(1)).unwrap();
    assert_eq!(f.label, "block 0 warp 1");
    assert_eq!((f.origin, f.width, f.height), ((5, 32), 2, 32));
    assert_eq!((f.fetches, f.texels, f.rows, f.cut), (64, 64, 32, false));
    assert!(f.cells.iter().all(|r| r == &[1, 1]));
    assert_eq!((f.texels_per_request, f.rows_per_request), (32.0, 32.0));
    let all = footprint(&v, None).unwrap();
    assert_eq!((all.origin, all.height, all.texels), ((5, 0), 64, 128));
    // Past the last warp, the last one; a variant without texture fetches has none.
    assert_eq!(footprint(&v, Some(9)).unwrap().label, "block 0 warp 1");
    assert_eq!(footprint(&variant(vec![]), None), None);
}

#[test]
fn texels_fetched_twice_count_twice_and_far_ones_are_cut() {
    let v = variant(vec![fetch(0, &[(3, 0)], |_, l| {
        if l < 31 {
            (i64::from(l / 2), 0)
        } else {
            (1000, 0)
        }
    })]);
    let f = footprint(&v, Some(0)).unwrap();
    assert!(f.cut);
    assert_eq!((f.width, f.height, f.texels), (MAX_SIDE as usize, 1, 17));
    assert_eq!(&f.cells[0][..3], &[2, 2, 2]);
    assert_eq!(f.cells[0][15], 1);
}
