//! Named barriers with thread counts: `bar.sync a, b` waits at barrier `a` until `b`
//! threads have arrived, counting those that only `bar.arrive` (a producer that signals
//! and goes on).

use super::{run_with, store_r9};

const TILE: &str = ".shared .align 4 .b8 tile[128];";

/// Warp 0 waits at barrier 1 for 64 threads, then reads the tile; warp 1 fills the tile,
/// arrives at barrier 1 and goes on, writing 7.
fn producer_consumer(consumer_bar: &str) -> String {
    store_r9(&format!(
        "mov.u32 %r5, tile;\nsetp.lt.u32 %p1, %r1, 32;\n@%p1 bra $L_consumer;\n\
         sub.u32 %r6, %r1, 32;\nshl.b32 %r7, %r6, 2;\nadd.u32 %r8, %r5, %r7;\n\
         mul.lo.u32 %r10, %r1, 10;\nst.shared.u32 [%r8], %r10;\n\
         bar.arrive 1, 64;\nmov.u32 %r9, 7;\nbra $L_done;\n\
         $L_consumer:\n{consumer_bar}\n\
         shl.b32 %r7, %r1, 2;\nadd.u32 %r8, %r5, %r7;\nld.shared.u32 %r9, [%r8];\n\
         $L_done:"
    ))
}

#[test]
fn a_consumer_waits_for_the_producers_arrival_at_a_counted_barrier() {
    // The consumer is warp 0, so it runs first and must wait for warp 1's stores.
    let (out, ..) = run_with(
        TILE,
        &producer_consumer("bar.sync 1, 64;"),
        [2, 64, 1],
        128,
        false,
    )
    .unwrap();
    for b in 0..2 {
        let want: Vec<u32> = (0..32).map(|t| (32 + t) * 10).chain([7; 32]).collect();
        assert_eq!(&out[b * 64..b * 64 + 64], &want[..], "block {b}");
    }
    // The same in a trace-only run, which keeps every barrier.
    assert!(
        run_with(
            TILE,
            &producer_consumer("bar.sync 1, 64;"),
            [2, 64, 1],
            128,
            true
        )
        .is_ok()
    );
}

#[test]
fn a_count_never_reached_is_a_deadlock_and_a_bad_count_an_error_with_its_place() {
    // 96 threads at barrier 1 in a block of 64: never.
    let body = producer_consumer("bar.sync 1, 64;").replace("bar.sync 1, 64", "bar.sync 1, 96");
    let e = run_with(TILE, &body, [1, 64, 1], 64, false).unwrap_err();
    assert!(e.why.contains("deadlock"), "{e}");
    let body = producer_consumer("bar.sync 1, 48;");
    let e = run_with(TILE, &body, [1, 64, 1], 64, false).unwrap_err();
    assert!(e.why.contains("multiple of 32"), "{e}");
    assert!(e.why.starts_with("barrier 1 for 48 threads"), "{e}");
    assert!(e.place.is_some());
}

#[test]
fn a_barrier_without_a_count_waits_for_every_warp_of_the_block_that_has_not_ended() {
    // The producer arrives at barrier 1, then waits at barrier 0: a consumer waiting at
    // barrier 1 for the whole block (no count) and the producer at 0 wait for each other.
    let body =
        producer_consumer("bar.sync 1;").replace("mov.u32 %r9, 7;", "bar.sync 0;\nmov.u32 %r9, 7;");
    let e = run_with(TILE, &body, [1, 64, 1], 64, false).unwrap_err();
    assert!(e.why.contains("deadlock"), "{e}");
    // A producer that has ended no longer counts (the interpreter's rule for every block
    // barrier): the consumer goes on.
    let (out, ..) = run_with(
        TILE,
        &producer_consumer("bar.sync 1;"),
        [1, 64, 1],
        64,
        false,
    )
    .unwrap();
    assert_eq!(out[0], 320);
}
