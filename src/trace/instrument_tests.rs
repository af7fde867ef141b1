use super::*;

const HEADER: &str = ".version 9.0\n.target sm_90\n.address_size 64\n\n";

/// A one-function module around `body`, with the register families NVRTC declares.
pub(super) fn module(body: &str) -> String {
    format!(
        "{HEADER}.shared .align 4 .b8 tile[256];\n.global .align 4 .b8 table[64];\n\
         .visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.reg .pred \t%p<3>;\n\t.reg .b32 \t%r<12>;\n\t.reg .b64 \t%rd<9>;\n\
         \t.reg .f32 \t%f<5>;\n\t.loc\t1 7 3\n{body}\tret;\n}}\n"
    )
}

/// The logging block written right before the line `access`, as text.
pub(super) fn block_before<'a>(ptx: &'a str, access: &str) -> &'a str {
    let at = ptx
        .find(access)
        .unwrap_or_else(|| panic!("`{access}` missing"));
    let start = ptx[..at]
        .rfind("{ // gpulab trace site")
        .expect("no block before access");
    let block = &ptx[start..at];
    assert!(
        block.trim_end().ends_with('}'),
        "block does not end right before the access"
    );
    block
}

pub(super) fn one(body: &str) -> (Instrumented, String) {
    let inst = instrument(&module(body)).unwrap();
    let ptx = inst.ptx.clone();
    (inst, ptx)
}

#[test]
fn every_address_form() {
    let cases = [
        (
            "ld.shared.u32 %r2, [%r1];",
            "cvt.u64.u32 %__gpulab_a, %r1;\n",
            0,
        ),
        (
            "ld.shared.u32 %r2, [%r1+16];",
            "add.s32 %__gpulab_w, %r1, 16;\n\tcvt.u64.u32 %__gpulab_a, %__gpulab_w;\n",
            0,
        ),
        (
            "ld.shared.u32 %r2, [%r1+-4];",
            "add.s32 %__gpulab_w, %r1, -4;\n\tcvt.u64.u32 %__gpulab_a, %__gpulab_w;\n",
            0,
        ),
        (
            "ld.global.f32 %f1, [%rd1];",
            "mov.b64 %__gpulab_a, %rd1;\n",
            1,
        ),
        (
            "st.local.f32 [%rd1+-8], %f1;",
            "add.s64 %__gpulab_a, %rd1, -8;\n",
            2,
        ),
        (
            "ld.shared.f32 %f1, [tile];",
            "mov.u64 %__gpulab_a, tile;\n\tmov.u32",
            0,
        ),
        (
            "ld.shared.f32 %f1, [tile+4];",
            "mov.u64 %__gpulab_a, tile;\n\tadd.s64 %__gpulab_a, %__gpulab_a, 4;\n",
            0,
        ),
        ("ld.const.f32 %f1, [0x10];", "mov.u64 %__gpulab_a, 16;\n", 3),
        // A generic access through a name is attributed to the name's space.
        ("ld.f32 %f1, [table+8];", "mov.u64 %__gpulab_a, table;\n", 1),
        ("ld.f32 %f1, [%rd2];", "mov.b64 %__gpulab_a, %rd2;\n", 4),
    ];
    for (access, expected, code) in cases {
        let (inst, ptx) = one(&format!("\t{access}\n"));
        assert_eq!(inst.sites.len(), 1, "{access}");
        let block = block_before(&ptx, access);
        assert!(block.contains(expected), "{access}:\n{block}");
        assert!(
            block.contains(&format!("mov.u32 %__gpulab_m, {};", (4 << 8) | code)),
            "{access}:\n{block}"
        );
        // The symbol's address is taken, never loaded through (the logger's own code,
        // after it, reads the trace globals).
        assert!(
            own(block)
                .lines()
                .skip(1)
                .all(|l| !l.trim_start().starts_with("ld")),
            "{access}:\n{block}"
        );
    }
}

#[test]
fn guards_mark_the_lanes_that_do_not_access() {
    let body = "\t@%p1 ld.global.f32 %f1, [%rd1];\n\t@!%p2 st.shared.f32 [%rd3], %f1;\n\
                \tld.global.f32 %f2, [%rd4];\n";
    let (inst, ptx) = one(body);
    assert_eq!(inst.sites.len(), 3);
    // The call itself is never predicated: lanes whose guard fails pass the marker.
    let guarded = block_before(&ptx, "@%p1 ld.global");
    assert!(guarded.contains("\t@!%p1 mov.u32 %__gpulab_m, 4294967295;\n"));
    let negated = block_before(&ptx, "@!%p2 st.shared");
    assert!(negated.contains("\t@%p2 mov.u32 %__gpulab_m, 4294967295;\n"));
    let plain = block_before(&ptx, "ld.global.f32 %f2");
    assert!(!own(plain).contains("4294967295"));
    for block in [guarded, negated, plain] {
        let code = block
            .find(SITE_CODE)
            .expect("the logger's code, written out");
        // The marker is set after the real meta, so it wins when the guard fails.
        let meta = block
            .find("mov.u32 %__gpulab_m, 1025;")
            .or(block.find("mov.u32 %__gpulab_m, 1024;"));
        assert!(meta.unwrap() < code);
    }
    // No call: a called logger kept diverged lanes apart past their reconvergence point.
    assert!(!ptx.lines().any(|l| l.trim_start().starts_with("call")));
}

