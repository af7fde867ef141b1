#!/usr/bin/env bash
# The seed articles' claims, measured on a machine with a GPU: the local-spills lesson run
# live (the lessons read from the source tree's lessons/), and per claim the figure the lab
# measured with PASS or FAIL.
#
#   GPULAB_BIN=target/release/gpulab OUT=/tmp/seeds scripts/seeds_gpu.sh [RUNS]
#
# Inputs: GPULAB_BIN (the binary), OUT (a folder), RUNS (default 2). Writes
# $OUT/seeds-local-spills-<run>.json (`gpulab run --json`) and prints, per seed:
#   - the figures of its variants (time, registers, stack frame, spills, shared memory,
#     local bytes and local sectors per request from the trace), from the first run;
#   - each of the lesson's claims about those variants, PASS or FAIL in every run, with
#     what was measured;
#   - the time ratios the claims bound, per run, so the bars can be tightened.
# Exit 1 when a run is not live or a claim failed.
set -euo pipefail

: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
: "${OUT:?set OUT to a folder for the results}"
runs="${1:-2}"
mkdir -p "$OUT"

for r in $(seq 1 "$runs"); do
    echo "== local-spills, run $r of $runs" >&2
    "$GPULAB_BIN" run local-spills --lessons lessons --json >"$OUT/seeds-local-spills-$r.json" || true
done

python3 - "$OUT" "$runs" <<'EOF'
import json, os, sys

out, runs = sys.argv[1], int(sys.argv[2])
res = [json.load(open(os.path.join(out, f"seeds-local-spills-{r}.json"))) for r in range(1, runs + 1)]
if any(d["source"] != "live" for d in res):
    print("not a live run (no GPU here?)")
    sys.exit(1)

seeds = [
    ("(a) local memory is interleaved by lane: one offset is coalesced",
     ["dynamic-index", "lane-offset"], [("lane-offset", "dynamic-index")]),
    ("(b) sinf of large arguments takes a slower path (local array in the PTX)",
     ["sin-small", "sin-large", "fast-sin-large"],
     [("sin-large", "sin-small"), ("sin-large", "fast-sin-large")]),
    ("(c) 255 registers a thread at most: more live values spill",
     ["eight-each"], []),
    ("(d) spilling to shared memory (enable_smem_spilling) against local",
     ["eight-each", "smem-spill"], [("eight-each", "smem-spill")]),
]

def variant(d, name):
    return next((v for v in d["variants"] if v["name"] == name), {})

def local_sectors(v):
    ins = [i for i in (v.get("memory") or {}).get("instructions", []) if i.get("space") == "local"]
    req = sum(i.get("requests", 0) for i in ins)
    sec = sum(i.get("local_sectors", 0) for i in ins)
    return f"{sec / req:.2f}" if req else "-"

failed = False
print(f"local-spills on {(res[0].get('device') or {}).get('name', '?')}, {runs} run(s)")
for title, names, ratios in seeds:
    print(f"\n{title}")
    print(f"  {'variant':<16}{'ms':>9}{'regs':>6}{'stack':>7}{'spill st/ld':>13}{'smem':>7}"
          f"{'local B':>14}{'local sect/req':>16}")
    for n in names:
        v = variant(res[0], n)
        p = v.get("ptxas") or {}
        t = (v.get("time_ms") or {}).get("median")
        lb = ((v.get("memory") or {}).get("local") or {}).get("bytes", "-")
        print(f"  {n:<16}{(f'{t:.3f}' if t else '-'):>9}{p.get('registers', '-')!s:>6}"
              f"{p.get('stack_frame', '-')!s:>7}"
              f"{str(p.get('spill_stores', '-')) + '/' + str(p.get('spill_loads', '-')):>13}"
              f"{p.get('smem', '-')!s:>7}{lb!s:>14}{local_sectors(v):>16}")
    for slow, fast in ratios:
        rs = []
        for d in res:
            a = variant(d, slow).get("time_ms") or {}
            b = variant(d, fast).get("time_ms") or {}
            if a.get("median") and b.get("median"):
                rs.append(a["median"] / b["median"])
        print(f"  {slow} / {fast} time: " + (", ".join(f"{x:.2f}x" for x in rs) or "-"))
    for c in res[0].get("expect", []):
        if c["claim"].split()[0] not in names:
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
