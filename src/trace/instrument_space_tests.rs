//! Instrumenting the spaces whose lanes do not name a plain address: `shared::cluster`
//! accesses and texture fetches, and the logger's cluster section by target.

use super::tests::{block_before, module, one};
use super::*;

#[test]
fn cluster_accesses_and_texture_fetches_are_sites_of_their_own() {
    let body = "\tld.shared::cluster.u32 %r2, [%r3];\n\
                \tst.shared::cluster.v2.u32 [%r3+8], {%r1, %r2};\n\
                \t@%p1 tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}];\n\
                \ttex.level.1d.v4.s32.s32 {%r1, %r2, %r4, %r5}, [%rd1, {%r6}], %f1;\n";
    let (inst, ptx) = one(body);
    let got: Vec<_> = inst
        .sites
        .iter()
        .map(|s| (s.space(), s.kind(), s.width, s.coords))
        .collect();
    use crate::model::access::{CoordType, TexCoords};
    let tex = |ty, dims| {
        Some(TexCoords {
            ty,
            dims,
            normalized: None,
        })
    };
    assert_eq!(
        got,
        [
            (Some(Space::Cluster), Some(AccessKind::Load), 4, None),
            (Some(Space::Cluster), Some(AccessKind::Store), 8, None),
            (
                Some(Space::Texture),
                Some(AccessKind::Load),
                16,
                tex(CoordType::F32, 2)
            ),
            (
                Some(Space::Texture),
                Some(AccessKind::Load),
                16,
                tex(CoordType::S32, 1)
            ),
        ]
    );
    // Cluster: the 32-bit window address widened, space 5; the logger can name its rank.
    let b = block_before(&ptx, "ld.shared::cluster.u32 %r2");
    assert!(
        b.contains("cvt.u64.u32 %__gpulab_a, %r3;") && b.contains("mov.u32 %__gpulab_m, 1029;")
    );
    assert!(ptx.contains("getctarank.u64"));
    // Texture: the coordinates' bits, x low, under the fetch's guard.
    let b = block_before(&ptx, "@%p1 tex.2d");
    assert!(b.contains("mov.b32 %__gpulab_x, %f1;\n") && b.contains("mov.b32 %__gpulab_y, %f2;\n"));
    assert!(b.contains("mov.b64 %__gpulab_a, {%__gpulab_x, %__gpulab_y};"));
    assert!(b.contains("mov.u32 %__gpulab_m, 4102;") && b.contains("@!%p1 mov.u32 %__gpulab_m"));
    let b = block_before(&ptx, "tex.level.1d.v4.s32.s32 {");
    assert!(b.contains("mov.b32 %__gpulab_x, %r6;\n") && b.contains("mov.b32 %__gpulab_y, 0;\n"));
}

#[test]
fn a_gather_is_a_texture_request_at_the_coordinates_its_lanes_name() {
    let body = "\ttld4.r.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f1, %f2}];\n";
    let (inst, ptx) = one(body);
    assert_eq!(inst.sites.len(), 1, "{:?}", inst.sites);
    let s = &inst.sites[0];
    assert_eq!(
        (s.space(), s.kind(), s.width),
        (Some(Space::Texture), Some(AccessKind::Load), 16)
    );
    assert!(
        inst.unseen.is_empty(),
        "a gather is traced: {:?}",
        inst.unseen
    );
    let b = block_before(&ptx, "tld4.r.2d.v4.f32.f32 {");
    assert!(b.contains("mov.b32 %__gpulab_x, %f1;\n") && b.contains("mov.b32 %__gpulab_y, %f2;\n"));
}

#[test]
fn below_sm_90_the_logger_has_no_cluster_instructions() {
    let src = module("\tld.global.u32 %r2, [%rd1];\n").replace("sm_90", "sm_80");
    let inst = instrument(&src).unwrap();
    assert_eq!(inst.sites.len(), 1);
    for op in [
        "isspacep.shared::cluster",
        "getctarank.",
        "mapa.",
        "%cluster_ctarank",
    ] {
        assert!(!inst.ptx.contains(op), "{op} in\n{}", inst.ptx);
    }
}

