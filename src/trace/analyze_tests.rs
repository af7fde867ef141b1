use super::*;
use crate::analysis::banks::{self, BANKS};
use crate::analysis::coalescing;
use crate::model::access::AccessKind;
use crate::model::results::RaceScope;
use crate::trace::instrument::Event;

fn site(id: u32, space: Space, width: u32) -> Site {
    Site {
        id,
        event: Event::Access {
            space,
            kind: AccessKind::Load,
        },
        op: "ld.test".into(),
        width,
        ptx_line: 100 + id,
        source_line: Some(10 + id),
        source_file: Some(1),
        coords: None,
        unused: false,
        staged: false,
        relayed: false,
        addr: String::new(),
        timed: false,
        called_at: Vec::new(),
        callee: String::new(),
    }
}

fn rec(site: u32, space: Space, mask: u32, width: u32, stride: u64) -> Record {
    Record {
        site,
        block: 0,
        warp: 0,
        mask,
        space,
        width,
        rank: 0,
        addrs: std::array::from_fn(|i| 1024 + i as u64 * stride),
    }
}

#[test]
fn per_site_figures_and_the_worst_sample() {
    let sites = [
        site(0, Space::Shared, 4),
        site(1, Space::Global, 4),
        site(2, Space::Constant, 4),
        site(3, Space::Local, 16),
    ];
    let records = [
        rec(0, Space::Shared, u32::MAX, 4, 4),
        rec(0, Space::Shared, u32::MAX, 4, 128),
        rec(0, Space::Shared, u32::MAX, 4, 8),
        rec(1, Space::Global, u32::MAX, 4, 4),
        rec(1, Space::Global, u32::MAX, 4, 128),
        rec(2, Space::Constant, u32::MAX, 4, 0),
        rec(2, Space::Constant, 0xFF, 4, 4),
        rec(3, Space::Local, 0xFFFF, 16, 16),
    ];
    let s = summarize(&records, &sites);
    assert_eq!(s.len(), 4);

    let shared = &s[0];
    assert_eq!(
        (shared.requests, shared.wavefronts, shared.ideal_wavefronts),
        (3, 1 + 32 + 2, 3)
    );
    assert_eq!(shared.space, Space::Shared);
    assert_eq!((shared.ptx_line, shared.source_line), (100, Some(10)));
    // The stride-32 request is the worst; its lanes all sit 128 bytes apart.
    let sample = shared.sample.as_ref().unwrap();
    assert_eq!(sample.addrs[1] - sample.addrs[0], 128);
    assert_eq!(shared.bank_words.len(), 32);
    // Bank 0 (word 256): stride 1 once, stride 32 all 32 lanes, stride 2 lanes 0 and 16.
    assert_eq!(shared.bank_words[0], 1 + 32 + 2);
    assert_eq!(shared.bank_words.iter().sum::<u64>(), 32 + 32 + 32);

    let global = &s[1];
    assert_eq!(
        (global.sectors, global.lines, global.bytes_used),
        (4 + 32, 1 + 32, 256)
    );
    assert_eq!(global.sample.as_ref().unwrap().addrs[1], 1024 + 128);
    assert!(global.bank_words.is_empty());

    assert_eq!((s[2].requests, s[2].distinct), (2, 1 + 8));
    assert_eq!(s[3].local_bytes, 16 * 16);

    let t = totals(&records, &sites);
    assert_eq!(
        (
            t.shared.requests,
            t.shared.wavefronts,
            t.shared.ideal_wavefronts
        ),
        (3, 35, 3)
    );
    assert_eq!(
        (
            t.global.requests,
            t.global.sectors,
            t.global.lines,
            t.global.bytes_used
        ),
        (2, 36, 33, 256)
    );
    assert_eq!((t.constant.requests, t.constant.distinct), (2, 9));
    assert_eq!(t.local.bytes, 256);
    assert!(t.instructions.is_empty());
    assert_eq!(analyze(&records, &sites).instructions, s);
}

#[test]
fn silent_sites_are_left_out() {
    let sites = [site(0, Space::Global, 4), site(1, Space::Global, 4)];
    let s = summarize(&[rec(1, Space::Global, 1, 4, 4)], &sites);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].id, 1);
}

