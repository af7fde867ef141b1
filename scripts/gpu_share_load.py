#!/usr/bin/env python3
"""A workshop on one GPU, as a load test: many gpulab processes at once on one GPU.

    GPULAB_BIN=path/to/gpulab python3 scripts/gpu_share_load.py [--keep DIR]

Needs a GPU, the gpulab binary (GPULAB_BIN) and python3's standard library; no Rust
toolchain. It runs, in this order:

1. alone, before: each kind of job once, on an otherwise idle GPU: `gpulab run LESSON
   --json`, `gpulab ex check EX --json` for each exercise, and `gpulab record` of LESSON
   alone;
2. together: eight processes at once (by default four runs, three exercise checks and a
   recording) taking turns in one turn folder, beside a process that only holds a CUDA
   context (as another learner's idle lab would), while a monitor watches the queue;
3. alone, after: the same lone jobs again, so a drift of the GPU itself (clocks, heat)
   over the minutes of the test is seen and not taken for interference;
4. foreign: one run beside a process computing on the same GPU without taking turns (a
   gpulab run whose turns are in another folder), which must be said to be noise, while a
   probe asks NVML for its per-process samples as gpulab's worker does; then one run beside
   a process that computes without pause (a spin kernel), every timing of which must be
   marked noisy, naming it.

and checks that every variant's median in (2) is within --tolerance percent of the nearer
of the same variant's two lone medians (both printed, with the drift between them), that
nothing in (2) was marked noisy, that every process finished within --timeout seconds (no
deadlock), that every wait was announced with the place in the queue (`waiting for the
GPU: N ahead (...)`) and every waiter the monitor saw said so, and that (4) named the
foreign process. It prints the wait times (p50, p95), the largest difference from a lone
run, and what NVML's samples looked like (how many per process per second, how late), and
exits 0 when every check holds, 1 when one does not, 2 when it could not run.
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

# A process that computes without pause (ctypes, a spin kernel in PTX the driver builds):
# every timed window of a run beside it overlaps its kernels, so every timing must be noisy.
SPINNER = r"""
import ctypes, sys
PTX = b'''
.version 7.0
.target sm_50
.address_size 64
.visible .entry spin(.param .u64 out, .param .u32 n)
{
    .reg .u32 %r<4>;
    .reg .f32 %f<3>;
    .reg .pred %p;
    .reg .u64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
    mov.f32 %f1, 0f3F800000;
LOOP:
    fma.rn.f32 %f1, %f1, %f1, 0f3F000000;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p, %r2, %r1;
    @%p bra LOOP;
    mov.u32 %r3, %tid.x;
    setp.ne.u32 %p, %r3, 999999;
    @%p bra DONE;
    st.global.f32 [%rd1], %f1;
DONE:
    ret;
}
''' + bytes([0])
cu = ctypes.CDLL("libcuda.so.1")
def ok(r, what):
    assert r == 0, f"{what}: {r}"
ok(cu.cuInit(0), "cuInit")
dev = ctypes.c_int(); ok(cu.cuDeviceGet(ctypes.byref(dev), int(sys.argv[1])), "cuDeviceGet")
ctx = ctypes.c_void_p(); ok(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
ok(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
mod = ctypes.c_void_p(); ok(cu.cuModuleLoadData(ctypes.byref(mod), PTX), "cuModuleLoadData")
fn = ctypes.c_void_p(); ok(cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"spin"), "getfn")
out = ctypes.c_uint64(); ok(cu.cuMemAlloc_v2(ctypes.byref(out), ctypes.c_size_t(4)), "alloc")
n = ctypes.c_uint32(200000)
params = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.byref(out), ctypes.c_void_p),
                               ctypes.cast(ctypes.byref(n), ctypes.c_void_p))
print("spinning", flush=True)
while True:
    for _ in range(8):
        ok(cu.cuLaunchKernel(fn, 1024, 1, 1, 256, 1, 1, 0, None, params, None), "launch")
    ok(cu.cuCtxSynchronize(), "sync")
