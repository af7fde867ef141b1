use super::*;

fn site(kind: AccessKind, op: &str) -> Site {
    let space = Space::Global;
    Site::for_test(Event::Access { space, kind }, op)
}

fn event(event: Event) -> Site {
    Site::for_test(event, "")
}

/// Block `b`'s warp `warp`, the lanes of `mask`, each at `addr` (one word).
fn rec(b: u32, warp: u32, mask: u32, addr: u64) -> Record {
    Record {
        site: 0,
        block: b,
        warp,
        mask,
        space: Space::Global,
        width: 4,
        rank: 0,
        addrs: [addr; 32],
    }
}

const PARTIAL: u64 = 0;
const TICKET: u64 = 1 << 20;

struct Kit {
    store: Site,
    load: Site,
    ticket: Site,
    fence: Site,
    bar: Site,
}

fn kit() -> Kit {
    Kit {
        store: site(AccessKind::Store, "st.global.u32"),
        load: site(AccessKind::Load, "ld.global.u32"),
        ticket: site(AccessKind::Atomic, "atom.global.add.u32"),
        fence: event(Event::Fence),
        bar: event(Event::Barrier),
    }
}

/// Blocks 0 and 1 each run `writer` (each step a site, a warp and its lanes), then block
/// 1, the last, reads block 0's partial in the threads of its last step (its ticket). The
/// words counted unfenced.
fn last_block(writer: &[(&Site, u32, u32)]) -> u64 {
    let k = kit();
    let mut h = HandoverOrder::default();
    for b in 0..2 {
        for &(s, warp, mask) in writer {
            let addr = if s.op.contains("atom") && !s.op.contains("exch") {
                TICKET
            } else {
                PARTIAL + 4 * u64::from(b)
            };
            h.push(&rec(b, warp, mask, addr), s);
        }
    }
    let &(_, warp, mask) = writer.last().expect("a step");
    h.push(&rec(1, warp, mask, PARTIAL), &k.load);
    h.unfenced
}

#[test]
fn a_partial_is_released_only_by_a_fence_between_its_store_and_the_blocks_next_atomic() {
    let k = kit();
    // No fence.
    assert_eq!(last_block(&[(&k.store, 0, 1), (&k.ticket, 0, 1)]), 1);
    // `__threadfence()` between the store and the ticket, by the storing thread.
    assert_eq!(
        last_block(&[(&k.store, 0, 1), (&k.fence, 0, 1), (&k.ticket, 0, 1)]),
        0
    );
    // Every thread fences, a barrier, and warp 1 takes the ticket.
    let bar = [(&k.bar, 0, u32::MAX), (&k.bar, 1, u32::MAX)];
    let mut w = vec![(&k.store, 0, 1), (&k.fence, 0, u32::MAX)];
    w.extend(bar);
    w.push((&k.ticket, 1, 1));
    assert_eq!(last_block(&w), 0);
    // Warp 1 fences and takes the ticket with no barrier after the store: nothing orders
    // warp 0's store first.
    assert_eq!(
        last_block(&[(&k.store, 0, 1), (&k.fence, 1, 1), (&k.ticket, 1, 1)]),
        1
    );
    // Another lane of the storing warp fences: a fence orders its own thread's accesses.
    assert_eq!(
        last_block(&[(&k.store, 0, 1), (&k.fence, 0, 2), (&k.ticket, 0, 1)]),
        1
    );
    // The fence before the store, or after the ticket (a second atomic after it).
    assert_eq!(
        last_block(&[(&k.fence, 0, 1), (&k.store, 0, 1), (&k.ticket, 0, 1)]),
        1
    );
    let done = site(AccessKind::Atomic, "atom.global.add.u32");
    assert_eq!(
        last_block(&[
            (&k.store, 0, 1),
            (&k.ticket, 0, 1),
            (&k.fence, 0, 1),
            (&done, 0, 1)
        ]),
        1
    );
}

