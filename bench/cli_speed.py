"""`rtlab` as a command-line tool, side by side with sigrok-cli, in one run.

1. Start-up: `rtlab --help` and `rtlab analyze --help` against `sigrok-cli --help`
   (goal: rtlab <= 0.1 s on an idle machine; the load average is printed with it).
2. End to end on captures from sigrok-cli's demo driver (10^6 and 10^7 samples at 1 MHz):
   `rtlab analyze F --channel D0 --json` against
   `sigrok-cli -i F -P timing:data=D0:edge=rising -A timing=time`
   (goal: >= 10x on 10^6 and >= 50x on 10^7 samples).

Every figure is the best of --repeat wall times of a fresh process (the median beside
it): the best is the least disturbed by other work on the machine.

    .venv/bin/python bench/cli_speed.py [--samples 1e6 1e7] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def ensure_bytecode() -> None:
    """Compile rtlab's modules to .pyc as an install does: with PYTHONDONTWRITEBYTECODE
    set (as in CI shells) a checkout recompiles ~20 modules on every start (~25 ms)."""
    import rtlab

    pkg = Path(rtlab.__file__).parent
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(pkg)],
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""},
    )
    print(f"bytecode of {pkg} compiled (as pip does on install)")


def rtlab_cmd() -> list[str]:
    """The installed `rtlab` script beside this Python, as a user runs it."""
    script = Path(sys.executable).with_name("rtlab")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rtlab.cli"]


def wall(argv: list[str], repeat: int) -> tuple[float, float]:
    """(best, median) wall seconds of `argv` as a fresh process; stdout discarded."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.decode()[-2000:]}")
    return min(times), statistics.median(times)


def row(label: str, t: tuple[float, float], ref: tuple[float, float] | None = None) -> str:
    ratio = f"   ratio {ref[0] / t[0]:6.1f}x" if ref else ""
    return f"  {label:46} best {t[0] * 1000:8.1f} ms   median {t[1] * 1000:8.1f} ms{ratio}"


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def startup(rtlab: list[str], repeat: int, sigrok: bool) -> None:
    print(f"== start-up ({load_average()}) ==")
    t = wall([*rtlab, "--help"], repeat)
    print(row("rtlab --help", t) + "   (goal <= 100 ms, idle machine)")
    print(row("rtlab analyze --help", wall([*rtlab, "analyze", "--help"], repeat)))
    if sigrok:
        print(row("sigrok-cli --help", wall(["sigrok-cli", "--help"], repeat)))


def end_to_end(rtlab: list[str], tmp: Path, samples: int, repeat: int) -> None:
    path = tmp / f"demo-{samples}.sr"
    subprocess.run(
        [
            "sigrok-cli",
            "-d",
            "demo:logic_channels=4:analog_channels=0",
            "-c",
            "samplerate=1m",
            "--samples",
            str(samples),
            "-o",
            str(path),
        ],
        check=True,
    )
    # sigrok's decoder is the slow side: fewer repeats at 10^7 keep the run short
    sr_repeat = max(1, repeat if samples <= 1_000_000 else repeat // 3)
    t_sr = wall(
        ["sigrok-cli", "-i", str(path), "-P", "timing:data=D0:edge=rising", "-A", "timing=time"],
        sr_repeat,
    )
    t_rt = wall([*rtlab, "analyze", str(path), "--channel", "D0", "--json"], repeat)
    goal = 10 if samples <= 1_000_000 else 50
    print(f"\n== {samples:.0e} samples, demo driver, D0 ({load_average()}) ==")
    print(row("sigrok-cli -P timing:data=D0:edge=rising", t_sr))
    print(row("rtlab analyze --channel D0 --json", t_rt, t_sr) + f"   (goal >= {goal}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--samples", nargs="+", type=float, default=[1e6, 1e7])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rtlab = rtlab_cmd()
    ensure_bytecode()
    sigrok = shutil.which("sigrok-cli") is not None
    print(f"rtlab: {' '.join(rtlab)}")
    startup(rtlab, args.repeat, sigrok)
    if not sigrok:
        print("\n== end to end: skipped, sigrok-cli not installed ==")
        return
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.samples:
            end_to_end(rtlab, Path(tmp), int(n), args.repeat)


if __name__ == "__main__":
    main()