"""


class NvmlProbe(threading.Thread):
    """Asks NVML for every process's latest utilisation sample every `every` seconds, as
    gpulab's worker does while it times (ctypes), and keeps each new one with when it was
    first seen: the facts the noise judgment rests on, measured on this GPU."""

    def __init__(self, every=0.25):
        super().__init__(daemon=True)
        self.every = every
        self.stop = threading.Event()
        self.seen = {}  # (pid, stamp µs) -> (first seen µs, sm %, mem %)
        self.asks = 0
        self.statuses = {}
        self.error = None
        self.began = self.ended = None
        self.nv = self.dev = None
        import ctypes as c

        class Sample(c.Structure):
            _fields_ = [("pid", c.c_uint), ("ts", c.c_ulonglong), ("sm", c.c_uint),
                        ("mem", c.c_uint), ("enc", c.c_uint), ("dec", c.c_uint)]

        self.c, self.Sample = c, Sample
        try:
            nv = c.CDLL("libnvidia-ml.so.1")
        except OSError as e:
            self.error = f"no NVML: {e}"
            return
        if nv.nvmlInit_v2() != 0:
            self.error = "nvmlInit failed"
            return
        dev = c.c_void_p()
        index = int(os.environ.get("GPULAB_DEVICE", "0") or "0")
        if nv.nvmlDeviceGetHandleByIndex_v2(index, c.byref(dev)) != 0:
            self.error = f"no NVML device {index}"
            return
        self.nv, self.dev = nv, dev

    def ask(self):
        c = self.c
        room = 64
        for _ in range(3):
            buf = (self.Sample * room)()
            n = c.c_uint(room)
            r = self.nv.nvmlDeviceGetProcessUtilization(self.dev, buf, c.byref(n),
                                                        c.c_ulonglong(0))
            now = int(time.time() * 1e6)
            self.statuses[r] = self.statuses.get(r, 0) + 1
            if r == 7:  # too small: n is how many there are
                room = max(n.value, room) + 16
                continue
            if r == 0:
                for x in buf[: n.value]:
                    self.seen.setdefault((x.pid, x.ts), (now, x.sm, x.mem))
            return

    def run(self):
        if self.nv is None:
            return
        self.began = time.time()
        while not self.stop.is_set():
            self.asks += 1
            try:
                self.ask()
            except AttributeError as e:  # a driver without the entry point
                self.error = f"NVML lacks nvmlDeviceGetProcessUtilization: {e}"
                break
            self.stop.wait(self.every)
        self.ended = time.time()

    def facts(self, foreign=()):
        """What the samples showed, in words; `foreign`: pids to say more of."""
        if self.error:
            return self.error
        span = (self.ended or time.time()) - (self.began or time.time())
        by_pid = {}
        for (pid, ts), (seen, sm, mem) in self.seen.items():
            by_pid.setdefault(pid, []).append((ts, seen, sm, mem))
        if not by_pid:
            return (f"no per-process samples in {span:.0f} s of asking every "
                    f"{self.every:.2f} s (statuses {self.statuses})")
        rates, steps, late = [], [], []
        for xs in by_pid.values():
            xs.sort()
            late += [(seen - ts) / 1e6 for ts, seen, _, _ in xs]
            steps += [(b[0] - a[0]) / 1e6 for a, b in zip(xs, xs[1:])]
            if len(xs) >= 3 and xs[-1][0] > xs[0][0]:
                rates.append((len(xs) - 1) / ((xs[-1][0] - xs[0][0]) / 1e6))
        # Whether NVML stamps every process in one pass: another process's stamp within
        # a millisecond of this one's.
        order = sorted((ts, pid) for (pid, ts) in self.seen)
        shared = 0
        for i, (ts, pid) in enumerate(order):
            near = order[max(0, i - len(by_pid)): i + len(by_pid) + 1]
            shared += any(p != pid and abs(t - ts) < 1000 for t, p in near)
        newest = max(ts for (_, ts) in self.seen)
        clock = ("wall-clock µs" if abs(newest / 1e6 - (self.ended or time.time())) < 600
                 else f"NOT wall-clock µs (newest {newest})")
        out = [f"{len(self.seen)} samples from {len(by_pid)} processes in {span:.0f} s, "
               f"asked every {self.every:.2f} s ({self.asks} asks, statuses {self.statuses}); "
               f"stamped in {clock}"]
        if rates:
            out.append(f"samples per process per second: median {percentile(rates, 50):.2f} "
                       f"(min {min(rates):.2f}, max {max(rates):.2f}, over {len(rates)} "
                       f"processes with 3 or more)")
        if steps:
            out.append(f"step between one process's stamps: min {min(steps):.3f} s, median "
                       f"{percentile(steps, 50):.3f} s")
        out.append(f"first seen after its stamp: min {min(late):.2f} s, median "
                   f"{percentile(late, 50):.2f} s, max {max(late):.2f} s (asking adds up "
                   f"to {self.every:.2f} s)")
        out.append(f"{shared} of {len(self.seen)} samples have another process's stamped "
                   "within 1 ms of theirs")
        for pid in sorted(set(foreign) & set(by_pid)):
            xs = by_pid[pid]
            busy = [sm for _, _, sm, _ in xs if sm]
            out.append(f"foreign pid {pid}: {len(xs)} samples, {len(busy)} busy"
                       + (f" (SMs {min(busy)}-{max(busy)}%)" if busy else ""))
        return "\n               ".join(out)


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


def clocks_of(result):
    """{variant: "SM MHz (lowest-highest), memory MHz"} as NVML read them while each was
    timed: a median far from a lone run's is seen beside the clocks it ran at."""
    out = {}
    for v in (result or {}).get("variants", []) + (result or {}).get("knobs", []):
        c = v.get("clocks")
        if c:
            out[v["name"]] = (f"SM {c['sm_mhz']} MHz ({c['sm_min_mhz']}-{c['sm_max_mhz']}), "
                              f"memory {c.get('mem_mhz', '?')} MHz")
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
                # Each user's tickets lie in a folder of their own named for their uid;
                # the queue's order is the tickets' names across all of them.
                try:
                    names = sorted(
                        n
                        for user in os.listdir(q)
                        if user.isdigit()
                        for n in os.listdir(q / user)
                        if not n.startswith(".")
                    )
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


