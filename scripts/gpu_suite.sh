#!/usr/bin/env bash
# Every GPU test and the exercise table, from prebuilt binaries, in one call on a GPU machine
# (which need not have a Rust toolchain): build here, copy the two binaries there, run this.
#
#   cargo build --release && cargo test --release --no-run    # here; `it` is the test binary
#   GPULAB_IT=path/to/it-HASH GPULAB_BIN=path/to/gpulab OUT=/tmp/suite scripts/gpu_suite.sh [GROUP...]
#
# Run from the repository's root (the tests read lessons, kernels and fixtures from it).
# GROUPs, in order (default: all): traces (the GPU's traces against the interpreter's, races,
# racecheck), runs (lessons, knobs, try, the lab, faults, a shared GPU), ncu (counts against
# Nsight Compute), table (every exercise answer live: scripts/ex_table_gpu.sh). Each group
# runs under its own time limit (GPULAB_SUITE_LIMIT_<GROUP>, seconds); its log is
# $OUT/<group>.log, and $OUT/summary.txt has a line per group (tests passed, failed,
# ignored, seconds), the failures' names and the suite's seconds in all. Exits 1 if any
# group failed or ran out of time.

set -u
: "${GPULAB_IT:?set GPULAB_IT to the test binary (target/release/deps/it-*)}"
: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
OUT=${OUT:-/tmp/gpulab-suite}
mkdir -p "$OUT"
export GPULAB_BIN
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 2

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(traces runs ncu table)

# Test-name filters of each group: the modules of tests/it/ that need a GPU.
filters() {
    case "$1" in
        traces) echo "gpu_cpu:: gpu_trace_spaces:: gpu_race_scopes:: gpu_races::" ;;
        runs) echo "gpu:: gpu_attrs:: gpu_compare:: gpu_extras:: gpu_host:: gpu_knobs:: gpu_try:: gpu_ui_exercise:: worker_device:: shared_gpu:: fault_corpus::" ;;
        ncu) echo "ncu::" ;;
        *) return 1 ;;
    esac
}

# Seconds a group may take: together within one short slot on a GPU machine.
limit() {
    local var="GPULAB_SUITE_LIMIT_$(echo "$1" | tr '[:lower:]' '[:upper:]')"
    case "$1" in
        traces) echo "${!var:-210}" ;;
        runs) echo "${!var:-240}" ;;
        ncu) echo "${!var:-240}" ;;
        table) echo "${!var:-360}" ;;
    esac
}

summary="$OUT/summary.txt"
: >"$summary"
suite_start=$(date +%s)
status=0
for g in "${groups[@]}"; do
    log="$OUT/$g.log"
    start=$(date +%s)
    if [ "$g" = table ]; then
        timeout "$(limit table)" "$here/scripts/ex_table_gpu.sh" >"$log" 2>&1
        rc=$?
    else
        f=$(filters "$g") || { echo "unknown group $g" >>"$summary"; status=1; continue; }
        # Tests of a group share the GPU by turns, as learners do; their compiles and
        # traces' analyses run beside each other.
        # Each test's seconds in the log (`--report-time`, which libtest gives a stable
        # build only with RUSTC_BOOTSTRAP): where the group's time goes.
        # A test's lessons, several at once (`GPULAB_TEST_LESSON_THREADS`): the traces
        # group's are interpreted beside their GPU traces, 8 at once (73 s against 87 s at 4
        # on a 16-core H200 host); ncu's stay at 4, as at 8 Nsight Compute gave nothing for
        # some variants.
        threads=4
        [ "$g" = traces ] && threads=8
        # shellcheck disable=SC2086
        GPULAB_TEST_LESSON_THREADS=${GPULAB_TEST_LESSON_THREADS:-$threads} \
            RUSTC_BOOTSTRAP=1 timeout "$(limit "$g")" "$GPULAB_IT" --test-threads "${GPULAB_SUITE_THREADS:-4}" \
            -Zunstable-options --report-time $f >"$log" 2>&1
        rc=$?
    fi
    secs=$(($(date +%s) - start))
    passed=$(grep -Eo '[0-9]+ passed' "$log" | awk '{s += $1} END {print s + 0}')
    failed=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s += $1} END {print s + 0}')
    case $rc in
        0) verdict=ok ;;
        124) verdict="out of time ($(limit "$g") s)"; status=1 ;;
        *) verdict="failed (exit $rc)"; status=1 ;;
    esac
    printf '%-7s %-28s %4d passed %3d failed %4d s\n' "$g" "$verdict" "$passed" "$failed" "$secs" >>"$summary"
    grep -E '^test .* FAILED|^    [a-z_]+::' "$log" | sed 's/^/        /' >>"$summary"
    # The group's three longest tests.
    grep -Eo '^test [a-z_:]+ \.\.\. ok <[0-9.]+s>' "$log" | sed -E 's/^test ([a-z_:]+) \.\.\. ok <([0-9.]+)s>/\2 \1/' |
        sort -rn | head -3 | awk '{printf "        %6.1f s  %s\n", $1, $2}' >>"$summary"
done
# The groups run one after another: run at once (traces, runs, ncu on an H200), traces and
# runs had not ended after 270 s, where alone they take 158 s and 189 s, and racecheck
# failed beside ncu's profiling.
echo "suite   $(($(date +%s) - suite_start)) s in all" >>"$summary"
cat "$summary"
exit $status
