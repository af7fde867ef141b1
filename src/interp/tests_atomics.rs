//! Atomics logged as the GPU tracer logs them, and the warp-wide instructions a
//! warp-aggregated atomic is written with (`match.any.sync`, `bfind`).

use super::{run_full, store_r9};
use crate::model::access::Space;

#[test]
fn lanes_holding_one_value_find_each_other_and_their_leader() {
    // Value lane % 5: peers are the lanes of the same residue; r9 = bfind(peers) (the
    // highest peer) + 100 × bfind.shiftamt(peers).
    let body = store_r9(
        "rem.u32 %r5, %r1, 5;\nactivemask.b32 %r6;\nmatch.any.sync.b32 %r7, %r5, %r6;\n\
         bfind.u32 %r8, %r7;\nbfind.shiftamt.u32 %r10, %r7;\nmad.lo.u32 %r9, %r10, 100, %r8;",
    );
    let (out, _, _) = run_full("", &body, 1, 32, 32).unwrap();
    for (lane, &got) in out.iter().enumerate() {
        let highest = (0..32u32)
            .filter(|l| l % 5 == lane as u32 % 5)
            .max()
            .unwrap();
        assert_eq!(got, highest + 100 * (31 - highest), "lane {lane}");
    }
    // Nothing found: all ones; a negative signed value: its highest zero bit.
    let body = store_r9(
        "mov.u32 %r5, 0;\nbfind.u32 %r6, %r5;\nmov.u32 %r7, -9;\nbfind.s32 %r8, %r7;\n\
         add.u32 %r9, %r6, %r8;",
    );
    let (out, _, _) = run_full("", &body, 1, 1, 1).unwrap();
    // -9 = ...11110111: the most significant bit unlike the sign is bit 3.
    assert_eq!(out[0], u32::MAX.wrapping_add(3));
}

#[test]
fn a_membermask_without_every_running_lane_is_refused() {
    let body = store_r9("mov.u32 %r6, 1;\nmatch.any.sync.b32 %r9, %r1, %r6;");
    let e = run_full("", &body, 1, 32, 32).unwrap_err();
    assert!(e.why.contains("bad membermask"), "{}", e.why);
}

/// Each warp request of an atomic is one record, before it acts: the lanes that took
/// part and the address each updates, in the space it resolved to.
#[test]
fn atomics_log_each_lanes_address_and_update_once_per_lane() {
    let pre = ".shared .align 4 .b32 bins[8];";
    // Lane l adds 1 to bins[l % 8] (shared), then to out[l % 4] through a generic address
    // (global); r9 = the shared bin after a barrier.
    let body = "ld.param.u64 %rd1, [k_out];\nmov.u32 %r1, %tid.x;\n\
        setp.lt.u32 %p1, %r1, 8;\n@%p1 st.shared.u32 [bins+0], 0;\n\
        and.b32 %r2, %r1, 7;\nshl.b32 %r3, %r2, 2;\nmov.u32 %r4, bins;\nadd.u32 %r5, %r4, %r3;\n\
        bar.sync 0;\nred.shared.add.u32 [%r5], 1;\nbar.sync 0;\nld.shared.u32 %r9, [%r5];\n\
        and.b32 %r6, %r1, 3;\nmul.wide.u32 %rd2, %r6, 4;\nadd.s64 %rd3, %rd1, %rd2;\n\
        setp.eq.u32 %p2, %r1, 0;\n@!%p2 bra SKIP;\nst.global.u32 [%rd1+0], 0;\nst.global.u32 [%rd1+4], 0;\n\
        st.global.u32 [%rd1+8], 0;\nst.global.u32 [%rd1+12], 0;\nSKIP:\nbar.sync 0;\n\
        atom.add.u32 %r7, [%rd3], 1;\nret;";
    let (out, k, r) = run_full(pre, body, 1, 64, 64).unwrap();
    // 64 lanes, four to a word.
    assert_eq!(&out[..4], &[16, 16, 16, 16]);
    let of = |op: &str| -> Vec<_> {
        r.iter()
            .filter(|x| k.sites[x.site as usize].op == op)
            .collect()
    };
    let red = of("red.shared.add.u32");
    assert_eq!(red.len(), 2, "one request per warp");
    assert!(
        red.iter()
            .all(|x| x.space == Space::Shared && x.mask == u32::MAX)
    );
    assert_eq!(
        red[0].addrs[9] - red[0].addrs[1],
        0,
        "lanes 1 and 9 share bins[1]"
    );
    assert_eq!(red[0].addrs[3] - red[0].addrs[2], 4);
    let generic = of("atom.add.u32");
    assert_eq!(generic.len(), 2);
    assert!(
        generic
            .iter()
            .all(|x| x.space == Space::Global && x.width == 4)
    );
    assert_eq!(
        generic[1].addrs[5], generic[1].addrs[1],
        "both update out[1]"
    );
}

