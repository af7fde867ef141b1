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
#   3. Traced against Nsight Compute at n = $CAL_N (default 262144: 128 blocks), a size at
#      which every block is traced (`run --size n=$CAL_N --trace-blocks 128`): the
#      lesson's own sample (2 of 16384 blocks, scaled to the grid) counts block 0's edge
#      work (its halo past the array's start) 8192 times and the last block's not at all,
#      which ncu does not. Each variant once under ncu (the uninstrumented build, `--no-time
#      --no-trace`, same size; the reference `sync` runs first for the others and is
#      skipped), every counter within 1%, like with like:
#        - LDGSTS requests: warp instructions with a lane on (`_pred_on_any`; plain
#          `smsp__inst_executed_op_ldgsts` also counts the halo copy's instruction in the
#          warps whose lanes are all predicated off, shown as INFO), the L1's requests and
#          sectors of the cached form (`_cache_access`) and the SASS totals of both forms;
#        - global loads as ncu's `op_ld` counts them: plain loads plus the copies' reads;
#        - shared wavefronts less ncu's bank conflicts against the traced (ideal)
#          wavefronts; the raw wavefronts too, EXPLAINED where beyond 1% and the first row
#          matches within 0.01% (arbitration, as in the README's ncu section);
#        - the TMA's bulk copies: bytes and sectors read from global.
#      PASS/FAIL/EXPLAINED per counter. A name this ncu does not know is MISSING (FAIL).
# With RECORD=1 it then records the whole course into $OUT/recording.json (step 4).
# Writes to $OUT: run.txt, gpu.json, cpu.json, gpu_cpu.txt, ncu/ (the CSV per variant),
# cal.json (the calibration's trace), ncu_table.md, ncu_metrics.txt. Exits 0 when every comparison passes, 1 when one fails,
# 2 when it could not run.

set -u

fail() {
    echo "async_gpu: $*" >&2
    exit 2
}

[ -n "${GPULAB_BIN:-}" ] || fail "set GPULAB_BIN to the gpulab release binary"
[ -x "$GPULAB_BIN" ] || fail "GPULAB_BIN=$GPULAB_BIN is not an executable"
[ -n "${OUT:-}" ] || fail "set OUT to a folder for the results"
[ -f lessons/12-async-copy.yaml ] || fail "run from the source tree (no lessons/12-async-copy.yaml here)"
command -v python3 >/dev/null || fail "python3 not found"
mkdir -p "$OUT/ncu" || fail "cannot write to $OUT"
export PATH="$PATH:/usr/local/cuda/bin"
LESSON=async-copy
VARIANTS="sync async double tma"
# The calibration's size: a multiple of 2048 (a block's 8 tiles of 256) small enough that
# every block's trace fits the tracer's buffer (about 2,600 records a block).
CAL_N=${CAL_N:-262144}
[ $((CAL_N % 2048)) -eq 0 ] || fail "CAL_N=$CAL_N is not a multiple of 2048"
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

echo "== 3. traced against ncu (n = $CAL_N, every block traced)"
NCU=$(command -v ncu || true)
if [ -z "$NCU" ]; then
    echo "SKIP ncu not found: nothing compared"
    exit 2
fi
"$NCU" --query-metrics >"$OUT/ncu_metrics.txt" 2>&1
# At the lesson's size the trace samples 2 of 16384 blocks (blocks 0 and 8192) and scales
# them to the grid: block 0's halo past the array's start (fewer sectors, the TMA tile's
# zeroed words) then counts 8192 times, and the last block's tail not at all. The
# calibration runs at a size whose every block is traced instead (--trace-blocks), so
# that each edge's work counts once, as ncu counts it.
blocks=$((CAL_N / 2048))
"${G[@]}" run "$LESSON" --json --no-time --size "n=$CAL_N" --trace-blocks "$blocks" \
    >"$OUT/cal.json" 2>"$OUT/cal.err" || fail "the calibration trace failed: $(tail -3 "$OUT/cal.err")"