#[test]
fn block_and_cluster_barriers_are_barriers_and_a_warp_barrier_is_an_event_of_its_own() {
    // Barriers not every thread of the block waits at (`bar.arrive`, a thread count in a
    // register or `bar.red`'s) are no sites: counted as the block's, they would hide races
    // between the warps they leave out. A written count is logged, with the count, for the
    // analysis to weigh against the block's size.
    let body = "\tst.shared.u32 [%r1], %r2;\n\
                \tbar.sync 0;\n\
                \tbarrier.sync.aligned 1;\n\
                \tbarrier.sync.aligned 1, 64;\n\
                \t@%p1 bar.sync 2;\n\
                \tbar.arrive 2, 64;\n\
                \tbar.red.popc.u32 %r3, 0, %p2;\n\
                \tbar.red.popc.u32 %r6, 1, 64, %p2;\n\
                \tbarrier.cluster.wait.aligned;\n\
                \tbar.warp.sync -1;\n\
                \tatom.shared.add.u32 %r4, [%r1], 1;\n\
                \tred.shared.add.u32 [%r1], 1;\n\
                \tld.shared.u32 %r5, [%r1];\n";
    let (inst, ptx) = one(body);
    let got: Vec<_> = inst
        .sites
        .iter()
        .map(|s| (s.op.as_str(), s.is_barrier(), s.width))
        .collect();
    assert_eq!(
        got,
        [
            ("st.shared.u32", false, 4),
            ("bar.sync", true, 0),
            ("barrier.sync.aligned", true, 0),
            ("barrier.sync.aligned", false, 0),
            ("bar.sync", true, 0),
            ("bar.red.popc.u32", true, 0),
            ("barrier.cluster.wait.aligned", true, 0),
            ("atom.shared.add.u32", false, 4),
            ("red.shared.add.u32", false, 4),
            ("ld.shared.u32", false, 4),
            // Numbered after every other site, so that theirs stay as they were.
            ("bar.warp.sync", false, 0),
        ]
    );
    // A block barrier logs its number as its address, under code 7 and width 0; a guarded
    // one says when its lanes' guard is false, as an access does.
    let bar = block_before(&ptx, "bar.sync 0;");
    assert!(bar.contains("mov.u64 %__gpulab_a, 0;") && bar.contains("mov.u32 %__gpulab_m, 7;"));
    let one_64 = block_before(&ptx, "barrier.sync.aligned 1, 64;");
    assert!(one_64.contains("mov.u64 %__gpulab_a, 1;"), "{one_64}");
    let red = block_before(&ptx, "bar.red.popc.u32 %r3, 0, %p2;");
    assert!(red.contains("mov.u64 %__gpulab_a, 0;"), "{red}");
    let guarded = block_before(&ptx, "@%p1 bar.sync 2;");
    assert!(guarded.contains("@!%p1 mov.u32 %__gpulab_m, 4294967295;"));
    assert!(!ptx.contains("site 11"));
    // `__syncwarp()` orders a warp's lanes: an event, whose lanes log its member mask as a
    // u32 (diverged lanes that reach it apart are one meeting).
    let sync = &inst.sites[10];
    assert_eq!((sync.event, sync.is_event()), (Event::WarpSync, true));
    let warp = block_before(&ptx, "bar.warp.sync -1;");
    assert!(
        warp.contains("mov.u64 %__gpulab_a, -1;")
            && warp.contains("and.b64 %__gpulab_a, %__gpulab_a, 4294967295;"),
        "{warp}"
    );
    assert_eq!(inst.sites[6].event, Event::ClusterWait);
    let counted = &inst.sites[3];
    assert_eq!(
        (counted.event, counted.is_event()),
        (Event::CountedBarrier { threads: 64 }, true)
    );
}

