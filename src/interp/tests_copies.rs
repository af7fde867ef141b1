//! Asynchronous copies (`cp.async`): done at the wait that covers their group, zero-filled
//! past the source size, logged as the GPU tracer logs them, and ordered by the race
//! analysis from their issue to their wait and the barrier after it.

use super::{run_full, store_r9};
use crate::model::access::{AccessKind, Space};
use crate::trace::analyze::analyze;

/// A shared tile of 64 words, its word `tid` set to 7 first; `%r5` holds the tile's
/// address of word `tid`, `%rd5` the address of `in[tid]`.
const TILE: &str = ".shared .align 16 .b8 tile[512];";
fn tile_body(rest: &str) -> String {
    store_r9(&format!(
        "ld.param.u64 %rd4, [k_in];\nmul.wide.u32 %rd6, %r4, 4;\nadd.s64 %rd5, %rd4, %rd6;\n\
         mov.u32 %r6, tile;\nshl.b32 %r7, %r1, 2;\nadd.u32 %r5, %r6, %r7;\n\
         st.shared.u32 [%r5], 7;\n{rest}"
    ))
}

#[test]
fn a_copy_lands_at_its_wait_and_a_read_before_it_sees_the_old_word() {
    // r8 = the word read before the wait, r10 = after: r9 = r8 + 1000 × r10.
    let body = tile_body(
        "cp.async.ca.shared.global [%r5], [%rd5], 4;\ncp.async.commit_group;\n\
         ld.shared.u32 %r8, [%r5];\ncp.async.wait_group 0;\nld.shared.u32 %r10, [%r5];\n\
         mad.lo.u32 %r9, %r10, 1000, %r8;",
    );
    let (out, _, _) = run_full(TILE, &body, 1, 64, 64).unwrap();
    for (t, &got) in out.iter().enumerate() {
        assert_eq!(got, 7 + 1000 * t as u32, "thread {t}");
    }
}

#[test]
fn wait_group_leaves_the_newest_groups_pending_and_wait_all_does_the_rest() {
    // Group 1 copies in[tid] to word tid, group 2 in[tid + 64] to word tid + 64.
    // r8 = word tid + 64 after `wait_group 1` (still 7, its group is the newest), r10 = word
    // tid after it (done), r11 = word tid + 64 after `wait_all`.
    let body = tile_body(
        "st.shared.u32 [%r5+256], 7;\nadd.s64 %rd7, %rd5, 256;\n\
         cp.async.ca.shared.global [%r5], [%rd5], 4;\ncp.async.commit_group;\n\
         cp.async.ca.shared.global [%r5+256], [%rd7], 4;\ncp.async.commit_group;\n\
         cp.async.wait_group 1;\nld.shared.u32 %r8, [%r5+256];\nld.shared.u32 %r10, [%r5];\n\
         cp.async.wait_all;\nld.shared.u32 %r11, [%r5+256];\n\
         mad.lo.u32 %r12, %r10, 1000, %r8;\nmad.lo.u32 %r9, %r11, 1000000, %r12;",
    );
    let (out, _, _) = run_full(TILE, &body, 1, 64, 128).unwrap();
    for (t, &got) in out.iter().take(64).enumerate() {
        let t = t as u32;
        assert_eq!(got, 7 + 1000 * t + 1_000_000 * (t + 64), "thread {t}");
    }
}

#[test]
fn bytes_past_the_source_size_are_zeros() {
    // Threads 0..16 copy 16 bytes each (in[4t..4t+4]) reading only 8 of them: words 4t and
    // 4t + 1 are copied, 4t + 2 and 4t + 3 zero. r9 = word tid of the tile afterwards.
    let body = tile_body(
        "bar.sync 0;\nsetp.lt.u32 %p1, %r1, 16;\nshl.b32 %r12, %r1, 4;\nadd.u32 %r13, %r6, %r12;\n\
         mul.wide.u32 %rd8, %r1, 16;\nadd.s64 %rd9, %rd4, %rd8;\n\
         @%p1 cp.async.cg.shared.global [%r13], [%rd9], 16, 8;\ncp.async.wait_all;\n\
         bar.sync 0;\nld.shared.u32 %r9, [%r5];",
    );
    let (out, _, _) = run_full(TILE, &body, 1, 64, 64).unwrap();
    for (t, &got) in out.iter().enumerate() {
        let want = if t % 4 < 2 { t as u32 } else { 0 };
        assert_eq!(got, want, "word {t}");
    }
}

