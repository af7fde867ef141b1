#!/usr/bin/env bash
# The async-copy lesson on a GPU machine, in one run: live, its GPU trace against the CPU
# interpreter's, and the traced cp.async (LDGSTS) counters against Nsight Compute's.
#
#   GPULAB_BIN=path/to/gpulab OUT=dir scripts/async_gpu.sh
#
# Run from the source tree (the lesson is read from lessons/ with `--lessons lessons`). Needs
# a GPU of compute capability 9.0 (the lesson's `tma` variant is Hopper's), the release binary ($GPULAB_BIN), python3, and
# for step 3 Nsight Compute (ncu). No Rust toolchain.
#
#   1. `gpulab run async-copy --lessons lessons` live: the figures and every claim's verdict
#      (the timing claims are conservative until this run says how they fare).
#   2. The GPU tracer against the CPU interpreter: `run --json --no-time` live and `run
#      --cpu --json` trace the same sampled blocks at the lesson's size; every variant's
#      every traced instruction must have the same requests, wavefronts, ideal wavefronts,
#      sectors, lines, bytes and lanes, and the same race count. PASS/FAIL per variant.
#      The `tma` variant's bulk copies are traced as one record each (source and bytes).
#   3. Each variant once under ncu (the uninstrumented build, `--no-time --no-trace`; the
#      reference `sync` runs first for the others and is skipped): the traced figures scaled
#      to the grid against ncu's, within 1% each: LDGSTS instructions and global requests
#      and sectors, the shared wavefronts of their writes, and the loads' and stores'
#      global requests and sectors and shared wavefronts. PASS/FAIL per counter. ncu's
#      metric names are checked first (`ncu --query-metrics`): one that this ncu does not
#      know is reported MISSING with the ldgsts names it does know.
# With RECORD=1 it then records the whole course into $OUT/recording.json (step 4).
# Writes to $OUT: run.txt, gpu.json, cpu.json, gpu_cpu.txt, ncu/ (the CSV per variant),
# ncu_table.md, ncu_metrics.txt. Exits 0 when every comparison passes, 1 when one fails,
# 2 when it could not run.

set -u

fail() {
    echo "async_gpu: $*" >&2
    exit 2
}

[ -n "${GPULAB_BIN:-}" ] || fail "set GPULAB_BIN to the gpulab release binary"
[ -x "$GPULAB_BIN" ] || fail "GPULAB_BIN=$GPULAB_BIN is not an executable"
[ -n "${OUT:-}" ] || fail "set OUT to a folder for the results"
[ -f lessons/19-async-copy.yaml ] || fail "run from the source tree (no lessons/19-async-copy.yaml here)"
command -v python3 >/dev/null || fail "python3 not found"
mkdir -p "$OUT/ncu" || fail "cannot write to $OUT"
export PATH="$PATH:/usr/local/cuda/bin"
LESSON=async-copy
VARIANTS="sync async double tma"
G=("$GPULAB_BIN" --lessons lessons)
status=0

"$GPULAB_BIN" doctor | sed -n '1,4p'
echo

echo "== 1. the lesson live"
"${G[@]}" run "$LESSON" >"$OUT/run.txt" 2>&1
run_rc=$?
sed -n '/^variant/,$p' "$OUT/run.txt"
echo "live run: exit $run_rc"
[ $run_rc -eq 0 ] || status=1
echo

echo "== 2. the GPU tracer against the CPU interpreter"
"${G[@]}" run "$LESSON" --json --no-time >"$OUT/gpu.json" 2>"$OUT/gpu.err" || fail "the traced live run failed: $(tail -3 "$OUT/gpu.err")"
"${G[@]}" run "$LESSON" --cpu --json >"$OUT/cpu.json" 2>"$OUT/cpu.err" || fail "the CPU run failed: $(tail -3 "$OUT/cpu.err")"
python3 - "$OUT/gpu.json" "$OUT/cpu.json" >"$OUT/gpu_cpu.txt" <<'EOF'
import json, sys
gpu, cpu = (json.load(open(p)) for p in sys.argv[1:3])
fields = ["requests", "wavefronts", "ideal_wavefronts", "sectors", "lines", "bytes_used", "lanes"]
bad = 0
def by_name(r):
    return {v["name"]: v for v in r["variants"]}