#[test]
fn generic_site_takes_the_space_most_requests_went_to() {
    let sites = [site(0, Space::Generic, 4)];
    let records = [
        rec(0, Space::Global, u32::MAX, 4, 4),
        rec(0, Space::Shared, 0xFFFF, 4, 128),
        rec(0, Space::Shared, 0xFFFF_0000, 4, 4),
    ];
    let s = &summarize(&records, &sites)[0];
    assert_eq!(s.space, Space::Shared);
    assert_eq!(s.requests, 3);
    assert_eq!((s.wavefronts, s.sectors), (16 + 1, 4));
    // The sample is a shared request, the worst of them.
    assert_eq!(s.sample.as_ref().unwrap().mask, 0xFFFF);
    let t = totals(&records, &sites);
    assert_eq!((t.shared.requests, t.global.requests), (2, 1));
}

#[test]
fn two_hundred_thousand_records_are_quick() {
    let sites = [
        site(0, Space::Shared, 4),
        site(1, Space::Global, 16),
        site(2, Space::Shared, 16),
    ];
    let records: Vec<Record> = (0..200_000u32)
        .map(|i| match i % 3 {
            0 => rec(0, Space::Shared, u32::MAX, 4, u64::from(i % 64) * 4),
            1 => rec(1, Space::Global, u32::MAX, 16, 16 + u64::from(i % 7) * 64),
            _ => rec(2, Space::Shared, u32::MAX, 16, 16),
        })
        .collect();
    let start = std::time::Instant::now();
    let m = analyze(&records, &sites);
    let took = start.elapsed();
    assert_eq!(m.shared.requests + m.global.requests, 200_000);
    // Loose even for an unoptimised build; release is far faster.
    assert!(took.as_secs_f64() < 5.0, "took {took:?}");
}

#[test]
fn cluster_and_texture_records_are_their_own_spaces() {
    use crate::model::access::{CoordType, TexCoords};
    let mut tex = site(1, Space::Texture, 16);
    tex.coords = Some(TexCoords {
        ty: CoordType::S32,
        dims: 2,
        normalized: None,
    });
    let sites = [site(0, Space::Cluster, 4), tex];
    // Block rank 0 reads rank 1's words in a row, then its own.
    let mut remote = rec(0, Space::Cluster, u32::MAX, 4, 4);
    remote.addrs = std::array::from_fn(|l| (1 << 32) | (4 * l as u64));
    let mut own = remote.clone();
    own.addrs = std::array::from_fn(|l| 4 * l as u64);
    // Integer coordinates: lane l at (l % 4, l / 4), so 32 texels on 8 rows; then one texel.
    let mut block = rec(1, Space::Texture, u32::MAX, 16, 0);
    block.addrs = std::array::from_fn(|l| ((l / 4) as u64) << 32 | (l % 4) as u64);
    let mut one = rec(1, Space::Texture, u32::MAX, 16, 0);
    one.warp = 1;
    let records = [remote, own, block, one];
    let m = analyze(&records, &sites);
    assert_eq!(
        (
            m.cluster.requests,
            m.cluster.sectors,
            m.cluster.remote_requests
        ),
        (2, 8, 1)
    );
    assert_eq!(
        (m.texture.requests, m.texture.texels, m.texture.rows),
        (2, 33, 9)
    );
    let t = &m.instructions[1];
    assert_eq!((t.space, t.texels, t.texel_rows), (Space::Texture, 33, 9));
    // Both warps kept for the footprint, lanes in order.
    assert_eq!(t.footprint.len(), 2);
    assert_eq!(t.footprint[0].texels[5], (5, 1, 1));
    // The second warp: every lane at x = 1024 (where `rec` starts its addresses), row 0.
    assert_eq!(
        t.footprint[1].texels,
        (0..32).map(|l| (l, 1024, 0)).collect::<Vec<_>>()
    );
    let c = &m.instructions[0];
    assert_eq!(
        (c.space, c.sectors, c.remote_requests),
        (Space::Cluster, 8, 1)
    );
}

