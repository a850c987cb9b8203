"""The wall-clock checks `make test` no longer makes (its tests must pass on a loaded
machine): how fast rtlab's own steps are and how close a real-time period comes to what
was asked, on this host. Run it on an idle machine; each line says the figure, its
bound and ok or SLOW/OFF; the exit status is 1 if one is outside its bound.

    .venv/bin/python bench/speed_checks.py
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rtlab.lab.c_targets import build_c_target  # noqa: E402
from rtlab.lab.fingerprint import fingerprint  # noqa: E402
from rtlab.protocol import Writer, parse_one  # noqa: E402


def _seconds(step: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    step()
    return time.perf_counter() - t0


def _million_samples(encoding: str) -> str:
    v = np.random.default_rng(7).integers(0, 2_000_000, 1_000_000) + 10_000
    w = Writer()
    w.hello("t", "1")
    w.series("lat", v, encoding=encoding)
    w.end()
    return w.text()


def _search_mode_periods() -> tuple[float, float]:
    """rtlab-latency --mode search, FIFO 80: its mean and median 1 ms period (ms)."""
    exe = build_c_target("rtlab-latency")
    argv = [str(exe), "-q", "--mode", "search", "--periods", "2000,1000", "--bound", "100000",
            "--search-time", "100", "-p", "80", "--quantile", "0.9"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    run = parse_one(done.stdout)
    per = run.series["period_1000us"].values
    return run.counters["mean_period_1000us"][0] / 1e6, float(np.median(per)) / 1e6


def main() -> int:
    # (what, figure, low, high, unit)
    checks: list[tuple[str, float, float, float, str]] = []
    build_c_target("rtlab-latency")
    noop = _seconds(lambda: build_c_target("rtlab-latency"))
    checks.append(("rtlab-latency build, nothing to do", noop, 0, 5, "s"))
    checks.append(("host fingerprint", _seconds(fingerprint), 0, 3, "s"))
    for enc in ("s", "sd", "sb"):
        text = _million_samples(enc)
        took = _seconds(lambda t=text: parse_one(t))  # type: ignore[misc]  # mypy: lambda default
        checks.append((f"parse 10^6 samples ({enc})", took, 0, 4, "s"))
    mean, median = _search_mode_periods()
    checks.append(("search mode, FIFO 80: mean 1 ms period", mean, 0.8, 1.2, "ms"))
    checks.append(("search mode, FIFO 80: median 1 ms period", median, 0.8, 1.2, "ms"))
    bad = 0
    for what, figure, low, high, unit in checks:
        ok = low <= figure <= high
        bad += not ok
        verdict = "ok" if ok else ("SLOW" if unit == "s" else "OFF")
        print(f"{what:45} {figure:8.3f} {unit:2} (bound {low:g}..{high:g})  {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