/// A site's block up to the logger's code: what the instrumenter writes for that access.
fn own(block: &str) -> &str {
    &block[..block.find(SITE_CODE).unwrap_or(block.len())]
}

const SITE_CODE: &str = "// gpulab trace: site code";

#[test]
fn the_log_comes_before_an_access_that_overwrites_its_address() {
    let (_, ptx) = one("\tld.shared.u32 %r5, [%r5];\n");
    let block = ptx.find("cvt.u64.u32 %__gpulab_a, %r5;").unwrap();
    assert!(block < ptx.find("ld.shared.u32 %r5, [%r5];").unwrap());
}

#[test]
fn widths_kinds_and_spaces() {
    let body = "\tld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n\
                \tst.global.v2.u32 [%rd2], {%r1, %r2};\n\
                \tld.global.nc.u8 %r3, [%rd3];\n\
                \tld.volatile.shared::cta.b128 %rd4, [%rd4];\n\
                \tld.relaxed.gpu.global.L2::64B.b16 %r4, [%rd5];\n\
                \tldu.global.f64 %rd6, [%rd6];\n\
                \tst.local.u32 [%rd7], %r5;\n";
    let (inst, _) = one(body);
    let got: Vec<_> = inst
        .sites
        .iter()
        .map(|s| (s.op.as_str(), s.width, s.event))
        .collect();
    use AccessKind::*;
    use Space::*;
    let at = |space, kind| Event::Access { space, kind };
    assert_eq!(
        got,
        [
            ("ld.shared.v4.f32", 16, at(Shared, Load)),
            ("st.global.v2.u32", 8, at(Global, Store)),
            ("ld.global.nc.u8", 1, at(Global, Load)),
            ("ld.volatile.shared::cta.b128", 16, at(Shared, Load)),
            ("ld.relaxed.gpu.global.L2::64B.b16", 2, at(Global, Load)),
            ("ldu.global.f64", 8, at(Global, Load)),
            ("st.local.u32", 4, at(Local, Store)),
        ]
    );
}

#[test]
fn untraced_instructions_are_left_alone() {
    let body = "\tld.param.u64 %rd1, [k_param_0];\n\tst.param.b32 [param0+0], %r1;\n\
                \tred.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 \
                [%r3], %r1, [%r2];\n\
                \tldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r5];\n\
                \tcp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r1}], [%r4];\n\
                \tprefetch.global.L2 [%rd2];\n\
                \tst.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];\n\
                \ttex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}];\n";
    let src = module(body);
    let inst = instrument(&src).unwrap();
    assert!(inst.sites.is_empty(), "{:?}", inst.sites);
    for line in body.lines() {
        assert!(inst.ptx.contains(line), "{line} changed");
    }
}

/// What no site follows but moves memory is listed with its line; parameters, the copies'
/// group events and `mbarrier` objects are not.
#[test]
fn the_memory_moves_no_site_follows_are_listed_with_their_lines() {
    let body = "\tld.param.u64 %rd1, [k_param_0];\n\
                \tprefetch.global.L2 [%rd1];\n\
                \t@%p1 cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r1}], [%r4];\n\
                \tcp.async.bulk.commit_group;\n\
                \tcp.async.bulk.wait_group.read 0;\n\
                \tmbarrier.arrive.shared::cta.b64 %rd3, [%r4];\n\
                \tst.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];\n\
                \tld.global.u32 %r6, [%rd1];\n\
                \tbar.arrive 1, 64;\n";
    let src = module(body);
    let inst = instrument(&src).unwrap();
    let first = src.lines().position(|l| l.contains("ld.param")).unwrap() as u32 + 1;
    let unseen: Vec<(&str, u32)> = (inst.unseen.iter())
        .map(|u| (u.op.as_str(), u.ptx_line - first))
        .collect();
    assert_eq!(
        unseen,
        [
            ("prefetch.global.L2", 1),
            (
                "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes",
                2
            ),
            (
                "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32",
                6
            ),
        ]
    );
    // The global load, and the mbarrier's arrival: an event, which moves no memory.
    assert_eq!(inst.sites.len(), 2, "{:?}", inst.sites);
    assert!(
        inst.sites
            .iter()
            .any(|s| s.event == Event::MbarArrive { relaxed: false })
    );
    // `.loc 1 7 3` stands before the body: file 1 is the kernel's own.
    assert!(
        (inst.unseen.iter()).all(|u| u.source_line == Some(7) && u.entry.as_deref() == Some("k")),
        "{:?}",
        inst.unseen
    );
}

