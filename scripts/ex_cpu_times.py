#!/usr/bin/env python3
"""How long a CPU check of each exercise takes: `gpulab ex check ID --cpu` on the
exercise's own solution, RUNS times each, with p50 and p95 per exercise and over all.

    GPULAB_BIN=target/release/gpulab python3 scripts/ex_cpu_times.py [RUNS] [ID...]

Needs NVRTC (pip install nvidia-cuda-nvrtc), no GPU. Uses the lessons on disk (`--lessons
lessons`) and a workspace in a temporary folder; the learner's own files are not touched.
Exit 0 measured, 1 a solution did not pass every check the CPU can judge, 2 cannot run.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def main():
    binary = os.environ.get("GPULAB_BIN") or str(REPO / "target/release/gpulab")
    if not Path(binary).exists():
        print(f"no gpulab binary at {binary}: cargo build --release, or set GPULAB_BIN")
        return 2
    args = sys.argv[1:]
    runs = int(args.pop(0)) if args and args[0].isdigit() else 5
    base = [binary, "--lessons", str(REPO / "lessons")]
    listed = subprocess.run(base + ["ex", "list", "--json"], capture_output=True, text=True)
    if listed.returncode != 0:
        print(listed.stderr)
        return 2
    data = json.loads(listed.stdout)
    rows = data["exercises"] if isinstance(data, dict) else data
    ids = args or [r["id"] for r in rows]
    everything, failed = [], []
    with tempfile.TemporaryDirectory() as ws:
        env = dict(os.environ, GPULAB_WORKSPACE=ws, GPULAB_DATA_DIR=str(Path(ws) / "data"))
        print(f"{'exercise':<20} {'p50 s':>7} {'p95 s':>7}  runs")
        for ex in ids:
            row = next((r for r in rows if r["id"] == ex), None)
            if row is None:
                print(f"{ex}: no such exercise")
                return 2
            subprocess.run(base + ["ex", "start", ex], env=env, capture_output=True)
            mine = next(Path(ws).rglob(f"{ex}.cu"))
            solution = REPO / "exercises" / row["lesson"] / ex / "solution.cu"
            mine.write_text(solution.read_text())
            times = []
            for _ in range(runs):
                t0 = time.monotonic()
                r = subprocess.run(base + ["ex", "check", ex, "--cpu"], env=env,
                                   capture_output=True, text=True)
                times.append(time.monotonic() - t0)
                if r.returncode not in (0, 3):
                    failed.append(f"{ex}: exit {r.returncode}\n{r.stdout}{r.stderr}")
                    break
            everything += times
            print(f"{ex:<20} {percentile(times, 50):7.2f} {percentile(times, 95):7.2f}  {len(times)}")
    print(f"{'all':<20} {percentile(everything, 50):7.2f} {percentile(everything, 95):7.2f}  "
          f"{len(everything)} (on {os.cpu_count()} cores)")
    for f in failed:
        print("FAIL:", f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
