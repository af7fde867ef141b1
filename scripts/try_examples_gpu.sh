#!/usr/bin/env bash
# `gpulab try` on the three example files (examples/try), live on a GPU, for the record:
# each run's JSON and its plain report go to $OUT, and a summary of the figures each
# example is there to show is printed. Run from the source tree on a machine with a GPU:
#
#   GPULAB_BIN=/path/to/gpulab OUT=/some/dir scripts/try_examples_gpu.sh
#
# It prints, per example, the device, each variant's median time, GB/s, correctness, and
# the figure to check: copy 4 sectors/request; shared_read PAD-0 32 and PAD-1 1 shared
# load wavefronts/request; stencil SYNC-0 with a race, SYNC-1 none. Exit status 1 if any
# of those figures is otherwise.
set -euo pipefail
: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
cd "$(dirname "$0")/.."

run() {
    local name=$1
    shift
    "$GPULAB_BIN" try "$@" --json >"$OUT/$name.json" 2>"$OUT/$name.log" || true
    "$GPULAB_BIN" try "$@" --report >"$OUT/$name.txt" 2>>"$OUT/$name.log" || true
}

run copy examples/try/copy.cu
run shared_read examples/try/shared_read.cu -D PAD=0 -D PAD=1
run stencil examples/try/stencil.cu -D SYNC=0 -D SYNC=1 --reference SYNC-1

python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
bad = []
def load(name):
    with open(os.path.join(out, name + ".json")) as f:
        return json.load(f)
def v(r, name):
    return next(x for x in r["variants"] if x["name"] == name)
def per(m, num, den):
    return m[num] / m[den] if m.get(den) else None
for name in ["copy", "shared_read", "stencil"]:
    r = load(name)
    print(f"== {name}: {r['source']} on {(r.get('device') or {}).get('name')}")
    for x in r["variants"]:
        t = x.get("time_ms") or {}
        mem = x.get("memory") or {}
        ld = (mem.get("shared") or {}).get("ld") or {}
        g = mem.get("global") or {}
        print(f"  {x['name']:<8} median {t.get('median')} ms ±{t.get('spread_pct')}%  "
              f"GB/s {x.get('gbps')}  correct {x.get('correct')}  "
              f"smem ld wf/req {per(ld, 'wavefronts', 'requests')}  "
              f"sect/req {per(g, 'sectors', 'requests')}  races {len(mem.get('races') or [])}")
    if r["source"] != "live":
        bad.append(f"{name}: not live")
r = load("copy")
if v(r, "copy").get("correct") is not True: bad.append("copy not correct")
if per(v(r, "copy")["memory"]["global"], "sectors", "requests") != 4: bad.append("copy sectors/request")
r = load("shared_read")
for n, want in [("PAD-0", 32), ("PAD-1", 1)]:
    if per(v(r, n)["memory"]["shared"]["ld"], "wavefronts", "requests") != want:
        bad.append(f"{n} wavefronts/request")
r = load("stencil")
if not v(r, "SYNC-0")["memory"].get("races"): bad.append("SYNC-0 race not found")
if v(r, "SYNC-1")["memory"].get("races"): bad.append("SYNC-1 race found")
print("OK" if not bad else "FAILED: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