#[test]
fn a_copy_logs_its_global_read_then_its_shared_write_and_its_group_events() {
    let body = tile_body(
        "cp.async.ca.shared.global [%r5], [%rd5], 4;\ncp.async.commit_group;\n\
         cp.async.wait_group 0;\nld.shared.u32 %r9, [%r5];",
    );
    let (_, k, r) = run_full(TILE, &body, 1, 64, 64).unwrap();
    let copy = (k.sites.iter())
        .position(|s| s.op == "cp.async.ca.shared.global")
        .expect("a copy site");
    let (read, write) = (&k.sites[copy], &k.sites[copy + 1]);
    assert_eq!(
        (read.space(), write.space()),
        (Some(Space::Global), Some(Space::Shared))
    );
    let of = |site: usize| -> Vec<_> { r.iter().filter(|x| x.site as usize == site).collect() };
    let (reads, writes) = (of(copy), of(copy + 1));
    assert_eq!(
        (reads.len(), writes.len()),
        (2, 2),
        "one record a warp each"
    );
    assert!(
        reads
            .iter()
            .all(|x| x.space == Space::Global && x.width == 4)
    );
    assert_eq!(reads[0].addrs[5] - reads[0].addrs[4], 4, "in[tid]");
    assert_eq!(
        writes[1].addrs[3] - writes[0].addrs[3],
        4 * 32,
        "warp 1 lane 3 writes word 35"
    );
    // The commit and the wait log an event each per warp, in the warp's order after the copy.
    let events: Vec<_> = (k.sites.iter())
        .filter(|s| s.is_event() && s.op.starts_with("cp.async"))
        .map(|s| of(s.id as usize).len())
        .collect();
    assert_eq!(events, [2, 2]);
    let w0: Vec<_> = r.iter().filter(|x| x.warp == 0).map(|x| x.site).collect();
    let at = w0.iter().position(|&s| s as usize == copy).unwrap();
    assert_eq!(w0[at + 1] as usize, copy + 1);
}

#[test]
fn a_lane_of_source_size_zero_reads_nothing_and_is_left_out_of_the_read_record() {
    // Even threads read their word, odd ones zero-fill it (source size 0); warp 1 names a
    // source size of 0 in every lane. r9 = word tid of the tile afterwards.
    let body = tile_body(
        "and.b32 %r12, %r1, 1;\nsetp.eq.u32 %p2, %r12, 0;\nselp.u32 %r13, 4, 0, %p2;\n\
         setp.ge.u32 %p3, %r1, 32;\n@%p3 mov.u32 %r13, 0;\n\
         cp.async.ca.shared.global [%r5], [%rd5], 4, %r13;\ncp.async.wait_all;\n\
         ld.shared.u32 %r9, [%r5];",
    );
    let (out, k, r) = run_full(TILE, &body, 1, 64, 64).unwrap();
    for (t, &got) in out.iter().enumerate() {
        let want = if t < 32 && t % 2 == 0 { t as u32 } else { 0 };
        assert_eq!(got, want, "word {t}");
    }
    let copy = (k.sites.iter())
        .position(|s| s.op == "cp.async.ca.shared.global")
        .expect("a copy site");
    let of = |site: usize| -> Vec<_> { r.iter().filter(|x| x.site as usize == site).collect() };
    let (reads, writes) = (of(copy), of(copy + 1));
    assert_eq!(reads.len(), 1, "warp 1 reads nothing: no record");
    assert_eq!(reads[0].mask, 0x5555_5555, "the even lanes of warp 0");
    assert_eq!(writes.len(), 2, "every lane writes its word");
    assert!(writes.iter().all(|w| w.mask == u32::MAX));
    // The copy in flight counts the bytes read: 16 lanes of 4 bytes.
    let m = analyze(&r, &k.sites);
    assert_eq!(m.copies.waits, 1);
}

#[test]
fn a_misaligned_copy_faults_before_it_is_logged() {
    let body = tile_body("add.u32 %r12, %r5, 4;\ncp.async.cg.shared.global [%r12], [%rd5], 16;");
    let e = run_full(TILE, &body, 1, 32, 32).unwrap_err();
    assert!(e.why.contains("misaligned"), "{}", e.why);
}

