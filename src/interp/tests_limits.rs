//! What a GPU faults on stops the whole kernel in the GPU's words, and what a GPU could not
//! give (threads, shared and local memory per block, the memory budget) is refused before
//! anything is allocated, with the figures.

use super::super::block::Launch;
use super::super::limits::{Budget, Limits};
use super::super::{Fault, Halt, Plan, mem::Memory, prepare, run};
use super::{run_on, store_r9};

#[test]
fn a_misaligned_vector_access_faults_as_on_a_gpu_and_an_aligned_one_runs() {
    // Lane l reads 16 bytes at in + 4 * l: only lane 0's (and every fourth) address is a
    // multiple of 16; lane 1 is the first that is not.
    let v4 = |stride: u32| {
        store_r9(&format!(
            "ld.param.u64 %rd5, [k_in];\nmul.wide.u32 %rd6, %r1, {stride};\n\
             add.s64 %rd7, %rd5, %rd6;\nld.global.v4.u32 {{%r10, %r11, %r12, %r9}}, [%rd7];"
        ))
    };
    let e = run_on(&v4(4), 1, 32, 256).unwrap_err();
    assert_eq!(e.halt, Halt::Fault(Fault::MisalignedAddress), "{e}");
    assert!(e.why.contains("lane 1's 16-byte `ld.global.v4.u32`"), "{e}");
    assert!(
        e.to_string().ends_with("(CUDA_ERROR_MISALIGNED_ADDRESS)"),
        "{e}"
    );
    assert!(run_on(&v4(16), 1, 32, 256).is_ok());
    // A store through a generic pointer, 8 bytes at a 4-byte offset.
    let st = store_r9(
        "ld.param.u64 %rd5, [k_in];\nadd.s64 %rd7, %rd5, 4;\nmov.u32 %r9, 0;\n\
         st.v2.u32 [%rd7], {%r9, %r9};",
    );
    let e = run_on(&st, 1, 32, 64).unwrap_err();
    assert_eq!(e.halt, Halt::Fault(Fault::MisalignedAddress), "{e}");
}

#[test]
fn a_misaligned_atomic_faults() {
    let atom = store_r9(
        "ld.param.u64 %rd5, [k_in];\nadd.s64 %rd7, %rd5, 2;\n\
         atom.global.add.u32 %r9, [%rd7], 1;",
    );
    let e = run_on(&atom, 1, 32, 64).unwrap_err();
    assert_eq!(e.halt, Halt::Fault(Fault::MisalignedAddress), "{e}");
    assert!(e.why.contains("4-byte `atom.global.add.u32`"), "{e}");
}

#[test]
fn a_trap_stops_the_whole_kernel_not_only_its_lane() {
    // Lane 7 traps; every thread would store afterwards, the trapping one never.
    let body = store_r9("setp.eq.u32 %p1, %r4, 7;\n@%p1 trap;\nmov.u32 %r9, 1;");
    let e = run_on(&body, 2, 32, 64).unwrap_err();
    assert_eq!(e.halt, Halt::Fault(Fault::Trap), "{e}");
    assert_eq!((e.block, e.lanes), ([0, 0, 0], 1 << 7));
    assert!(e.to_string().contains("(CUDA_ERROR_LAUNCH_FAILED)"), "{e}");
    // A trap no lane takes is nothing.
    let none = store_r9("setp.eq.u32 %p1, %r4, 1000;\n@%p1 trap;\nmov.u32 %r9, 1;");
    assert_eq!(run_on(&none, 2, 32, 64).unwrap().0, vec![1; 64]);
}

