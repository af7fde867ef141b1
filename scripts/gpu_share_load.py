#!/usr/bin/env python3
"""A workshop on one GPU, as a load test: many gpulab processes at once on one GPU.

    GPULAB_BIN=path/to/gpulab python3 scripts/gpu_share_load.py [--keep DIR]

Needs a GPU, the gpulab binary (GPULAB_BIN) and python3's standard library; no Rust
toolchain. It runs, in this order:

1. alone: each kind of job once, on an otherwise idle GPU: `gpulab run LESSON --json`,
   `gpulab ex check EX --json` for each exercise, and `gpulab record` of LESSON alone;
2. together: eight processes at once (by default four runs, three exercise checks and a
   recording) taking turns in one turn folder, beside a process that only holds a CUDA
   context (as another learner's idle lab would), while a monitor watches the queue;
3. foreign: one run beside a process computing on the same GPU without taking turns (a
   gpulab run whose turns are in another folder), which must be said to be noise.

and checks that every variant's median in (2) is within --tolerance percent of the same
variant run alone, that nothing in (2) was marked noisy, that every process finished within
--timeout seconds (no deadlock), that every wait was announced with the place in the queue
(`waiting for the GPU: N ahead (...)`) and every waiter the monitor saw said so, and that
(3) named the foreign process. It prints the wait times (p50, p95) and the largest
difference from a lone run, and exits 0 when every check holds, 1 when one does not, 2 when
it could not run.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

WAITING = re.compile(r"waiting for the GPU: (\d+) ahead \((.*)\)")
FREE = re.compile(r"the GPU is free: waited ([0-9.]+) s")
NOISE_PID = re.compile(r"pids? ([0-9, ]+)\)")

# A process that holds a CUDA context and computes nothing (ctypes: the standard library).
IDLE_CONTEXT = r"""
import ctypes, sys, time
cu = ctypes.CDLL("libcuda.so.1")
assert cu.cuInit(0) == 0, "cuInit"
dev = ctypes.c_int()
assert cu.cuDeviceGet(ctypes.byref(dev), int(sys.argv[1])) == 0, "cuDeviceGet"
ctx = ctypes.c_void_p()
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0, "cuDevicePrimaryCtxRetain"
assert cu.cuCtxSetCurrent(ctx) == 0, "cuCtxSetCurrent"
ptr = ctypes.c_uint64()
assert cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(64 << 20)) == 0, "cuMemAlloc"
print("holding a context", flush=True)
time.sleep(86400)
"""


def nvml_probe(since_s):
    """What NVML's per-process utilisation samples show for the last `since_s` seconds, in
    words (ctypes, as gpulab asks): how many, from which processes, how fresh, and whether
    they are stamped in wall-clock microseconds as gpulab assumes."""
    import ctypes as c

    class Sample(c.Structure):
        _fields_ = [("pid", c.c_uint), ("ts", c.c_ulonglong), ("sm", c.c_uint),
                    ("mem", c.c_uint), ("enc", c.c_uint), ("dec", c.c_uint)]

    try:
        nv = c.CDLL("libnvidia-ml.so.1")
    except OSError as e:
        return f"no NVML: {e}"
    if nv.nvmlInit_v2() != 0:
        return "nvmlInit failed"
    dev = c.c_void_p()
    index = int(os.environ.get("GPULAB_DEVICE", "0") or "0")
    if nv.nvmlDeviceGetHandleByIndex_v2(index, c.byref(dev)) != 0:
        return f"no NVML device {index}"
    now_us = int(time.time() * 1e6)
    since = c.c_ulonglong(now_us - int(since_s * 1e6))
    n = c.c_uint(0)
    r = nv.nvmlDeviceGetProcessUtilization(dev, None, c.byref(n), since)
    if r in (0, 6):
        return f"no per-process samples in the last {since_s:.0f} s (status {r})"
    if r != 7:
        return f"nvmlDeviceGetProcessUtilization refused: status {r}"
    buf = (Sample * (n.value + 8))()
    n = c.c_uint(len(buf))
    r = nv.nvmlDeviceGetProcessUtilization(dev, buf, c.byref(n), since)
    if r != 0:
        return f"nvmlDeviceGetProcessUtilization refused: status {r}"
    xs = list(buf[: n.value])
    busy = [x for x in xs if x.sm or x.mem]
    newest = max(x.ts for x in xs)
    steps = []
    for pid in {x.pid for x in xs}:
        ts = sorted(x.ts for x in xs if x.pid == pid)
        steps += [b - a for a, b in zip(ts, ts[1:]) if b > a]
    steps.sort()
    clock = ("wall-clock µs" if abs(newest - now_us) < 600e6
             else f"NOT wall-clock µs (newest {newest}, now {now_us})")
    return (f"{len(xs)} samples ({len(busy)} busy) from {len({x.pid for x in xs})} processes "
            f"in the last {since_s:.0f} s; newest {(now_us - newest) / 1e6:.2f} s old, "
            f"stamped in {clock}; shortest step {steps[0] / 1e3 if steps else 0:.0f} ms")


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def percentile(xs, p):
    """numpy's default (linear between the nearest ranks); None for no values."""
    if not xs:
        return None
    s = sorted(xs)
    rank = p / 100.0 * (len(s) - 1)
    lo, hi = int(rank), min(int(rank) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (rank - lo)


def ppid_of(pid):
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def children_of(pid):
    out = []
    for e in Path("/proc").iterdir():
        if e.name.isdigit() and ppid_of(int(e.name)) == pid:
            out.append(int(e.name))
    return out


class Job:
    """One gpulab process: what it is, its command, where its output goes."""

    def __init__(self, name, kind, cmd, env, folder, result_file=None):
        self.name, self.kind, self.cmd, self.env = name, kind, cmd, env
        self.folder = folder
        self.result_file = result_file
        self.proc = None
        self.started = self.ended = None
        self.code = None

    def start(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        self.out = open(self.folder / "stdout", "wb")
        self.err = open(self.folder / "stderr", "wb")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            self.cmd, env=self.env, stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL
        )

    def poll(self):
        if self.code is None and self.proc.poll() is not None:
            self.code = self.proc.returncode
            self.ended = time.monotonic()
            self.out.close()
            self.err.close()
        return self.code

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.poll()

    def stderr_lines(self):
        return (self.folder / "stderr").read_text(errors="replace").splitlines()

    def result(self):
        """The LessonResult of this job's lesson, as JSON; None when there is none."""
        try:
            if self.kind == "record":
                rec = json.loads(Path(self.result_file).read_text())
                return rec["lessons"][0] if rec.get("lessons") else None
            doc = json.loads((self.folder / "stdout").read_text())
            return doc["result"] if self.kind.startswith("check") else doc
        except (OSError, ValueError, KeyError, IndexError):
            return None


def medians(result):
    """{variant: (median ms, noise words or None)} of every timed variant and knob."""
    out = {}
    for v in (result or {}).get("variants", []) + (result or {}).get("knobs", []):
        t = v.get("time_ms")
        if t and t.get("runs", 0) > 0:
            out[v["name"]] = (t["median"], v.get("noise"))
    return out


class Setup:
    def __init__(self, args, root):
        self.args, self.root = args, root
        self.bin = str(Path(os.environ["GPULAB_BIN"]).resolve())
        self.turns = root / "turns"
        found = sorted((REPO / "lessons").glob(f"*-{args.lesson}.yaml"))
        if not found:
            raise SystemExit(f"no lesson file lessons/*-{args.lesson}.yaml in {REPO}")
        self.lesson_file = found[0]
        # A course of the one lesson, for `record`: its kernels and exercises beside it.
        self.course = root / "course"
        (self.course / "lessons").mkdir(parents=True)
        shutil.copy(self.lesson_file, self.course / "lessons")
        shutil.copytree(REPO / "kernels", self.course / "kernels")
        ex = REPO / "exercises" / args.lesson
        if ex.is_dir():
            shutil.copytree(ex, self.course / "exercises" / args.lesson)
        self.count = 0

    def env(self, data, turns=None):
        e = dict(os.environ)
        e["GPULAB_LOCK_DIR"] = str(turns or self.turns)
        e["GPULAB_DATA_DIR"] = str(data)
        e.pop("GPULAB_WORKSPACE", None)
        e.setdefault("GPULAB_TIMEOUT_S", "300")
        if self.args.fake:
            # Each fake variant holds its turn a while, so turns are waited for.
            e["GPULAB_WORKER_FAKE"] = "gpu,slow"
        else:
            e.pop("GPULAB_WORKER_FAKE", None)
        return e

    def job(self, kind, phase, turns=None, extra=()):
        self.count += 1
        name = f"{phase}-{self.count:02d}-{kind}"
        folder = self.root / "jobs" / name
        data = folder / "data"
        env = self.env(data, turns)
        if kind == "run":
            cmd = [self.bin, "run", self.args.lesson, "--json", *extra]
            return Job(name, kind, cmd, env, folder)
        if kind == "record":
            out = folder / "recording.json"
            lessons = str(self.course / "lessons")
            cmd = [self.bin, "--lessons", lessons, "record", "--out", str(out)]
            return Job(name, kind, cmd, env, folder, result_file=out)
        ex = kind.split(":", 1)[1]
        # The learner's file is the solution: a check that passes, timed in full.
        folder.mkdir(parents=True, exist_ok=True)
        start = subprocess.run(
            [self.bin, "ex", "start", ex], env=env, capture_output=True, text=True
        )
        if start.returncode != 0:
            raise SystemExit(f"gpulab ex start {ex}: {start.stderr}{start.stdout}")
        solution = REPO / "exercises" / self.args.lesson / ex / "solution.cu"
        shutil.copy(solution, data / "exercises" / f"{ex}.cu")
        cmd = [self.bin, "ex", "check", ex, "--json"]
        return Job(name, kind, cmd, env, folder)


def run_all(jobs, limit, stagger=0.0, monitor=None):
    """Start `jobs` (`stagger` seconds apart) and wait for all, at most `limit` seconds
    from the first start; those still running then are killed. True when all ended."""
    t0 = time.monotonic()
    for j in jobs:
        j.start()
        if monitor:
            monitor.watch(j)
        time.sleep(stagger)
    while any(j.poll() is None for j in jobs):
        if time.monotonic() - t0 > limit:
            for j in jobs:
                j.kill()
            return False
        time.sleep(0.05)
    return True


class Monitor(threading.Thread):
    """Looks at the queue folder every 50 ms: who waited behind whom, and for how long."""

    def __init__(self, turns):
        super().__init__(daemon=True)
        self.turns = turns
        self.stop = threading.Event()
        self.jobs = {}  # cli pid -> Job
        self.worker_job = {}  # worker pid -> Job
        self.first_seen = {}  # ticket -> time
        self.head_at = {}  # ticket -> time it was first at the head
        self.waiting_polls = {}  # ticket -> polls seen behind another
        self.pid_of = {}  # ticket -> worker pid
        self.longest_queue = 0

    def watch(self, job):
        self.jobs[job.proc.pid] = job

    def run(self):
        while not self.stop.is_set():
            now = time.monotonic()
            for q in self.turns.glob("*.queue"):
                try:
                    names = sorted(n for n in os.listdir(q) if not n.startswith("."))
                except OSError:
                    continue
                self.longest_queue = max(self.longest_queue, len(names))
                for i, n in enumerate(names):
                    parts = n.split("-")
                    if len(parts) != 3 or not all(p.isdigit() for p in parts):
                        continue
                    pid = int(parts[1])
                    self.pid_of[n] = pid
                    self.first_seen.setdefault(n, now)
                    if pid not in self.worker_job:
                        cli = ppid_of(pid)
                        if cli in self.jobs:
                            self.worker_job[pid] = self.jobs[cli]
                    if i == 0:
                        self.head_at.setdefault(n, now)
                    else:
                        self.waiting_polls[n] = self.waiting_polls.get(n, 0) + 1
            time.sleep(0.05)

    def waits(self):
        """Seconds each ticket waited before it reached the head of the queue."""
        return [self.head_at[n] - self.first_seen[n] for n in self.head_at]

    def waiters(self):
        """{Job: tickets it held that waited at least three looks (150 ms) behind another}."""
        out = {}
        for n, polls in self.waiting_polls.items():
            job = self.worker_job.get(self.pid_of[n])
            if polls >= 3 and job is not None:
                out[job] = out.get(job, 0) + 1
        return out


def announced(job):
    """The waits a job's stderr announced: (waits with a place said first, waits without,
    seconds of each wait, places said)."""
    said_place, unsaid, waits, places = 0, 0, [], []
    pending = False
    for line in job.stderr_lines():
        m = WAITING.search(line)
        if m:
            pending = True
            places.append((int(m.group(1)), m.group(2)))
            continue
        m = FREE.search(line)
        if m:
            waits.append(float(m.group(1)))
            if pending:
                said_place += 1
            else:
                unsaid += 1
            pending = False
    return said_place, unsaid, waits, places


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lesson", default="global-coalescing")
    ap.add_argument("--exercises", default="coalesce-copy,vectorise-copy")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--checks", type=int, default=3)
    ap.add_argument("--records", type=int, default=1)
    ap.add_argument("--tolerance", type=float, default=2.0, help="percent")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds, together phase")
    ap.add_argument("--stagger", type=float, default=0.2, help="seconds between starts")
    ap.add_argument("--no-foreign", action="store_true", help="skip phase 3")
    ap.add_argument("--keep", help="keep every job's output in this folder")
    ap.add_argument("--fake", action="store_true",
                    help="a dry run of this script on a machine without a GPU: gpulab's fake "
                         "GPU takes the turns, and its figures are made up")
    args = ap.parse_args()
    if "GPULAB_BIN" not in os.environ:
        say("set GPULAB_BIN to the gpulab binary")
        return 2
    exercises = [e for e in args.exercises.split(",") if e]
    root = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="gpushare-"))
    if args.keep:
        root.mkdir(parents=True, exist_ok=True)
        if any(root.iterdir()):
            say(f"--keep {root} is not empty")
            return 2
    try:
        return load_test(args, exercises, root)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