def lone_phase(s, args, kinds, phase):
    """Each kind of job once, alone on the GPU: {"medians": {kind: {variant: (median,
    noise)}}, "codes": {kind: exit code}, "s": {kind: seconds}}; None when one could not
    run at all."""
    out = {"medians": {}, "codes": {}, "s": {}, "clocks": {}}
    for k in kinds:
        j = s.job(k, phase)
        say(f"{phase}: {' '.join(j.cmd[1:])}")
        if not run_all([j], args.timeout):
            say(f"{j.name} did not finish within {args.timeout:.0f} s alone")
            return None
        if j.result() is None:
            tail = "\n".join(j.stderr_lines()[-15:])
            say(f"{j.name} exited {j.code} alone with no figures; its last words:\n{tail}")
            return None
        if j.code != 0:
            say(f"  note: exits {j.code} alone (a check that does not hold here); "
                "the same is expected together")
        out["codes"][k] = j.code
        out["medians"][k] = medians(j.result())
        out["clocks"][k] = clocks_of(j.result())
        noisy = [n for n, (_, noise) in out["medians"][k].items() if noise]
        if noisy:
            say(f"warning: alone, {k} was marked noisy ({noisy}): is the GPU really idle?")
        say(f"  {j.ended - j.started:.1f} s, {len(out['medians'][k])} timed variants")
        out["s"][k] = round(j.ended - j.started, 2)
    return out


def nearer(m, bases):
    """The difference of median `m` from the nearer of the lone medians `bases`, percent
    (None when there is none to compare with)."""
    diffs = [100.0 * (m - b) / b for b in bases if b and b > 0]
    return min(diffs, key=abs) if diffs else None


def fmt_lone(bases):
    return ", ".join(f"alone {w} {b:.4f} ms" if b else f"alone {w} -"
                     for w, b in zip(("before", "after"), bases))