# Each row: label | traced figure | ncu names (a-b: a less b) | what a difference means.
# Traced figures (over every block): copy.req/.sect (the copies' global reads), copy.wf
# and copy.ideal (their shared writes), ld.req/.sect (plain global loads), st.*, sld.*,
# sst.* (shared loads and stores), bulk.bytes/.sect (the TMA's bulk copies). Sums: a+b.
COUNTERS='ldgsts requests (warp instructions with a lane on)|copy.req|smsp__inst_executed_op_ldgsts_pred_on_any|
ldgsts global requests (.ca, L1)|copy.req|l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access|
ldgsts global sectors (.ca, L1)|copy.sect|l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access|
ldgsts global requests (SASS, .ca and .cg)|copy.req|smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts|
ldgsts global sectors (SASS, .ca and .cg)|copy.sect|smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts|
ldgsts shared wavefronts - conflicts|copy.ideal|smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts-smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts|
ldgsts shared wavefronts|copy.wf|smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts|arb:ldgsts shared wavefronts - conflicts
global ld requests (loads + copies, as ncu op_ld counts)|ld.req+copy.req|l1tex__t_requests_pipe_lsu_mem_global_op_ld|
global ld sectors (loads + copies, as ncu op_ld counts)|ld.sect+copy.sect|l1tex__t_sectors_pipe_lsu_mem_global_op_ld|
global st requests|st.req|l1tex__t_requests_pipe_lsu_mem_global_op_st|
global st sectors|st.sect|l1tex__t_sectors_pipe_lsu_mem_global_op_st|
shared ld wavefronts - conflicts|sld.ideal|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld-l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld|
shared ld wavefronts|sld.wf|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld|arb:shared ld wavefronts - conflicts
shared st wavefronts - conflicts|sst.ideal|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st-l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st|
shared st wavefronts|sst.wf|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st|arb:shared st wavefronts - conflicts
tma bulk-copy bytes read from global|bulk.bytes|l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld|
tma bulk-copy sectors read from global|bulk.sect|l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld|
ldgsts warp instructions executed|-|smsp__inst_executed_op_ldgsts|info:every warp instruction, those with every lane predicated off too (the halo copy is guarded @!P2 in all 8 warps); the trace sees only requests with a lane on: compared above as pred_on_any'
known() { grep -qw "$1" "$OUT/ncu_metrics.txt"; }
asked=""
missing=""
while IFS='|' read -r _ _ names _; do
    for name in ${names//-/ }; do
        if known "$name"; then
            case ",$asked," in *",$name.sum,"*) ;; *) asked="$asked,$name.sum" ;; esac
        else
            missing="$missing $name"
        fi
    done