#[test]
fn a_summary_recorded_before_these_spaces_still_loads() {
    let old = r#"{"id":0,"space":"global","kind":"load","op":"ld.global.f32","ptx_line":3,
        "source_line":null,"width":4,"requests":1,"wavefronts":0,"ideal_wavefronts":0,
        "sectors":4,"lines":1,"bytes_used":128,"distinct":0,"local_bytes":0,"sample":null}"#;
    let s: InstructionSummary = serde_json::from_str(old).unwrap();
    assert_eq!((s.texels, s.coords, s.footprint.len()), (0, None, 0));
    let stats = r#"{"shared":{"requests":0,"wavefronts":0,"ideal_wavefronts":0},
        "global":{"requests":1,"sectors":4},"constant":{"requests":0,"distinct":0},
        "local":{"bytes":0},"traced_blocks":1,"total_blocks":1}"#;
    let m: crate::model::results::MemoryStats = serde_json::from_str(stats).unwrap();
    assert_eq!((m.cluster.requests, m.texture.requests), (0, 0));
}

#[test]
fn only_normalized_textures_of_one_size_scale_the_sites() {
    use crate::model::builder::LessonBuilder;
    use crate::model::lesson::Arg;
    use crate::model::texture::{AddressMode, FilterMode, ReadMode, Texture};
    let tex = |normalized, width| Texture {
        name: "t".into(),
        buffer: 0,
        width,
        height: 64,
        address: AddressMode::Clamp,
        filter: FilterMode::Point,
        normalized,
        read: ReadMode::Element,
    };
    let mut l = LessonBuilder::new("t").variant("v").build();
    l.textures = vec![tex(true, 128), tex(false, 128), tex(true, 32)];
    let size = |args: Vec<Arg>| {
        let mut v = l.variants[0].clone();
        v.args = args;
        normalized_size(&l, &v)
    };
    assert_eq!(size(vec![Arg::Texture(0)]), Some((128, 64)));
    assert_eq!(size(vec![Arg::Texture(0), Arg::Texture(1)]), None);
    assert_eq!(size(vec![Arg::Texture(0), Arg::Texture(2)]), None);
    assert_eq!(size(vec![Arg::I32(1)]), None);
    let mut sites = [site(0, Space::Global, 4), site(1, Space::Texture, 16)];
    sites[1].coords = Some(crate::model::access::TexCoords {
        ty: crate::model::access::CoordType::F32,
        dims: 2,
        normalized: None,
    });
    set_normalized(&mut sites, Some((128, 64)));
    assert_eq!(sites[0].coords, None);
    assert_eq!(sites[1].coords.unwrap().normalized, Some((128, 64)));
}

#[test]
fn every_texture_instruction_keeps_the_same_warps() {
    let tex = |id| {
        let mut s = site(id, Space::Texture, 16);
        s.coords = Some(crate::model::access::TexCoords {
            ty: crate::model::access::CoordType::S32,
            dims: 2,
            normalized: None,
        });
        s
    };
    let sites = [tex(0), tex(1)];
    let fetch = |site, warp| Record {
        warp,
        ..rec(site, Space::Texture, u32::MAX, 16, 1)
    };
    // Site 0 fetched for warps 0-9 first, then site 1 in the opposite order.
    let mut records: Vec<Record> = (0..10).map(|w| fetch(0, w)).collect();
    records.extend((0..10).rev().map(|w| fetch(1, w)));
    let m = analyze(&records, &sites);
    let warps = |i: usize| {
        let mut w: Vec<u32> = m.instructions[i].footprint.iter().map(|f| f.warp).collect();
        w.sort();
        w
    };
    assert_eq!(warps(0), (0..8).collect::<Vec<_>>());
    assert_eq!(warps(1), warps(0));
}

/// A stencil's shared accesses by two warps: a store (line 10), maybe a barrier (line 12),
/// and a load (line 11) reaching one word into the other warp's stores.
fn stencil_records(barrier: bool) -> (Vec<Site>, Vec<Record>) {
    let mut st = site(0, Space::Shared, 4);
    st.event = Event::Access {
        space: Space::Shared,
        kind: AccessKind::Store,
    };
    let ld = site(1, Space::Shared, 4);
    let bar = Site {
        event: Event::Barrier,
        ..site(2, Space::Shared, 0)
    };
    let mut records = Vec::new();
    for warp in 0..2u32 {
        let base = 128 * u64::from(warp);
        let mut r = rec(0, Space::Shared, u32::MAX, 4, 4);
        r.warp = warp;
        r.addrs = std::array::from_fn(|l| base + 4 * l as u64);
        records.push(r.clone());
        if barrier {
            records.push(Record {
                site: 2,
                width: 0,
                addrs: [0; 32],
                ..r.clone()
            });
        }
        r.site = 1;
        r.addrs = std::array::from_fn(|l| base + 4 + 4 * l as u64);
        records.push(r);
    }
    (vec![st, ld, bar], records)
}