#[test]
fn a_relaxed_cluster_arrive_right_after_a_cluster_fence_releases_as_a_plain_one() {
    let body = "\tfence.acq_rel.cluster;\n\
                \tbarrier.cluster.arrive.relaxed;\n\
                \tbarrier.cluster.wait;\n\
                \tfence.acq_rel.cta;\n\
                \tbarrier.cluster.arrive.relaxed;\n\
                \tbarrier.cluster.wait;\n\
                \tfence.sc.cluster;\n\
                \tst.shared.u32 [%r1], %r2;\n\
                \tbarrier.cluster.arrive.relaxed;\n\
                \tbarrier.cluster.wait;\n\
                \tmembar.gl;\n\
                L1:\n\
                \tbarrier.cluster.arrive.relaxed;\n\
                \tbarrier.cluster.wait;\n";
    let (inst, _) = one(body);
    let arrives: Vec<Event> = (inst.sites.iter())
        .filter(|s| s.op.starts_with("barrier.cluster.arrive"))
        .map(|s| s.event)
        .collect();
    // Fenced at the cluster's scope; a CTA's fence; a store between; a label between.
    assert_eq!(
        arrives,
        [
            Event::ClusterArrive,
            Event::ClusterArriveRelaxed,
            Event::ClusterArriveRelaxed,
            Event::ClusterArriveRelaxed,
        ]
    );
}

#[test]
fn an_mbarriers_init_arrivals_and_completed_waits_are_events_with_its_offset() {
    let body = "\tmbarrier.init.shared.b64 [%r1], %r2;\n\
                \tmbarrier.arrive.shared.b64 %rd1, [%r1];\n\
                WAIT:\n\
                \tmbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r3;\n\
                \t@!%p1 bra WAIT;\n\
                \tmbarrier.arrive.relaxed.cta.shared::cta.b64 %rd1, [%r1];\n\
                \tmbarrier.test_wait.parity.relaxed.cta.shared::cta.b64 %p2, [%r1], %r3;\n\
                \tmbarrier.arrive.b64 %rd1, [%rd2];\n\
                \tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];\n\
                \tmbarrier.arrive.shared::cta.b64 _, [%r1], 2;\n\
                \tmbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 256;\n";
    let (inst, ptx) = one(body);
    let events: Vec<Event> = (inst.sites.iter())
        .filter(|s| s.op.starts_with("mbarrier"))
        .map(|s| s.event)
        .collect();
    // A generic address and another block's barrier are not followed.
    assert_eq!(
        events,
        [
            Event::MbarInit,
            Event::MbarArrive { relaxed: false },
            Event::MbarWait { relaxed: false },
            Event::MbarArrive { relaxed: true },
            Event::MbarWait { relaxed: true },
            Event::MbarArrive { relaxed: false },
            Event::MbarArrive { relaxed: false },
        ]
    );
    // An arrival's written count of arrivals is logged over the offset as an init's count
    // is; the bytes an `expect_tx` arrival announces under bit 63, and a parity wait's
    // parity: the race analysis counts the phases from them.
    let counted = block_before(&ptx, "mbarrier.arrive.shared::cta.b64 _, [%r1], 2;");
    let shifted = format!("or.b64 %__gpulab_a, %__gpulab_a, {};", 2u64 << 32);
    assert!(counted.contains(&shifted), "{counted}");
    let tx = block_before(
        &ptx,
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], 256;",
    );
    let flagged = format!(
        "or.b64 %__gpulab_a, %__gpulab_a, {:#x};",
        super::MBAR_FLAG | 256 << 32
    );
    assert!(tx.contains(&flagged), "{tx}");
    // The wait runs inside its block (below): what its block logs comes before it.
    let at = ptx.find("mbarrier.try_wait.parity.shared.b64 %p1").unwrap();
    let wait = &ptx[ptx[..at].rfind("{ // gpulab trace site").unwrap()..at];
    for step in [
        "cvt.u64.u32 %__gpulab_h, %r3;",
        "and.b64 %__gpulab_h, %__gpulab_h, 1;",
        "or.b64 %__gpulab_h, %__gpulab_h, 0x8000000000000000;",
        "or.b64 %__gpulab_a, %__gpulab_a, %__gpulab_h;",
    ] {
        assert!(wait.contains(step), "{step}: {wait}");
    }
    let plain = block_before(&ptx, "mbarrier.arrive.shared.b64 %rd1, [%r1];");
    assert!(!plain.contains("or.b64 %__gpulab_a"), "{plain}");
    assert!(
        inst.sites
            .iter()
            .all(|s| !s.op.starts_with("mbarrier") || s.is_event())
    );
    // The init logs its count over the offset's low half.
    let init = block_before(&ptx, "mbarrier.init.shared.b64 [%r1], %r2;");
    assert!(
        init.contains("and.b64 %__gpulab_a, %__gpulab_a, 16777215;"),
        "{init}"
    );
    assert!(init.contains("cvt.u64.u32 %__gpulab_c, %r2;"), "{init}");
    // The wait runs inside its block, and the lanes it did not complete for log nothing.
    let at = ptx.find("mbarrier.try_wait.parity.shared.b64 %p1").unwrap();
    let after = &ptx[at..];
    let mask = after
        .find("@!%p1 mov.u32 %__gpulab_m, 4294967295;")
        .expect("masked");
    assert!(mask < after.find("}\n").unwrap(), "{after}");
    assert!(ptx.contains("WAIT:"), "the loop's label stays");
}