g, c = by_name(gpu), by_name(cpu)
for name in g:
    mg, mc = (g[name].get("memory"), c.get(name, {}).get("memory"))
    if mg is None or mc is None:
        print(f"FAIL {name}: no trace on the {'GPU' if mg is None else 'CPU'}")
        bad += 1
        continue
    ig = {(i["id"], i["space"]): i for i in mg["instructions"]}
    ic = {(i["id"], i["space"]): i for i in mc["instructions"]}
    diffs = []
    for key in sorted(set(ig) | set(ic)):
        a, b = ig.get(key), ic.get(key)
        if a is None or b is None:
            diffs.append(f"  site {key}: only on the {'CPU' if a is None else 'GPU'}")
            continue
        for f in fields:
            if a.get(f, 0) != b.get(f, 0):
                diffs.append(f"  site {key} {a['op']} line {a.get('source_line')}: {f} GPU {a.get(f, 0)} CPU {b.get(f, 0)}")
    races = lambda m: sum(r["count"] for r in m.get("races", []))
    if races(mg) != races(mc):
        diffs.append(f"  races GPU {races(mg)} CPU {races(mc)}")
    blocks = (mg["traced_blocks"], mc["traced_blocks"])
    if blocks[0] != blocks[1]:
        diffs.append(f"  traced blocks GPU {blocks[0]} CPU {blocks[1]}")
    copies = sum(i["requests"] for i in mg["instructions"]
                 if i["kind"] in ("async-copy", "bulk-copy") and i["space"] == "global")
    print(f"{'PASS' if not diffs else 'FAIL'} {name}: {len(ig)} traced instructions "
          f"({copies} copy requests) equal on the GPU and the CPU" if not diffs else
          f"FAIL {name}: {len(diffs)} differences")
    for d in diffs[:20]:
        print(d)
    bad += bool(diffs)
sys.exit(1 if bad else 0)
EOF
cmp_rc=$?
cat "$OUT/gpu_cpu.txt"
[ $cmp_rc -eq 0 ] || status=1
echo

echo "== 3. traced against ncu"
NCU=$(command -v ncu || true)
if [ -z "$NCU" ]; then
    echo "SKIP ncu not found: nothing compared"
    exit 2
