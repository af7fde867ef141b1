#!/usr/bin/env bash
# From a save to the learner's figures, for every exercise of the course, on a machine with
# a GPU: examples/save_to_result (built beside the binary, or SAVE_BENCH) run with SAVES
# saves of each exercise (default 20), one table at the end: p50 and p95 of save -> figures
# and of save -> whole check, per exercise, and the exercises over 500 ms at p95.
#
#   GPULAB_BIN=target/release/gpulab SAVE_BENCH=target/release/examples/save_to_result \
#     OUT=/tmp/saves scripts/save_bench_all.sh [SAVES]
#
# Writes $OUT/save-<exercise>.txt (each run's own output). Exit 1 when an exercise's check
# never came or one is over 500 ms at p95.
set -uo pipefail

: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
: "${OUT:?set OUT to a folder for the results}"
bench="${SAVE_BENCH:-$(dirname "$GPULAB_BIN")/save_to_result}"
saves="${1:-20}"
mkdir -p "$OUT"
ids=$("$GPULAB_BIN" ex list --json | python3 -c 'import json, sys; print(" ".join(e["id"] for e in json.load(sys.stdin)))')
status=0
printf "%-22s %22s %22s\n" exercise "save -> figures p50/p95" "whole check p50/p95"
for id in $ids; do
    log="$OUT/save-$id.txt"
    timeout 300 "$bench" "$id" "$saves" > "$log" 2>&1
    rc=$?
    read -r fig whole over <<<"$(python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def pair(what):
    m = re.search(what + r" over \d+ saves: p50 ([0-9.]+) ms, p95 ([0-9.]+) ms", text)
    return (float(m.group(1)), float(m.group(2))) if m else None
f, w = pair("save -> figures"), pair("save -> whole check")
fmt = lambda p: f"{p[0]:.0f}/{p[1]:.0f} ms" if p else "-"
print(fmt(f).replace(" ", "_"), fmt(w).replace(" ", "_"), "over" if (f is None or f[1] >= 500) else "ok")
PY
)"
    printf "%-22s %22s %22s %s\n" "$id" "${fig//_/ }" "${whole//_/ }" "$([ "$rc" = 0 ] || echo "(exit $rc)")"
    if [ "$over" != ok ] || [ "$rc" != 0 ]; then status=1; echo "  over 500 ms at p95, or no figures: see $log"; fi
done
exit $status