#[test]
fn a_ticket_with_release_semantics_releases_at_the_gpus_scope_only() {
    let k = kit();
    for (op, unfenced) in [
        ("atom.acq_rel.gpu.global.add.u32", 0),
        ("atom.release.sys.global.add.u32", 0),
        ("atom.acq_rel.cluster.global.add.u32", 1),
        ("atom.cta.global.add.u32", 1),
    ] {
        let ticket = site(AccessKind::Atomic, op);
        assert_eq!(
            last_block(&[(&k.store, 0, 1), (&ticket, 0, 1)]),
            unfenced,
            "{op}"
        );
    }
    // A block-scoped fence makes no site; a block-scoped ticket after a fence signals
    // nothing to another block, so the store waits for an atomic that never comes.
    let cta = site(AccessKind::Atomic, "atom.cta.global.add.u32");
    assert_eq!(
        last_block(&[(&k.store, 0, 1), (&k.fence, 0, 1), (&cta, 0, 1)]),
        1
    );
}

#[test]
fn the_reader_reads_after_its_own_atomic_and_coherently() {
    let k = kit();
    let writer = [(&k.store, 0, 1), (&k.fence, 0, 1), (&k.ticket, 0, 1)];
    let mut h = HandoverOrder::default();
    for &(s, warp, mask) in &writer {
        let addr = if std::ptr::eq(s, &k.ticket) {
            TICKET
        } else {
            PARTIAL
        };
        h.push(&rec(0, warp, mask, addr), s);
    }
    // Block 1 reads the partial before it takes its ticket: it may be stale.
    h.push(&rec(1, 0, 1, PARTIAL), &k.load);
    h.push(&rec(1, 0, 1, TICKET), &k.ticket);
    assert_eq!(h.unfenced, 1);
    // After the ticket, coherently: none more; through the non-coherent path: one.
    let mut h2 = HandoverOrder::default();
    for &(s, warp, mask) in &writer {
        let addr = if std::ptr::eq(s, &k.ticket) {
            TICKET
        } else {
            PARTIAL
        };
        h2.push(&rec(0, warp, mask, addr), s);
    }
    h2.push(&rec(1, 0, 1, TICKET), &k.ticket);
    h2.push(&rec(1, 0, 1, PARTIAL), &k.load);
    assert_eq!(h2.unfenced, 0);
    h2.push(&rec(1, 0, 1, PARTIAL + 4), &k.store);
    h2.push(
        &rec(2, 0, 1, PARTIAL + 4),
        &site(AccessKind::Load, "ld.global.nc.u32"),
    );
    assert_eq!(h2.unfenced, 1, "block 1's store was released by nothing");
    // An asynchronous copy's read is a read like a load's.
    let mut h3 = HandoverOrder::default();
    h3.push(&rec(0, 0, 1, PARTIAL), &k.store);
    h3.push(&rec(0, 0, 1, TICKET), &k.ticket);
    h3.push(&rec(1, 0, 1, TICKET), &k.ticket);
    h3.push(
        &rec(1, 0, 1, PARTIAL),
        &site(AccessKind::AsyncCopy, "cp.async.ca.shared.global"),
    );
    assert_eq!(h3.unfenced, 1);
}