/// A launch is told only what its own kernel and the functions it may call hold, not the
/// file's other kernels; a header's `.loc` names no line of the kernel's file.
#[test]
fn each_kernel_is_told_only_its_own_and_its_functions_untraced_moves() {
    let src = format!(
        "{HEADER}.func helper(\n\t.param .b64 helper_param_0\n)\n{{\n\t.reg .b64 \t%rd<2>;\n\
         \tld.param.u64 %rd1, [helper_param_0];\n\t.loc\t2 40 1\n\tprefetch.global.L1 [%rd1];\n\
         \tret;\n}}\n.visible .entry plain(\n\t.param .u64 plain_param_0\n)\n{{\n\
         \t.reg .b64 \t%rd<2>;\n\tret;\n}}\n.visible .entry warm(\n\t.param .u64 warm_param_0\n)\n{{\n\
         \t.reg .b64 \t%rd<2>;\n\tld.param.u64 %rd1, [warm_param_0];\n\t.loc\t1 9 1\n\
         \tprefetch.global.L2 [%rd1];\n\tret;\n}}\n"
    );
    let inst = instrument(&src).unwrap();
    let said = |entry: &str| -> Vec<(String, Option<u32>)> {
        crate::model::access::UnseenAccess::of_kernel(&inst.unseen, entry)
            .into_iter()
            .map(|u| (u.op, u.source_line))
            .collect()
    };
    assert_eq!(said("plain"), [("prefetch.global.L1".to_string(), None)]);
    assert_eq!(
        said("warm"),
        [
            ("prefetch.global.L1".to_string(), None),
            ("prefetch.global.L2".to_string(), Some(9))
        ]
    );
}

/// A `cp.async` makes two sites, its global read then its shared write, each logging its
/// own operand's address before the copy; its commit and wait log events with no address.
#[test]
fn an_async_copy_logs_its_read_and_its_write_and_its_groups_log_events() {
    let body = "	@%p1 cp.async.cg.shared.global.L2::128B [%r3+16], [%rd2], 16, %r5;
                	cp.async.commit_group;
	cp.async.wait_group 1;
	cp.async.wait_all;
";
    let (inst, ptx) = one(body);
    let copy = Some(AccessKind::AsyncCopy);
    let got: Vec<_> = (inst.sites.iter())
        .map(|s| (s.event, s.kind(), s.width))
        .collect();
    assert_eq!(
        got,
        [
            (
                Event::Access {
                    space: Space::Global,
                    kind: AccessKind::AsyncCopy
                },
                copy,
                16
            ),
            (
                Event::Access {
                    space: Space::Shared,
                    kind: AccessKind::AsyncCopy
                },
                copy,
                16
            ),
            (Event::CopyCommit, None, 0),
            (
                Event::CopyWait {
                    groups: 1,
                    all: false
                },
                None,
                0
            ),
            (
                Event::CopyWait {
                    groups: 0,
                    all: true
                },
                None,
                0
            ),
        ]
    );
    // Both blocks sit before the copy, the write's last, each with its own address and the
    // guard.
    let write = block_before(&ptx, "@%p1 cp.async.cg");
    assert!(write.contains("add.s32 %__gpulab_w, %r3, 16;"), "{write}");
    let at = ptx.find("@%p1 cp.async.cg").unwrap();
    let read_at = ptx.find("gpulab trace site 0:").unwrap();
    let read = &ptx[read_at..at];
    assert!(read.contains("mov.b64 %__gpulab_a, %rd2;"), "{read}");
    assert!(read.contains("@!%p1 mov.u32 %__gpulab_m, 4294967295;"));
    // A copy is one LDGSTS: nothing for the SASS to say, and no wide shared access to split.
    assert!(sass_accesses(&inst.sites).is_empty());
    assert!(inst.sites.iter().all(|s| !s.may_split()));
    assert!(inst.sites[2..].iter().all(Site::is_event));
}