#[test]
fn a_barrier_numbered_at_run_time_logs_the_number_its_register_holds() {
    // Warps that meet in pairs pick the pair's barrier by their own index: the register.
    let (inst, ptx) = one("\tbar.sync %r7, 64;\n\tld.shared.u32 %r5, [%r1];\n");
    assert_eq!(inst.sites[0].event, Event::CountedBarrier { threads: 64 });
    let bar = block_before(&ptx, "bar.sync %r7, 64;");
    assert!(bar.contains("cvt.u64.u32 %__gpulab_a, %r7;"), "{bar}");
}

#[test]
fn an_mma_is_an_exchange_between_lanes() {
    let (inst, _) = one(
        "\tmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};\n",
    );
    assert_eq!(inst.sites.len(), 1, "{:?}", inst.sites);
    assert_eq!(inst.sites[0].event, Event::Shuffle);
}

#[test]
fn a_fence_of_the_gpus_scope_is_an_event_numbered_after_every_other_site() {
    let (inst, ptx) = one(
        "\tst.global.u32 [%rd1], %r1;\n\tfence.sc.gpu;\n\tmembar.gl;\n\tfence.acq_rel.cta;\n\tmembar.cta;\n\tfence.proxy.async.shared::cta;\n\tfence.acq_rel.cluster;\n\tfence.acquire.gpu;\n\tfence.release.sys;\n\tatom.global.add.u32 %r2, [%rd2], 1;\n",
    );
    let events: Vec<(u32, Event)> = inst.sites.iter().map(|s| (s.id, s.event)).collect();
    assert_eq!(events.len(), 5, "{events:?}");
    // The store and the atomic keep the ids they had before fences were followed.
    assert_eq!(events[0].0, 0);
    assert_eq!(events[1].0, 1);
    assert!(events[1].1 != Event::Fence);
    // The block's, the cluster's and the proxy fences order nothing for other blocks.
    assert_eq!(events[2], (2, Event::Fence));
    assert_eq!(events[3], (3, Event::Fence));
    // A release fence releases; an acquire-only one does not.
    assert_eq!(events[4], (4, Event::Fence));
    let fence = block_before(&ptx, "fence.sc.gpu;");
    assert!(fence.contains("gpulab trace site 2"), "{fence}");
}