done <<<"$COUNTERS"
asked=${asked#,}
[ -z "$missing" ] || echo "ncu does not know:$missing (their rows FAIL as MISSING)"
[ -n "$asked" ] || fail "ncu knows none of the counters (see $OUT/ncu_metrics.txt)"
printf '| variant | counter | traced | ncu | difference | verdict |\n|---|---|---|---|---|---|\n' >"$OUT/ncu_table.md"
for v in $VARIANTS; do
    skip=1
    [ "$v" = sync ] && skip=0
    "$NCU" --csv --clock-control none --target-processes all --kernel-name window_sum \
        --launch-skip "$skip" --launch-count 1 --metrics "$asked" \
        "${G[@]}" run "$LESSON" --variant "$v" --no-time --no-trace --size "n=$CAL_N" \
        >"$OUT/ncu/$v.csv" 2>"$OUT/ncu/$v.err"
    python3 - "$OUT/cal.json" "$OUT/ncu/$v.csv" "$v" "$COUNTERS" >>"$OUT/ncu_table.md" <<'EOF' || status=1
import csv, json, sys
res, csv_path, variant, counters = sys.argv[1:5]
v = next(x for x in json.load(open(res))["variants"] if x["name"] == variant)
m = v.get("memory")
bad = 0
if m is None:
    print(f"| {variant} | (trace) | none | - | - | FAIL ({v.get('trace_error')}) |")
    sys.exit(1)
if m["traced_blocks"] != m["total_blocks"] or m.get("overflow", 0):
    print(f"| {variant} | (trace) | {m['traced_blocks']} of {m['total_blocks']} blocks, "
          f"{m.get('overflow', 0)} records lost | - | - | FAIL (not every block traced: "
          f"lower CAL_N) |")
    bad += 1
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
def add(key, x):
    t[key] = t.get(key, 0.0) + x * k
for i in m["instructions"]:
    kind, space = i["kind"], i["space"]
    if kind == "async-copy" and space == "global":
        add("copy.req", i["requests"]); add("copy.sect", i["sectors"])
    elif kind == "async-copy" and space == "shared":
        add("copy.wf", i["wavefronts"]); add("copy.ideal", i["ideal_wavefronts"])
    elif kind == "bulk-copy" and space == "global":
        add("bulk.bytes", i["bytes_used"]); add("bulk.sect", i["sectors"])
    elif kind in ("load", "store") and space == "global":
        p = "ld" if kind == "load" else "st"
        add(f"{p}.req", i["requests"]); add(f"{p}.sect", i["sectors"])
    elif kind in ("load", "store") and space == "shared":
        p = "sld" if kind == "load" else "sst"
        add(f"{p}.wf", i["wavefronts"]); add(f"{p}.ideal", i["ideal_wavefronts"])
def pct(a, b):
    return 0.0 if a == b else (float("inf") if b == 0 else (a - b) / b * 100)
verdicts = {}
for line in counters.splitlines():
    label, traced_expr, names, why = (line.split("|") + [""])[:4]
    parts = names.split("-")
    value = None
    if all(f"{x}.sum" in hw for x in parts):
        value = hw[f"{parts[0]}.sum"] - sum(hw[f"{x}.sum"] for x in parts[1:])
    if why.startswith("info:"):
        shown = "-" if value is None else f"{value:.0f}"
        print(f"| {variant} | {label} | not traced | {shown} | - | INFO ({why[5:]}) |")
        continue
    traced = sum(t.get(x, 0.0) for x in traced_expr.split("+"))
    if value is None:
        print(f"| {variant} | {label} | {traced:.0f} | MISSING | - | FAIL (ncu gave no "
              f"{' or '.join(x for x in parts if f'{x}.sum' not in hw)}) |")
        bad += 1
        verdicts[label] = None
        continue
    d = pct(traced, value)
    verdicts[label] = d
    ok = abs(d) <= 1.0
    verdict = "PASS" if ok else "FAIL"
    if not ok and why.startswith("arb:"):
        # The hardware's wavefronts beyond the addresses' cost: arbitration with other
        # traffic in the same cycle, counted in its bank-conflict counter too (README, ncu).
        base = verdicts.get(why[4:])
        if base is not None and abs(base) <= 0.01:
            verdict = (f"EXPLAINED (arbitration: ncu's extra wavefronts are all in its "
                       f"bank-conflict counter, and '{why[4:]}' matches)")
            ok = True
    bad += not ok
    print(f"| {variant} | {label} | {traced:.0f} | {value:.0f} | {d:+.2f}% | {verdict} |")
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
echo "counters: $(grep -c '| PASS |' "$OUT/ncu_table.md") PASS, $(grep -c '| EXPLAINED' "$OUT/ncu_table.md") EXPLAINED, $(grep -c '| FAIL' "$OUT/ncu_table.md") FAIL ($(grep -c '| INFO' "$OUT/ncu_table.md") INFO rows, not compared)"
echo "async_gpu: $([ $status -eq 0 ] && echo PASS || echo FAIL)"
exit $status