/// A copy's lanes that read nothing (source size 0, or `ignore-src` true) take no part in
/// its global side's record; its shared write logs every lane, zero-filled or not.
#[test]
fn an_async_copy_of_source_size_zero_logs_no_read_for_that_lane() {
    let body = "\tcp.async.ca.shared.global [%r3], [%rd2], 4, %r5;\n\
                \tcp.async.ca.shared.global [%r3], [%rd2], 4, 0;\n\
                \tcp.async.ca.shared.global [%r3], [%rd2], 4, 4;\n\
                \tcp.async.cg.shared.global [%r3], [%rd2], 16, !%p2;\n\
                \tcp.async.cg.shared.global.L2::cache_hint [%r3], [%rd2], 16, %rd5;\n";
    let (inst, ptx) = one(body);
    assert_eq!(inst.sites.len(), 10);
    let site = |id: usize| {
        let at = ptx.find(&format!("gpulab trace site {id}:")).unwrap();
        let next = ptx[at + 1..].find("gpulab trace site ");
        ptx[at..next.map_or(ptx.len(), |e| at + 1 + e)].to_string()
    };
    let off = "mov.u32 %__gpulab_m, 4294967295;";
    let reg = site(0);
    assert!(reg.contains("setp.eq.u32 %__gpulab_z, %r5, 0;"), "{reg}");
    assert!(reg.contains(&format!("@%__gpulab_z {off}")), "{reg}");
    assert!(site(2).contains(off), "source size 0: no lane reads");
    assert!(!site(4).contains(off), "source size 4: every lane reads");
    assert!(site(6).contains(&format!("@!%p2 {off}")), "{}", site(6));
    // The last operand of a hinted copy is its cache policy, not a source size.
    assert!(!site(8).contains(off), "{}", site(8));
    for write in [1, 3, 5, 7, 9] {
        assert!(
            !site(write).contains(off),
            "the shared side logs every lane"
        );
    }
}

/// A 1-D bulk copy (TMA) logs two records, whose width is the bytes it moves, known at run
/// time where the size is a register: its global source, then its shared destination under
/// its barrier's offset << 32. Other bulk forms are not traced.
#[test]
fn a_bulk_copy_logs_its_source_its_destination_and_its_bytes() {
    let body = "\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2], %r5, [%r4];\n\
                \tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2+64], 1024, [%r4+8];\n\
                \tcp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd2, {%r1}], [%r4];\n";
    let (inst, ptx) = one(body);
    assert_eq!(inst.sites.len(), 4, "{:?}", inst.sites);
    for (i, s) in inst.sites.iter().enumerate() {
        let space = [Space::Global, Space::Shared][i % 2];
        assert_eq!(
            (s.kind(), s.space(), s.width),
            (Some(AccessKind::BulkCopy), Some(space), 0)
        );
    }
    let site = |id: usize| {
        let at = ptx.find(&format!("gpulab trace site {id}:")).unwrap();
        let next = ptx[at + 1..].find("gpulab trace site ");
        ptx[at..next.map_or(ptx.len(), |e| at + 1 + e)].to_string()
    };
    let reg = site(0);
    assert!(reg.contains("mov.b64 %__gpulab_a, %rd2;"), "{reg}");
    for line in [
        "mov.b32 %__gpulab_m, %r5;",
        "shl.b32 %__gpulab_m, %__gpulab_m, 8;",
        "or.b32 %__gpulab_m, %__gpulab_m, 1;",
    ] {
        assert!(reg.contains(line), "{line}: {reg}");
    }
    // The size is read before the guard's override.
    assert!(reg.find("or.b32").unwrap() < reg.find("4294967295").unwrap());
    // The destination's side: the guard and the size too, and the barrier over it.
    let dst = site(1);
    assert!(dst.contains("cvt.u64.u32 %__gpulab_a, %r3;"), "{dst}");
    assert!(
        dst.contains("and.b64 %__gpulab_d, %__gpulab_a, 16777215;"),
        "{dst}"
    );
    assert!(dst.contains("cvt.u64.u32 %__gpulab_a, %r4;"), "{dst}");
    assert!(
        dst.contains("shl.b64 %__gpulab_a, %__gpulab_a, 32;"),
        "{dst}"
    );
    assert!(
        dst.contains("4294967295") && dst.contains("mov.b32 %__gpulab_m, %r5;"),
        "{dst}"
    );
    // Not counted by the census: the TMA writes it, and its address is not a lane's.
    assert!(site(0).contains("[__gpulab_trace_census]"));
    assert!(!dst.contains("[__gpulab_trace_census]"), "{dst}");
    assert!(
        site(2).contains(&format!("mov.u32 %__gpulab_m, {};", (1024 << 8) | 1)),
        "{}",
        site(2)
    );
    let bar = site(3);
    assert!(bar.contains("add.s32 %__gpulab_w, %r4, 8;"), "{bar}");
    assert!(
        bar.contains(&format!("mov.u32 %__gpulab_m, {};", 1024 << 8)),
        "{bar}"
    );
}

