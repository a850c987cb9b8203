"""rtlab-latency next to the real cyclictest (rt-tests): same interval, priority, duration.

    .venv/bin/python bench/latency_vs_cyclictest.py [--seconds 10] [--interval 1000]
        [--priority 80] [--reps 2] [--default-system] [--stress N] [--awake-cpu C]

Prints, per tool and repetition, the median, p99, p99.9 and max wake-up latency and the
measurement loop's cost in CPU ns per sample (the child's CPU time from wait4, the same
for both tools: kernel timer and wake-up path included). Both tools hold
/dev/cpu_dma_latency at 0 as cyclictest does by default (--default-system: neither does).
--stress N runs `stress-ng --cpu N` (SCHED_OTHER) around every measurement: the "load"
condition. --awake-cpu C pins both tools to CPU C and keeps C busy with a SCHED_OTHER
spinner (KeepAwake), so that neither ever wakes an idle CPU.
tests/lab/workloads/test_latency_vs_cyclictest.py imports the functions below.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rtlab.analysis.stats import median, quantile  # noqa: E402
from rtlab.lab.c_targets import build_c_target  # noqa: E402
from rtlab.procgroup import spawn, stop_group  # noqa: E402
from rtlab.protocol import parse_one  # noqa: E402

# cyclictest -v line: "   <thread>:   <loop>:   <latency>"
_CT_SAMPLE = re.compile(r"^\s*(\d+):\s*(\d+):\s*(-?\d+)\s*$", re.M)
_CT_SUMMARY = re.compile(r"^T:\s*0 .*C:\s*(\d+)", re.M)


@dataclass
class Result:
    tool: str
    latency_ns: np.ndarray
    cpu_ns: int  # CPU time of the whole child process (wait4)
    loops: int  # periods the tool ran (cyclictest -v may print fewer than it ran)

    @property
    def median(self) -> float:
        return median(self.latency_ns)

    def q(self, p: float) -> float:
        return quantile(self.latency_ns, p)

    @property
    def cpu_per_sample(self) -> float:
        return self.cpu_ns / max(self.loops, 1)

    def line(self) -> str:
        v = self.latency_ns
        return (
            f"{self.tool:14s} n={v.size:6d}  median={self.median / 1e3:8.2f} us  "
            f"p99={self.q(0.99) / 1e3:8.2f} us  p99.9={self.q(0.999) / 1e3:8.2f} us  "
            f"max={v.max() / 1e3:9.2f} us  loop cost={self.cpu_per_sample:8.0f} CPU ns/sample"
        )


def _run(cmd: list[str]) -> tuple[str, int]:
    """Run; return stdout and the child's CPU ns (wait4 rusage: its total runtime)."""
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        assert p.stdout is not None
        out = p.stdout.read()  # to EOF first: a full pipe would block the child
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"{cmd[0]} exited {p.returncode}: {err.read().strip()[-500:]}")
    return out, int((ru.ru_utime + ru.ru_stime) * 1e9)


_CT_BUCKET = re.compile(r"^(\d{6,}) (\d+)\s*$", re.M)
_CT_OVERFLOW = re.compile(r"^# Histogram Overflows: (\d+)", re.M)
_CT_MAX = re.compile(r"^# Max Latencies: (\d+)", re.M)


def run_cyclictest(
    seconds: float,
    interval_us: int,
    priority: int,
    default_system: bool = False,
    histogram: bool = False,
    cpu: int | None = None,
) -> Result:
    """histogram=False: -v -N, every sample in ns (its main thread prints them while the
    test runs); True: -h, 1 us buckets printed at the end (bucket midpoints returned).
    cpu: the measuring thread is pinned there (-a)."""
    exe = shutil.which("cyclictest")
    if exe is None:
        raise RuntimeError("cyclictest not found (Debian package rt-tests)")
    # -d 0: one thread at exactly -i; -q: no live status line.
    cmd = [
        exe,
        "-m",
        "-p",
        str(priority),
        "-i",
        str(interval_us),
        "-d",
        "0",
        "-D",
        f"{int(seconds)}",
        "-q",
    ]
    cmd += ["-h", "20000"] if histogram else ["-v", "-N"]
    if default_system:
        cmd.append("--default-system")
    if cpu is not None:
        cmd += ["-a", str(cpu)]
    out, cpu_ns = _run(cmd)
    if histogram:
        b = np.array([(int(u), int(n)) for u, n in _CT_BUCKET.findall(out)], dtype=np.int64)
        vals = np.repeat(b[:, 0] * 1000 + 500, b[:, 1]) if b.size else np.zeros(0, np.int64)
        over = _CT_OVERFLOW.search(out)
        mx = _CT_MAX.search(out)
        if over and int(over.group(1)):  # beyond the histogram: only the max is known
            vals = np.concatenate(
                [vals, np.full(int(over.group(1)), int(mx.group(1)) * 1000 if mx else 0)]
            )
        return Result("cyclictest -h", vals, cpu_ns, int(vals.size))
    vals = np.array(
        [int(m.group(3)) for m in _CT_SAMPLE.finditer(out) if m.group(1) == "0"], dtype=np.int64
    )
    if vals.size == 0:
        raise RuntimeError(f"no samples in cyclictest output: {out[:300]!r}")
    summ = _CT_SUMMARY.search(out)
    loops = int(summ.group(1)) if summ else int(vals.size)
    return Result("cyclictest", vals, cpu_ns, loops)


