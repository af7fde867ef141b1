#!/usr/bin/env bash
# The host lesson on a machine with a GPU: the lesson live with every claim, the PCIe link
# the lab read from NVML against nvidia-smi's, the lab's copy times against a small CUDA
# program of our own timing the same copies (cudaMemcpy between events), and the read-once
# exercise's solution and wrong answers checked live.
#
#   GPULAB_BIN=target/release/gpulab OUT=/tmp/host scripts/host_gpu.sh
#
# Inputs: GPULAB_BIN (the binary), OUT (a folder); run from the source tree (lessons from
# `--lessons lessons`); nvcc on PATH (or in $CUDA_HOME/bin) for the independent timing.
# Writes $OUT/host.json, $OUT/host.txt, $OUT/link.txt, $OUT/copies.txt, $OUT/ex-*.txt and
# prints PASS/FAIL per item, then a line of totals. Exit 1 when any item failed.
set -uo pipefail

: "${GPULAB_BIN:?set GPULAB_BIN to the gpulab binary}"
: "${OUT:?set OUT to a folder for the results}"
mkdir -p "$OUT"
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"

echo "== 1. the lesson, live (--json and the report)" >&2
"$GPULAB_BIN" run host --lessons lessons --json >"$OUT/host.json" 2>"$OUT/host.err"
echo "run --json exit $?" >>"$OUT/host.err"
"$GPULAB_BIN" run host --lessons lessons >"$OUT/host.txt" 2>&1 || true

echo "== 2. the PCIe link, as nvidia-smi says it" >&2
nvidia-smi -q | grep -A3 -i "link" >"$OUT/link.txt" 2>&1 || true

echo "== 3. the same copies timed by a CUDA program of our own" >&2
nvcc_bin="$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")"
cat >"$OUT/copies.cu" <<'EOF'
// 256 MiB copied host to device and back, from pageable (malloc) and pinned
// (cudaMallocHost) memory, each timed with events around one cudaMemcpyAsync on the
// null stream after 3 warm-up copies; the median of 20, in GB/s (10^9 bytes a second).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("error %s at line %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

