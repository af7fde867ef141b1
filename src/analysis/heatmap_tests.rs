use super::*;
use crate::model::access::AccessKind;
use crate::model::results::MemoryStats;

fn access(width: u32, mask: u32, f: impl Fn(u64) -> u64) -> WarpAccess {
    WarpAccess {
        mask,
        width,
        addrs: (0..32).map(f).collect(),
    }
}

/// One traced shared instruction with the given totals and sample.
fn shared_instruction(
    id: u32,
    requests: u64,
    wavefronts: u64,
    sample: WarpAccess,
) -> InstructionSummary {
    InstructionSummary {
        id,
        space: Space::Shared,
        kind: AccessKind::Load,
        op: "ld.shared.v4.f32".into(),
        ptx_line: 1,
        source_line: Some(3),
        width: sample.width,
        requests,
        wavefronts,
        ideal_wavefronts: requests * u64::from(32 / banks::lanes_per_phase(sample.width)),
        sectors: 0,
        lines: 0,
        bytes_used: 0,
        distinct: 0,
        local_bytes: 0,
        local_sectors: 0,
        texels: 0,
        texel_rows: 0,
        remote_requests: 0,
        coords: None,
        footprint: vec![],
        bank_words: vec![],
        sample: Some(sample),
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
        &shared_instruction(0, 1, 4, access(16, u32::MAX, |l| l * 16)),
    )
    .unwrap();
    assert_eq!(grid.phase_starts, vec![8, 16, 24]);
    assert!(grid.title.contains("no conflict"), "{}", grid.title);
}

#[test]
fn an_inactive_lane_uses_no_bank_and_the_others_keep_their_phase() {
    let sample = access(16, 0xFFFF_FFFE, |l| 4096 + l * 16);
    let g = shared_grid(&sample);
    assert_eq!(g[0], vec![0; BANKS]);
    assert_eq!(&g[1][4..8], &[1, 1, 1, 1]);
    assert_eq!(g[1].iter().sum::<u32>(), 4);
    let grid = grid_for("v", &shared_instruction(0, 1, 4, sample)).unwrap();
    // Lanes 0–7 are phase 0, 8–15 phase 1, …, 24–31 phase 3.
    assert_eq!(grid.phase_starts, vec![8, 16, 24]);
    assert_eq!(grid.active, 0xFFFF_FFFE);
    // A cell is the bank's degree in the phase, not the lane's own word count: one word per
    // lane, but bank 0 serves 32 of them.
    let column = shared_grid(&access(4, u32::MAX, |l| 4096 + l * 128));
    assert!((0..32).all(|l| column[l][0] == 32));
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

#[test]
fn sector_columns_start_at_the_lowest_sector_an_active_lane_touched() {
    let (cells, n) = global_grid(&access(4, 0xFFFF_FFFE, |l| 0x7f00_0000_0000 + l * 128));
    assert_eq!(n, 31);
    assert!(cells[0].iter().all(|&c| c == 0), "lane 0 is inactive");
    assert_eq!(cells[1][0], 1);
    assert_eq!(cells[31][30], 1);
    assert_eq!(cells[31].iter().sum::<u32>(), 1);
    let (cells, n) = global_grid(&access(4, 0, |l| l * 4));
    assert_eq!(n, 0);
    assert!(cells.iter().all(Vec::is_empty));
}

#[test]
fn worst_first_puts_the_conflicted_instruction_first() {
    let clean = shared_instruction(0, 10, 10, access(4, u32::MAX, |l| l * 4));
    let conflicted = shared_instruction(1, 10, 320, access(4, u32::MAX, |l| l * 128));
    let v = variant(vec![clean, conflicted]);
    let ids: Vec<u32> = worst_first(&v).iter().map(|i| i.id).collect();
    assert_eq!(ids, vec![1, 0]);
    assert!(worst_first(&VariantResult::default()).is_empty());
}

#[test]
fn aggregate_rows_are_words_per_request_rounded() {
    let mut conflicted = shared_instruction(1, 4, 128, access(4, u32::MAX, |l| l * 128));
    conflicted.bank_words = vec![0; BANKS];
    conflicted.bank_words[0] = 4 * 32;
    conflicted.bank_words[5] = 6;
    let rows = aggregate(&variant(vec![conflicted]));
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].source_line, Some(3));
    assert_eq!(
        (rows[0].words[0], rows[0].words[5], rows[0].words[6]),
        (32, 2, 0)
    );
}

#[test]
fn aggregate_degrees_agree_with_the_single_request_view() {
    // A 32-way conflict that moves between banks 0-3 from request to request: each bank
    // serves 32 words in a quarter of the requests, 8 per request on average.
    let mut moving = shared_instruction(1, 1024, 32 * 1024, access(4, u32::MAX, |l| l * 128));
    moving.bank_words = vec![0; BANKS];
    moving.bank_words[..4].fill(8192);
    // A conflict-free 16-byte load: four phases, one word from every bank in each.
    let mut vec4 = shared_instruction(2, 256, 1024, access(16, u32::MAX, |l| l * 16));
    vec4.bank_words = vec![1024; BANKS];
    let rows = aggregate(&variant(vec![moving, vec4]));
    assert_eq!(
        rows[0].degree[..5],
        [32, 32, 32, 32, 0],
        "as the single view's 32-way"
    );
    assert_eq!(rows[0].wavefronts_per_request, 32.0);
    assert!(
        rows[1].degree.iter().all(|&d| d == 1),
        "{:?}",
        rows[1].degree
    );
    assert_eq!(rows[1].wavefronts_per_request, 4.0);
}