def load_test(args, exercises, root):
    s = Setup(args, root)
    failures = []
    try:
        apps = subprocess.run(
            ["nvidia-smi", "--query-compute-apps=pid,process_name", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30,
        ).stdout.strip()
        if apps:
            say(f"warning: other processes compute on the GPU before we start:\n{apps}")
    except (OSError, subprocess.SubprocessError):
        pass

    # 1. Alone, before.
    kinds = ["run"] + [f"check:{e}" for e in exercises] + ["record"]
    before = lone_phase(s, args, kinds, "alone-before")
    if before is None:
        return 2
    lone_code = before["codes"]

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

    # 3. Alone, after: the GPU's own drift over the test, measured rather than guessed.
    after = lone_phase(s, args, kinds, "alone-after")
    if after is None:
        return 2
    notes = []
    for k, code in after["codes"].items():
        if code != lone_code[k]:
            notes.append(f"alone, {k} exited {lone_code[k]} before and {code} after: a "
                         "claim near its bar flips on a lone GPU too")
    # Together, a job exits as it did alone, before or after.
    for j in jobs:
        alone = {lone_code[j.kind], after["codes"][j.kind]}
        if j.code not in alone:
            tail = "\n".join(j.stderr_lines()[-10:])
            failures.append(f"{j.name} exited {j.code}, alone {' or '.join(map(str, sorted(alone)))}:"
                            f"\n{tail}")

    # Medians against the nearer of the lone runs of the same job and variant; noise marks.
    def lone_of(kind, name):
        return [ph["medians"].get(kind, {}).get(name, (None, None))[0]
                for ph in (before, after)]

    worst = (0.0, "every median as alone")
    over, noisy, compared = [], [], 0
    together_of = {}  # (kind, variant) -> [together medians]
    for j in jobs:
        for name, (m, noise) in medians(j.result()).items():
            if noise:
                noisy.append(f"{j.name} {name}: {noise}")
            bases = lone_of(j.kind, name)
            diff = nearer(m, bases)
            if diff is None:
                continue
            compared += 1
            together_of.setdefault((j.kind, name), []).append(m)
            line = f"{j.name} {name}: {m:.4f} ms together, {fmt_lone(bases)}"
            if abs(diff) > abs(worst[0]) or abs(diff) > args.tolerance:
                # Where it went far from alone: the clocks of each, to tell a GPU that ran
                # faster or slower from one that was shared.
                lone_clocks = [ph["clocks"].get(j.kind, {}).get(name, "-")
                               for ph in (before, after)]
                line += (f"; clocks together {clocks_of(j.result()).get(name, '-')}, "
                         f"alone {lone_clocks[0]} / {lone_clocks[1]}")
            if abs(diff) > abs(worst[0]):
                worst = (diff, line)
            if abs(diff) > args.tolerance:
                over.append(f"{diff:+.2f}% from the nearer: {line}")
    # How far the lone medians moved between before and after, variant by variant.
    drifts = []
    for (kind, name) in sorted(together_of):
        b, a = lone_of(kind, name)
        if b and a:
            drifts.append((100.0 * (a - b) / b, kind, name, b, a))
    if compared == 0:
        failures.append("no median could be compared with a lone run")
    if over:
        failures.append(f"{len(over)} medians differ from the nearer lone run by more than "
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

    # 4. A foreign process computing beside a run: its noise must be said, naming it.
    foreign = None
    if not args.no_foreign:
        foreign = foreign_phase(s, args)
        if foreign["noisy"] == 0:
            failures.append("with another process computing beside it, no timing was marked "
                            "noisy: NVML's per-process samples did not show it")
        elif not foreign["named_foreign"]:
            failures.append(f"noise was said, but named none of the foreign workers "
                            f"{foreign['workers']}: {foreign['words']}")
        if foreign["spin_timed"] is None:
            notes.append("no process could compute beside the runs (no CUDA driver): the "
                         "spinner's check was not made")
        elif foreign["spin_timed"] == 0:
            failures.append("the run beside a process computing without pause timed nothing")
        elif foreign["spin_noisy"] < foreign["spin_timed"] or not foreign["spin_named"]:
            failures.append(f"beside a process computing without pause (pid "
                            f"{foreign['spin_pid']}), {foreign['spin_noisy']} of "
                            f"{foreign['spin_timed']} timings were marked noisy naming it: "
                            "every one must be")

    # The closing note.
    mw = mon.waits()
    print(f"gpu_share_load: {args.lesson}, {len(jobs)} processes together "
          f"({', '.join(order)})")
    for label, ph in (("before", before), ("after", after)):
        print(f"  alone {label:<6} " + ", ".join(f"{k} {v} s" for k, v in ph["s"].items()))
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
    print(f"  medians:     {compared} compared with the nearer of two lone runs; largest "
          f"difference {worst[0]:+.2f}% ({worst[1]}); {len(over)} over {args.tolerance}%")
    if drifts:
        big = max(drifts, key=lambda d: abs(d[0]))
        print(f"  lone drift:  the lone medians moved between before and after by "
              f"{big[0]:+.2f}% at most ({big[1]} {big[2]}: {big[3]:.4f} -> {big[4]:.4f} ms)"
              + (f"; more than the {args.tolerance}% tolerance: the GPU itself drifted"
                 if abs(big[0]) > args.tolerance else ""))
    for (kind, name), ms in sorted(together_of.items()):
        b, a = lone_of(kind, name)
        diffs = [nearer(m, [b, a]) for m in ms]
        drift = f"{100.0 * (a - b) / b:+.2f}%" if a and b else "-"
        print(f"    {kind} {name}: {fmt_lone([b, a])} (drift {drift}); together "
              f"{min(ms):.4f}-{max(ms):.4f} ms over {len(ms)}, from the nearer "
              f"{min(diffs):+.2f}% to {max(diffs):+.2f}%")
    print(f"  noise:       {len(noisy)} timings marked noisy"
          + (f" (an idle process held a context throughout: pid {idle.pid})" if idle else ""))
    if foreign:
        print(f"  foreign:     beside a process computing without turns, "
              f"{foreign['noisy']} of {foreign['timed']} timings marked noisy; "
              f"e.g. \"{foreign['words']}\"")
        if foreign["spin_timed"] is not None:
            print(f"  spinner:     beside a process computing without pause, "
                  f"{foreign['spin_noisy']} of {foreign['spin_timed']} timings marked noisy"
                  + (" naming it" if foreign["spin_named"] else ""))
        print(f"  nvml:        {foreign['nvml']}")
    for n in notes:
        print(f"note: {n}")
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

    probe = NvmlProbe()
    probe.start()
    t = threading.Thread(target=rogue_loop, daemon=True)
    t.start()
    time.sleep(3.0)
    measured = s.job("run", "foreign-measured", extra=["--no-trace"])
    run_all([measured], args.timeout)
    probe.stop.set()
    probe.join(timeout=5)
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
    # Beside a process that never stops computing, every timing must be said to be noisy.
    spinner = subprocess.Popen(
        [sys.executable, "-c", SPINNER, os.environ.get("GPULAB_DEVICE", "0") or "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    spin_timed, spin_noisy, spin_named = 0, 0, False
    if spinner.stdout.readline().strip() != "spinning":
        say(f"warning: the spinner did not start: {spinner.stderr.read()}")
        spinner.kill()
        spin_timed = None
    else:
        say(f"a process computes without pause: pid {spinner.pid}")
        time.sleep(2.0)
        beside = s.job("run", "foreign-spinner", extra=["--no-trace"])
        run_all([beside], args.timeout)
        spinner.kill()
        spun = medians(beside.result())
        spin_timed = len(spun)
        spun_words = [n for _, n in spun.values() if n]
        spin_noisy = len(spun_words)
        spin_named = any(str(spinner.pid) in w for w in spun_words)
    return {
        "spin_pid": spinner.pid,
        "spin_timed": spin_timed,
        "spin_noisy": spin_noisy,
        "spin_named": spin_named,
        "timed": len(timed),
        "noisy": len(words),
        "words": words[0] if words else "",
        "workers": sorted(rogue_workers),
        "named_foreign": bool(named & rogue_workers),
        "nvml": probe.facts(foreign=rogue_workers),
    }


if __name__ == "__main__":
    sys.exit(main())