fi
"$NCU" --query-metrics >"$OUT/ncu_metrics.txt" 2>&1
echo "ncu knows these ldgsts metrics:"
grep -io '[a-z0-9_]*ldgsts[a-z0-9_]*' "$OUT/ncu_metrics.txt" | sort -u | sed 's/^/  /'
# The TMA's bulk copies go through no LSU pipe: none of the counters below is theirs. Their
# names are listed for the next calibration, not compared.
echo "and these of the TMA (shown, not compared):"
grep -io '[a-z0-9_]*\(tma\|bulk\|utma\|ubulk\)[a-z0-9_]*' "$OUT/ncu_metrics.txt" | sort -u | head -30 | sed 's/^/  /'
# Each traced label and the ncu counters it is compared with: several names are summed
# (ncu splits LDGSTS's global side by cache access and bypass where it has no total).
COUNTERS='ldgsts instructions|smsp__inst_executed_op_ldgsts
ldgsts global requests|l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts;l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access+l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass
ldgsts global sectors|l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts;l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access+l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass
ldgsts shared wavefronts|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts;smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts
global ld requests|l1tex__t_requests_pipe_lsu_mem_global_op_ld
global ld sectors|l1tex__t_sectors_pipe_lsu_mem_global_op_ld
global st requests|l1tex__t_requests_pipe_lsu_mem_global_op_st
global st sectors|l1tex__t_sectors_pipe_lsu_mem_global_op_st
shared ld wavefronts|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld
shared st wavefronts|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st'
# The names this ncu knows, each with .sum (a name of the query's list is a base name).
known() { grep -qw "$1" "$OUT/ncu_metrics.txt"; }
asked=""
while IFS='|' read -r _ alts; do
    for alt in ${alts//;/ }; do
        for name in ${alt//+/ }; do
            known "$name" && asked="$asked,$name.sum"
        done
    done
done <<<"$COUNTERS"
asked=${asked#,}
[ -n "$asked" ] || fail "ncu knows none of the counters (see $OUT/ncu_metrics.txt)"
printf '| variant | counter | traced | ncu | difference | verdict |\n|---|---|---|---|---|---|\n' >"$OUT/ncu_table.md"
for v in $VARIANTS; do
    skip=1
    [ "$v" = sync ] && skip=0
    "$NCU" --csv --clock-control none --target-processes all --kernel-name window_sum \
        --launch-skip "$skip" --launch-count 1 --metrics "$asked" \
        "${G[@]}" run "$LESSON" --variant "$v" --no-time --no-trace >"$OUT/ncu/$v.csv" 2>"$OUT/ncu/$v.err"
    python3 - "$OUT/gpu.json" "$OUT/ncu/$v.csv" "$v" "$COUNTERS" "$OUT/ncu_metrics.txt" >>"$OUT/ncu_table.md" <<'EOF' || status=1
import csv, json, sys
res, csv_path, variant, counters, known_path = sys.argv[1:6]
known = set(open(known_path).read().split())
v = next(x for x in json.load(open(res))["variants"] if x["name"] == variant)
m = v["memory"]
k = m["total_blocks"] / max(m["traced_blocks"], 1)
hw = {}
rows = list(csv.reader(open(csv_path)))
head = next((r for r in rows if "Metric Name" in r and "Metric Value" in r), None)
if head:
    n, val = head.index("Metric Name"), head.index("Metric Value")
    for r in rows[rows.index(head) + 1:]:
        if len(r) > max(n, val):
            try:
                hw[r[n]] = hw.get(r[n], 0.0) + float(r[val].replace(",", ""))
            except ValueError:
                pass
t = {}
def add(label, x):
    t[label] = t.get(label, 0.0) + x * k
for i in m["instructions"]:
    kind, space = i["kind"], i["space"]
    if kind == "async-copy":
        if space == "global":
            add("ldgsts instructions", i["requests"])
            add("ldgsts global requests", i["requests"])
            add("ldgsts global sectors", i["sectors"])
        elif space == "shared":
            add("ldgsts shared wavefronts", i["wavefronts"])
    elif kind in ("load", "store") and space in ("global", "shared"):
        side = "ld" if kind == "load" else "st"
        if space == "global":
            add(f"global {side} requests", i["requests"])
            add(f"global {side} sectors", i["sectors"])
        else:
            add(f"shared {side} wavefronts", i["wavefronts"])
bad = 0
for line in counters.splitlines():
    label, alts = line.split("|")
    traced = t.get(label, 0.0)
    value = None
    for alt in alts.split(";"):
        names = alt.split("+")
        if all(f"{x}.sum" in hw for x in names):
            value = sum(hw[f"{x}.sum"] for x in names)
            break
    if value is None:
        have = [x for alt in alts.split(";") for x in alt.split("+") if x in known]
        print(f"| {variant} | {label} | {traced:.0f} | MISSING | - | FAIL (ncu gave none of {alts}; known: {have}) |")
        bad += 1
        continue
    if value == 0 and traced == 0:
        diff = 0.0
    elif value == 0:
        diff = float("inf")
    else:
        diff = (traced - value) / value * 100
    ok = abs(diff) <= 1.0
    bad += not ok
    print(f"| {variant} | {label} | {traced:.0f} | {value:.0f} | {diff:+.2f}% | {'PASS' if ok else 'FAIL'} |")
sys.exit(1 if bad else 0)
EOF
done
cat "$OUT/ncu_table.md"
echo

# The shipped recording must hold every lesson (tests/recording.rs, tests/screens.rs): with
# RECORD=1 the whole course is recorded into $OUT/recording.json, to put in
# lessons/recordings/ once its figures are read.
if [ "${RECORD:-0}" = 1 ]; then
    echo "== 4. recording the course (RECORD=1)"
    "${G[@]}" record --out "$OUT/recording.json" >"$OUT/record.log" 2>&1
    echo "record: exit $? ($OUT/recording.json, log in $OUT/record.log)"
fi
echo "PASS counters: $(grep -c '| PASS |' "$OUT/ncu_table.md"); FAIL counters: $(grep -c 'FAIL' "$OUT/ncu_table.md")"
echo "async_gpu: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
exit $status