/// Warp 1 reads the word warp 0 copied (tid ^ 32), after `sync`.
fn swap_read(before: &str, after: &str) -> String {
    tile_body(&format!(
        "{before}xor.b32 %r14, %r1, 32;\nshl.b32 %r15, %r14, 2;\nadd.u32 %r16, %r6, %r15;\n\
         {after}ld.shared.u32 %r9, [%r16];"
    ))
}

#[test]
fn races_order_a_copy_by_its_wait_and_the_barrier_after_it() {
    let copy = "bar.sync 0;\ncp.async.ca.shared.global [%r5], [%rd5], 4;\ncp.async.commit_group;\n";
    let races = |body: &str| {
        let (out, k, r) = run_full(TILE, body, 1, 64, 64).unwrap();
        (out, analyze(&r, &k.sites).races)
    };
    // Waited for, then a barrier: no race, and the other warp's word arrives.
    let (out, ok) = races(&swap_read(copy, "cp.async.wait_group 0;\nbar.sync 0;\n"));
    assert!(ok.is_empty(), "{ok:?}");
    assert_eq!(out[3], 35);
    // No barrier after the wait: the other warp's read races with the copy.
    let (_, no_bar) = races(&swap_read(copy, "cp.async.wait_group 0;\n"));
    assert!(!no_bar.is_empty());
    // A barrier but no wait: the copy may land after it, so it still races, and the word read
    // is the old one.
    let (out, no_wait) = races(&swap_read(copy, "bar.sync 0;\n"));
    assert!(!no_wait.is_empty());
    assert_eq!(out[3], 7);
}

/// A barrier for the bulk copy, beside the tile.
const BULK: &str = ".shared .align 16 .b8 tile[512];\n.shared .align 8 .b64 bar;";

#[test]
fn a_bulk_copy_lands_when_a_wait_on_its_barrier_sees_the_phase_complete() {
    // Thread 0 makes the barrier (one arrival), all meet, thread 0 announces 256 bytes and
    // copies in[0..64] into the tile in one bulk copy; every thread reads its word before
    // waiting (r8: still 7) and after its parity-0 wait (r10). r9 = r8 + 1000 × r10.
    let body = tile_body(
        "mov.u32 %r20, bar;\nsetp.eq.u32 %p1, %r1, 0;\n\
         @%p1 mbarrier.init.shared::cta.b64 [%r20], 1;\nbar.sync 0;\n\
         @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd10, [%r20], 256;\n\
         @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd4], 256, [%r20];\n\
         ld.shared.u32 %r8, [%r5];\n\
         WAIT:\nmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r20], 0;\n@!%p2 bra WAIT;\n\
         ld.shared.u32 %r10, [%r5];\nmad.lo.u32 %r9, %r10, 1000, %r8;",
    );
    let (out, k, r) = run_full(BULK, &body, 1, 64, 64).unwrap();
    // Two records of the copy, the bytes it moves as their width: lane 0's source, then
    // its destination under its barrier's offset << 32.
    let bulk: Vec<_> = (r.iter())
        .filter(|x| k.sites[x.site as usize].kind() == Some(AccessKind::BulkCopy))
        .collect();
    assert_eq!(bulk.len(), 2);
    assert_eq!(
        (bulk[0].mask, bulk[0].width, bulk[0].space),
        (1, 256, Space::Global)
    );
    assert_eq!(
        (bulk[1].mask, bulk[1].width, bulk[1].space, bulk[1].site),
        (1, 256, Space::Shared, bulk[0].site + 1)
    );
    let bar = (r.iter())
        .find(|x| k.sites[x.site as usize].event == crate::trace::instrument::Event::MbarInit)
        .expect("the barrier's init is logged");
    let tile = r
        .iter()
        .find(|x| {
            x.space == Space::Shared
                && x.site != bulk[1].site
                && k.sites[x.site as usize].kind() == Some(AccessKind::Load)
        })
        .expect("a tile read");
    assert_eq!(bulk[1].addrs[0] >> 32, bar.addrs[0] & 0xffff_ffff);
    assert_eq!(bulk[1].addrs[0] & 0xffff_ffff, tile.addrs[0]);
    for (t, &got) in out.iter().enumerate() {
        let t = t as u32;
        assert_eq!(got / 1000, t, "thread {t} after its wait");
        // The issuing warp reads before any wait; warp 1 runs after warp 0's wait brought
        // the bytes, which a GPU may show it early too.
        let before = if t < 32 { vec![7] } else { vec![7, t] };
        assert!(before.contains(&(got % 1000)), "thread {t} before: {got}");
    }
    // A warp's first look after the copy was issued finds it in flight (a GPU's may: a
    // wait whose answer is not looked at orders nothing), its next the phase complete; the
    // phase that completed is 0: a wait on parity 1 is still waiting.
    let body = tile_body(
        "mov.u32 %r20, bar;\nsetp.eq.u32 %p1, %r1, 0;\n\
         @%p1 mbarrier.init.shared::cta.b64 [%r20], 1;\nbar.sync 0;\n\
         @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd10, [%r20], 256;\n\
         @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd4], 256, [%r20];\n\
         mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r20], 0;\n\
         mbarrier.test_wait.parity.shared::cta.b64 %p4, [%r20], 0;\n\
         mbarrier.test_wait.parity.shared::cta.b64 %p3, [%r20], 1;\n\
         selp.u32 %r8, 1, 0, %p2;\nselp.u32 %r10, 1, 0, %p3;\nmad.lo.u32 %r9, %r10, 10, %r8;\n\
         selp.u32 %r8, 1, 0, %p4;\nmad.lo.u32 %r9, %r8, 100, %r9;",
    );
    let (out, _, _) = run_full(BULK, &body, 1, 32, 64).unwrap();
    assert!(out[..32].iter().all(|&x| x == 100), "{out:?}");
}

