#!/usr/bin/env bash
# Copies at the copy engine's speed, on a machine with a GPU: each variant of the
# coalescing, transpose and reduction lessons as a share of the device-to-device copy
# measured in the same run, over several runs, and the knobs that show each step (loads in
# flight, blocks per SM, tile width), so the bars of the timing claims can be chosen from
# figures rather than guessed.
#
#   GPULAB_BIN=target/release/gpulab OUT=/tmp/copies scripts/copies_gpu.sh [RUNS]
#
# Inputs: GPULAB_BIN (the binary), OUT (a folder), RUNS (default 3); run from the source
# tree: the lessons are read from its lessons/ (`--lessons lessons`), and the knobs are
# recorded from a copy of the three lessons with the kernels and exercises beside them.
# Writes $OUT/copies-<lesson>-<run>.json (`gpulab run --json`), $OUT/copies-knobs.json (a
# recording of the three lessons, knobs included) and prints:
#   - per lesson, per variant: % of copy in each run, the median, the lowest, and the
#     copy GB/s of each run;
#   - per lesson: the target of the issue (97 / 96 / 98% of copy) against the best variant's
#     lowest figure, PASS or FAIL;
#   - per knob setting: % of copy from the recording;
#   - every claim that failed in any run, with its detail.
# Exit 1 when a run is not live or a variant is wrong.
set -euo pipefail

: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
: "${OUT:?set OUT to a folder for the results}"
runs="${1:-3}"
lessons=(global-coalescing shared-transpose reduction)
mkdir -p "$OUT"

for r in $(seq 1 "$runs"); do
    for l in "${lessons[@]}"; do
        echo "== $l, run $r of $runs" >&2
        # A failed claim makes the exit status 1; the figures are what this script reads.
        "$GPULAB_BIN" run "$l" --lessons lessons --json >"$OUT/copies-$l-$r.json" || true
    done
done

# The knobs run only under `record`: record a course of just these three lessons.
course="$OUT/copies-course"
rm -rf "$course"
mkdir -p "$course/lessons"
cp lessons/01-global-coalescing.yaml lessons/08-shared-transpose.yaml \
    lessons/09-reduction.yaml "$course/lessons/"
cp -r kernels exercises "$course/"
echo "== knobs: gpulab record of the three lessons" >&2
"$GPULAB_BIN" --lessons "$course/lessons" record --out "$OUT/copies-knobs.json" >&2 || true

python3 - "$OUT" "$runs" "${lessons[@]}" <<'EOF'
import json, os, statistics, sys

out, runs, lessons = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
# The issue's targets: the best variant's share of the device-to-device copy.
target = {"global-coalescing": 97.0, "shared-transpose": 96.0, "reduction": 98.0}
bad = False
failed_claims = {}
for l in lessons:
    res = []
    for r in range(1, runs + 1):
        p = os.path.join(out, f"copies-{l}-{r}.json")
        try:
            res.append(json.load(open(p)))
        except (OSError, ValueError) as e:
            print(f"{l} run {r}: no figures ({e})")
            bad = True
    if not res:
        continue
    if any(d["source"] != "live" for d in res):
        print(f"{l}: not a live run (no GPU here?)")
        bad = True
        continue
    copies = [d["peak"].get("copy_gbps") for d in res]
    print(f"\n{l} on {res[0]['device']['name']}: copy "
          + " / ".join(f"{c:.0f}" if c else "-" for c in copies) + " GB/s")
    print(f"  {'variant':<24}{'% of copy, each run':<30}{'median':>8}{'lowest':>8}")
    best = None
    for v in res[0]["variants"]:
        name = v["name"]
        pcts = []
        for d in res:
            w = next((x for x in d["variants"] if x["name"] == name), {})
            if w.get("correct") is False:
                print(f"  {name}: WRONG output ({w.get('error') or 'mismatch'})")
                bad = True
            if w.get("pct_of_peak") is not None:
                pcts.append(w["pct_of_peak"])
        if not pcts:
            continue
        med, low = statistics.median(pcts), min(pcts)
        print(f"  {name:<24}{' '.join(f'{p:6.1f}' for p in pcts):<30}{med:8.1f}{low:8.1f}")
        if best is None or low > best[1]:
            best = (name, low)
    if best:
        verdict = "PASS" if best[1] >= target[l] else "FAIL"
        print(f"  {verdict} {l}: best {best[0]} lowest {best[1]:.1f}% of copy "
              f"(target >= {target[l]:.0f}%)")
    for d in res:
        for c in d.get("expect", []):
            if not c.get("holds"):
                failed_claims.setdefault((l, c["claim"]), []).append(c.get("detail", ""))

try:
    rec = json.load(open(os.path.join(out, "copies-knobs.json")))
    print("\nknobs (one recording; % of copy):")
    for le in rec["lessons"]:
        for k in le.get("knobs") or []:
            p = k.get("pct_of_peak")
            t = (k.get("time_ms") or {}).get("median")
            ok = "" if k.get("correct") is not False else "  WRONG"
            print(f"  {le['lesson']:<20}{k['name']:<34}"
                  f"{(f'{p:6.1f}%' if p is not None else '     -'):>8}"
                  f"{(f'{t:9.4f} ms' if t is not None else ''):>13}{ok}")
except (OSError, ValueError, KeyError) as e:
    print(f"\nknobs: no recording ({e})")

print("\nclaims that failed in some run:" if failed_claims else "\nevery claim held in every run")
for (l, c), details in failed_claims.items():
    print(f"  FAIL {l}: {c}  ({'; '.join(details)})")
sys.exit(1 if bad else 0)
EOF