def load_test(args, exercises, root):
    s = Setup(args, root)
    failures = []
    report = {}
    try:
        apps = subprocess.run(
            ["nvidia-smi", "--query-compute-apps=pid,process_name", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30,
        ).stdout.strip()
        if apps:
            say(f"warning: other processes compute on the GPU before we start:\n{apps}")
    except (OSError, subprocess.SubprocessError):
        pass

    # 1. Alone.
    kinds = ["run"] + [f"check:{e}" for e in exercises] + ["record"]
    lone, lone_code = {}, {}
    for k in kinds:
        j = s.job(k, "alone")
        say(f"alone: {' '.join(j.cmd[1:])}")
        if not run_all([j], args.timeout):
            say(f"{j.name} did not finish within {args.timeout:.0f} s alone")
            return 2
        if j.result() is None:
            tail = "\n".join(j.stderr_lines()[-15:])
            say(f"{j.name} exited {j.code} alone with no figures; its last words:\n{tail}")
            return 2
        if j.code != 0:
            say(f"  note: exits {j.code} alone (a check that does not hold here); "
                "the same is expected together")
        lone_code[k] = j.code
        lone[k] = medians(j.result())
        noisy = [n for n, (_, noise) in lone[k].items() if noise]
        if noisy:
            say(f"warning: alone, {k} was marked noisy ({noisy}): is the GPU really idle?")
        say(f"  {j.ended - j.started:.1f} s, {len(lone[k])} timed variants")
        report.setdefault("alone_s", {})[k] = round(j.ended - j.started, 2)

    # 2. Together, beside a process that only holds a context.
    idle = subprocess.Popen(
        [sys.executable, "-c", IDLE_CONTEXT, os.environ.get("GPULAB_DEVICE", "0") or "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    ready = idle.stdout.readline().strip()
    if ready != "holding a context":
        say(f"warning: the idle context holder did not start: {idle.stderr.read()}")
        idle.kill()
        idle = None
    else:
        say(f"an idle process holds a context: pid {idle.pid}")
    plan = (
        ["record"] * args.records
        + [f"check:{exercises[i % len(exercises)]}" for i in range(args.checks)]
        + ["run"] * args.runs
    )
    # Interleaved, so each kind starts early and late.
    order = []
    buckets = [[k for k in plan if k == "record"], [k for k in plan if k.startswith("check")],
               [k for k in plan if k == "run"]]
    while any(buckets):
        for b in buckets:
            if b:
                order.append(b.pop(0))
    jobs = [s.job(k, "together") for k in order]
    mon = Monitor(s.turns)
    mon.start()
    say(f"together: {len(jobs)} processes ({', '.join(order)})")
    t0 = time.monotonic()
    all_done = run_all(jobs, args.timeout, args.stagger, mon)
    together_s = time.monotonic() - t0
    time.sleep(0.2)
    mon.stop.set()
    if idle:
        idle.kill()
        idle.wait()
    if not all_done:
        failures.append(f"not every process finished within {args.timeout:.0f} s: a deadlock?")
    for j in jobs:
        if j.code != lone_code[j.kind]:
            tail = "\n".join(j.stderr_lines()[-10:])
            failures.append(f"{j.name} exited {j.code}, alone {lone_code[j.kind]}:\n{tail}")

    # Medians against the lone run of the same job and variant; noise marks.
    worst = (0.0, "every median as alone")
    over, noisy, compared = [], [], 0
    for j in jobs:
        for name, (m, noise) in medians(j.result()).items():
            if noise:
                noisy.append(f"{j.name} {name}: {noise}")
            base = lone.get(j.kind, {}).get(name)
            if not base or base[0] <= 0:
                continue
            compared += 1
            diff = 100.0 * (m - base[0]) / base[0]
            if abs(diff) > abs(worst[0]):
                worst = (diff, f"{j.name} {name}: {m:.4f} ms, alone {base[0]:.4f} ms")
            if abs(diff) > args.tolerance:
                over.append(f"{j.name} {name}: {diff:+.2f}% ({m:.4f} ms, alone {base[0]:.4f} ms)")
    if compared == 0:
        failures.append("no median could be compared with a lone run")
    if over:
        failures.append(f"{len(over)} medians differ from a lone run by more than "
                        f"{args.tolerance}%:\n  " + "\n  ".join(over))
    if noisy:
        failures.append(f"{len(noisy)} timings marked noisy though no other process "
                        "computed:\n  " + "\n  ".join(noisy))

    # Every wait announced with its place; every waiter the monitor saw told of it.
    waits, places, unsaid = [], [], 0
    per_job = {}
    for j in jobs:
        said_place, not_said, w, p = announced(j)
        per_job[j] = said_place
        unsaid += not_said
        waits += w
        places += p
    if unsaid:
        failures.append(f"{unsaid} waits ended without the place in the queue said first")
    for j, n in mon.waiters().items():
        if per_job.get(j, 0) < n:
            failures.append(f"{j.name}: the monitor saw it wait {n} times, "
                            f"it said its place {per_job.get(j, 0)} times")
    if mon.waiters() and not waits:
        failures.append("the monitor saw waits but no process announced one")

    # 3. A foreign process computing beside a run: its noise must be said, naming it.
    foreign = None
    if not args.no_foreign:
        foreign = foreign_phase(s, args)
        if foreign["noisy"] == 0:
            failures.append("with another process computing beside it, no timing was marked "
                            "noisy: NVML's per-process samples did not show it")
        elif not foreign["named_foreign"]:
            failures.append(f"noise was said, but named none of the foreign workers "
                            f"{foreign['workers']}: {foreign['words']}")

    # The closing note.
    mw = mon.waits()
    print(f"gpu_share_load: {args.lesson}, {len(jobs)} processes together "
          f"({', '.join(order)})")
    print(f"  alone (s):   " + ", ".join(f"{k} {v}" for k, v in report["alone_s"].items()))
    print(f"  together:    all ended in {together_s:.1f} s (limit {args.timeout:.0f} s); "
          f"longest queue {mon.longest_queue}")
    if waits:
        print(f"  waits:       {len(waits)} turns waited; announced wait p50 "
              f"{percentile(waits, 50):.2f} s, p95 {percentile(waits, 95):.2f} s, "
              f"longest {max(waits):.1f} s")
    else:
        print("  waits:       no turn waited")
    if mw:
        print(f"  monitor:     {len(mw)} turns seen; wait p50 {percentile(mw, 50):.2f} s, "
              f"p95 {percentile(mw, 95):.2f} s (every turn, 50 ms resolution)")
    if places:
        deepest = max(places)
        print(f"  places:      every wait said first ({sum(per_job.values())} said); "
              f"deepest: {deepest[0]} ahead ({deepest[1]})")
    print(f"  medians:     {compared} compared with a lone run; largest difference "
          f"{worst[0]:+.2f}% ({worst[1]}); {len(over)} over {args.tolerance}%")
    print(f"  noise:       {len(noisy)} timings marked noisy"
          + (f" (an idle process held a context throughout: pid {idle.pid})" if idle else ""))
    if foreign:
        print(f"  foreign:     beside a process computing without turns, "
              f"{foreign['noisy']} of {foreign['timed']} timings marked noisy; "
              f"e.g. \"{foreign['words']}\"")
        print(f"  nvml:        {foreign['nvml']}")
    for f in failures:
        print(f"FAIL: {f}")
    print("RESULT: " + ("PASS" if not failures else "FAIL"))
    return 0 if not failures else 1


def foreign_phase(s, args):
    """A run taking turns in our folder, beside runs whose turns are elsewhere: for it,
    their workers are other processes, computing on its GPU."""
    elsewhere = s.root / "turns-elsewhere"
    say("foreign: a run beside a process that takes no turns with it")
    rogue_workers = set()
    stop = threading.Event()
    rogues = []

    def rogue_loop():
        while not stop.is_set():
            j = s.job("run", "foreign-rogue", turns=elsewhere, extra=["--no-trace"])
            rogues.append(j)
            j.start()
            while j.poll() is None:
                rogue_workers.update(children_of(j.proc.pid))
                if stop.is_set():
                    j.kill()
                time.sleep(0.05)

    t = threading.Thread(target=rogue_loop, daemon=True)
    t.start()
    time.sleep(3.0)
    measured = s.job("run", "foreign-measured", extra=["--no-trace"])
    t0 = time.monotonic()
    run_all([measured], args.timeout)
    probe = nvml_probe(time.monotonic() - t0 + 1)
    stop.set()
    t.join(timeout=60)
    for r in rogues:
        r.kill()
    timed = medians(measured.result())
    words = [n for _, n in timed.values() if n]
    named = set()
    for w in words:
        for m in NOISE_PID.finditer(w):
            named.update(int(p) for p in m.group(1).replace(" ", "").split(",") if p)
    return {
        "timed": len(timed),
        "noisy": len(words),
        "words": words[0] if words else "",
        "workers": sorted(rogue_workers),
        "named_foreign": bool(named & rogue_workers),
        "nvml": probe,
    }


if __name__ == "__main__":
    sys.exit(main())