#[test]
fn a_wait_on_an_arrivals_state_token_finds_the_phase_it_arrived_in_complete() {
    // Every thread arrives (the state token in %rd10) and waits on the token: with a
    // count of 32 the warp's arrivals complete the phase, and a second look still finds
    // it complete; with a count of 64 the one warp's arrivals leave it waiting.
    let body = |count: u32| {
        tile_body(&format!(
            "mov.u32 %r20, bar;\nsetp.eq.u32 %p1, %r1, 0;\n\
             @%p1 mbarrier.init.shared::cta.b64 [%r20], {count};\nbar.sync 0;\n\
             mbarrier.arrive.shared::cta.b64 %rd10, [%r20];\n\
             mbarrier.test_wait.shared::cta.b64 %p2, [%r20], %rd10;\n\
             mbarrier.try_wait.shared::cta.b64 %p3, [%r20], %rd10;\n\
             selp.u32 %r8, 1, 0, %p2;\nselp.u32 %r10, 1, 0, %p3;\nmad.lo.u32 %r9, %r10, 10, %r8;"
        ))
    };
    let (out, k, r) = run_full(BULK, &body(32), 1, 32, 32).unwrap();
    assert!(out.iter().all(|&x| x == 11), "{out:?}");
    let is_wait = |x: &&crate::trace::decode::Record| {
        matches!(
            k.sites[x.site as usize].event,
            crate::trace::instrument::Event::MbarWait { .. }
        )
    };
    // Logged as the GPU's logger logs a wait on a token: the barrier, no parity flagged.
    let waits: Vec<_> = r.iter().filter(is_wait).collect();
    assert_eq!(waits.len(), 2);
    assert!(
        waits
            .iter()
            .all(|w| w.addrs[0] & crate::model::access::MBAR_FLAG == 0)
    );
    let (out, _, r) = run_full(BULK, &body(64), 1, 32, 32).unwrap();
    assert!(out.iter().all(|&x| x == 0), "{out:?}");
    assert_eq!(r.iter().filter(is_wait).count(), 0);
}

#[test]
fn a_bulk_copy_of_a_size_not_a_multiple_of_16_faults() {
    let body = tile_body(
        "mov.u32 %r20, bar;\nmbarrier.init.shared::cta.b64 [%r20], 32;\n\
         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd4], 20, [%r20];",
    );
    let e = run_full(BULK, &body, 1, 32, 32).unwrap_err();
    assert!(e.why.contains("multiples of 16"), "{}", e.why);
}