#[test]
fn barriers_split_shared_accesses_and_are_not_requests() {
    let (sites, racy) = stencil_records(false);
    let m = analyze(&racy, &sites);
    assert!(m.races_checked);
    // Between the warps, and between the lanes of each (a lane reads its neighbour's word).
    let scopes: Vec<RaceScope> = m.races.iter().map(|r| r.scope).collect();
    assert_eq!(scopes, [RaceScope::Warp, RaceScope::Block], "{:?}", m.races);
    let r = &m.races[1];
    // Warp 0's load of word 32 ran before warp 1's store of it.
    assert_eq!((r.first_line, r.second_line), (Some(11), Some(10)));
    assert_eq!((r.first_warp, r.second_warp, r.offset), (0, 1, 128));

    let (sites, fixed) = stencil_records(true);
    let m = analyze(&fixed, &sites);
    assert!(m.races_checked && m.races.is_empty());
    assert_eq!(m.shared.requests, 4);
    assert!(m.instructions.iter().all(|i| i.id != 2));
}

/// A 16-byte load of which ptxas keeps two words (two 4-byte LDS at +0 and +8): lanes 16
/// bytes apart put 4 distinct words in each of 8 banks, so each LDS takes 4 wavefronts
/// where the PTX's one request took 4 in all.
#[test]
fn a_load_the_sass_splits_is_counted_as_its_pieces_with_the_ptx_figures_beside() {
    use crate::analysis::sass_map::Reshape;
    use crate::model::access::Piece;
    let sites = [site(0, Space::Shared, 16)];
    let records: [Record; 3] = std::array::from_fn(|_| rec(0, Space::Shared, u32::MAX, 16, 16));
    let shapes = [Reshape {
        id: 0,
        pieces: vec![
            Piece {
                offset: 0,
                width: 4,
            },
            Piece {
                offset: 8,
                width: 4,
            },
        ],
        note: "split".into(),
        atomic: None,
    }];
    let plain = analyze(&records, &sites);
    assert_eq!((plain.shared.requests, plain.shared.wavefronts), (3, 12));
    let m = analyze_shaped(&records, &sites, &shapes);
    assert_eq!(
        (
            m.shared.requests,
            m.shared.wavefronts,
            m.shared.ideal_wavefronts
        ),
        (6, 24, 6)
    );
    let i = &m.instructions[0];
    let sass = i.sass.as_ref().expect("the shape is said");
    assert_eq!(
        (
            sass.ptx_requests,
            sass.ptx_wavefronts,
            sass.ptx_ideal_wavefronts
        ),
        (3, 12, 12)
    );
    assert_eq!(sass.note, "split");
    assert_eq!(
        i.lanes,
        3 * 32,
        "lanes are the PTX requests' lanes, not the pieces'"
    );
    // The heatmap shows the banks the SASS hit: words 0 and 2 of each element.
    let hit: Vec<usize> = (0..BANKS).filter(|&b| i.bank_words[b] > 0).collect();
    assert_eq!(hit.len(), 16, "{:?}", i.bank_words);
    assert!(plain.instructions[0].sass.is_none());
}

/// Every request's figures summed one by one, with no pattern kept.
fn direct(records: &[Record]) -> (u64, u64, [u64; BANKS], u64, u64, u64) {
    let (mut w, mut ideal, mut banks) = (0, 0, [0u64; BANKS]);
    let (mut sectors, mut lines, mut bytes) = (0, 0, 0);
    for r in records {
        if r.space == Space::Shared {
            let (a, b) = banks::shared_totals(r.mask, r.width, &r.addrs, &mut banks);
            w += u64::from(a);
            ideal += u64::from(b);
        } else {
            let g = coalescing::global_request(r.mask, r.width, &r.addrs);
            sectors += u64::from(g.sectors);
            lines += u64::from(g.lines);
            bytes += u64::from(g.bytes_used);
        }
    }
    (w, ideal, banks, sectors, lines, bytes)
}