static int timed(const char* name, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int i = 0; i < 23; ++i) {
        CK(cudaEventRecord(a, 0));
        CK(cudaMemcpyAsync(dst, src, bytes, kind, 0));
        CK(cudaEventRecord(b, 0));
        CK(cudaEventSynchronize(b));
        float t = 0;
        CK(cudaEventElapsedTime(&t, a, b));
        if (i >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    float med = ms[ms.size() / 2];
    std::printf("%s %.4f ms %.2f GB/s\n", name, med, bytes / (med * 1e-3) / 1e9);
    return 0;
}

int main() {
    const size_t bytes = size_t(256) << 20;
    void* dev;
    CK(cudaMalloc(&dev, bytes));
    char* pageable = static_cast<char*>(std::malloc(bytes));
    std::memset(pageable, 1, bytes);
    void* pinned;
    CK(cudaMallocHost(&pinned, bytes));
    std::memset(pinned, 1, bytes);
    if (timed("h2d-pageable", dev, pageable, bytes, cudaMemcpyHostToDevice)) return 1;
    if (timed("h2d-pinned", dev, pinned, bytes, cudaMemcpyHostToDevice)) return 1;
    if (timed("d2h-pageable", pageable, dev, bytes, cudaMemcpyDeviceToHost)) return 1;
    if (timed("d2h-pinned", pinned, dev, bytes, cudaMemcpyDeviceToHost)) return 1;
    return 0;
}
EOF
if "$nvcc_bin" -O2 -o "$OUT/copies" "$OUT/copies.cu" >"$OUT/nvcc.txt" 2>&1; then
    "$OUT/copies" >"$OUT/copies.txt" 2>&1
else
    echo "nvcc failed: see nvcc.txt" >"$OUT/copies.txt"
fi

echo "== 4. the exercise live: the solution passes, each wrong answer fails" >&2
# Progress goes to a folder of its own, not the learner's data directory.
export GPULAB_DATA_DIR="$OUT/data"
ws="$OUT/workspace"
rm -rf "$ws"
mkdir -p "$ws"
ex_dir=exercises/host/read-once
: >"$OUT/ex-verdicts.txt"
for f in "$ex_dir/solution.cu" "$ex_dir/starter.cu" "$ex_dir"/wrong/*.cu; do
    cp "$f" "$ws/read-once.cu"
    name="$(basename "$(dirname "$f")")/$(basename "$f")"
    "$GPULAB_BIN" ex check read-once --lessons lessons --workspace "$ws" \
        >"$OUT/ex-$(basename "$f" .cu).txt" 2>&1
    echo "$name $?" >>"$OUT/ex-verdicts.txt"
done

python3 - "$OUT" <<'EOF'
import json, os, re, sys

out = sys.argv[1]
results = []

def item(ok, what):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}  {what}")

try:
    d = json.load(open(os.path.join(out, "host.json")))
except Exception as e:  # a run that printed no JSON says why in host.err
    d = None
    item(False, f"run host --json gave no JSON ({e}); see host.err")

ours = {}
if d:
    dev = d.get("device") or {}
    print(f"host on {dev.get('name')} ({d.get('source')}); peak {d.get('peak')}")
    item(d.get("source") == "live", f"the run is live (source {d.get('source')})")
    link = dev.get("pcie")
    item(link is not None, f"the device info has the PCIe link from NVML: {link}")
    print(f"{'variant':<18}{'median ms':>11}{'GB/s':>9}{'%link':>8}  status")
    for v in d["variants"]:
        t = (v.get("time_ms") or {}).get("median")
        g = v.get("gbps")
        p = v.get("pct_of_peak")
        status = "correct" if v.get("correct") else (v.get("error") or v.get("unmet") or "-")
        print(f"{v['name']:<18}{t if t is None else round(t, 4)!s:>11}"
              f"{'-' if g is None else f'{g:.2f}':>9}{'-' if p is None else f'{p:.1f}':>8}  {status[:70]}")
        if g is not None:
            ours[v["name"]] = g
    claims = d.get("expect") or []
    item(len(claims) > 0, f"{len(claims)} claims judged")
    for c in claims:
        item(c.get("holds") is True, f"claim: {c['claim']}  ({c.get('detail')})")

    # nvidia-smi's "Max" generation and width under "PCIe Generation" / "Link Width".
    text = open(os.path.join(out, "link.txt")).read()
    gens = re.findall(r"PCIe Generation\s*\n\s*Max\s*:\s*(\d+)\s*\n\s*Current\s*:\s*(\d+)", text)
    widths = re.findall(r"Link Width\s*\n\s*Max\s*:\s*(\d+)x\s*\n\s*Current\s*:\s*(\d+)x", text)
    if link and gens and widths:
        smi = (int(gens[0][0]), int(widths[0][0]))
        item(smi == (link["gen_max"], link["width_max"]),
             f"link max: nvidia-smi Gen {smi[0]} x{smi[1]}, the lab Gen {link['gen_max']} x{link['width_max']}"
             f" (nvidia-smi's current: Gen {gens[0][1]} x{widths[0][1]}; the lab's: Gen {link['gen_now']} x{link['width_now']})")
    else:
        item(False, "link max: could not read both nvidia-smi's link (link.txt) and the lab's")

theirs = {}
for line in open(os.path.join(out, "copies.txt")):
    m = re.match(r"(\S+) ([\d.]+) ms ([\d.]+) GB/s", line)
    if m:
        theirs[m.group(1)] = float(m.group(3))
item(len(theirs) == 4, f"our CUDA program timed the four copies: {theirs or open(os.path.join(out, 'copies.txt')).read().strip()}")
for name, g in theirs.items():
    if name in ours:
        diff = 100 * (ours[name] - g) / g
        item(abs(diff) <= 5, f"{name}: the lab {ours[name]:.2f} GB/s, cudaMemcpy {g:.2f} GB/s ({diff:+.1f}%, within 5%)")
    else:
        item(False, f"{name}: the lab has no GB/s for it")

for line in open(os.path.join(out, "ex-verdicts.txt")):
    name, rc = line.split()
    want = 0 if name.endswith("solution.cu") else 1
    item(int(rc) == want, f"ex check read-once with {name}: exit {rc} (want {want}); see ex-{name.split('/')[-1][:-3]}.txt")

n_fail = results.count(False)
print(f"{len(results) - n_fail} PASS, {n_fail} FAIL")
sys.exit(1 if n_fail else 0)
EOF