/// Atomics and reductions log the address each lane updates, like a load or store: every
/// space, vector and wide forms, with their ordering and scope qualifiers.
#[test]
fn atomics_are_traced_with_their_space_kind_and_width() {
    let body = "\tatom.global.add.u32 %r4, [%rd2], 1;\n\
                \tatom.shared.add.f32 %f1, [%r3+8], %f2;\n\
                \tred.global.add.u32 [%rd2], 1;\n\
                \tatom.relaxed.gpu.global.cas.b64 %rd3, [%rd2], %rd4, %rd5;\n\
                \t@%p1 red.release.sys.shared::cta.max.s32 [%r3], %r4;\n\
                \tatom.add.u64 %rd3, [%rd2], %rd4;\n\
                \tatom.shared::cluster.inc.u32 %r4, [%r3], 7;\n\
                \tatom.global.add.v2.f32 {%f3, %f4}, [%rd2], {%f1, %f2};\n";
    let src = module(body);
    let inst = instrument(&src).unwrap();
    let got: Vec<_> = (inst.sites.iter())
        .map(|s| (s.space(), s.kind(), s.width))
        .collect();
    let (atom, red) = (Some(AccessKind::Atomic), Some(AccessKind::Reduction));
    assert_eq!(
        got,
        [
            (Some(Space::Global), atom, 4),
            (Some(Space::Shared), atom, 4),
            (Some(Space::Global), red, 4),
            (Some(Space::Global), atom, 8),
            (Some(Space::Shared), red, 4),
            (Some(Space::Generic), atom, 8),
            (Some(Space::Cluster), atom, 4),
            (Some(Space::Global), atom, 8),
        ]
    );
    assert!(inst.sites.iter().all(|s| s.is_atomic() && s.may_split()));
    // The offset goes into the logged address; a guarded reduction says when its guard
    // is false.
    let shared = block_before(&inst.ptx, "atom.shared.add.f32 %f1");
    assert!(shared.contains("add.s32 %__gpulab_w, %r3, 8;"), "{shared}");
    let guarded = block_before(&inst.ptx, "@%p1 red.release.sys.shared::cta.max.s32");
    assert!(guarded.contains("@!%p1 mov.u32 %__gpulab_m, 4294967295;"));
    // What the SASS is read for: each atomic, by its source line, a CAS told apart (ptxas
    // makes other atomics CAS loops, never a CAS one).
    let asked = sass_accesses(&inst.sites);
    assert_eq!(asked.len(), 8);
    assert!(asked.iter().all(|a| a.line == 7 && a.atomic.is_some()));
    let cas: Vec<bool> = asked.iter().map(|a| a.atomic.unwrap().cas).collect();
    assert_eq!(cas, [false, false, false, true, false, false, false, false]);
}

#[test]
fn lines_come_from_the_original_and_its_loc() {
    let body = "\tld.global.f32 %f1, [%rd1];\n\t.loc\t2 41 9, function_name $L__info_string0, \
                inlined_at 1 81 5\n\tst.global.f32 [%rd1], %f1;\n";
    let src = module(body);
    let inst = instrument(&src).unwrap();
    let line_of = |needle: &str| src.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1;
    let s = &inst.sites;
    assert_eq!(
        (s[0].ptx_line, s[0].source_file, s[0].source_line),
        (line_of("ld.global"), Some(1), Some(7))
    );
    assert_eq!(
        (s[1].ptx_line, s[1].source_file, s[1].source_line),
        (line_of("st.global"), Some(2), Some(41))
    );
    // The store's function was inlined at line 81 of the kernel's file; the load's was not.
    assert_eq!(
        (s[0].called_at.clone(), s[1].called_at.clone()),
        (vec![], vec![81])
    );
    assert_eq!(inst.sites.iter().map(|s| s.id).collect::<Vec<_>>(), [0, 1]);
}

#[test]
fn a_helper_inlined_in_a_helper_names_every_call_it_was_inlined_through() {
    // walk() (line 55) is inlined at the kernel's lines 68 and 71; step() (line 50) at
    // walk's line 55 in each. As NVVM writes it, the call's own `.loc` comes first.
    let body = "\t.loc\t1 55 5, function_name $L__info_string1, inlined_at 1 68 9\n\
                \t.loc\t1 50 5, function_name $L__info_string2, inlined_at 1 55 5\n\
                \tld.global.u32 %r1, [%rd1];\n\
                \t.loc\t1 71 9\n\
                \t.loc\t1 55 5, function_name $L__info_string1, inlined_at 1 71 9\n\
                \t.loc\t1 50 5, function_name $L__info_string2, inlined_at 1 55 5\n\
                \tld.global.u32 %r2, [%rd1];\n";
    let inst = instrument(&module(body)).unwrap();
    let chains: Vec<Vec<u32>> = inst.sites.iter().map(|s| s.called_at.clone()).collect();
    assert_eq!(chains, [vec![55, 68], vec![55, 71]]);
}

