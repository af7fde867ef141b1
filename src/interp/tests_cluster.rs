//! Clusters: a cluster's blocks run together, each with its own shared memory, read by the
//! others through `mapa` and `ld.shared::cluster`, meeting at `barrier.cluster`.

use super::run_with;
use crate::model::access::Space;

/// Each thread puts 100 * rank + tid in its block's tile, the cluster meets, and each reads
/// the neighbour block's word of its own index (out[4 * block + tid]); then the cluster
/// meets again, so no block ends while another may read its memory.
fn neighbour(meet_first: bool) -> String {
    let meet = "barrier.cluster.arrive;\nbarrier.cluster.wait;\n";
    format!(
        "ld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd1, %rd1;\n\
         mov.u32 %r1, %tid.x;\nmov.u32 %r2, %cluster_ctarank;\nmov.u32 %r3, %ctaid.x;\n\
         mov.u32 %r4, tile;\nshl.b32 %r5, %r1, 2;\nadd.s32 %r6, %r4, %r5;\n\
         mad.lo.s32 %r7, %r2, 100, %r1;\nst.shared.u32 [%r6], %r7;\n{}\
         xor.b32 %r8, %r2, 1;\nmapa.shared::cluster.u32 %r9, %r6, %r8;\n\
         ld.shared::cluster.u32 %r10, [%r9];\n\
         shl.b32 %r11, %r3, 2;\nadd.s32 %r12, %r11, %r1;\nmul.wide.u32 %rd2, %r12, 4;\n\
         add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r10;\n{meet}ret;",
        if meet_first { meet } else { "" }
    )
}

const TILE: &str = ".shared .align 4 .b8 tile[16];";

#[test]
fn a_block_reads_its_neighbours_shared_memory_through_the_cluster() {
    let (out, _, records, _) = run_with(TILE, &neighbour(true), [4, 4, 2], 16, false).unwrap();
    // Block b (rank b % 2) reads what its neighbour (rank b % 2 ^ 1) wrote.
    let want: Vec<u32> = (0..16).map(|i| ((i / 4 % 2) ^ 1) * 100 + i % 4).collect();
    assert_eq!(out, want);
    // The cluster read is logged as the GPU's logger logs it: the target's rank << 32 |
    // the offset, by the reading block's rank.
    let reads: Vec<_> = records
        .iter()
        .filter(|r| r.space == Space::Cluster)
        .collect();
    assert_eq!(reads.len(), 4, "one request per block");
    for r in reads {
        let target = ((r.block % 2) ^ 1) as u64;
        assert_eq!(r.rank, r.block % 2);
        assert_eq!(r.addrs[1], target << 32 | (1024 + 4));
    }
    // A trace-only run keeps the barriers and the addresses: the same records.
    let (_, _, sliced, _) = run_with(TILE, &neighbour(true), [4, 4, 2], 16, true).unwrap();
    assert_eq!(sliced, records);
}

#[test]
fn both_halves_of_a_cluster_barrier_are_logged_as_barriers_as_on_the_gpu() {
    // The GPU tracer logs `barrier.cluster.arrive` and `.wait` as block barriers, and the
    // race analysis orders shared accesses by them: without them here, a write before the
    // meeting and a read after it were called a race the GPU's trace does not show.
    let (_, k, records, _) = run_with(TILE, &neighbour(true), [4, 4, 2], 16, false).unwrap();
    let barriers = (records.iter())
        .filter(|r| k.sites[r.site as usize].is_barrier())
        .count();
    // Two meetings of two halves, by the one warp of each of four blocks.
    assert_eq!(barriers, 2 * 2 * 4);
}

#[test]
fn a_cluster_barrier_waits_for_the_other_blocks() {
    // Without the first meeting the neighbour's word may not be written yet: here a block's
    // warps run before the other's, so block 0 reads rank 1's tile still unwritten, which
    // holds the poison the interpreter fills shared memory with, as a GPU holds leftovers.
    let (out, ..) = run_with(TILE, &neighbour(false), [2, 4, 2], 8, false).unwrap();
    let poison = u32::from_ne_bytes([crate::interp::schedule::POISON; 4]);
    assert_eq!(&out[..4], &[poison; 4]);
    assert_eq!(&out[4..], &[0, 1, 2, 3]);
}

#[test]
fn a_block_that_skips_the_cluster_barrier_is_a_deadlock_with_its_place() {
    // Rank 1 returns at once: rank 0 waits for it forever.
    let body = "mov.u32 %r2, %cluster_ctarank;\nsetp.ne.u32 %p1, %r2, 0;\n@%p1 bra $L_end;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\nbarrier.cluster.arrive;\n\
                barrier.cluster.wait;\n$L_end:\nret;";
    // Rank 1's warp has ended, so it no longer counts: rank 0 goes through.
    assert!(run_with("", body, [2, 32, 2], 8, false).is_ok());
    // A block's first warp at `bar.sync` while its second waits at the cluster's barrier:
    // each waits for the other.
    let body = "mov.u32 %r2, %tid.x;\nsetp.ge.u32 %p1, %r2, 32;\n@%p1 bra $L_other;\n\
                bar.sync 0;\nret;\n\
                $L_other:\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\nbar.sync 0;\nret;";
    let e = run_with("", body, [2, 64, 2], 8, false).unwrap_err();
    assert!(e.why.contains("deadlock"), "{e}");
    // And in a trace-only run, which keeps every barrier.
    let e = run_with("", body, [2, 64, 2], 8, true).unwrap_err();
    assert!(e.why.contains("deadlock"), "{e}");
}