#[test]
fn repeated_patterns_at_moved_bases_cost_what_each_request_costs() {
    // Lane patterns that repeat at bases moved by whole lines, by part of a line, with lanes
    // off, and more patterns than a site keeps, interleaved.
    let sites = [site(0, Space::Shared, 8), site(1, Space::Global, 8)];
    let mut records = Vec::new();
    let mut seed = 7u64;
    for k in 0..400u64 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let stride = [4, 8, 12, 36, 128, 0, 260, 16, 20, 44][(seed >> 33) as usize % 10];
        let shift = [0, 128, 256, 32, 4, 1024, 96][(seed >> 40) as usize % 7];
        let mask = [u32::MAX, 0xFFFF, 0x5555_5555, 1][(seed >> 50) as usize % 4];
        let width = [4, 8][(seed >> 60) as usize % 2];
        for (site, space) in [(0, Space::Shared), (1, Space::Global)] {
            let mut r = rec(site, space, mask, width, stride);
            r.addrs = r
                .addrs
                .map(|a| a / width as u64 * width as u64 + shift * (k % 5));
            records.push(r);
        }
    }
    let m = analyze(&records, &sites);
    let (w, ideal, bank_words, sectors, lines, bytes) = direct(&records);
    assert_eq!((m.shared.wavefronts, m.shared.ideal_wavefronts), (w, ideal));
    assert_eq!(
        (m.global.sectors, m.global.lines, m.global.bytes_used),
        (sectors, lines, bytes)
    );
    assert_eq!(m.instructions[0].bank_words, bank_words.to_vec());
}

fn atomic_site(id: u32, space: Space, kind: AccessKind) -> Site {
    Site {
        event: Event::Access { space, kind },
        op: "atom.test.add.u32".into(),
        ..site(id, space, 4)
    }
}

/// Atomics are counted apart from loads and stores, as the SASS makes them: a shared
/// float add's compare-and-swap loop (its loads with the shared loads), a warp-aggregated
/// global reduction one lane a warp; and a streamed trace says the same.
#[test]
fn atomics_are_counted_apart_as_the_sass_makes_them() {
    use crate::analysis::atomics::{AtomicSass, SameWord};
    use crate::analysis::sass_map::Reshape;
    use crate::model::access::AtomShape;
    let sites = [
        atomic_site(0, Space::Shared, AccessKind::Atomic),
        atomic_site(1, Space::Global, AccessKind::Atomic),
        site(2, Space::Global, 4),
    ];
    let shape = |id, shape, kind, opcode: &str| Reshape {
        id,
        pieces: Vec::new(),
        note: format!("made as {opcode}"),
        atomic: Some(AtomicSass {
            shape,
            kind,
            opcode: opcode.into(),
            same_word: SameWord::of(opcode),
        }),
    };
    let shapes = [
        shape(0, AtomShape::CasLoop, AccessKind::Atomic, "ATOMS.CAST.SPIN"),
        shape(
            1,
            AtomShape::WarpAggregated,
            AccessKind::Reduction,
            "REDG.E.ADD",
        ),
    ];
    // Shared: lanes two a word (2 rounds); global: the whole warp on one word; a load.
    let mut pairs = rec(0, Space::Shared, u32::MAX, 4, 0);
    pairs.addrs = std::array::from_fn(|l| 4 * (l as u64 / 2));
    let records = [
        pairs.clone(),
        rec(1, Space::Global, u32::MAX, 4, 0),
        rec(2, Space::Global, u32::MAX, 4, 4),
        pairs,
        rec(1, Space::Global, 0xFFFF, 4, 0),
    ];
    let m = analyze_shaped(&records, &sites, &shapes);
    let s = &m.instructions[0];
    let a = s.atomic.as_ref().unwrap();
    assert_eq!(
        (s.kind, s.requests, s.wavefronts),
        (AccessKind::Atomic, 4, 6)
    );
    assert_eq!(
        (
            a.shape,
            a.ptx_requests,
            a.loop_loads,
            a.loop_load_wavefronts
        ),
        (AtomShape::CasLoop, 2, 4, 4)
    );
    assert_eq!((a.lanes, a.addresses), (96, 64));
    assert!(s.sass.as_ref().unwrap().note.contains("ATOMS.CAST.SPIN"));
    let g = &m.instructions[1];
    let ga = g.atomic.as_ref().unwrap();
    assert_eq!(
        (g.kind, g.requests, g.sectors),
        (AccessKind::Reduction, 2, 2)
    );
    assert_eq!((ga.ptx_lanes, ga.lanes, ga.addresses), (48, 2, 2));
    // The heatmap draws the leader alone.
    assert_eq!(g.sample.as_ref().unwrap().mask, 1 << 31);
    // Totals: atomics apart; the loop's loads are shared loads; the load is the only
    // global request.
    assert_eq!(
        (m.atomics.shared.requests, m.atomics.shared.wavefronts),
        (4, 6)
    );
    assert_eq!(
        (
            m.atomics.global_red.requests,
            m.atomics.global_atom.requests
        ),
        (2, 0)
    );
    assert_eq!((m.atomics.updates, m.atomics.addresses), (98, 66));
    assert_eq!((m.shared.requests, m.shared.wavefronts), (4, 4));
    assert_eq!((m.global.requests, m.global.sectors), (1, 4));
    // The same records one at a time, as the interpreter hands them over.
    let mut streamed =
        crate::trace::stream::Streamed::new(&sites, 1 << 20, 1).shaped(shapes.to_vec());
    records.iter().for_each(|r| streamed.push(r));
    assert_eq!(streamed.finish(), m);
    // Without the SASS: as the PTX has them, every lane.
    let plain = analyze(&records, &sites);
    let p = &plain.instructions[1];
    assert_eq!(
        (p.kind, p.requests, p.atomic.as_ref().unwrap().lanes),
        (AccessKind::Atomic, 2, 48)
    );
    assert_eq!(plain.atomics.global_atom.requests, 2);
}

