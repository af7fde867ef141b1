#!/usr/bin/env bash
# The L1 + shared-memory carve-out, measured on a machine with a GPU: the memory-ladder
# lesson's two carve-out sweeps run live (the lessons read from the source tree's lessons/),
# and per carve-out the cycles of one chase step at each set size, the knee, the figure of
# resident warps, and each of the lesson's carve-out claims with PASS or FAIL.
#
#   GPULAB_BIN=target/release/gpulab OUT=/tmp/carveout scripts/carveout_gpu.sh [RUNS]
#
# Inputs: GPULAB_BIN (the binary), OUT (a folder), RUNS (default 2). Writes
# $OUT/carveout-memory-ladder-<run>.json (`gpulab run --json`, the carve-out variants and the
# `l1` and `l2` rungs they are read against) and prints:
#   - per carve-out (max_l1, max_shared), a row per set size: cycles per step in every run
#     (measured.cycles_per_access), the median time, and the blocks and warps an SM holds
#     (the occupancy calculator's answer, with the rules' limiter);
#   - the knee of each run: the first set whose step takes at least 1.5 times the sweep's
#     fastest step (the L1's size lies between it and the set before it), and the largest
#     set still within 1.2 times of that fastest step;
#   - the `l1` and `l2` rungs' cycles, for scale;
#   - each carve-out claim of the lesson, PASS or FAIL in every run, with what was measured,
#     and the ratios the 1.5x bars bound, per run, so the bars can be tightened.
# Exit 1 when a run is not live or a claim failed.
set -euo pipefail

: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
: "${OUT:?set OUT to a folder for the results}"
runs="${1:-2}"
mkdir -p "$OUT"

variants="l1,l2"
for s in 64 128 192 224 256 384; do variants="$variants,max-l1-${s}k"; done
for s in 8 16 24 32 64 128; do variants="$variants,max-shared-${s}k"; done

for r in $(seq 1 "$runs"); do
    echo "== memory-ladder carve-out sweeps, run $r of $runs" >&2
    args=()
    IFS=, read -ra names <<<"$variants"
    for n in "${names[@]}"; do args+=(--variant "$n"); done
    "$GPULAB_BIN" run memory-ladder --lessons lessons --json "${args[@]}" \
        >"$OUT/carveout-memory-ladder-$r.json" || true
done

python3 - "$OUT" "$runs" <<'EOF'
import json, os, sys

out, runs = sys.argv[1], int(sys.argv[2])
res = [json.load(open(os.path.join(out, f"carveout-memory-ladder-{r}.json")))
       for r in range(1, runs + 1)]
if any(d["source"] != "live" for d in res):
    print("not a live run (no GPU here?)")
    sys.exit(1)

def variant(d, name):
    return next((v for v in d["variants"] if v["name"] == name), {})

def cycles(d, name):
    m = (variant(d, name).get("measured") or {}).get("cycles_per_access") or {}
    return m.get("value")

sweeps = [("max_l1", "max-l1", [64, 128, 192, 224, 256, 384]),
          ("max_shared", "max-shared", [8, 16, 24, 32, 64, 128])]
failed = False
dev = res[0].get("device") or {}
print(f"carve-out sweeps on {dev.get('name', '?')} (cc {dev.get('cc', '?')}), {runs} run(s)")
for label, prefix, sizes in sweeps:
    print(f"\ncarve-out {label}: cycles per chase step by set size")
    print(f"  {'set KiB':>8}  {'cycles per step (each run)':<30}{'median ms':>10}"
          f"  {'blocks/SM':>9} {'warps':>6}  limiter  correct")
    for s in sizes:
        n = f"{prefix}-{s}k"
        cs = [cycles(d, n) for d in res]
        v = variant(res[0], n)
        t = (v.get("time_ms") or {}).get("median")
        o = v.get("occupancy") or {}
        cells = ", ".join(f"{c:.1f}" if c is not None else "-" for c in cs)
        ok = all(variant(d, n).get("correct") is True for d in res)
        failed |= not ok
        print(f"  {s:>8}  {cells:<30}{(f'{t:.3f}' if t else '-'):>10}"
              f"  {o.get('blocks_per_sm', '-')!s:>9} {o.get('active_warps', '-')!s:>6}"
              f"  {o.get('limiter', '-')} ({o.get('from', '-')})  {'yes' if ok else 'NO'}")
    for r, d in enumerate(res, 1):
        cs = [(s, cycles(d, f"{prefix}-{s}k")) for s in sizes]
        cs = [(s, c) for s, c in cs if c is not None]
        if not cs:
            print(f"  run {r}: no figures")
            continue
        fastest = min(c for _, c in cs)
        knee = next((s for s, c in cs if c >= 1.5 * fastest), None)
        last_hit = max((s for s, c in cs if c <= 1.2 * fastest), default=None)
        print(f"  run {r}: fastest step {fastest:.1f} cycles; last set within 1.2x of it: "
              f"{last_hit} KiB; knee (first set >= 1.5x): "
              f"{f'{knee} KiB' if knee is not None else 'none in the sweep'}")

print("\nrungs for scale: " + "; ".join(
    f"{n} " + ", ".join(f"{c:.1f}" if c is not None else "-" for c in [cycles(d, n) for d in res])
    + " cycles" for n in ["l1", "l2"]))

print("\nratios the claims bound (each run):")
for a, b in [("max-shared-64k", "max-l1-64k"), ("max-shared-128k", "max-l1-128k"),
             ("max-l1-384k", "max-l1-64k"), ("max-shared-64k", "max-shared-8k")]:
    rs = [cycles(d, a) / cycles(d, b) for d in res if cycles(d, a) and cycles(d, b)]
    print(f"  {a} / {b}: " + (", ".join(f"{x:.2f}x" for x in rs) or "-"))

print("\nclaims:")
for c in res[0].get("expect", []):
    if not c["claim"].startswith(("max-l1", "max-shared")):
        continue
    verdicts = []
    for d in res:
        m = next((x for x in d.get("expect", []) if x["claim"] == c["claim"]), {})
        verdicts.append((m.get("holds"), m.get("detail", "")))
    ok = all(h is True for h, _ in verdicts)
    failed |= not ok
    print(f"  {'PASS' if ok else 'FAIL'} {c['claim']}  ({' | '.join(dt for _, dt in verdicts)})")
sys.exit(1 if failed else 0)
EOF