#[test]
fn a_line_of_several_statements_is_split_in_place() {
    let body = "\t{ .reg .pred q; setp.ne.u32 q, %r1, 0; @!q ld.shared.u32 %r2, [%r3+4]; L1: st.shared.u32 [%r3], %r2; } // tail\n";
    let (inst, ptx) = one(body);
    assert_eq!(inst.sites.len(), 2);
    let guarded = block_before(&ptx, "\t@!q ld.shared.u32 %r2, [%r3+4];\n");
    assert!(guarded.contains("@q mov.u32 %__gpulab_m, 4294967295;"));
    // The label stays in front of the logging, so a jump to it is still traced.
    let label = ptx.find("L1:\n").expect("label kept on its own line");
    let store_block = ptx[label..].find("{ // gpulab trace site 1").unwrap();
    assert!(store_block < ptx[label..].find("st.shared.u32 [%r3], %r2;").unwrap());
    // The scope opens before the predicate's declaration and closes after the store.
    let open = ptx
        .find("\t{\n\t.reg .pred q;")
        .expect("scope opened on its own line");
    assert!(ptx[open..].contains("st.shared.u32 [%r3], %r2;\n\t}\n\t// tail"));
}

#[test]
fn the_logger_and_its_globals_follow_the_header() {
    let (_, ptx) = one("\tld.global.f32 %f1, [%rd1];\n");
    let entry = ptx.find(".visible .entry k(").unwrap();
    for decl in [
        ".visible .global .align 8 .u64 __gpulab_trace_buf;",
        ".visible .global .align 4 .u32 __gpulab_trace_cap;",
        ".visible .global .align 4 .u32 __gpulab_trace_count;",
        ".visible .global .align 4 .u32 __gpulab_trace_block_stride;",
        ".visible .global .align 4 .u32 __gpulab_trace_block_limit;",
        ".visible .global .align 4 .u32 __gpulab_trace_block_seed;",
        ".visible .global .align 4 .u32 __gpulab_trace_block_below;",
    ] {
        let at = ptx.find(decl).unwrap_or_else(|| panic!("{decl} missing"));
        assert!(
            ptx.find(".address_size 64").unwrap() < at && at < entry,
            "{decl}"
        );
    }
    assert!(!ptx.contains(".func"));
    // The logger's code is written out at each site, after the entry, with its own labels.
    let (_, two) = one("\tld.global.f32 %f1, [%rd1];\n\tst.global.f32 [%rd2], %f1;\n");
    assert_eq!(two.matches(SITE_CODE).count(), 2);
    assert!(two.find(SITE_CODE).unwrap() > two.find(".visible .entry k(").unwrap());
    for site in [0, 1] {
        assert_eq!(two.matches(&format!("$__gpulab_done_{site}:")).count(), 1);
    }
}