#[test]
fn timed_shared_loads_count_the_distinct_words_they_read_each_block_apart() {
    // Site 0 is a shared load on a timed line, site 1 one outside the timed lines.
    let mut timed = site(0, Space::Shared, 4);
    timed.timed = true;
    let sites = [timed, site(1, Space::Shared, 4)];
    let at = |site, block, stride| Record {
        block,
        ..rec(site, Space::Shared, u32::MAX, 4, stride)
    };
    let records = [
        // 32 words, then the same 32 again: 32 distinct in block 0.
        at(0, 0, 4),
        at(0, 0, 4),
        // Every lane on the first of those words (a broadcast): nothing more.
        at(0, 0, 0),
        // The same 32 words in block 1 are block 1's own.
        at(0, 1, 4),
        // Not timed: not counted.
        at(1, 0, 8),
    ];
    let m = analyze(&records, &sites);
    assert_eq!(m.timed_shared_words, 32 + 32);
    // Four of the five shared load requests are on the timed line.
    assert_eq!(
        (m.timed_shared_load_requests, m.shared_load_requests),
        (4, 5)
    );
    let none: Vec<Site> = sites
        .iter()
        .cloned()
        .map(|s| Site { timed: false, ..s })
        .collect();
    assert_eq!(analyze(&records, &none).timed_shared_words, 0);
    assert_eq!(analyze(&records, &none).timed_shared_load_requests, 0);
}

#[test]
fn the_blocks_that_reach_another_block_are_counted_once_each() {
    let sites = [site(0, Space::Cluster, 4), site(1, Space::Cluster, 4)];
    // Block `block` (rank `rank` of its cluster) reading 32 words of rank `target`.
    let at = |site, block, rank, target: u64| Record {
        block,
        rank,
        addrs: std::array::from_fn(|l| target << 32 | (4 * l as u64)),
        ..rec(site, Space::Cluster, u32::MAX, 4, 0)
    };
    let records = [
        // Block 0 reaches rank 1 at two sites: one block.
        at(0, 0, 0, 1),
        at(1, 0, 0, 1),
        // Block 1 reads its own memory through the cluster: not remote.
        at(0, 1, 1, 1),
        // Block 2 reaches rank 1.
        at(1, 2, 0, 1),
    ];
    let m = analyze(&records, &sites);
    assert_eq!(m.cluster.remote_blocks, 2);
    assert_eq!(m.cluster.remote_requests, 3);
    assert_eq!((m.cluster.sectors, m.cluster.remote_sectors), (16, 12));
}

