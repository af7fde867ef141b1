//! Control flow, collectives, memory spaces and run-time errors of the interpreter.

use super::{run_full, run_on, run_outcome, run_with, store_r9};
use crate::model::access::Space;
use crate::trace::decode::Record;

fn recs<'a>(r: &'a [Record], k: &super::Kernel, op: &str) -> Vec<&'a Record> {
    r.iter()
        .filter(|r| k.sites[r.site as usize].op == op)
        .collect()
}

#[test]
fn divergent_lanes_meet_again_after_an_if_else() {
    let body = store_r9(
        "and.b32 %r5, %r1, 31;\nsetp.lt.u32 %p1, %r5, 10;\n@%p1 bra THEN;\nmov.u32 %r9, 2;\n\
         bra.uni DONE;\nTHEN:\nmov.u32 %r9, 1;\nDONE:",
    );
    let (out, k, r) = run_full("", &body, 1, 64, 64).unwrap();
    let want: Vec<u32> = (0..64).map(|i| if i % 32 < 10 { 1 } else { 2 }).collect();
    assert_eq!(out, want);
    // The store after the join is one request per warp with every lane.
    let st = recs(&r, &k, "st.global.u32");
    assert_eq!(st.len(), 2);
    assert!(st.iter().all(|r| r.mask == u32::MAX));
}

/// Inline asm declares registers by bare names in a scope of its own (`{ .reg .u32 t; }`),
/// predicates too; two scopes may reuse a name.
#[test]
fn registers_declared_by_bare_names_in_an_asm_scope_are_registers() {
    let body = store_r9(
        "{\n.reg .u32 t;\n.reg .pred odd;\nand.b32 t, %r1, 1;\nsetp.ne.u32 odd, t, 0;\n\
         mov.u32 %r9, 5;\n@odd mov.u32 %r9, t;\n}\n{\n.reg .u32 t;\nadd.u32 t, %r9, 10;\n\
         mov.u32 %r9, t;\n}",
    );
    let (out, _, _) = run_full("", &body, 1, 32, 32).unwrap();
    let want: Vec<u32> = (0..32).map(|l| if l % 2 == 1 { 11 } else { 15 }).collect();
    assert_eq!(out, want);
}