#[test]
fn refusals() {
    let src = module("\tld.global.f32 %f1, [%rd1];\n");
    let once = instrument(&src).unwrap();
    assert_eq!(
        instrument(&once.ptx),
        Err(InstrumentError::AlreadyInstrumented)
    );
    assert_eq!(
        instrument(&src.replace(".target sm_90\n", "")),
        Err(InstrumentError::NoTarget)
    );
    // A kernel that names the tracer's globals (an extern it would share with the logger)
    // or its registers (in inline asm) could read which blocks are traced.
    let seed = src.replace(
        ".visible .entry",
        ".extern .global .align 4 .u32 __gpulab_trace_block_seed;\n.visible .entry",
    );
    match instrument(&seed) {
        Err(InstrumentError::ReservedName { name, .. }) => {
            assert_eq!(name, "__gpulab_trace_block_seed")
        }
        other => panic!("{other:?}"),
    }
    let reg = module("\tselp.u32 %r1, 1, 0, %__gpulab_on;\n");
    match instrument(&reg) {
        Err(e @ InstrumentError::ReservedName { .. }) => {
            assert!(e.to_string().contains("`__gpulab_on`"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        instrument(&src.replace("sm_90", "sm_61")),
        Err(InstrumentError::OldTarget("sm_61".into()))
    );
    let undeclared = module("\tld.global.f32 %f1, [%q7];\n");
    assert!(matches!(
        instrument(&undeclared),
        Err(InstrumentError::UnknownRegister { reg, .. }) if reg == "%q7"
    ));
}

fn fixture(name: &str) -> Instrumented {
    let path = format!(
        "{}/tests/fixtures/ptx/{name}.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    instrument(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn fixture_guarded_gather() {
    let inst = fixture("gather_guarded");
    let ops: Vec<_> = inst.sites.iter().map(|s| s.op.as_str()).collect();
    assert_eq!(
        ops,
        ["ld.global.nc.u32", "ld.global.nc.f32", "st.global.f32"]
    );
    assert!(inst.sites.iter().all(|s| s.source_line == Some(49)));
}

#[test]
fn fixture_static_shared_symbol_and_atomic() {
    let inst = fixture("shared_symbol");
    let ops: Vec<_> = inst.sites.iter().map(|s| s.op.as_str()).collect();
    assert_eq!(
        ops,
        [
            "st.shared.f32",
            "bar.sync",
            "ld.shared.f32",
            "ld.shared.f32",
            "ld.shared.f32",
            "st.volatile.global.f32",
            "atom.global.add.u32"
        ]
    );
    // The barrier is a site of its own line, after the label a branch jumps to; the
    // atomic is traced like a load, its kind the PTX's until the SASS is read.
    let atom = &inst.sites[6];
    assert_eq!(
        (atom.space(), atom.kind(), atom.width),
        (Some(Space::Global), Some(AccessKind::Atomic), 4)
    );
    assert!(
        block_before(&inst.ptx, "atom.global.add.u32 \t%r5").contains("mov.b64 %__gpulab_a, %rd9;")
    );
    let bar = &inst.sites[1];
    assert!(bar.is_barrier());
    assert_eq!((bar.source_line, bar.width), (Some(91), 0));
    let label = inst.ptx.find("$L__BB0_2:").unwrap();
    assert!(inst.ptx[label..].find("gpulab trace site 1").unwrap() < 40);
    let block = block_before(
        &inst.ptx,
        "ld.shared.f32 \t%f6, [_ZZ13shared_symbolE1s+12];",
    );
    assert!(block.contains("mov.u64 %__gpulab_a, _ZZ13shared_symbolE1s;"));
    assert!(block.contains("add.s64 %__gpulab_a, %__gpulab_a, 12;"));
}

#[test]
fn fixture_generic_pointer_inside_a_device_function() {
    let inst = fixture("generic_ptr");
    let generic: Vec<_> = inst
        .sites
        .iter()
        .filter(|s| s.space() == Some(Space::Generic))
        .collect();
    assert_eq!(generic.len(), 1);
    assert_eq!(
        (generic[0].op.as_str(), generic[0].source_line),
        ("ld.f32", Some(72))
    );
    let block = block_before(&inst.ptx, "ld.f32 \t%f1, [%rd3];");
    assert!(block.contains("mov.u32 %__gpulab_m, 1028;"));
}

#[test]
fn fixture_local_and_vector_shared() {
    let local = fixture("local_array");
    let widths: Vec<_> = local
        .sites
        .iter()
        .filter(|s| s.space() == Some(Space::Local))
        .map(|s| s.width)
        .collect();
    assert_eq!(widths, [16, 16, 16, 16, 16, 16, 16, 16, 4, 4, 4]);
    let vector = fixture("shared_vector");
    let loads: Vec<_> = vector
        .sites
        .iter()
        .filter(|s| {
            s.event
                == Event::Access {
                    space: Space::Shared,
                    kind: AccessKind::Load,
                }
        })
        .map(|s| s.width)
        .collect();
    assert_eq!(loads, [8, 16]);
}

#[test]
fn each_function_tests_the_sample_once_before_its_first_instruction() {
    let f = "\n.func (.param .b32 r) f(\n\t.param .b64 f_p\n)\n{\n\t.reg .b32 \t%r<3>;\n\
             \t.reg .b64 \t%rd<3>;\n\tld.param.u64 \t%rd1, [f_p];\n\tld.global.u32 \t%r1, [%rd1];\n\
             \tst.param.b32 \t[r], %r1;\n\tret;\n}\n";
    let body = "$L_top:\n\t{\n\tld.global.f32 %f1, [%rd1];\n\t}\n\t@%p1 bra $L_top;\n";
    let src = module(body).replacen("\n.visible .entry", &format!("{f}\n.visible .entry"), 1);
    let ptx = instrument(&src).unwrap().ptx;
    let on = ".reg .pred \t%__gpulab_on;";
    assert_eq!(ptx.matches(on).count(), 2, "{ptx}");
    // In `f`: after its declarations, before its first instruction and its one site.
    let (in_f, in_k) = ptx.split_at(ptx.find(".visible .entry k(").unwrap());
    let p = in_f.find(on).unwrap();
    assert!(in_f.find("%rd<3>;").unwrap() < p && p < in_f.find("ld.param.u64").unwrap());
    // In `k`: before the label, in the body's own scope, not in the nested one.
    let p = in_k.find(on).unwrap();
    assert!(p < in_k.find("$L_top:").unwrap() && in_k.find("%f<5>;").unwrap() < p);
    for (part, sites) in [(in_f, 1), (in_k, 1)] {
        assert_eq!(part.matches("@!%__gpulab_on bra").count(), sites);
        assert!(part.find(on).unwrap() < part.find("{ // gpulab trace site").unwrap());
    }
}

/// An `ldmatrix` is a 16-byte shared load of the lanes that name rows: all 32 for x4, the
/// first 8 for x1, the others logged as lanes that took no part.
#[test]
fn a_matrix_load_logs_the_rows_its_lanes_name() {
    let body = "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];\n\
                \tldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%r1}, [%r5+32];\n";
    let inst = instrument(&module(body)).unwrap();
    assert_eq!(inst.sites.len(), 2, "{:?}", inst.sites);
    for s in &inst.sites {
        assert_eq!(s.width, 16);
        assert_eq!(
            s.event,
            Event::Access {
                space: Space::Shared,
                kind: AccessKind::Matrix
            }
        );
    }
    // Only the x1's block marks lanes past its rows.
    let blocks: Vec<&str> = inst.ptx.split("gpulab trace site").skip(1).collect();
    assert!(!blocks[0].contains("%__gpulab_p"), "{}", blocks[0]);
    assert!(
        blocks[1].contains("setp.ge.u32 %__gpulab_p, %__gpulab_w, 8;"),
        "{}",
        blocks[1]
    );
}

#[test]
fn an_acquire_load_is_logged_after_it_reads_and_a_release_store_before_it_writes() {
    let load = "ld.acquire.cluster.shared.u64 %rd2, [%rd2];";
    let store = "st.release.cluster.shared::cluster.u64 [%rd3], %rd4;";
    let (inst, ptx) = one(&format!("\t{load}\n\t{store}\n\t@%p1 {load}\n"));
    assert_eq!(inst.sites.len(), 3);
    // The load runs inside its block, after its address is taken (it overwrites the
    // register) and before the record is claimed; it is not written again after it.
    assert_eq!(ptx.matches(load).count(), 2, "{ptx}");
    let at = ptx.find(load).unwrap();
    let open = ptx[..at]
        .rfind("{ // gpulab trace site 0")
        .expect("its block");
    let taken = ptx[open..at]
        .find("%__gpulab_a")
        .expect("address taken first");
    assert!(open + taken < at);
    let claim = ptx[at..]
        .find("__gpulab_trace_count")
        .expect("slot claimed after");
    let close = ptx[at..].find("// gpulab trace site 1").unwrap();
    assert!(claim < close, "the claim is in the load's own block");
    // The release store keeps its block before it.
    let block = block_before(&ptx, store);
    assert!(block.contains("__gpulab_trace_count"));
    // A guarded acquire load keeps its guard inside the block.
    assert!(ptx.contains(&format!("@%p1 {load}")));
    let guarded = ptx.rfind(&format!("@%p1 {load}")).unwrap();
    let site2 = ptx.find("{ // gpulab trace site 2").unwrap();
    assert!(site2 < guarded);
}

#[test]
fn a_modules_own_global_variables_are_named_and_others_are_not() {
    let ptx = "\
.version 8.0
.target sm_90
.address_size 64
.extern .global .align 4 .u32 elsewhere;
.visible .global .align 8 .u64 finish_word;
.global .align 4 .b8 memo_sum[65536];
.visible .global .align 4 .u32 seeded = 7;
.const .align 4 .b8 table[64];
.shared .align 4 .b8 tile[4096];
.visible .entry k(.param .u64 p)
{
\tld.global.u32 %r1, [finish_word];
}
";
    let names = super::module_globals(ptx);
    assert_eq!(names, ["finish_word", "memo_sum", "seeded"]);
}

#[test]
fn the_lines_a_clock_is_read_on_come_from_the_loc_of_each_read() {
    let ptx = "\t.loc\t1 3 5\n\tmov.u64 %rd1, %clock64;\n\t.loc\t1 4 5\n\
               \tld.global.u32 %r1, [%rd2];\n\t.reg .b64 %clockish;\n\
               \t.loc\t2 9 1, function_name $L__info_string0, inlined_at 1 6 7\n\
               \tmov.u32 %r2, %globaltimer_lo;\n\t.loc\t1 8 1\n\
               \tmov.u64 %rd3, %clockish;\n";
    assert_eq!(clock_lines(ptx), [3, 6]);
}

#[test]
fn a_call_names_its_function_from_the_lines_nvvm_spreads_it_over() {
    let ptx = "\tcall.uni (retval0), \n\t_Z10stir_group5uint4, \n\t(\n\tparam0\n\t);\n\
               \tcall.uni \n\t_Z4tickv, \n\t(\n\t);\n\
               \tcall.uni (retval0), _Z4stirj, (param0); // one line\n\
               \tcall %rd4, (param0), prototype_0;\n";
    let lines: Vec<&str> = ptx.lines().collect();
    let names: Vec<String> = [1, 6, 10, 11]
        .iter()
        .map(|&l| super::statements::callee(&lines[l - 1..]))
        .collect();
    assert_eq!(
        names,
        ["_Z10stir_group5uint4", "_Z4tickv", "_Z4stirj", "%rd4"]
    );
}