#[test]
fn an_out_of_bounds_access_is_an_illegal_address_naming_the_buffer() {
    // Lane 3 reads one word past the end of `in` (32 words).
    let body = store_r9(
        "ld.param.u64 %rd5, [k_in];\nmul.wide.u32 %rd6, %r1, 4;\nadd.s64 %rd7, %rd5, %rd6;\n\
         setp.eq.u32 %p1, %r1, 3;\n@%p1 add.s64 %rd7, %rd5, 128;\nld.global.u32 %r9, [%rd7];",
    );
    let e = run_on(&body, 1, 32, 32).unwrap_err();
    assert_eq!(e.halt, Halt::Fault(Fault::IllegalAddress), "{e}");
    assert!(
        e.why.contains("(byte 128 of `in`, which has 128 bytes)"),
        "{e}"
    );
}

/// A kernel `k()` with `decls` and `body`, launched as `l`.
fn launch(decls: &str, body: &str, l: &Launch, limits: Limits) -> Result<(), super::RunError> {
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
         .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{decls}\n{body}\nret;\n}}\n"
    );
    let k = prepare(&ptx, "k").unwrap();
    let plan = Plan {
        budget: 1000,
        limits,
        ..Plan::default()
    };
    run(&k, &mut Memory::default(), l, &plan).map(drop)
}

fn one_block(threads: u32, dyn_smem: u32) -> Launch {
    Launch {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dyn_smem,
        params: vec![],
        cluster: [1, 1, 1],
        clock_scale: 0,
        perturb: None,
        reverse_warps: false,
        observe: None,
        timed_delay: None,
        cas_interference: None,
        deal: 0,
    }
}

#[test]
fn launches_beyond_the_architectures_limits_are_refused_with_the_figures() {
    let sm90 = || Limits::for_arch("sm_90", Budget::default());
    // Dynamic shared memory: 300000 bytes where sm_90 gives 227 KiB, sm_86 99 KiB.
    let e = launch("", "", &one_block(32, 300_000), sm90()).unwrap_err();
    assert_eq!(e.halt, Halt::Launch);
    assert!(e.why.contains("293 KiB of dynamic shared memory"), "{e}");
    assert!(e.why.contains("227 KiB (sm_90)"), "{e}");
    assert!(launch("", "", &one_block(32, 200_000), sm90()).is_ok());
    let sm86 = Limits::for_arch("sm_86", Budget::default());
    let e = launch("", "", &one_block(32, 200_000), sm86).unwrap_err();
    assert!(e.why.contains("99 KiB (sm_86)"), "{e}");
    // Static shared memory counts too.
    let tile = ".shared .align 4 .b8 tile[200000];";
    let e = launch(tile, "", &one_block(32, 40_000), sm90()).unwrap_err();
    assert!(e.why.contains("beside 195 KiB static"), "{e}");
    // Threads.
    let e = launch("", "", &one_block(2048, 0), sm90()).unwrap_err();
    assert!(
        e.why
            .contains("has 2048 threads; a block may have at most 1024"),
        "{e}"
    );
    // 64 MiB of local memory per thread.
    let local = ".local .align 4 .b8 depot[67108864];";
    let e = launch(local, "", &one_block(256, 0), sm90()).unwrap_err();
    assert_eq!(e.halt, Halt::Launch);
    assert!(
        e.why.contains("64 MiB of local memory") && e.why.contains("512 KiB"),
        "{e}"
    );
}

#[test]
fn a_launch_whose_blocks_need_more_than_the_budget_is_refused_and_gives_it_back() {
    // 256 threads of 512 KiB local memory each: 128 MiB, over a 64 MiB budget.
    let budget = Budget::new(64 << 20);
    let limits = Limits::for_arch("sm_90", budget.clone());
    let local = ".local .align 4 .b8 depot[524288];";
    let e = launch(local, "", &one_block(256, 0), limits.clone()).unwrap_err();
    assert_eq!(e.halt, Halt::Memory);
    assert!(
        e.why.contains("needs 128 MiB") && e.why.contains("64 MiB"),
        "{e}"
    );
    // 64 threads (32 MiB) fit, and the budget is whole again after the run.
    assert!(launch(local, "", &one_block(64, 0), limits).is_ok());
    assert_eq!(budget.left(), 64 << 20);
}
