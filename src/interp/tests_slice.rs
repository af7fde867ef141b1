//! A trace-only run leaves out what the trace does not need, and its records are those of
//! a whole run.

use super::run_with;

const HEAD_IO: &str = "ld.param.u64 %rd1, [k_out];\nld.param.u64 %rd2, [k_in];\n\
                       cvta.to.global.u64 %rd1, %rd1;\ncvta.to.global.u64 %rd2, %rd2;\n\
                       mov.u32 %r1, %tid.x;\n";

/// Each thread sums in[tid + 32 k] for k < 8 with float multiply-adds: the sums feed only
/// the stored values, so a trace-only run skips the arithmetic and moves no loaded bytes.
fn sum_loop() -> String {
    format!(
        "{HEAD_IO}mov.u32 %r2, 0;\nmov.f32 %f1, 0f00000000;\n\
         $L_loop:\nshl.b32 %r3, %r2, 5;\nadd.s32 %r4, %r3, %r1;\nmul.wide.u32 %rd3, %r4, 4;\n\
         add.s64 %rd4, %rd2, %rd3;\nld.global.u32 %r5, [%rd4];\ncvt.rn.f32.u32 %f2, %r5;\n\
         fma.rn.f32 %f1, %f2, %f2, %f1;\nmul.f32 %f3, %f1, 0f3F000000;\n\
         add.s32 %r2, %r2, 1;\nsetp.lt.u32 %p1, %r2, 8;\n@%p1 bra $L_loop;\n\
         mul.wide.u32 %rd5, %r1, 4;\nadd.s64 %rd6, %rd1, %rd5;\nst.global.f32 [%rd6], %f3;\nret;"
    )
}

/// A chase: each step loads the next index from the input, so loaded values feed
/// addresses and must be loaded even in a trace-only run; the stores before it too.
fn chase() -> String {
    format!(
        "{HEAD_IO}mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\n\
         add.s32 %r9, %r1, 3;\nst.global.u32 [%rd4], %r9;\nmov.u32 %r2, %r1;\nmov.u32 %r6, 0;\n\
         $L_loop:\nmul.wide.u32 %rd5, %r2, 4;\nadd.s64 %rd6, %rd1, %rd5;\nld.global.u32 %r2, [%rd6];\n\
         and.b32 %r2, %r2, 63;\nadd.s32 %r6, %r6, 1;\nsetp.lt.u32 %p1, %r6, 4;\n@%p1 bra $L_loop;\nret;"
    )
}

fn regs() -> &'static str {
    ".reg .f32 %f<8>;\n"
}

#[test]
fn a_trace_only_run_skips_arithmetic_the_trace_does_not_need() {
    let body = format!("{}{}", regs(), sum_loop());
    let (whole_out, k, whole, whole_steps) = run_with("", &body, [1, 32, 1], 256, false).unwrap();
    let (_, _, sliced, sliced_steps) = run_with("", &body, [1, 32, 1], 256, true).unwrap();
    assert_eq!(sliced, whole, "the same records");
    assert_eq!(whole.len(), 8 + 1, "eight loads and a store per warp");
    assert!(
        sliced_steps < whole_steps * 3 / 4,
        "{sliced_steps} thread instructions of {whole_steps}"
    );
    // The arithmetic really ran in the whole run: out[t] = sum of squares / 2.
    let want: f32 = (0..8).map(|k| ((k * 32) as f32).powi(2)).sum::<f32>() * 0.5;
    assert_eq!(f32::from_bits(whole_out[0]), want);
    use super::super::slice::Slice;
    let f = &k.prog.funcs[k.entry];
    let of = |op: &str| {
        f.instrs
            .iter()
            .find(|i| i.text.starts_with(op))
            .unwrap()
            .slice
    };
    assert_eq!(of("fma"), Slice::Skip);
    assert_eq!(of("cvt.rn"), Slice::Skip);
    assert_eq!(of("ld.global"), Slice::AddressOnly);
    assert_eq!(of("st.global"), Slice::AddressOnly);
    assert_eq!(of("mul.wide"), Slice::Run);
}

#[test]
fn loaded_values_that_feed_addresses_are_loaded_and_stores_kept() {
    let (_, k, whole, _) = run_with("", &chase(), [1, 32, 1], 64, false).unwrap();
    let (_, _, sliced, _) = run_with("", &chase(), [1, 32, 1], 64, true).unwrap();
    assert_eq!(sliced, whole, "the chase goes where the whole run went");
    use super::super::slice::Slice;
    let f = &k.prog.funcs[k.entry];
    assert!(
        (f.instrs.iter())
            .filter(|i| i.text.starts_with("ld.global") || i.text.starts_with("st.global"))
            .all(|i| i.slice == Slice::Run)
    );
    // Lane 0 chases 0 -> 3 -> 6 -> 9: the stored values steer it.
    let lane0: Vec<u64> = (whole.iter().skip(1))
        .map(|r| (r.addrs[0] - whole[0].addrs[0]) / 4)
        .collect();
    assert_eq!(lane0, [0, 3, 6, 9]);
}
