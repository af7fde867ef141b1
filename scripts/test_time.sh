#!/usr/bin/env bash
# How long a fresh clone's `cargo test` takes: the README's test command as a newcomer (or CI)
# runs it, dependencies built from nothing included.
#
#   scripts/test_time.sh [ARGS...]       ARGS go to `cargo test` (e.g. `-- --test-threads 4`)
#
# Clones this repository's committed HEAD (the work tree's uncommitted changes are not in
# it) into a temporary folder, builds and tests it there with a target folder of its own,
# prints cargo's output and then the wall time, and removes the folder. The environment is
# passed on as it is, so GPULAB_REQUIRE_NVRTC=1 GPULAB_REQUIRE_PTXAS=1 (as .ci/run sets
# them) make a missing NVRTC or ptxas fail the tests rather than skip them. Exits with
# cargo's status. KEEP=1 keeps the folder and says where it is.

set -euo pipefail

root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpulab-test-time.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
    trap 'echo "test_time: kept $tmp" >&2' EXIT
else
    trap 'rm -rf "$tmp"' EXIT
fi

git clone --quiet --no-checkout "$root" "$tmp/src"
# HEAD as the work tree has it, also when it is detached and on no branch the clone took.
git -C "$tmp/src" fetch --quiet "$root" HEAD
git -C "$tmp/src" checkout --quiet --detach FETCH_HEAD
echo "test_time: $(git -C "$tmp/src" log -1 --format='%h %s' | cut -c1-100)" >&2

cd "$tmp/src"
start=$(date +%s.%N)
set +e
# A target folder of its own: one inherited from the environment would hold a build already.
CARGO_TARGET_DIR="$tmp/target" cargo test "$@"
rc=$?
set -e
end=$(date +%s.%N)

secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
printf 'test_time: fresh `cargo test` took %dm %02ds (%d s) on %d cores, exit status %d\n' \
    $((secs / 60)) $((secs % 60)) "$secs" "$(nproc)" "$rc"
exit "$rc"
