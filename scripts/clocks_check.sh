#!/usr/bin/env bash
# Timings that say their clock, on a machine with a GPU: a live run's clocks, temperature
# and power in `gpulab run --json` and in the report, a cold-L2 run beside a warm one, and
# the lab's card drawn from the live figures.
#
#   GPULAB_BIN=target/release/gpulab OUT=/tmp/clocks scripts/clocks_check.sh [LESSON]
#
# Inputs: GPULAB_BIN (the binary), OUT (a folder), LESSON (default global-coalescing); run
# from the source tree (its lessons/ and kernels/ are copied to draw the card).
# Writes $OUT/warm.json, $OUT/cold.json, $OUT/report.txt, $OUT/card_80x24.txt,
# $OUT/card_160x48.txt and prints a summary. Exit 1 when a timed variant has no clocks.
set -euo pipefail

: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
: "${OUT:?set OUT to a folder for the results}"
lesson="${1:-global-coalescing}"
mkdir -p "$OUT"
command -v nvidia-smi >/dev/null && nvidia-smi -q -d CLOCK,TEMPERATURE,POWER,PERFORMANCE \
    >"$OUT/nvidia-smi.txt" 2>&1 || true

echo "== $lesson: warm (as every run) and cold L2 (--cold-l2), live" >&2
"$GPULAB_BIN" run "$lesson" --json --no-trace >"$OUT/warm.json"
"$GPULAB_BIN" run "$lesson" --json --no-trace --cold-l2 >"$OUT/cold.json"
"$GPULAB_BIN" run "$lesson" --no-trace >"$OUT/report.txt" || true

python3 - "$OUT/warm.json" "$OUT/cold.json" <<'EOF'
import json, sys

warm, cold = (json.load(open(p)) for p in sys.argv[1:3])
print(f"{warm['lesson']} on {warm['device']['name']} ({warm['source']})")
if warm["source"] != "live" or cold["source"] != "live":
    print("not a live run (no GPU here?): nothing to check")
    sys.exit(1)
print(f"{'variant':<22}{'warm ms':>10}{'cold ms':>10}  {'SM MHz (min-max)':<18}{'mem':>6}{'°C':>5}{'W':>6}  cold_l2  noise")
missing = []
for w in warm["variants"]:
    c = next((v for v in cold["variants"] if v["name"] == w["name"]), {})
    t = lambda v: f"{v['time_ms']['median']:.4f}" if v.get("time_ms") else "-"
    k = w.get("clocks")
    if w.get("time_ms") and not k:
        missing.append(w["name"])
    sm = f"{k['sm_mhz']} ({k['sm_min_mhz']}-{k['sm_max_mhz']})" if k else "-"
    print(f"{w['name']:<22}{t(w):>10}{t(c):>10}  {sm:<18}{(k or {}).get('mem_mhz', '-')!s:>6}"
          f"{(k or {}).get('temp_c', '-')!s:>5}{(k or {}).get('power_w', '-')!s:>6}  "
          f"{c.get('cold_l2', False)!s:<7}  {w.get('noise', '')}{' | cold: ' + c['noise'] if c.get('noise') else ''}")
    if k and k.get("throttle"):
        print(f"{'':<22}throttle reasons: {', '.join(k['throttle'])}; app clock {k.get('app_sm_mhz')}")
if missing:
    print(f"NO CLOCKS for timed variants: {', '.join(missing)}")
    sys.exit(1)
bad = [v["name"] for v in cold["variants"] if v.get("time_ms") and not v.get("cold_l2")]
if bad:
    print(f"cold run not marked cold_l2: {', '.join(bad)} (no room for the flush buffer?)")
EOF

echo "== the report's lines" >&2
sed -n '/^timed at:/,/^$/p' "$OUT/report.txt"

echo "== the card, drawn from the live figures (replayed: the screen says recorded)" >&2
pack="$OUT/pack"
rm -rf "$pack"
mkdir -p "$pack"
cp -r lessons "$pack/lessons"
cp -r kernels "$pack/kernels"
cp -r exercises "$pack/exercises"
rm -f "$pack/lessons/recordings/"*.json
python3 - "$OUT/warm.json" "$pack/lessons/recordings/live.json" "$("$GPULAB_BIN" --version | awk '{print $2}')" <<'EOF'
import json, sys, datetime

r = json.load(open(sys.argv[1]))
device = dict(r["device"])
device.pop("recorded_at", None)
rec = {
    "format": 1,
    "gpulab_version": sys.argv[3],
    "device": device,
    "recorded_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "peak": r["peak"],
    "lessons": [r],
}
json.dump(rec, open(sys.argv[2], "w"), indent=1)
EOF
"$GPULAB_BIN" --lessons "$pack/lessons" render "$lesson" --reveal --width 80 --height 24 \
    | tee "$OUT/card_80x24.txt"
"$GPULAB_BIN" --lessons "$pack/lessons" render "$lesson" --reveal --width 160 --height 48 \
    >"$OUT/card_160x48.txt"
grep -c "MHz" "$OUT/card_160x48.txt" | sed 's/^/lines with MHz on the 160x48 card: /'
