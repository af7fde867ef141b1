#!/usr/bin/env bash
# The GEMM lesson at three sizes on a GPU machine: every rung and every knob setting of
# `tuned` (the lab's autotuning sweep), each checked against cuBLAS's output and timed
# against cuBLAS SGEMM (FP32, no tensor cores) run at the same size in the same request.
# Prints one table: TFLOP/s and % of cuBLAS per configuration and size, registers, spills
# and occupancy, and the fastest configuration at each size.
#
#   GPULAB_BIN=/path/to/gpulab OUT=/some/dir scripts/gemm_sweep.sh
#
# Inputs: GPULAB_BIN (a gpulab binary), OUT (a folder; the runs' JSON and logs go there).
# Optional: SIZES (default "2048 4096 8192"); STANDALONE=1 also builds scripts/gemm_sweep.cu
# with nvcc (-lcublas) and runs it into $OUT/gemm_sweep_standalone.txt (more
# configurations, interleaved with cuBLAS; NVCC names nvcc if it is not on the PATH or in
# /usr/local/cuda/bin). Run from anywhere: the lesson files are the
# ones beside this script. The trace runs at 4096 only (it is per block, the same at any
# size), so the others are quicker.
set -euo pipefail
: "${GPULAB_BIN:?set GPULAB_BIN to a gpulab binary}"
: "${OUT:?set OUT to a folder for the results}"
SIZES="${SIZES:-2048 4096 8192}"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$OUT"
start=$(date +%s)
for s in $SIZES; do
    trace=--no-trace
    [ "$s" = 4096 ] && trace=
    echo "== m = $s: gpulab run gemm --size m=$s --knobs $trace" >&2
    t0=$(date +%s)
    rc=0
    "$GPULAB_BIN" --lessons "$here/lessons" run gemm --size "m=$s" --knobs $trace --json \
        >"$OUT/gemm-$s.json" 2>"$OUT/gemm-$s.log" || rc=$?
    echo "   exit $rc, $(($(date +%s) - t0)) s (log: $OUT/gemm-$s.log)" >&2
done
echo "gpulab runs: $(($(date +%s) - start)) s" >&2

python3 - "$OUT" $SIZES <<'PY'
import json, os, sys
out, sizes = sys.argv[1], sys.argv[2:]
runs = {}
for s in sizes:
    p = os.path.join(out, f"gemm-{s}.json")
    try:
        with open(p) as f:
            runs[s] = json.load(f)
    except (OSError, ValueError) as e:
        print(f"m = {s}: no result ({e}); see {out}/gemm-{s}.log")
if not runs:
    sys.exit(1)
base = runs.get("4096") or next(iter(runs.values()))
names = [v["name"] for v in base["variants"]] + [v["name"] for v in base.get("knobs", [])]

def find(r, name):
    for v in r.get("variants", []) + r.get("knobs", []):
        if v["name"] == name:
            return v
    return None

head = f"{'configuration':<18} {'regs':>4} {'spill':>7} {'occ':>4}"
for s in runs:
    head += f" | {s:>5}: TFLOP/s  %cuBLAS ok"
print(head)
line = f"{'cuBLAS SGEMM':<18} {'':>4} {'':>7} {'':>4}"
for s, r in runs.items():
    c = (r.get("peak") or {}).get("cublas_gflops")
    line += f" |        {c / 1000:8.1f}    100.0   " if c else " |        {'-':>8}        -   "
print(line)
best = {}
for n in names:
    v0 = find(base, n) or {}
    p = v0.get("ptxas") or {}
    occ = v0.get("occupancy") or {}
    line = f"{n:<18} {p.get('registers', '-'):>4} "
    line += f"{str(p.get('spill_stores', '-')) + '/' + str(p.get('spill_loads', '-')):>7} "
    line += f"{(str(round(occ['ratio'] * 100)) + '%') if occ else '-':>4}"
    for s, r in runs.items():
        v = find(r, n)
        if not v or v.get("gflops") is None:
            why = (v or {}).get("error") or (v or {}).get("unmet") or "not run"
            line += f" |        {'-':>8}  {'-':>7}   "
            if v and why != "not run":
                line += f" ({why.splitlines()[0][:40]})"
            continue
        ok = {True: "ok", False: "NO"}.get(v.get("correct"), "? ")
        pct = v.get("pct_of_peak")
        line += f" |        {v['gflops'] / 1000:8.1f}  {pct if pct is not None else float('nan'):7.1f} {ok}"
        if v.get("correct") and pct is not None and pct > best.get(s, ("", -1))[1]:
            best[s] = (n, pct, v["gflops"] / 1000)
    print(line)
print()
for s, (n, pct, tf) in best.items():
    print(f"fastest correct at m = {s}: {n}, {tf:.1f} TFLOP/s = {pct:.1f}% of cuBLAS")
wrong = [(s, v["name"]) for s, r in runs.items() for v in r.get("variants", []) + r.get("knobs", [])
         if v.get("correct") is False]
print("wrong outputs:", ", ".join(f"{n} at {s}" for s, n in wrong) if wrong else "none")
claims = base.get("expect", [])
failed = [c for c in claims if c.get("holds") is False]
print(f"claims at 4096: {sum(1 for c in claims if c.get('holds'))} hold, {len(failed)} fail"
      + "".join(f"\n  FAILS: {c['claim']}" for c in failed))
PY

if [ "${STANDALONE:-0}" = 1 ]; then
    nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
    echo "== standalone sweep: $nvcc scripts/gemm_sweep.cu" >&2
    "$nvcc" -O3 -arch=sm_90 -std=c++17 -o "$OUT/gemm_sweep" "$here/scripts/gemm_sweep.cu" -lcublas
    "$OUT/gemm_sweep" $SIZES | tee "$OUT/gemm_sweep_standalone.txt"
fi
echo "total: $(($(date +%s) - start)) s" >&2