#[test]
fn bar_red_gives_every_thread_the_blocks_count_and_verdicts() {
    // __syncthreads_count(tid < 40), and _and / _or of the same, in blocks of 64.
    let body = super::store_r9(
        "setp.lt.u32 %p1, %r1, 40;\nbar.red.popc.u32 %r9, 0, %p1;\n\
         bar.red.and.pred %p2, 0, %p1;\nbar.red.or.pred %p3, 0, !%p1;\n\
         selp.u32 %r5, 1000, 0, %p2;\nadd.s32 %r9, %r9, %r5;\n\
         selp.u32 %r6, 100, 0, %p3;\nadd.s32 %r9, %r9, %r6;",
    );
    let (out, ..) = run_with("", &body, [2, 64, 1], 128, false).unwrap();
    // 40 lanes hold; not all do (no 1000); some fail, so the `or` of the negation holds.
    assert!(out.iter().all(|&v| v == 140), "{out:?}");
    // A block where every thread holds: all, and no negation.
    let all = body.replace("setp.lt.u32 %p1, %r1, 40", "setp.lt.u32 %p1, %r1, 64");
    let (out, ..) = run_with("", &all, [1, 64, 1], 64, false).unwrap();
    assert!(out.iter().all(|&v| v == 1064), "{out:?}");
}

#[test]
fn a_shared_or_local_access_past_its_end_is_still_an_error_with_its_lane() {
    // The block's shared memory is the 16-byte tile, bytes 1024..1040: lane 0 of the first
    // load reads the word before it, in the KiB the GPU keeps for itself, and lane 4 of the
    // second the word past it. The fast in-place path declines, the general one names the
    // lane.
    let body = super::store_r9(
        "mov.u32 %r5, tile;\nshl.b32 %r6, %r1, 2;\nadd.s32 %r7, %r5, %r6;\n\
         setp.lt.u32 %p1, %r1, 6;\n@%p1 ld.shared.u32 %r9, [%r7+-4];",
    );
    let e = run_with(TILE, &body, [1, 32, 1], 32, false).unwrap_err();
    assert!(e.why.contains("out-of-bounds shared access: lane 0"), "{e}");
    assert!(e.why.contains("the GPU keeps for itself"), "{e}");
    let body = super::store_r9(
        "mov.u32 %r5, tile;\nshl.b32 %r6, %r1, 2;\nadd.s32 %r7, %r5, %r6;\n\
         setp.lt.u32 %p1, %r1, 6;\n@%p1 ld.shared.u32 %r9, [%r7];",
    );
    let e = run_with(TILE, &body, [1, 32, 1], 32, false).unwrap_err();
    assert!(e.why.contains("out-of-bounds shared access: lane 4"), "{e}");
}

#[test]
fn atomics_on_another_blocks_shared_memory_add_up_across_the_cluster() {
    // Rank 0's first thread zeroes its word and the cluster meets; every thread of both
    // blocks adds 1 (atom, then red) to rank 0's first word; after the cluster meets again,
    // each thread writes its own block's word: 2 x 8 adds on rank 0, none on rank 1, whose
    // word holds the poison it started with. The atoms' old values go to out[16..].
    let body = "ld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd1, %rd1;\n\
                mov.u32 %r1, %tid.x;\nmov.u32 %r3, %ctaid.x;\nmov.u32 %r4, tile;\n\
                mov.u32 %r2, %cluster_ctarank;\nor.b32 %r5, %r1, %r2;\n\
                setp.eq.u32 %p1, %r5, 0;\n@%p1 st.shared.u32 [%r4], 0;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                mapa.shared::cluster.u32 %r9, %r4, 0;\n\
                atom.relaxed.cluster.shared::cluster.add.u32 %r10, [%r9], 1;\n\
                red.shared::cluster.add.u32 [%r9], 1;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\n\
                ld.shared.u32 %r11, [%r4];\n\
                shl.b32 %r12, %r3, 2;\nadd.s32 %r12, %r12, %r1;\nmul.wide.u32 %rd2, %r12, 4;\n\
                add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r11;\n\
                add.s64 %rd4, %rd3, 64;\nst.global.u32 [%rd4], %r10;\n\
                barrier.cluster.arrive;\nbarrier.cluster.wait;\nret;";
    let (out, ..) = run_with(TILE, body, [4, 4, 2], 32, false).unwrap();
    let poison = u32::from_ne_bytes([crate::interp::schedule::POISON; 4]);
    for b in 0..4 {
        let want = if b % 2 == 0 { 16 } else { poison };
        assert_eq!(&out[b * 4..b * 4 + 4], &[want; 4], "block {b}: {out:?}");
    }
    // Per cluster, each of the 8 atoms saw a count no other did: one at a time.
    for c in 0..2 {
        let mut old: Vec<u32> = out[16 + c * 8..16 + c * 8 + 8].to_vec();
        old.sort();
        assert_eq!(old.len(), 8);
        assert!(old.windows(2).all(|w| w[0] < w[1]), "{old:?}");
    }
}