#[test]
fn a_word_an_atomic_writes_is_handed_like_a_store_but_a_counter_is_not() {
    let k = kit();
    let add = site(AccessKind::Atomic, "atom.global.add.u32");
    let exch = site(AccessKind::Atomic, "atom.global.exch.b32");
    // The partial added into its zeroed word, then the ticket, no fence: unreleased.
    let mut h = HandoverOrder::default();
    h.push(&rec(0, 0, 1, PARTIAL), &add);
    h.push(&rec(0, 0, 1, TICKET), &k.ticket);
    h.push(&rec(1, 0, 1, TICKET), &k.ticket);
    h.push(&rec(1, 0, 1, PARTIAL), &k.load);
    assert_eq!(h.unfenced, 1);
    // Read back with an exchange, a plain store before it and no fence: unreleased.
    let mut h = HandoverOrder::default();
    h.push(&rec(0, 0, 1, PARTIAL), &k.store);
    h.push(&rec(0, 0, 1, TICKET), &k.ticket);
    h.push(&rec(1, 0, 1, TICKET), &k.ticket);
    h.push(&rec(1, 0, 1, PARTIAL), &exch);
    assert_eq!(h.unfenced, 1);
    // Handed by an exchange and taken back by one, no fence: unreleased.
    let mut h = HandoverOrder::default();
    h.push(&rec(0, 0, 1, PARTIAL), &exch);
    h.push(&rec(0, 0, 1, TICKET), &k.ticket);
    h.push(&rec(1, 0, 1, TICKET), &k.ticket);
    h.push(&rec(1, 0, 1, PARTIAL), &exch);
    assert_eq!(h.unfenced, 1);
    // Bins every block adds into, one after another: the adds' own order.
    let mut h = HandoverOrder::default();
    for b in 0..4 {
        h.push(&rec(b, 0, 1, PARTIAL), &add);
        h.push(&rec(b, 0, 1, PARTIAL + 4), &add);
    }
    assert_eq!(h.unfenced, 0);
    // The ticket itself, updated by every block and polled by plain loads: its own value.
    let mut h = HandoverOrder::default();
    for b in 0..4 {
        h.push(&rec(b, 0, 1, TICKET), &k.ticket);
    }
    h.push(&rec(5, 0, 1, TICKET), &k.load);
    assert_eq!(h.unfenced, 0);
}

#[test]
fn a_ticket_of_any_scope_or_warp_is_one_a_reader_may_wait_on() {
    let k = kit();
    let cta = site(AccessKind::Atomic, "atom.relaxed.cta.global.add.u32");
    // A block-scoped ticket right after the store, the fence and a ticket of the GPU's
    // scope only after it: the first ticket may be seen before the store.
    assert_eq!(
        last_block(&[
            (&k.store, 0, 1),
            (&cta, 0, 1),
            (&k.fence, 0, 1),
            (&k.ticket, 0, 1)
        ]),
        1
    );
    // Warp 1 takes the ticket with no barrier after warp 0's store and fence: it may come
    // first, whatever warp 0 does after.
    assert_eq!(
        last_block(&[
            (&k.store, 0, 1),
            (&k.fence, 0, 1),
            (&k.ticket, 1, 1),
            (&k.ticket, 0, 1)
        ]),
        1
    );
}

#[test]
fn a_read_through_ldu_a_bulk_copy_or_an_exchange_of_an_added_partial_is_judged() {
    let k = kit();
    let writer = |h: &mut HandoverOrder, partial: &Site, fenced: bool| {
        h.push(&rec(0, 0, 1, PARTIAL), partial);
        if fenced {
            h.push(&rec(0, 0, 1, 0), &k.fence);
        }
        h.push(&rec(0, 0, 1, TICKET), &k.ticket);
        h.push(&rec(1, 0, 1, TICKET), &k.ticket);
    };
    for (op, kind) in [
        ("ldu.global.u32", AccessKind::Load),
        ("cp.async.bulk.shared::cluster.global", AccessKind::BulkCopy),
    ] {
        let mut h = HandoverOrder::default();
        writer(&mut h, &k.store, kind == AccessKind::BulkCopy);
        h.push(&rec(1, 0, 1, PARTIAL), &site(kind, op));
        let want = u64::from(kind == AccessKind::Load);
        assert_eq!(h.unfenced, want, "{op}: fenced and read after the ticket");
        let mut h = HandoverOrder::default();
        writer(&mut h, &k.store, false);
        h.push(&rec(1, 0, 1, PARTIAL), &site(kind, op));
        assert_eq!(h.unfenced, 1, "{op}: unfenced");
    }
    let add = site(AccessKind::Atomic, "atom.global.add.u32");
    let exch = site(AccessKind::Atomic, "atom.global.exch.b32");
    for (fenced, want) in [(false, 1), (true, 0)] {
        let mut h = HandoverOrder::default();
        writer(&mut h, &add, fenced);
        h.push(&rec(1, 0, 1, PARTIAL), &exch);
        assert_eq!(h.unfenced, want, "an added partial taken by an exchange");
    }
}