def run_rtlab_latency(
    seconds: float,
    interval_us: int,
    priority: int,
    default_system: bool = False,
    cpu: int | None = None,
) -> Result:
    exe = build_c_target("rtlab-latency")
    cmd = [
        str(exe),
        "-q",
        "-m",
        "-p",
        str(priority),
        "-i",
        str(interval_us),
        "-D",
        f"{int(seconds)}",
    ]
    if not default_system:
        cmd += ["--latency", "0"]  # what cyclictest does unless --default-system
    if cpu is not None:
        cmd += ["-a", str(cpu)]
    out, cpu_ns = _run(cmd)
    run = parse_one(out, source="rtlab-latency")
    if not run.complete:
        raise RuntimeError(f"rtlab-latency run incomplete: {run.problems}")
    vals = run.series["latency"].values
    return Result("rtlab-latency", vals, cpu_ns, int(vals.size))


class KeepAwake:
    """A SCHED_OTHER spinner pinned to `cpu` for the length of a `with` block, so that the
    CPU is never idle when the timer fires. On this VM a wake-up on an idle vCPU (halted,
    woken through the host) takes about 33 us and on a busy one about 16 us: a tool that
    the scheduler happens to place beside other load would look twice as fast. The
    SCHED_FIFO tool pinned to the same CPU preempts the spinner at once."""

    def __init__(self, cpu: int) -> None:
        self.cpu = cpu
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> KeepAwake:
        argv = ["taskset", "-c", str(self.cpu), sys.executable, "-c", "while True: pass"]
        self.proc = spawn(argv, die_with_parent=True, stdout=subprocess.DEVNULL)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            stop_group(self.proc)


class Stress:
    """stress-ng --cpu N for the duration of a `with` block (none when N == 0)."""

    def __init__(self, cpus: int) -> None:
        self.cpus = cpus
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Stress:
        if self.cpus:
            exe = shutil.which("stress-ng")
            if exe is None:
                raise RuntimeError("stress-ng not found (Debian package stress-ng)")
            self.proc = subprocess.Popen(
                [exe, "--cpu", str(self.cpus), "--timeout", "600", "--quiet"],
                stdout=subprocess.DEVNULL,
            )
            time.sleep(0.5)  # let the workers start
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--interval", type=int, default=1000, help="us")
    ap.add_argument("--priority", type=int, default=80)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--default-system", action="store_true")
    ap.add_argument(
        "--stress", type=int, default=0, metavar="N", help="stress-ng --cpu N during the runs"
    )
    ap.add_argument(
        "--awake-cpu",
        type=int,
        default=None,
        metavar="C",
        help="pin both tools to CPU C and keep C busy (a spinner below them)",
    )
    ap.add_argument(
        "--ct-histogram",
        action="store_true",
        help="also run cyclictest -h (1 us buckets, nothing printed during "
        "the run) to see whether -v's printing changes its figures",
    )
    a = ap.parse_args()
    la = os.getloadavg()
    print(
        f"interval {a.interval} us, SCHED_FIFO {a.priority}, {a.seconds:g} s per run, "
        f"cpu_dma_latency {'untouched' if a.default_system else '0'}, "
        f"{f'stress-ng --cpu {a.stress}' if a.stress else 'no added load'}, "
        f"{'unpinned' if a.awake_cpu is None else f'pinned to busy CPU {a.awake_cpu}'}, "
        f"loadavg {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}"
    )
    results: list[Result] = []
    t0 = time.monotonic()
    for _ in range(a.reps):  # alternate so that drifting background load hits both
        runners: list[Callable[..., Result]] = [run_cyclictest, run_rtlab_latency]
        if a.ct_histogram:
            runners.append(partial(run_cyclictest, histogram=True))
        for fn in runners:
            awake = KeepAwake(a.awake_cpu) if a.awake_cpu is not None else nullcontext()
            with Stress(a.stress), awake:
                r = fn(a.seconds, a.interval, a.priority, a.default_system, cpu=a.awake_cpu)
            results.append(r)
            print(r.line(), flush=True)
    print(f"--- pooled ({time.monotonic() - t0:.0f} s)")
    for tool in dict.fromkeys(r.tool for r in results):
        rs = [r for r in results if r.tool == tool]
        pooled = Result(
            tool,
            np.concatenate([r.latency_ns for r in rs]),
            sum(r.cpu_ns for r in rs),
            sum(r.loops for r in rs),
        )
        meds = ", ".join(f"{r.median / 1e3:.2f}" for r in rs)
        print(pooled.line(), f" (run medians: {meds} us)")


if __name__ == "__main__":
    main()