#[test]
fn constant_requests_draw_one_column_per_distinct_address_worst_first() {
    let quad = access(4, u32::MAX, |l| 0x40 + 4 * (l / 8));
    let g = constant_grid(&quad);
    assert_eq!(g.1, 4);
    assert!((0..32).all(|l| g.0[l] == (0..4).map(|c| u32::from(c == l / 8)).collect::<Vec<_>>()));
    let constant = |id, distinct, sample| InstructionSummary {
        space: Space::Constant,
        op: "ld.const.u32".into(),
        distinct,
        wavefronts: 0,
        ideal_wavefronts: 0,
        ..shared_instruction(id, 2, 0, sample)
    };
    let v = variant(vec![
        constant(0, 2, access(4, u32::MAX, |_| 0x40)),
        constant(1, 8, quad),
    ]);
    let list = worst_first(&v);
    assert_eq!(list.iter().map(|i| i.id).collect::<Vec<_>>(), [1, 0]);
    let grid = grid_for("v", list[0]).unwrap();
    assert!(
        grid.title.contains("4.0 distinct addresses/request"),
        "{}",
        grid.title
    );
    assert_eq!(grid.columns, 4);
}

#[test]
fn cluster_sectors_are_told_apart_by_rank() {
    // Lanes alternate between ranks 0 and 1, the same offsets in each.
    let s = access(4, u32::MAX, |l| ((l % 2) << 32) | (4 * (l / 2)));
    let i = InstructionSummary {
        space: Space::Cluster,
        op: "ld.shared::cluster.u32".into(),
        sectors: 4,
        remote_requests: 1,
        ..shared_instruction(0, 1, 0, s)
    };
    let g = grid_for("v", &i).unwrap();
    assert_eq!(g.columns, 4);
    assert!(
        g.title
            .contains("4.0 sectors/request · 100% of requests to another block")
    );
    assert_eq!(g.cells[1][2], 1, "lane 1 is rank 1's first sector");
}

/// Atomics are drawn like loads and stores, labelled: a shared one's cells are the updates
/// each bank makes (lanes on one word each count, but for `ATOMS.POPC.INC`), a global one's
/// its sectors, with what ptxas made of it and its lanes per address in the title.
#[test]
fn atomics_are_drawn_labelled_with_their_updates_per_bank_and_contention() {
    use crate::model::access::{AtomShape, AtomicSummary};
    let atomic = |sass_op: &str, shape, lanes, addresses| AtomicSummary {
        shape,
        sass_op: sass_op.into(),
        ptx_requests: 1,
        ptx_lanes: 32,
        lanes,
        addresses,
        ..AtomicSummary::default()
    };
    // Two lanes a word: 16 words in 16 banks.
    let pairs = access(4, u32::MAX, |l| 4 * (l / 2));
    let add = InstructionSummary {
        kind: AccessKind::Atomic,
        op: "atom.shared.add.u32".into(),
        atomic: Some(atomic("ATOMS.ADD", AtomShape::AsWritten, 32, 16)),
        ideal_wavefronts: 1,
        ..shared_instruction(0, 1, 2, pairs.clone())
    };
    let g = grid_for("v", &add).unwrap();
    assert!(
        g.title
            .contains("atom.shared.add.u32 · atomic · 2.0 lanes/address · 2-way conflict"),
        "{}",
        g.title
    );
    assert_eq!(
        g.cells[0][0], 2,
        "lanes 0 and 1 update bank 0's word one after another"
    );
    assert!(g.legend.contains("lanes on one word count each"));
    let inc = InstructionSummary {
        atomic: Some(atomic("ATOMS.POPC.INC.32", AtomShape::AsWritten, 32, 16)),
        wavefronts: 1,
        ..add.clone()
    };
    let g = grid_for("v", &inc).unwrap();
    assert_eq!(g.cells[0][0], 1);
    assert!(g.legend.contains("lanes on one word count once"));
    // A warp-aggregated global reduction: the leader's one lane, one sector.
    let red = InstructionSummary {
        space: Space::Global,
        kind: AccessKind::Reduction,
        op: "atom.global.add.u32".into(),
        sectors: 1,
        bytes_used: 4,
        atomic: Some(atomic("REDG.E.ADD", AtomShape::WarpAggregated, 1, 1)),
        ..shared_instruction(1, 1, 0, access(4, 1 << 31, |_| 4096))
    };
    let g = grid_for("v", &red).unwrap();
    assert!(
        g.title
            .contains("reduction, warp-aggregated · 1.0 lanes/address"),
        "{}",
        g.title
    );
    assert_eq!((g.columns, g.active), (1, 1 << 31));
    assert!(g.legend.contains("update it one after another"));
    // Worst first: the contended global atomic outranks a conflict-free load.
    let contended = InstructionSummary {
        atomic: Some(atomic("REDG.E.ADD", AtomShape::AsWritten, 32, 1)),
        ..red.clone()
    };
    let load = shared_instruction(2, 1, 1, access(4, u32::MAX, |l| 4 * l));
    let v = variant(vec![load, contended]);
    assert_eq!(worst_first(&v)[0].id, 1);
}
