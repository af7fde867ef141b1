#!/usr/bin/env bash
# The atomics model against the H100's counters, in one run on a GPU machine.
#
#   GPULAB_BIN=path/to/gpulab OUT=dir scripts/ncu_atomics.sh
#
# Run from the source tree (the fixtures are read from tests/fixtures/atomics). Needs a GPU,
# Nsight Compute (ncu) and nvdisasm (the CUDA toolkit), the release binary ($GPULAB_BIN),
# and the integration test binary built from this tree with `cargo test --release --no-run
# --test it`: found in target/release/deps (it-*), or named by $GPULAB_TEST (the GPU machine
# has no Rust toolchain: build it elsewhere and carry it). No Rust toolchain needed here.
#
# It runs, for every shape of tests/fixtures/atomics (kernels/atomics.cu says what each is):
#   1. tests/it/ncu.rs `atomics_match_the_hardware_counters`: each variant once under ncu
#      (shared atomic instructions, wavefronts and bank conflicts; global atomic and
#      reduction requests and sectors; shared and global loads and stores), beside the
#      lab's traced figures for the same run, and prints the table: lesson, variant,
#      counter, traced, ncu, difference. It passes when every counter is within 1%
#      (shared wavefronts: not below ncu's wavefronts less its conflicts, not over 1%
#      above ncu's wavefronts, which also count arbitration).
#   2. tests/it/gpu_cpu.rs `the_atomics_calibration_traces_equal_on_the_gpu_and_the_cpu`: the
#      GPU tracer's figures for every atomic equal the CPU interpreter's.
#   3. `gpulab sass` of every variant, to read beside the table.
# Writes to $OUT: atomics_ncu.md (the table), ncu/ (ncu's CSV per variant), sass/ (the SASS
# per variant), ncu_test.log, gpu_cpu_test.log. Exits 0 when both tests pass, 1 when one
# fails, 2 when it could not run.

set -u

fail() {
    echo "ncu_atomics: $*" >&2
    exit 2
}

[ -n "${GPULAB_BIN:-}" ] || fail "set GPULAB_BIN to the gpulab release binary"
[ -x "$GPULAB_BIN" ] || fail "GPULAB_BIN=$GPULAB_BIN is not an executable"
[ -n "${OUT:-}" ] || fail "set OUT to a folder for the results"
[ -d tests/fixtures/atomics/lessons ] || fail "run from the source tree (no tests/fixtures/atomics here)"
command -v ncu >/dev/null || [ -x /usr/local/cuda/bin/ncu ] || fail "ncu not found"
mkdir -p "$OUT/sass" "$OUT/ncu" || fail "cannot write to $OUT"

# The newest integration test binary in target/release/deps, unless named. Every test is in
# it; each step runs one, by its full name (module::test) and --exact.
find_test() {
    local named=$1
    if [ -n "$named" ]; then
        [ -x "$named" ] || fail "$named is not an executable"
        echo "$named"
        return
    fi
    local found
    found=$(ls -t target/release/deps/it-* 2>/dev/null | grep -v '\.d$' | head -1)
    [ -n "$found" ] || fail "no test binary: build it with 'cargo test --release --no-run --test it' or name it"
    echo "$found"
}

TEST_BIN=$(find_test "${GPULAB_TEST:-}")
export GPULAB_BIN
export PATH="$PATH:/usr/local/cuda/bin"

"$GPULAB_BIN" doctor | sed -n '1,4p'
echo

pack=tests/fixtures/atomics/lessons
variants=$(awk '/^variants:/ { on = 1; next } /^[a-z]/ { on = 0 }
    on && match($0, /^  - (\{ *)?name: [a-z0-9-]+/) { n = substr($0, RSTART, RLENGTH); sub(/.*name: /, "", n); print n }' \
    "$pack"/01-atomics-cal.yaml)
for v in $variants; do
    "$GPULAB_BIN" --lessons "$pack" sass atomics-cal "$v" >"$OUT/sass/$v.txt" 2>&1
done
echo "SASS of $(ls "$OUT/sass" | wc -l) variants in $OUT/sass"
echo

echo "== 1. traced against ncu (tests/it/ncu.rs atomics_match_the_hardware_counters)"
GPULAB_NCU_ATOMICS_TABLE="$OUT/atomics_ncu.md" GPULAB_NCU_RAW="$OUT/ncu" \
    "$TEST_BIN" --exact ncu::atomics_match_the_hardware_counters --nocapture --test-threads 1 \
    >"$OUT/ncu_test.log" 2>&1
ncu_rc=$?
if [ -s "$OUT/atomics_ncu.md" ]; then
    cat "$OUT/atomics_ncu.md"
else
    tail -40 "$OUT/ncu_test.log"
fi
grep -E "skipped|test result|worst disagreement" "$OUT/ncu_test.log"
echo

echo "== 2. the GPU tracer against the CPU interpreter (tests/it/gpu_cpu.rs)"
"$TEST_BIN" --exact gpu_cpu::the_atomics_calibration_traces_equal_on_the_gpu_and_the_cpu \
    --nocapture --test-threads 1 >"$OUT/gpu_cpu_test.log" 2>&1
cpu_rc=$?
grep -E "skipped|test result|interpreter|panicked" "$OUT/gpu_cpu_test.log" | head -40
echo

if grep -q "skipped" "$OUT/ncu_test.log" "$OUT/gpu_cpu_test.log"; then
    echo "ncu_atomics: a test skipped (no GPU or no ncu): nothing was compared" >&2
    exit 2
fi
echo "ncu comparison: $([ $ncu_rc -eq 0 ] && echo PASS || echo FAIL); GPU = CPU trace: $([ $cpu_rc -eq 0 ] && echo PASS || echo FAIL)"
[ $ncu_rc -eq 0 ] && [ $cpu_rc -eq 0 ] && exit 0
exit 1
