//! The ptxas-log parser against real NVRTC 13.0 logs (sm_90, `-Xptxas -v -lineinfo`),
//! regenerated with tests/fixtures/ptxas/gen.py. Expected figures were read off the logs.

use gpulab::analysis::ptxas_log::{parse_ptxas_log, report_for};
use gpulab::model::results::PtxasReport;

fn log(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/ptxas/{name}.log",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn report(
    registers: u32,
    stack_frame: u32,
    spills: (u32, u32),
    smem: u32,
    barriers: u32,
) -> PtxasReport {
    PtxasReport {
        registers,
        stack_frame,
        spill_stores: spills.0,
        spill_loads: spills.1,
        smem,
        cmem: 0,
        barriers,
        functions: Vec::new(),
    }
}

#[test]
fn registers_only_kernel() {
    let kernels = parse_ptxas_log(&log("regs_only"));
    assert_eq!(kernels.keys().collect::<Vec<_>>(), ["saxpy"]);
    assert_eq!(kernels["saxpy"], report(10, 0, (0, 0), 0, 0));
}

#[test]
fn dynamically_indexed_array_gets_a_stack_frame() {
    let r = report_for(&log("local_array"), "local_array").unwrap();
    assert_eq!(r, report(32, 128, (0, 0), 0, 0));
}

#[test]
fn maxrregcount_spills() {
    // -maxrregcount=16 was raised to sm_90's floor of 24; the warning and the "Overriding"
    // notice (which quotes the kernel name) come before the kernel's block.
    let kernels = parse_ptxas_log(&log("spills"));
    assert_eq!(kernels.len(), 1);
    assert_eq!(kernels["spill"], report(24, 80, (96, 96), 0, 0));
}

#[test]
fn launch_bounds_spills() {
    let r = report_for(&log("launch_bounds"), "bounded").unwrap();
    assert_eq!(r, report(32, 304, (380, 464), 0, 0));
}

#[test]
fn shared_memory_and_barrier_stay_with_their_kernel() {
    let kernels = parse_ptxas_log(&log("shared_const_sync"));
    // 258 floats of static shared memory = 1032 bytes; one __syncthreads barrier. The
    // __constant__ array is in the source, but ptxas 13.0 prints no cmem, so cmem stays 0.
    assert_eq!(kernels["stencil"], report(15, 0, (0, 0), 1032, 1));
    assert_eq!(kernels["plain_copy"], report(10, 0, (0, 0), 0, 0));
}

#[test]
fn cpp_kernels_are_keyed_by_mangled_name() {
    let text = log("cpp_kernels");
    let kernels = parse_ptxas_log(&text);
    assert_eq!(
        kernels.keys().collect::<Vec<_>>(),
        [
            "_Z12unrolled_sumILi16EEvPKfPf",
            "_Z12unrolled_sumILi4EEvPKfPf",
            "_Z5scalePff",
            "scale_c"
        ]
    );
    assert_eq!(kernels["_Z12unrolled_sumILi16EEvPKfPf"].registers, 29);
    assert_eq!(kernels["_Z12unrolled_sumILi4EEvPKfPf"].registers, 16);

    assert_eq!(report_for(&text, "scale").unwrap().registers, 8);
    assert_eq!(report_for(&text, "scale_c").unwrap().registers, 8);
    assert_eq!(
        report_for(&text, "_Z12unrolled_sumILi4EEvPKfPf")
            .unwrap()
            .registers,
        16
    );
    // Two instances of the template: the plain name does not say which.
    assert_eq!(report_for(&text, "unrolled_sum"), None);
    // The length in the mangled prefix keeps "scal" from matching "scale".
    assert_eq!(report_for(&text, "scal"), None);
    assert_eq!(report_for(&text, "missing"), None);
}

#[test]
fn device_function_block_does_not_overwrite_the_kernel() {
    // The device function's "Function properties" block (0 bytes stack frame) follows the
    // kernel's.
    let kernels = parse_ptxas_log(&log("device_function"));
    assert_eq!(kernels.keys().collect::<Vec<_>>(), ["calls_gather"]);
    let mut want = report(26, 64, (0, 0), 0, 0);
    // ... and names the function ptxas kept out of line.
    want.functions = vec!["_Z8gather16PKfi".to_string()];
    assert_eq!(kernels["calls_gather"], want);
}

#[test]
fn legacy_log_with_cmem_banks() {
    // The shape CUDA 12 and older printed: cmem banks per kernel and per module, no barriers
    // item, properties lines indented without the "ptxas ." prefix.
    let text = "\
ptxas info    : 0 bytes gmem, 256 bytes cmem[3]
ptxas info    : Compiling entry function '_Z4stepPfi' for 'sm_80'
ptxas info    : Function properties for _Z4stepPfi
    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, 2048 bytes smem, 364 bytes cmem[0], 8 bytes cmem[2]
";
    let r = report_for(text, "step").unwrap();
    assert_eq!(
        r,
        PtxasReport {
            registers: 40,
            stack_frame: 16,
            spill_stores: 8,
            spill_loads: 12,
            smem: 2048,
            cmem: 364 + 8 + 256,
            barriers: 0,
            functions: Vec::new(),
        }
    );
}

#[test]
fn empty_or_failed_log_has_no_kernels() {
    assert!(parse_ptxas_log("").is_empty());
    assert!(parse_ptxas_log("x.cu(3): error: identifier \"foo\" is undefined\n").is_empty());
}
