#!/usr/bin/env bash
# The exercise table on a GPU: every starter, wrong answer, solution and right answer of
# every exercise checked live with `gpulab ex check` (a starter stops at its first failing
# check, `--fail-fast`; a wrong answer has the check its file names judged first, with only
# the runs it needs, `--deciding`, and must fail it; each exercise's solution and compared
# variants timed and traced once at each size, by its first check, `--reuse-figures`),
# several at once sharing the GPU by turns; the table (each answer, its class, what failed,
# seconds) is written to $OUT/ex_table.txt.
#
#   GPULAB_IT=path/to/it-HASH GPULAB_BIN=path/to/gpulab OUT=/tmp/table scripts/ex_table_gpu.sh
#
# GPULAB_EXERCISES=id,id for some exercises; GPULAB_TABLE_THREADS checks at once (a core each);
# GPULAB_TURN_LOG=file lists every turn on the GPU (start, ms held, pid, job[:shared], variant), and
# GPULAB_TABLE_LOGS=dir keeps what each check said, stamped.
# Exits as the test does: 0 when every answer is as its file says.

set -u
: "${GPULAB_IT:?set GPULAB_IT to the test binary (target/release/deps/it-*)}"
: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
OUT=${OUT:-/tmp/gpulab-table}
mkdir -p "$OUT"
export GPULAB_BIN
cd "$(dirname "$0")/.." || exit 2
start=$(date +%s)
"$GPULAB_IT" --test-threads 1 --nocapture \
    gpu_exercises::every_answer_live_starters_and_wrong_answers_fail_their_check_solutions_pass_all \
    2>&1 | tee "$OUT/ex_table.log"
rc=${PIPESTATUS[0]}
# The table is what the test printed between its first exercise and its count.
awk '/ on NVIDIA|^  [a-z]/ {print} / checks live in / {print}' "$OUT/ex_table.log" >"$OUT/ex_table.txt"
echo "ex_table_gpu: $(($(date +%s) - start)) s, exit $rc" | tee -a "$OUT/ex_table.txt"
if [ -s "${GPULAB_TURN_LOG:-}" ]; then
    # Shared turns overlap one another: the GPU's busy time is their union, with the
    # alone turns (timed runs) beside it.
    sort -n "$GPULAB_TURN_LOG" | awk '
        { s = $1; e = $1 + $2 / 1000; if (!n || s < a) a = s; if (e > b) b = e; n++
          if ($4 ~ /:shared$/) sh += $2 / 1000; else { al += $2 / 1000; na++ }
          if (!u || s > ue) { busy += ue - us; us = s; ue = e; u = 1 } else if (e > ue) ue = e }
        END { busy += ue - us
              printf "the GPU held in %d turns, busy %.0f s of %.0f s (%.0f%%): %d alone for %.0f s, %d shared for %.0f s\n",
                     n, busy, b - a, 100 * busy / (b - a), na, al, n - na, sh }' \
        | tee -a "$OUT/ex_table.txt"
fi
exit "$rc"