#[test]
fn nested_loops_with_lane_varying_trip_counts() {
    // r9 = sum over i < lane of (number of j < i) = lane * (lane - 1) / 2, with a shared
    // load in the inner loop whose requests shrink as lanes finish.
    let body = store_r9(
        "mov.u32 %r9, 0;\nmov.u32 %r6, 0;\nOUTER:\nsetp.ge.u32 %p1, %r6, %r1;\n@%p1 bra END;\n\
         mov.u32 %r7, 0;\nINNER:\nsetp.ge.u32 %p2, %r7, %r6;\n@%p2 bra NEXT;\n\
         add.s32 %r9, %r9, 1;\nadd.s32 %r7, %r7, 1;\nbra.uni INNER;\nNEXT:\nadd.s32 %r6, %r6, 1;\n\
         bra.uni OUTER;\nEND:",
    );
    let (out, _, _) = run_full("", &body, 1, 32, 32).unwrap();
    assert_eq!(
        out,
        (0..32u32)
            .map(|l| l * l.saturating_sub(1) / 2)
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_barrier_orders_one_warps_store_before_anothers_load() {
    let pre = ".shared .align 4 .b32 flag[2];";
    let body = store_r9(
        "mov.u32 %r9, 0;\nsetp.ne.u32 %p1, %r1, 32;\n@%p1 bra WAIT;\nmov.u32 %r6, 77;\n\
         st.shared.u32 [flag], %r6;\nWAIT:\nbar.sync 0;\nld.shared.u32 %r9, [flag];",
    );
    let (out, k, r) = run_full(pre, &body, 1, 64, 64).unwrap();
    assert!(out.iter().all(|&v| v == 77), "{out:?}");
    let bars: Vec<_> = r
        .iter()
        .filter(|r| k.sites[r.site as usize].is_barrier())
        .collect();
    assert_eq!(bars.len(), 2);
    let st = recs(&r, &k, "st.shared.u32");
    assert_eq!((st.len(), st[0].mask, st[0].addrs[0]), (1, 1, 1024));
}

#[test]
fn shuffles_move_values_between_lanes() {
    for (mode, c, want) in [
        (
            "down",
            "31",
            (0..32)
                .map(|l| if l + 3 < 32 { l + 3 } else { l })
                .collect::<Vec<u32>>(),
        ),
        (
            "up",
            "0",
            (0..32).map(|l| if l >= 3 { l - 3 } else { l }).collect(),
        ),
        ("bfly", "31", (0..32).map(|l| l ^ 3).collect()),
        ("idx", "31", vec![3; 32]),
    ] {
        let body = store_r9(&format!("shfl.sync.{mode}.b32 %r9|%p1, %r1, 3, {c}, -1;"));
        let (out, _) = run_on(&body, 1, 32, 32).unwrap();
        assert_eq!(out, want, "{mode}");
    }
    let body = store_r9("setp.lt.u32 %p1, %r1, 5;\nvote.sync.ballot.b32 %r9, %p1, -1;");
    assert_eq!(run_on(&body, 1, 32, 32).unwrap().0, vec![0x1f; 32]);
}

#[test]
fn redux_folds_every_lane_of_the_warp() {
    // %r1 is the lane: 0 + 1 + ... + 31 = 496; signed min of (lane - 16) is -16.
    for (op, set, want) in [
        ("add.u32", "", 496u32),
        ("max.u32", "", 31),
        ("min.s32", "sub.s32 %r1, %r1, 16;\n", (-16i32) as u32),
        ("or.b32", "", 31),
        ("xor.b32", "", 0),
        ("and.b32", "or.b32 %r1, %r1, 64;\n", 64),
    ] {
        let body = store_r9(&format!("{set}redux.sync.{op} %r9, %r1, -1;"));
        assert_eq!(run_on(&body, 1, 32, 32).unwrap().0, vec![want; 32], "{op}");
    }
}

#[test]
fn a_predicated_store_logs_only_its_lanes() {
    let body = "ld.param.u64 %rd1, [k_out];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 4;\n\
                add.s64 %rd3, %rd1, %rd2;\nsetp.lt.u32 %p1, %r1, 4;\n@%p1 st.global.u32 [%rd3], %r1;\nret;";
    let (out, k, r) = run_full("", body, 1, 32, 32).unwrap();
    assert_eq!(&out[..5], &[0, 1, 2, 3, 0xEEEE_EEEE]);
    let st = recs(&r, &k, "st.global.u32");
    assert_eq!((st.len(), st[0].mask), (1, 0b1111));
}

#[test]
fn calls_pass_parameters_and_return_values_through_param_frames() {
    let pre = ".func (.param .b32 ret) twice(.param .b32 x, .param .align 4 .b8 pair[8])\n{\n\
               .reg .b32 %a<4>;\nld.param.b32 %a1, [x];\nld.param.b32 %a2, [pair+4];\n\
               add.s32 %a3, %a1, %a1;\nadd.s32 %a3, %a3, %a2;\nst.param.b32 [ret], %a3;\nret;\n}";
    let body = store_r9(
        "{\n.param .b32 p0;\nst.param.b32 [p0], %r1;\n.param .align 4 .b8 p1[8];\n\
         st.param.b32 [p1+4], 100;\n.param .b32 r0;\ncall.uni (r0),\ntwice,\n(p0, p1);\n\
         ld.param.b32 %r9, [r0];\n}",
    );
    let (out, _, _) = run_full(pre, &body, 1, 32, 32).unwrap();
    assert_eq!(out, (0..32).map(|l| 2 * l + 100).collect::<Vec<u32>>());
}

#[test]
fn a_call_logs_the_lanes_that_make_it_under_a_site_numbered_after_the_others() {
    // Lanes 0-9 call `twice` twice, a loop of two turns; the others never call it.
    let pre = ".func (.param .b32 ret) twice(.param .b32 x)\n{\n.reg .b32 %a<4>;\n\
               ld.param.b32 %a1, [x];\nadd.s32 %a3, %a1, %a1;\nst.param.b32 [ret], %a3;\nret;\n}";
    let body = store_r9(
        "mov.u32 %r9, %r1;\nand.b32 %r5, %r1, 31;\nsetp.ge.u32 %p1, %r5, 10;\n@%p1 bra DONE;\n\
         mov.u32 %r6, 0;\nAGAIN:\n{\n.param .b32 p0;\nst.param.b32 [p0], %r9;\n.param .b32 r0;\n\
         call.uni (r0),\ntwice,\n(p0);\nld.param.b32 %r9, [r0];\n}\nadd.s32 %r6, %r6, 1;\n\
         setp.lt.u32 %p2, %r6, 2;\n@%p2 bra AGAIN;\nDONE:",
    );
    let (out, k, r) = run_full(pre, &body, 1, 64, 64).unwrap();
    let want: Vec<u32> = (0..64)
        .map(|i| if i % 32 < 10 { 4 * i } else { i })
        .collect();
    assert_eq!(out, want);
    let calls = recs(&r, &k, "call.uni");
    // Two turns in each of two warps, ten lanes each.
    assert_eq!(calls.len(), 4);
    assert!(calls.iter().all(|r| r.mask == (1 << 10) - 1), "{calls:?}");
    let site = &k.sites[calls[0].site as usize];
    assert_eq!(site.event, crate::trace::instrument::Event::Call);
    // The store's site keeps the id it had before calls were logged: the call comes last.
    assert_eq!(site.id as usize, k.sites.len() - 1);
    let m = crate::trace::analyze::analyze_shaped(&r, &k.sites, &[]);
    assert_eq!(m.calls, 40);
}

#[test]
fn the_work_a_called_function_does_is_counted_apart_from_its_callers() {
    // Every lane calls `twice` once: its four instructions (the parameter's load, the add,
    // the result's store and `ret`) run in its frame, the rest in the kernel's.
    let pre = ".func (.param .b32 ret) twice(.param .b32 x)\n{\n.reg .b32 %a<4>;\n\
               ld.param.b32 %a1, [x];\nadd.s32 %a3, %a1, %a1;\nst.param.b32 [ret], %a3;\nret;\n}";
    let call = "{\n.param .b32 p0;\nst.param.b32 [p0], %r1;\n.param .b32 r0;\n\
                call.uni (r0),\ntwice,\n(p0);\nld.param.b32 %r9, [r0];\n}";
    let work = |body: &str| {
        let ran = run_outcome(pre, &store_r9(body), [2, 64, 1], 128, (false, None, false));
        ran.unwrap_or_else(|e| panic!("{e:?}")).2.trace.stream.work
    };
    let called = work(call);
    // Four warps, a step of 32 lanes each for the function's four instructions.
    assert_eq!(called.in_calls, 4 * 32 * 4);
    assert!(called.thread_steps > called.in_calls);
    let share = called.pct();
    assert!(share > 0.0 && share < 100.0, "{share}");
    // The same add inline: nothing runs in a called function.
    let inline = work("add.s32 %r9, %r1, %r1;");
    assert_eq!((inline.in_calls, inline.pct()), (0, 0.0));
    assert!(inline.thread_steps > 0);
}

#[test]
fn a_shuffle_and_a_redux_log_the_lanes_that_take_part() {
    // Lanes 0-15 shuffle (a member mask of theirs); every lane then folds with redux.
    let body = store_r9(
        "and.b32 %r5, %r1, 31;\nsetp.lt.u32 %p2, %r5, 16;\n@!%p2 bra SKIP;\n\
         shfl.sync.bfly.b32 %r9, %r1, 1, 31, 65535;\nSKIP:\n\
         redux.sync.add.u32 %r9, %r1, -1;",
    );
    let (_, k, r) = run_full("", &body, 2, 64, 128).unwrap();
    let shfl = recs(&r, &k, "shfl.sync.bfly.b32");
    // Two warps in each of two blocks: 4 records of 16 lanes.
    assert_eq!(shfl.len(), 4);
    assert!(shfl.iter().all(|r| r.mask == 0xFFFF), "{shfl:?}");
    let site = &k.sites[shfl[0].site as usize];
    assert_eq!(site.event, crate::trace::instrument::Event::Shuffle);
    // The store keeps its id: shuffles are numbered last.
    let store = k.sites.iter().find(|s| s.op.starts_with("st.")).unwrap();
    assert!(
        k.sites
            .iter()
            .all(|s| s.event != site.event || s.id > store.id)
    );
    let m = crate::trace::analyze::analyze_shaped(&r, &k.sites, &[]);
    assert_eq!(m.shuffles, 4 * 16 + 4 * 32);
}

#[test]
fn a_vote_and_a_match_are_exchanges_in_registers_too() {
    // 32 ballots hand every lane every other lane's word, a bit plane each: a vote is
    // counted with the shuffles, as a match is, lane for lane.
    let body = store_r9(
        "setp.ne.u32 %p2, %r1, 0;
vote.sync.ballot.b32 %r9, %p2, -1;
         match.any.sync.b32 %r8, %r1, -1;
add.u32 %r9, %r9, %r8;",
    );
    let (_, k, r) = run_full("", &body, 2, 64, 128).unwrap();
    for op in ["vote.sync.ballot.b32", "match.any.sync.b32"] {
        let site = k.sites.iter().find(|s| s.op == op).unwrap();
        assert_eq!(site.event, crate::trace::instrument::Event::Shuffle, "{op}");
        assert_eq!(recs(&r, &k, op).len(), 4, "{op}");
    }
    let m = crate::trace::analyze::analyze_shaped(&r, &k.sites, &[]);
    assert_eq!(m.shuffles, 2 * 4 * 32);
}

#[test]
fn vector_loads_and_generic_pointers_resolve_to_their_spaces() {
    let pre = ".shared .align 16 .b8 tile[512];";
    let body = store_r9(
        "ld.param.u64 %rd5, [k_in];\nmul.wide.u32 %rd6, %r1, 16;\nadd.s64 %rd7, %rd5, %rd6;\n\
         ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd7];\n\
         mov.u64 %rd8, tile;\ncvta.shared.u64 %rd9, %rd8;\nmul.wide.u32 %rd10, %r1, 4;\n\
         add.s64 %rd11, %rd9, %rd10;\nst.u32 [%rd11], %r13;\nld.u32 %r9, [%rd11];",
    );
    let (out, k, r) = run_full(pre, &body, 1, 32, 128).unwrap();
    assert_eq!(
        &out[..32],
        &(0..32).map(|l| 4 * l + 3).collect::<Vec<u32>>()[..]
    );
    let v = recs(&r, &k, "ld.global.v4.u32");
    assert_eq!((v[0].width, v[0].space), (16, Space::Global));
    let g = recs(&r, &k, "st.u32");
    assert_eq!((g[0].space, g[0].addrs[1]), (Space::Shared, 1024 + 4));
}

#[test]
fn run_time_errors_name_their_place() {
    let divergent =
        store_r9("setp.lt.u32 %p1, %r1, 4;\n@%p1 bra SKIP;\nbar.sync 0;\nSKIP:\nmov.u32 %r9, 0;");
    let e = run_on(&divergent, 1, 32, 32).unwrap_err();
    assert!(e.why.starts_with("divergent barrier"), "{e}");
    // Three header lines, a blank, five of signature and registers, five of prologue.
    assert_eq!((e.warp, e.place.unwrap().ptx_line), (0, 20));
    let shfl = store_r9(
        "setp.lt.u32 %p1, %r1, 4;\n@%p1 bra SKIP;\nshfl.sync.idx.b32 %r9, %r1, 0, 31, -1;\nSKIP:",
    );
    let e = run_on(&shfl, 1, 32, 32).unwrap_err();
    assert!(e.why.contains("bad membermask"), "{e}");
    let spin = store_r9("SPIN:\nbra.uni SPIN;");
    let e = run_on(&spin, 1, 32, 32).unwrap_err();
    assert!(e.why.contains("step budget exceeded"), "{e}");
    let oob = store_r9("mov.u32 %r9, 1;\nadd.s32 %r4, %r4, 30;");
    let e = run_on(&oob, 2, 32, 40).unwrap_err();
    assert!(
        e.why.contains("out-of-bounds global access: lane 10"),
        "{e}"
    );
    // The whole instruction is named: a vector's lanes reach past the end word by word, and
    // the word named is only where its first did.
    assert!(e.why.contains("`st.global.u32"), "{e}");
    assert_eq!((e.block, e.warp, e.lanes), ([0, 0, 0], 0, 1 << 10));
    assert!(e.to_string().contains("PTX line"), "{e}");
}

#[test]
fn printf_writes_its_format_with_each_lanes_arguments() {
    use super::super::{Plan, block::Launch, mem::Memory, prepare, run};
    // "t=%d\n" as NVRTC lays out a format string and a call to vprintf.
    let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .extern .func (.param .b32 func_retval0) vprintf\n(\n.param .b64 vprintf_param_0,\n\
        .param .b64 vprintf_param_1\n)\n;\n\
        .global .align 1 .b8 $str[6] = {116, 61, 37, 100, 10, 0};\n\
        .visible .entry k()\n{\n.local .align 8 .b8 __local_depot0[8];\n.reg .b64 %SP;\n\
        .reg .b64 %SPL;\n.reg .b32 %r<3>;\n.reg .b64 %rd<5>;\n\
        mov.u64 %SPL, __local_depot0;\ncvta.local.u64 %SP, %SPL;\nadd.u64 %rd1, %SP, 0;\n\
        add.u64 %rd2, %SPL, 0;\nmov.u32 %r1, %tid.x;\nst.local.u32 [%rd2], %r1;\n\
        mov.u64 %rd3, $str;\ncvta.global.u64 %rd4, %rd3;\n{ // callseq 0, 0\n\
        .param .b64 param0;\nst.param.b64 [param0], %rd4;\n.param .b64 param1;\n\
        st.param.b64 [param1], %rd1;\n.param .b32 retval0;\n\
        call.uni (retval0),\nvprintf,\n(\nparam0,\nparam1\n);\nld.param.b32 %r2, [retval0];\n\
        } // callseq 0\nret;\n}\n";
    let k = prepare(ptx, "k").unwrap();
    let l = Launch {
        grid: [1, 1, 1],
        block: [3, 1, 1],
        dyn_smem: 0,
        params: vec![],
        cluster: [1, 1, 1],
        clock_scale: 0,
        perturb: None,
        reverse_warps: false,
        observe: None,
        timed_delay: None,
        cas_interference: None,
        deal: 0,
    };
    let plan = Plan {
        budget: 1000,
        ..Plan::default()
    };
    let mut mem = Memory {
        module: k.prog.globals.clone(),
        ..Memory::default()
    };
    let out = run(&k, &mut mem, &l, &plan).unwrap();
    assert_eq!(out.printed, "t=0\nt=1\nt=2\n");
}

#[test]
fn a_global_access_at_a_negative_index_is_an_error_with_its_lane() {
    // Lane 3 reads 4 bytes below address 0 (its end wraps past 2^64); the others read the
    // input. In a whole run, and in a trace-only one, where the load's value feeds nothing
    // the trace holds and the lanes' range is checked at once.
    let body = store_r9(
        "ld.param.u64 %rd6, [k_in];\ncvta.to.global.u64 %rd6, %rd6;\n\
         setp.eq.u32 %p1, %r1, 3;\nselp.b64 %rd7, -4, %rd6, %p1;\n\
         ld.global.u32 %r9, [%rd7];",
    );
    for traced_only in [false, true] {
        let e = run_with("", &body, [1, 32, 1], 32, traced_only).unwrap_err();
        assert!(e.why.contains("out-of-bounds global access: lane 3"), "{e}");
    }
}

/// The bf16 conversions that feed the tensor cores: one float narrowed (ties to even), a
/// pair packed with the first operand in the upper half, and a bf16 widened back.
#[test]
fn bf16_conversions_round_to_even_and_pack_the_first_operand_high() {
    // Lane t's float has low bits t * 0x4000: exact, below, halfway and above halfway.
    let setup = "mul.lo.u32 %r5, %r1, 16384;\nadd.u32 %r5, %r5, 1065353216;\n\
                 xor.b32 %r7, %r5, -2147483648;";
    let f = |t: u32| 0x3f80_0000u32 + t * 0x4000;
    let rne = crate::interp::matrix::bf16_rne;
    let run = |tail: &str| {
        let body = store_r9(&format!("{setup}\n{tail}"));
        run_on(&body, 1, 32, 32).unwrap().0
    };
    let narrow = run("cvt.rn.bf16.f32 %r9, %r5;");
    assert_eq!(
        narrow,
        (0..32).map(|t| u32::from(rne(f(t)))).collect::<Vec<_>>()
    );
    assert_eq!(&narrow[..4], [0x3f80, 0x3f80, 0x3f80, 0x3f81]);
    let pair = run("cvt.rn.bf16x2.f32 %r9, %r5, %r7;");
    let want = |t: u32| u32::from(rne(f(t))) << 16 | u32::from(rne(f(t) ^ 0x8000_0000));
    assert_eq!(pair, (0..32).map(want).collect::<Vec<_>>());
    let widened = run("cvt.rn.bf16.f32 %r6, %r5;\ncvt.f32.bf16 %r9, %r6;");
    assert_eq!(
        widened,
        (0..32)
            .map(|t| u32::from(rne(f(t))) << 16)
            .collect::<Vec<_>>()
    );
}

/// A perturbed site's loads reach their registers changed, each lane's its own way, and
/// are counted; another site's, and stores, are untouched. Here site A's value is the
/// output and site B's is masked to nothing before it is added.
#[test]
fn a_perturbed_load_site_changes_what_its_lanes_read_and_no_other_site() {
    use super::super::block::Perturb;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let body = store_r9(
        ".shared .align 4 .b8 tile[128];\nmov.u32 %r5, tile;\nshl.b32 %r6, %r1, 2;\n\
         add.u32 %r7, %r5, %r6;\nst.shared.u32 [%r7], %r4;\nbar.sync 0;\n\
         ld.shared.u32 %r9, [%r7];\nxor.b32 %r8, %r6, 4;\nadd.u32 %r8, %r5, %r8;\n\
         ld.shared.u32 %r10, [%r8];\nand.b32 %r10, %r10, 0;\nadd.u32 %r9, %r9, %r10;",
    );
    let plain = super::run_on(&body, 1, 32, 32).unwrap();
    assert_eq!(plain.0, (0..32).collect::<Vec<u32>>());
    let sites: Vec<u32> = (plain.1.sites.iter())
        .filter(|s| s.op.starts_with("ld.shared"))
        .map(|s| s.id)
        .collect();
    assert_eq!(sites.len(), 2, "{:?}", plain.1.sites);
    let run = |site| {
        let hits = Arc::new(AtomicU64::new(0));
        let p = Perturb {
            hits: hits.clone(),
            ..Perturb::site(Space::Shared, site)
        };
        let out = super::run_perturbed("", &body, [1, 32, 1], 32, (false, Some(p))).unwrap();
        (out.0, hits.load(Ordering::Relaxed))
    };
    let (a, hits) = run(sites[0]);
    assert_eq!(hits, 32, "every lane's value");
    assert!(
        a.iter().zip(0..).all(|(&got, want)| got != want),
        "every lane's value changed: {a:?}"
    );
    let distinct: std::collections::HashSet<u32> =
        (a.iter().zip(0u32..)).map(|(&g, w)| g ^ w).collect();
    assert!(
        distinct.len() > 16,
        "each lane flipped its own way: {distinct:?}"
    );
    let (b, hits) = run(sites[1]);
    assert_eq!(hits, 32);
    assert_eq!(b, plain.0, "the masked load feeds nothing");
}

/// Warp 1 reads the shared word warp 0 writes, with no barrier between: run first to last
/// it reads the value, last to first the poison left before the write. With the barrier,
/// both orders read the value.
#[test]
fn warps_taking_their_turns_last_to_first_show_a_handover_nothing_orders() {
    let body = |sync: &str| {
        store_r9(&format!(
            ".shared .align 4 .b32 w;\nmov.u32 %r5, w;\nsetp.eq.u32 %p1, %r1, 0;\n\
             @%p1 st.shared.u32 [%r5], 7;\n{sync}ld.shared.u32 %r9, [%r5];"
        ))
    };
    let run = |body: &str, reverse| {
        super::run_ordered("", body, [1, 64, 1], 64, (false, None, reverse))
            .unwrap()
            .0
    };
    let bare = body("");
    assert_eq!(run(&bare, false), vec![7; 64], "first to last");
    let reversed = run(&bare, true);
    assert!(
        reversed[32..].iter().all(|&x| x != 7),
        "warp 1 ran first: {reversed:?}"
    );
    let synced = body("bar.sync 0;\n");
    assert_eq!(run(&synced, true), vec![7; 64], "a barrier orders them");
}

/// An atomic site left out updates nothing, each lane still reading the old word, and its
/// lanes are counted; an add of zero left out changes nothing. Here every lane adds its
/// index to one shared counter (site A), then adds zero to it (site B), and reads it.
#[test]
fn an_atomic_site_left_out_updates_nothing_and_an_add_of_zero_changes_nothing() {
    use super::super::block::Perturb;
    use crate::model::results::{PerturbOf, Perturbing};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let body = store_r9(
        ".shared .align 4 .b32 cnt;\nmov.u32 %r5, cnt;\nsetp.eq.u32 %p1, %r1, 0;\n\
         @%p1 st.shared.u32 [%r5], 0;\nbar.sync 0;\natom.shared.add.u32 %r11, [%r5], %r1;\n\
         mov.u32 %r12, 0;\natom.shared.add.u32 %r13, [%r5], %r12;\nbar.sync 0;\n\
         ld.shared.u32 %r9, [%r5];",
    );
    let plain = super::run_on(&body, 1, 32, 32).unwrap();
    assert_eq!(plain.0, vec![496; 32]);
    let sites: Vec<u32> = (plain.1.sites.iter())
        .filter(|s| s.op.starts_with("atom.shared"))
        .map(|s| s.id)
        .collect();
    assert_eq!(sites.len(), 2, "{:?}", plain.1.sites);
    let run = |site| {
        let hits = Arc::new(AtomicU64::new(0));
        let on = Perturbing {
            space: Space::Shared,
            of: PerturbOf::Atomics,
        };
        let p = Perturb {
            hits: hits.clone(),
            ..Perturb::of(on, site)
        };
        let out = super::run_perturbed("", &body, [1, 32, 1], 32, (false, Some(p))).unwrap();
        (out.0, hits.load(Ordering::Relaxed))
    };
    assert_eq!(run(sites[0]), (vec![0; 32], 32), "the adds left out");
    assert_eq!(
        run(sites[1]),
        (plain.0.clone(), 32),
        "the add of zero feeds nothing"
    );
    // A load perturbation leaves atomics alone.
    let p = Perturb::site(Space::Shared, sites[0]);
    let out = super::run_perturbed("", &body, [1, 32, 1], 32, (false, Some(p))).unwrap();
    assert_eq!(out.0, plain.0);
}

/// A site a loop runs three times, only its last pass's value kept: perturbing each warp's
/// first execution leaves the output as it was, its last changes it, and the run counts
/// how many times the warp ran the site.
#[test]
fn one_execution_of_a_looped_load_site_is_perturbed_alone_and_the_executions_counted() {
    use super::super::block::Perturb;
    use std::sync::atomic::Ordering;
    let body = store_r9(
        ".shared .align 4 .b8 tile[128];\nmov.u32 %r5, tile;\nshl.b32 %r6, %r1, 2;\n\
         add.u32 %r7, %r5, %r6;\nst.shared.u32 [%r7], %r4;\nbar.sync 0;\nmov.u32 %r12, 0;\n\
         $L_pass:\nld.shared.u32 %r9, [%r7];\nadd.u32 %r12, %r12, 1;\n\
         setp.lt.u32 %p1, %r12, 3;\n@%p1 bra $L_pass;",
    );
    let plain = super::run_on(&body, 1, 32, 32).unwrap();
    assert_eq!(plain.0, (0..32).collect::<Vec<u32>>());
    let site = (plain.1.sites.iter())
        .find(|s| s.op.starts_with("ld.shared"))
        .map(|s| s.id)
        .unwrap();
    let run = |execution| {
        let p = Perturb {
            execution,
            ..Perturb::site(Space::Shared, site)
        };
        let (hits, most) = (p.hits.clone(), p.most.clone());
        let out = super::run_perturbed("", &body, [1, 32, 1], 32, (false, Some(p))).unwrap();
        let (hits, most) = (hits.load(Ordering::Relaxed), most.load(Ordering::Relaxed));
        (out.0 != plain.0, hits, most)
    };
    assert_eq!(run(None), (true, 96, 3), "every pass perturbed");
    assert_eq!(run(Some(0)), (false, 32, 3), "the first pass feeds nothing");
    assert_eq!(run(Some(1)), (false, 32, 3));
    assert_eq!(run(Some(2)), (true, 32, 3), "the last pass is the output");
}

/// A kernel that asks how many SMs it runs on is told the modelled GPU's (an interpreter
/// that said 0 was told apart from a GPU by a kernel that then took another path), each
/// block an SM in turn; a special register the interpreter does not model is refused in
/// words, not read as 0.
#[test]
fn nsmid_reads_the_modelled_gpus_sms_and_an_unmodelled_special_is_refused() {
    use super::super::block::MODELLED_SMS;
    let (out, _) = super::run_on(&store_r9("mov.u32 %r9, %nsmid;"), 2, 32, 64).unwrap();
    assert!(out.iter().all(|&x| x == MODELLED_SMS), "{out:?}");
    let (out, _) = super::run_on(&store_r9("mov.u32 %r9, %smid;"), 3, 32, 96).unwrap();
    assert_eq!(out[0], 0);
    assert_eq!(out[32], 1);
    assert_eq!(out[95], 2);
    for name in ["%pm0", "%envreg3", "%gridid", "%clock_hi"] {
        let ptx = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n\
             .param .u64 k_out\n)\n{{\n.reg .b32 %r<10>;\nmov.u32 %r9, {name};\nret;\n}}\n"
        );
        let err = super::super::prepare(&ptx, "k").map(|_| ()).unwrap_err();
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
}

/// The blocks are dealt over the SMs and their warp slots as a hash of the launch's deal
/// says, as a GPU's scheduler does beyond a kernel's knowledge: no block's `%smid` is
/// bound to its index, nor `%warpid` to its place in the block, and `%nwarpid` reads an
/// SM's warp slots, not the block's warps (a kernel that compared them with what it knew
/// fenced on the interpreter alone).
#[test]
fn the_blocks_are_dealt_over_the_sms_and_warp_slots_by_the_launchs_deal() {
    use super::super::block::{MODELLED_SMS, MODELLED_WARP_SLOTS};
    let ran = |reg: &str, deal: u64| {
        let body = store_r9(&format!("mov.u32 %r9, {reg};"));
        let (out, _, _) =
            super::run_launched("", &body, [64, 64, 1], 64 * 64, (false, None, false), |l| {
                l.deal = deal
            })
            .unwrap();
        out
    };
    assert!(ran("%nwarpid", 7).iter().all(|&x| x == MODELLED_WARP_SLOTS));
    let (a, b) = (ran("%smid", 7), ran("%smid", 8));
    assert!(a.iter().chain(&b).all(|&x| x < MODELLED_SMS));
    // One SM a block, the same for all its threads; another deal, other SMs.
    assert!(a.chunks(64).all(|blk| blk.iter().all(|&x| x == blk[0])));
    let in_turn = (0..64u32)
        .filter(|&blk| a[blk as usize * 64] == blk)
        .count();
    assert!(
        in_turn < 8,
        "{in_turn} of 64 blocks on the SM of their index"
    );
    assert_ne!(a, b);
    // Each warp of a block its own slot, its warps' slots not their places in the block.
    let w = ran("%warpid", 7);
    assert!(w.iter().all(|&x| x < MODELLED_WARP_SLOTS));
    let placed = (0..64usize).filter(|&blk| w[blk * 64] == 0 && w[blk * 64 + 32] == 1);
    assert!(placed.count() < 8);
    assert!((0..64usize).all(|blk| w[blk * 64] != w[blk * 64 + 32]));
    // A deal of 0 (a unit test's) deals them in turn.
    assert_eq!(ran("%smid", 0)[64 * 5], 5);
}

/// A perturbed float load keeps its exponent: each lane's value changes, and none of
/// them turns NaN or infinite (a decoy `x != x` would see a NaN and pass it on).
#[test]
fn a_perturbed_float_load_stays_finite() {
    use super::super::block::Perturb;
    let body = store_r9(
        ".shared .align 4 .b8 tile[128];\n.reg .f32 %f<4>;\nmov.u32 %r5, tile;\n\
         shl.b32 %r6, %r1, 2;\nadd.u32 %r7, %r5, %r6;\ncvt.rn.f32.u32 %f1, %r4;\n\
         add.f32 %f1, %f1, 0f3FC00000;\nst.shared.f32 [%r7], %f1;\nbar.sync 0;\n\
         ld.shared.f32 %f2, [%r7];\nmov.b32 %r9, %f2;",
    );
    let plain = super::run_on(&body, 1, 32, 32).unwrap();
    let site = (plain.1.sites.iter())
        .find(|s| s.op.starts_with("ld.shared"))
        .map(|s| s.id)
        .unwrap();
    let p = Perturb::site(Space::Shared, site);
    let out = super::run_perturbed("", &body, [1, 32, 1], 32, (false, Some(p))).unwrap();
    for (lane, (&got, &was)) in out.0.iter().zip(&plain.0).enumerate() {
        let (got, was) = (f32::from_bits(got), f32::from_bits(was));
        assert!(
            got.is_finite() && got != was,
            "lane {lane}: {was} became {got}"
        );
    }
}

/// An instruction the interpreter does not model is refused when a lane reaches it, not
/// when the kernel is read: behind a branch no thread takes it changes nothing (a kernel
/// could otherwise make every check one only a GPU judges), and reached it halts the run
/// as `Halt::Unmodelled`, saying which instruction.
#[test]
fn an_unmodelled_instruction_is_refused_only_where_a_lane_runs_it() {
    let unmodelled = "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r1], 4;";
    let skipped = store_r9(&format!(
        ".reg .pred %p<2>;\nmov.u32 %r9, %r4;\nsetp.gt.u32 %p1, %r4, 1000;\n@!%p1 bra $L_done;\n\
         {unmodelled}\n$L_done:"
    ));
    let (out, _) = super::run_on(&skipped, 1, 32, 32).unwrap();
    assert_eq!(out, (0..32).collect::<Vec<u32>>());
    let reached = store_r9(&format!("mov.u32 %r9, %r4;\n{unmodelled}"));
    let err = super::run_on(&reached, 1, 32, 32).map(|_| ()).unwrap_err();
    assert_eq!(err.halt, super::super::Halt::Unmodelled);
    assert!(err.to_string().contains("cp.reduce.async"), "{err}");
    let as_cpu = crate::interp::lesson::CpuError::from(err);
    assert!(
        matches!(as_cpu, crate::interp::lesson::CpuError::NeedsGpu(_)),
        "{as_cpu}"
    );
}

/// The clocks read as a GPU's do, not from 0: `%globaltimer` in nanoseconds since 1970 and
/// `%clock64` an SM's cycles since long before the launch. A kernel that kept a barrier
/// only where `%globaltimer` read small (since the launch, as the interpreter's once did)
/// passed on the CPU and raced on a GPU.
#[test]
fn the_clocks_read_as_large_as_a_gpus() {
    let high = |reg: &str| {
        store_r9(&format!(
            "mov.u64 %rd5, {reg};\nshr.u64 %rd6, %rd5, 32;\ncvt.u32.u64 %r9, %rd6;"
        ))
    };
    let (timer, _) = super::run_on(&high("%globaltimer"), 1, 32, 32).unwrap();
    // 2^32 ns is 4.3 s: since 1970, the high word is past 390 million.
    assert!(timer.iter().all(|&h| h > 390_000_000), "{timer:?}");
    let (clock, _) = super::run_on(&high("%clock64"), 1, 32, 32).unwrap();
    assert!(clock.iter().all(|&h| h > 1000), "{clock:?}");
}

/// `%globaltimer` moves with the steps as `%clock64` does, at a GPU's ratio (1.98 cycles a
/// nanosecond), not one for one: a kernel that spun a while and compared the two read the
/// same count from both here, and nowhere else, and took the taught path only then.
#[test]
fn the_timer_moves_with_the_clock_at_a_gpus_ratio() {
    let body = "mov.u64 %rd10, %clock64;\nmov.u64 %rd11, %globaltimer;\nmov.u32 %r20, 0;\n\
                SPIN:\nadd.s32 %r20, %r20, 1;\nsetp.lt.s32 %p1, %r20, 4000;\n@%p1 bra SPIN;\n\
                mov.u64 %rd12, %clock64;\nmov.u64 %rd13, %globaltimer;\n\
                sub.s64 %rd14, %rd12, %rd10;\nsub.s64 %rd15, %rd13, %rd11;\n\
                mul.lo.s64 %rd14, %rd14, 1000;\ndiv.u64 %rd16, %rd14, %rd15;\n\
                cvt.u32.u64 %r9, %rd16;";
    let (per_kilo_ns, _) = super::run_on(&store_r9(body), 1, 32, 32).unwrap();
    // Cycles per thousand nanoseconds: 1980 at 1.98 GHz, within the timer's rounding.
    assert!(
        per_kilo_ns.iter().all(|&c| (1975..=1985).contains(&c)),
        "{per_kilo_ns:?}"
    );
}

/// `sin.approx.f32` is not the rounded exact sine, as a GPU's almost never is: a kernel that
/// compared its sines with the exact ones could tell it runs here. A result a float holds
/// exactly stays so (2^3 is 8).
#[test]
fn approximate_functions_are_not_exact() {
    let sine = "cvt.rn.f32.u32 %r20, %r4;\nadd.f32 %r20, %r20, 0f3F000000;\n\
                sin.approx.f32 %r9, %r20;";
    let (got, _) = super::run_on(&store_r9(sine), 1, 64, 64).unwrap();
    let exact = (0..64u32).map(|i| ((i as f32 + 0.5) as f64).sin() as f32);
    let off = got.iter().zip(exact).filter(|(g, e)| **g != e.to_bits());
    let off: Vec<_> = off
        .map(|(g, e)| (f32::from_bits(*g) - e).abs() / e.abs())
        .collect();
    assert_eq!(off.len(), 64, "every sine is moved off the exact one");
    assert!(
        off.iter().all(|&r| r < 1e-6),
        "by a unit in the last place: {off:?}"
    );
    let power = "mov.b32 %r20, 0f40400000;\nex2.approx.f32 %r9, %r20;";
    let (got, _) = super::run_on(&store_r9(power), 1, 32, 32).unwrap();
    assert!(got.iter().all(|&g| f32::from_bits(g) == 8.0), "{got:?}");
}

/// `lop3` looks each bit up in its table (`a` the highest index bit), and `prmt` picks bytes
/// of `b:a`, by nibble (the top bit replicating a byte's sign) or by a fixed pattern.
#[test]
fn lop3_looks_up_each_bit_and_prmt_picks_bytes() {
    let run = |tail: &str| {
        let setup = "mul.lo.u32 %r5, %r1, 2654435761;\nxor.b32 %r6, %r5, 2863311530;\n\
                     mul.lo.u32 %r7, %r1, 40503;";
        run_on(&store_r9(&format!("{setup}\n{tail}")), 1, 32, 32)
            .unwrap()
            .0
    };
    let a = |t: u32| t.wrapping_mul(2654435761);
    let b = |t: u32| a(t) ^ 2863311530;
    let c = |t: u32| t.wrapping_mul(40503);
    let each = |f: &dyn Fn(u32) -> u32| (0..32).map(f).collect::<Vec<u32>>();
    // 0x96: a ^ b ^ c; 0xE8: the majority of the three; 0xF0: a alone.
    assert_eq!(
        run("lop3.b32 %r9, %r5, %r6, %r7, 0x96;"),
        each(&|t| a(t) ^ b(t) ^ c(t))
    );
    assert_eq!(
        run("lop3.b32 %r9, %r5, %r6, %r7, 0xE8;"),
        each(&|t| (a(t) & b(t)) | (a(t) & c(t)) | (b(t) & c(t)))
    );
    assert_eq!(run("lop3.b32 %r9, %r5, %r6, %r7, 0xF0;"), each(&a));
    let byte = |t: u32, k: u32| {
        let all = u64::from(a(t)) | u64::from(b(t)) << 32;
        (all >> (8 * k) & 0xff) as u32
    };
    // Bytes 7, 0, 4, 2 from the top down, then byte 5's sign in the top byte.
    assert_eq!(
        run("prmt.b32 %r9, %r5, %r6, 0x7042;"),
        each(&|t| byte(t, 7) << 24 | byte(t, 0) << 16 | byte(t, 4) << 8 | byte(t, 2))
    );
    assert_eq!(
        run("prmt.b32 %r9, %r5, %r6, 0xD210;"),
        each(&|t| ((byte(t, 5) >> 7) * 0xff00_0000) | (a(t) & 0x00ff_ffff))
    );
    // The fixed patterns, selector 1 (lanes' own c's low bits would vary it).
    let pick = |k: [u32; 4]| {
        move |t: u32| {
            k.iter()
                .enumerate()
                .fold(0, |d, (i, &k)| d | byte(t, k) << (8 * i))
        }
    };
    for (mode, bytes) in [
        ("f4e", [1, 2, 3, 4]),
        ("b4e", [1, 0, 7, 6]),
        ("rc8", [1, 1, 1, 1]),
        ("ecl", [1, 1, 2, 3]),
        ("ecr", [0, 1, 1, 1]),
        ("rc16", [2, 3, 2, 3]),
    ] {
        let got = run(&format!("prmt.b32.{mode} %r9, %r5, %r6, 1;"));
        assert_eq!(got, each(&pick(bytes)), "{mode}");
    }
}

/// An instruction the interpreter does not model refuses a trace-only run too, where a
/// lane reaches it: its operands are not read, so nothing says its result feeds no address.
#[test]
fn an_unmodelled_instruction_refuses_a_trace_only_run() {
    let body = store_r9(
        "dp2a.lo.u32.u32 %r5, %r1, %r1, 0;\nmul.wide.u32 %rd6, %r5, 4;\n\
         ld.param.u64 %rd7, [k_in];\nadd.s64 %rd7, %rd7, %rd6;\nld.global.u32 %r9, [%rd7];",
    );
    for traced_only in [false, true] {
        let e = run_with("", &body, [1, 32, 1], 32, traced_only).unwrap_err();
        assert!(e.why.contains("dp2a"), "{traced_only}: {e}");
    }
}

/// The integer forms whose results differ from the plain ones: `mul24`/`mad24` multiply the
/// low 24 bits (`.hi` keeps bits 16-47), `.sat` clamps, a narrow signed `cvt` is sign-
/// extended in its register, a `bfe` past the top is the sign; `.relu` is refused.
#[test]
fn twenty_four_bit_products_saturation_and_narrow_signed_results_are_the_ptx_isas() {
    let one = |tail: &str| run_on(&store_r9(tail), 1, 32, 32).unwrap().0[0];
    assert_eq!(one("mul24.hi.u32 %r9, 3, 2162688;"), 99);
    assert_eq!(one("mul24.lo.u32 %r9, 1, 16777249;"), 33);
    assert_eq!(one("mad24.hi.u32 %r9, 1, 65536, 7;"), 8);
    // -2 * 3 over 24 bits: -6, its bits 16-47 all ones.
    assert_eq!(one("mul24.lo.s32 %r9, 16777214, 3;"), (-6i32) as u32);
    assert_eq!(one("mul24.hi.s32 %r9, 16777214, 3;"), u32::MAX);
    assert_eq!(one("add.sat.s32 %r9, 2147483647, 5;"), i32::MAX as u32);
    assert_eq!(one("sub.sat.s32 %r9, -2147483647, 5;"), i32::MIN as u32);
    assert_eq!(one("add.s32 %r9, 2147483647, 5;"), 2147483652u32);
    assert_eq!(one("mov.u32 %r5, 256;\ncvt.sat.u8.s32 %r9, %r5;"), 255);
    assert_eq!(one("mov.u32 %r5, -5;\ncvt.sat.u32.s32 %r9, %r5;"), 0);
    assert_eq!(
        one("mov.u32 %r5, 200;\ncvt.s8.s32 %r9, %r5;"),
        (-56i32) as u32
    );
    assert_eq!(one("mov.u32 %r5, 200;\ncvt.u8.s32 %r9, %r5;"), 200);
    assert_eq!(one("mov.u32 %r5, -8;\nbfe.s32 %r9, %r5, 40, 4;"), u32::MAX);
    assert_eq!(one("mov.u32 %r5, 8;\nbfe.s32 %r9, %r5, 40, 4;"), 0);
    let e = run_on(&store_r9("max.relu.s32 %r9, %r1, -6;"), 1, 32, 32).unwrap_err();
    assert!(e.why.contains("not interpreted"), "{e}");
    // A float rounded toward zero is not the nearest float: refused, not given it.
    let e = run_on(&store_r9("cvt.rz.f32.u32 %r9, %r1;"), 1, 32, 32).unwrap_err();
    assert!(e.why.contains("not interpreted"), "{e}");
    assert_eq!(one("cvt.rn.f32.u32 %r9, 16777217;"), 16777216f32.to_bits());
}

#[test]
fn a_shuffle_from_a_lane_outside_the_member_mask_reads_an_undefined_value_not_a_stop() {
    // Lanes 0-15 shuffle down by one with a member mask of theirs: lane 15 names lane 16,
    // which is not in it. A GPU gives it an undefined value; the run goes on.
    let body = store_r9(
        "mov.u32 %r9, 7;\nand.b32 %r5, %r1, 31;\nsetp.lt.u32 %p2, %r5, 16;\n@!%p2 bra SKIP;\n\
         shfl.sync.down.b32 %r9, %r1, 1, 31, 65535;\nSKIP:",
    );
    let (out, _) = run_on(&body, 1, 32, 32).unwrap();
    assert_eq!(&out[..15], &(1..16).collect::<Vec<u32>>()[..]);
    // Not lane 16's value, which a lockstep copy would give, nor lane 15's own.
    assert!(out[15] != 16 && out[15] != 15, "{}", out[15]);
    assert!(out[16..].iter().all(|&v| v == 7));
}
