#!/usr/bin/env bash
# The exercise table on a GPU: every starter, wrong answer, solution and right answer of
# every exercise checked live as `gpulab ex check` checks it, by one `ex check-many` process
# a thread (one course load and one GPU context for all its answers). A starter stops at
# its first failing check (`--fail-fast`); a wrong answer has the check its file names
# judged first, with only the runs it needs (`--deciding`), and must fail it; each
# exercise's solution and compared variants are timed and traced once at each size, by its
# first check (`--reuse-figures`). Several check at once, sharing the GPU by turns; the
# table (each answer, its class, what failed, seconds) is written to $OUT/ex_table.txt.
#
#   GPULAB_IT=path/to/it-HASH GPULAB_BIN=path/to/gpulab OUT=/tmp/table scripts/ex_table_gpu.sh
#
# GPULAB_EXERCISES=id,id for some exercises; GPULAB_TABLE_THREADS checks at once (a core each);
# GPULAB_TURN_LOG=file lists every turn on the GPU (start, ms held, pid, job[:shared], variant), and
# GPULAB_TABLE_LOGS=dir keeps what each check said, stamped, and sums the seconds the checks
# spent in each stage (what they said last before each stamp). The host's cores' busy share
# over the table is written beside: the table is bound by the host when it is near 100%.
# Exits as the test does: 0 when every answer is as its file says.

set -u
: "${GPULAB_IT:?set GPULAB_IT to the test binary (target/release/deps/it-*)}"
: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
OUT=${OUT:-/tmp/gpulab-table}
mkdir -p "$OUT"
export GPULAB_BIN
cd "$(dirname "$0")/.." || exit 2
start=$(date +%s)
# The cores' busy and idle jiffies (user, nice, system, irq, softirq, steal against idle, iowait).
cpu_jiffies() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6}' /proc/stat 2>/dev/null; }
read -r busy0 idle0 <<<"$(cpu_jiffies)"
"$GPULAB_IT" --test-threads 1 --nocapture \
    gpu_exercises::every_answer_live_starters_and_wrong_answers_fail_their_check_solutions_pass_all \
    2>&1 | tee "$OUT/ex_table.log"
rc=${PIPESTATUS[0]}
# The table is what the test printed between its first exercise and its count.
awk '/ on NVIDIA|^  [a-z]/ {print} / checks live in / {print}' "$OUT/ex_table.log" >"$OUT/ex_table.txt"
echo "ex_table_gpu: $(($(date +%s) - start)) s, exit $rc" | tee -a "$OUT/ex_table.txt"
read -r busy1 idle1 <<<"$(cpu_jiffies)"
if [ -n "${busy0:-}" ] && [ -n "${busy1:-}" ]; then
    awk -v b="$((busy1 - busy0))" -v i="$((idle1 - idle0))" -v c="$(nproc)" 'BEGIN { if (b + i > 0)
        printf "the host: %d cores, busy %.0f%% of the table\n", c, 100 * b / (b + i) }' |
        tee -a "$OUT/ex_table.txt"
fi
if [ -d "${GPULAB_TABLE_LOGS:-}" ]; then
    # Each gap between two stamps goes to the stage said before it, its numbers and the
    # variant taken out; the time before the first stamp is the check's start-up, and the
    # last stage of each check (after its last stamp) is not counted.
    cat "$GPULAB_TABLE_LOGS"/*.log 2>/dev/null | awk '
        /^began / { prev = ""; last = 0; next }
        $2 == "\302\267" {
            t = $1 + 0
            if (prev == "") stage["(start-up: before the first stage)"] += t
            else stage[prev] += t - last
            # After the dot: the variant and its stage, or two spaces and a stage.
            s = substr($0, index($0, "\302\267") + 3)
            if (s ~ /^ /) sub(/^ +/, "", s); else sub(/^[^ ]+ /, "", s)
            gsub(/[0-9]+(\.[0-9]+)?/, "N", s)
            prev = substr(s, 1, 60); last = t }
        END { for (k in stage) { printf "%8.0f s  %s\n", stage[k], k; sum += stage[k] }
              printf "%8.0f s  in all (thread-seconds of the checks)\n", sum }' |
        sort -rn | head -16 | tee -a "$OUT/ex_table.txt"
fi
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