#[test]
fn timed_local_loads_count_each_threads_own_words() {
    // Local addresses are each thread's own window: the same offset in two lanes, two
    // warps or two blocks is two words.
    let mut timed = site(0, Space::Local, 4);
    timed.timed = true;
    let sites = [timed, site(1, Space::Local, 4)];
    let at = |site, block, warp, stride| Record {
        block,
        warp,
        ..rec(site, Space::Local, u32::MAX, 4, stride)
    };
    let records = [
        // Every lane at offset 0, then at offsets 0, 4, ...: lane 0's word again, and 31
        // words of the other lanes' at new offsets: 32 + 31.
        at(0, 0, 0, 0),
        at(0, 0, 0, 4),
        // Another warp and another block: their own 32 each.
        at(0, 0, 1, 0),
        at(0, 1, 0, 0),
        // Not timed.
        at(1, 0, 0, 8),
    ];
    let m = analyze(&records, &sites);
    assert_eq!(m.timed_local_words, 32 + 31 + 32 + 32);
    assert_eq!(m.timed_shared_words, 0);
    // Four of the five local load requests are on the timed line.
    assert_eq!((m.timed_local_load_requests, m.local_load_requests), (4, 5));
    // A 16-byte load reads four words a lane: lanes 16 bytes apart cover 128.
    let mut wide = site(0, Space::Local, 16);
    wide.timed = true;
    let v4 = [rec(0, Space::Local, u32::MAX, 16, 16)];
    assert_eq!(analyze(&v4, &[wide]).timed_local_words, 4 * 32);
}

#[test]
fn the_sites_on_the_lines_between_clock_reads_are_marked_timed() {
    let source = "extern \"C\" __global__ void k(unsigned* p) {\n\
                  long long t0 = clock64();\n\
                  unsigned x = p[0];\n\
                  long long t1 = clock64();\n\
                  p[1] = x + (unsigned)(t1 - t0);\n}\n";
    let mut sites: Vec<Site> = (0..3).map(|i| site(i, Space::Shared, 4)).collect();
    (
        sites[0].source_line,
        sites[1].source_line,
        sites[2].source_line,
    ) = (Some(2), Some(3), Some(5));
    crate::trace::instrument::mark_timed(&mut sites, source, "");
    let timed: Vec<bool> = sites.iter().map(|s| s.timed).collect();
    assert_eq!(timed, [false, true, false]);
    // A helper's load (its own line 7, past the kernel) inlined at the timed line 3 is
    // timed; the same load inlined at line 5 is not.
    let mut inlined: Vec<Site> = (0..2).map(|i| site(i, Space::Shared, 4)).collect();
    (inlined[0].source_line, inlined[0].called_at) = (Some(7), vec![3]);
    (inlined[1].source_line, inlined[1].called_at) = (Some(7), vec![5]);
    crate::trace::instrument::mark_timed(&mut inlined, source, "");
    assert_eq!(
        inlined.iter().map(|s| s.timed).collect::<Vec<_>>(),
        [true, false]
    );
}

#[test]
fn shared_requests_in_the_kib_the_gpu_keeps_are_counted() {
    let sites = [site(0, Space::Shared, 4)];
    // `rec` starts at offset 1024, the first a kernel's shared memory has: none.
    let own = [rec(0, Space::Shared, u32::MAX, 4, 4)];
    assert_eq!(analyze(&own, &sites).shared_reserved_requests, 0);
    // Lane 0 at offset 1020, in the KiB before it: one request.
    let mut below = rec(0, Space::Shared, u32::MAX, 4, 4);
    below.addrs[0] = 1020;
    assert_eq!(analyze(&[below], &sites).shared_reserved_requests, 1);
}

#[test]
fn calls_are_those_of_the_function_called_most() {
    let call = |id: u32, callee: &str| Site {
        event: Event::Call,
        callee: callee.into(),
        ..site(id, Space::Global, 0)
    };
    let sites = [
        call(0, "_Z4stirj"),
        call(1, "_Z4tickv"),
        call(2, "_Z4stirj"),
    ];
    // stir called by 32 + 16 lanes over two sites, tick by 32 + 32 + 32 at one.
    let records = [
        rec(0, Space::Global, u32::MAX, 0, 0),
        rec(2, Space::Global, 0xFFFF, 0, 0),
        rec(1, Space::Global, u32::MAX, 0, 0),
        rec(1, Space::Global, u32::MAX, 0, 0),
        rec(1, Space::Global, u32::MAX, 0, 0),
    ];
    let mut calls = Calls::default();
    for r in &records {
        calls.push(r, &sites[r.site as usize]);
    }
    assert_eq!(calls.most(), 96);
    // An access is no call.
    calls.push(
        &rec(0, Space::Global, u32::MAX, 4, 4),
        &site(0, Space::Global, 4),
    );
    assert_eq!(calls.most(), 96);
    assert_eq!(Calls::default().most(), 0);
}