#[test]
fn a_flag_raised_by_a_release_store_and_read_by_an_acquire_load_orders_the_partial() {
    let k = kit();
    let raise = site(AccessKind::Store, "st.release.gpu.global.u32");
    let plain_raise = site(AccessKind::Store, "st.volatile.global.u32");
    let wait = site(AccessKind::Load, "ld.acquire.gpu.global.u32");
    let run = |raise: &Site, read_first: bool| {
        let mut h = HandoverOrder::default();
        h.push(&rec(0, 0, 1, PARTIAL), &k.store);
        h.push(&rec(0, 0, 1, TICKET), raise);
        if read_first {
            h.push(&rec(1, 0, 1, PARTIAL), &k.load);
        }
        h.push(&rec(1, 0, 1, TICKET), &wait);
        h.push(&rec(1, 0, 1, PARTIAL), &k.load);
        h.unfenced
    };
    assert_eq!(run(&raise, false), 0);
    // The partial read before the flag: it may be stale.
    assert_eq!(run(&raise, true), 1);
    // A plain flag releases nothing: the flag and the partial both unordered.
    assert_eq!(run(&plain_raise, false), 2);
}

#[test]
fn a_bin_every_block_adds_into_is_judged_for_each_adder_when_the_last_block_takes_it() {
    let k = kit();
    let add = site(AccessKind::Atomic, "atom.global.add.u32");
    let exch = site(AccessKind::Atomic, "atom.global.exch.b32");
    const BIN: u64 = 64;
    const ALL: u32 = u32::MAX;
    // Each block: warps 0 and 1 add into two bins (every lane), fence or not, a barrier,
    // and one thread of warp 0 takes the ticket. Block 3, the last, added last itself;
    // after a barrier both its warps take the bins by exchanges, and with them every other
    // block's adds, which only those blocks' fences ordered before their tickets. The
    // adds of one warp after another's are no ticket: they release nothing, and judge
    // nothing, though each is an atomic.
    let run = |fenced: &dyn Fn(u32) -> bool| {
        let mut h = HandoverOrder::default();
        for b in 0..4 {
            h.push(&rec(b, 0, ALL, PARTIAL), &add);
            h.push(&rec(b, 1, ALL, BIN), &add);
            for w in 0..2 {
                if fenced(b) {
                    h.push(&rec(b, w, ALL, 0), &k.fence);
                }
                h.push(&rec(b, w, ALL, 0), &k.bar);
            }
            h.push(&rec(b, 0, 1, TICKET), &k.ticket);
        }
        for w in 0..2 {
            h.push(&rec(3, w, ALL, 0), &k.bar);
        }
        h.push(&rec(3, 0, ALL, PARTIAL), &exch);
        h.push(&rec(3, 1, ALL, BIN), &exch);
        h.unfenced
    };
    assert_eq!(run(&|_| true), 0, "every block fenced");
    assert_eq!(run(&|_| false), 2, "no block fenced");
    // One other block's adds unfenced among fenced ones is enough.
    assert_eq!(run(&|b| b != 1), 2, "block 1 not fenced");
    // The last block's own fence does not stand for the others'.
    assert_eq!(run(&|b| b == 3), 2, "only the last block fenced");
    // A store over the bin replaces the adds: only its own order counts.
    let mut h = HandoverOrder::default();
    for b in 0..3 {
        h.push(&rec(b, 0, ALL, PARTIAL), &add);
        h.push(&rec(b, 0, 1, TICKET), &k.ticket);
    }
    h.push(&rec(3, 0, 1, PARTIAL), &k.store);
    h.push(&rec(3, 0, 1, TICKET), &k.ticket);
    h.push(&rec(3, 0, 1, PARTIAL), &exch);
    assert_eq!(h.unfenced, 0);
    // A counter whose adds are the tickets themselves (count and sum in one word), taken
    // by the last block: the adds' own order.
    let mut h = HandoverOrder::default();
    for b in 0..4 {
        h.push(&rec(b, 0, 1, TICKET), &k.ticket);
    }
    h.push(&rec(3, 0, 1, TICKET), &exch);
    assert_eq!(h.unfenced, 0);
}