#[test]
fn a_misaligned_atomic_faults_before_it_is_logged_or_acts() {
    let body = "ld.param.u64 %rd1, [k_out];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 2;\n\
        add.s64 %rd3, %rd1, %rd2;\natom.global.add.u32 %r5, [%rd3], 1;\nret;";
    let e = run_full("", body, 1, 32, 32).unwrap_err();
    assert!(e.why.contains("misaligned"), "{}", e.why);
    assert_eq!(e.lanes, 1 << 1, "lane 1 is the first at an odd word");
}

/// Under `Launch::cas_interference` a thread's first compare-and-swap on a word another
/// thread has updated fails where it would succeed: a swap made once drops its update, a
/// loop that retries with the value returned makes it, and the first thread's swap (a
/// claim made alone) is never failed. 64 blocks of one thread each add 1 to out[0] with a
/// swap.
#[test]
fn a_swap_made_once_loses_its_update_when_the_first_swap_on_a_word_fails() {
    let once = "ld.global.u32 %r5, [%rd1];\nadd.u32 %r6, %r5, 1;\n\
                atom.global.cas.b32 %r7, [%rd1], %r5, %r6;";
    let retried = "ld.global.u32 %r5, [%rd1];\nAGAIN:\nadd.u32 %r6, %r5, 1;\n\
                   atom.global.cas.b32 %r7, [%rd1], %r5, %r6;\n\
                   setp.ne.u32 %p1, %r7, %r5;\nmov.u32 %r5, %r7;\n@%p1 bra AGAIN;";
    let count = |body: &str, fails: bool| {
        let body =
            format!("ld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd1, %rd1;\n{body}\nret;");
        let how = (false, None, false);
        let ran = super::run_launched("", &body, [64, 1, 1], 1, how, |l| {
            l.cas_interference = fails.then(Default::default);
        });
        // out[0] starts as the bytes 0xee.
        ran.unwrap().0[0].wrapping_sub(0xeeee_eeee)
    };
    // One warp after another, a swap made once never meets another thread's update here.
    assert_eq!(count(once, false), 64);
    assert_eq!(count(once, true), 1);
    assert_eq!(count(retried, false), 64);
    assert_eq!(count(retried, true), 64);
}

/// An update a barrier ordered before a swap cannot land between its read and the swap: a
/// word handed over at a barrier (thread 63 sets it, thread 0 swaps it after) is swapped
/// under `Launch::cas_interference` as on a GPU; another thread's update after the barrier
/// (thread 5's) may land between, and the swap fails.
#[test]
fn a_swap_after_a_barrier_that_ordered_the_other_threads_update_is_not_failed() {
    let run = |middle: &str| {
        let body = format!(
            "ld.param.u64 %rd1, [k_out];\ncvta.to.global.u64 %rd1, %rd1;\n\
             mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 63;\nsetp.eq.u32 %p2, %r1, 0;\n\
             setp.eq.u32 %p3, %r1, 5;\n@%p1 atom.global.exch.b32 %r5, [%rd1], 1;\n\
             bar.sync 0;\n{middle}\n@%p2 atom.global.cas.b32 %r6, [%rd1], 1, 2;\nret;"
        );
        let how = (false, None, false);
        let ran = super::run_launched("", &body, [1, 64, 1], 1, how, |l| {
            l.cas_interference = Some(Default::default());
        });
        ran.unwrap().0[0]
    };
    assert_eq!(run(""), 2);
    assert_eq!(run("@%p3 atom.global.exch.b32 %r7, [%rd1], 1;"), 1);
}
