"""The study's questions with rtlab-latency: why is usleep(1) ~76 us, and what period can
a user-space program hold?

    .venv/bin/python bench/latency_usleep.py [--loops 1000] [--bound-pct 10] [--bound US]

Part 1, programmed vs actual: for usleep(1, 10, 100, 1000 us) under SCHED_OTHER with the
default 50 us timer slack, SCHED_OTHER with PR_SET_TIMERSLACK = 1 ns, and SCHED_FIFO 80,
the median and p99 actual duration and the median overshoot (actual - requested).
Part 2, the smallest period held: rtlab-latency --mode search for clock_nanosleep
(absolute) and usleep, SCHED_OTHER and SCHED_FIFO: the q99 of |actual period - period|
(a skipped period counts as a miss) must stay within --bound-pct % of P (and, if given,
within --bound us). A relative sleep's constant overshoot fails it: the mean actual
period and the spread around it (stability alone) are printed beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rtlab.analysis.stats import quantiles  # noqa: E402
from rtlab.lab.c_targets import build_c_target  # noqa: E402
from rtlab.protocol import Run, parse_one  # noqa: E402

CONDITIONS = {
    "OTHER, slack 50 us": [],
    "OTHER, slack 1 ns": ["--slack", "1"],
    "FIFO 80": ["-p", "80"],
}


def rtlab_latency(*args: str) -> Run:
    exe = build_c_target("rtlab-latency")
    out = subprocess.run(
        [str(exe), "-q", "-m", *args], capture_output=True, text=True, check=True
    ).stdout
    return parse_one(out, source="rtlab-latency")


def programmed_vs_actual(loops: int, method: str = "usleep") -> None:
    sleeps = (1, 10, 100, 1000)
    print(f"{method}(R): actual duration, {loops} sleeps each (us)")
    print(f"{'condition':22s}" + "".join(f"{'R=' + str(r):>26s}" for r in sleeps))
    print(f"{'':22s}" + "   median    p99 overshoot" * len(sleeps))
    for name, extra in CONDITIONS.items():
        run = rtlab_latency(
            "--mode",
            "sleep",
            "-w",
            method,
            "-l",
            str(loops),
            "--sleeps",
            ",".join(map(str, sleeps)),
            *extra,
        )
        cells = []
        for r in sleeps:
            v = run.series[f"actual_{r}us"].values / 1e3
            med, p99 = quantiles(v, (0.5, 0.99))  # inverted CDF, as everywhere in rtlab
            cells.append(f"{med:9.1f}{p99:8.1f}{med - r:9.1f}")
        print(f"{name:22s}" + "".join(cells))


def smallest_period(bound: list[str], seconds_each: float) -> None:
    periods = "1000,500,200,100,50,20,10"
    what = f"{bound[1]} us" if bound[0] == "--bound" else f"{bound[1]} % of the period"
    print(
        f"\nsmallest period P whose q99 |T - P| <= {what} ({seconds_each:g} s per P; "
        "a skipped period is a miss)\nper P: mean actual period / q99 |T - P| / q99 "
        "|T - mean T| (stability alone), us"
    )
    for method in ("abs", "usleep"):
        for name, extra in (("OTHER", []), ("FIFO 80", ["-p", "80"])):
            run = rtlab_latency(
                "--mode", "search", "-w", method, "--periods", periods, *bound,
                "--search-time", str(int(seconds_each * 1000)), *extra,
            )  # fmt: skip
            c = {k: v for k, (v, _) in run.counters.items()}
            best = c["min_period_ns"]

            def us(x: int) -> str:
                return "miss" if x < 0 else f"{x / 1e3:.0f}"

            cells = "  ".join(
                f"{p}:{us(c[f'mean_period_{p}us'])}/{us(c[f'jitter_{p}us'])}"
                f"/{us(c[f'spread_{p}us'])}"
                for p in periods.split(",")
            )
            held = f"{best / 1e3:.0f} us" if best else "none"
            print(f"  {method:7s} {name:8s} held: {held:7s} {cells}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loops", type=int, default=1000)
    ap.add_argument("--bound", type=int, default=0, help="also an absolute bound, us")
    ap.add_argument("--bound-pct", type=float, default=10, help="relative bound, %%")
    ap.add_argument("--seconds", type=float, default=1.0, help="per period in the search")
    a = ap.parse_args()
    print(f"loadavg {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    programmed_vs_actual(a.loops)
    smallest_period(["--bound-pct", f"{a.bound_pct:g}"], a.seconds)
    if a.bound:
        smallest_period(["--bound", str(a.bound)], a.seconds)


if __name__ == "__main__":
    main()
