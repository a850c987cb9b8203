"""rtlab-latency against the real cyclictest (rt-tests 2.4): same interval, priority,
duration, cpu_dma_latency and CPU; the medians must agree within the noise of this machine.

Both run pinned to one CPU that a spinner below them keeps busy (KeepAwake). Unpinned,
the figure depended on where the scheduler put the tool: on this VM a wake-up on an idle
vCPU takes about 33 us, on one beside other load (the other pytest worker) about 16 us,
and a fresh machine's CI failed when cyclictest happened to land beside the load in three
runs of four and rtlab-latency in one.

The noise is measured in the test itself: each tool runs RUNS times, alternating, and
the spread of a tool's run medians is the run-to-run noise (on this 2-core VM, run
medians of one tool range from 16 to 35 us). The tools disagree when the difference of
their mean run medians is more than 4 standard errors (a two-sample t statistic with
2·RUNS − 2 degrees of freedom: a false alarm about once in 150 runs) and more than
20 % of the median. Two runs per tool were too few: the noise estimate itself was then
so unsure that one CI run in five failed on agreeing tools.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np
import pytest

from tests.needs import tool
from tests.paths import REPO_ROOT

ROOT = REPO_ROOT
SECONDS, INTERVAL_US, PRIORITY, RUNS = 2, 1000, 80, 4


def _bench_module():  # bench/ is scripts, not a package: load the file
    path = ROOT / "bench" / "latency_vs_cyclictest.py"
    spec = importlib.util.spec_from_file_location("latency_vs_cyclictest", path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
def test_medians_agree_with_cyclictest() -> None:
    tool("cyclictest", "rt-tests in deps/apt.txt")
    b = _bench_module()
    runs: dict[str, list] = {"cyclictest": [], "rtlab-latency": []}
    tools = {"cyclictest": b.run_cyclictest, "rtlab-latency": b.run_rtlab_latency}
    cpu = max(os.sched_getaffinity(0))
    with b.KeepAwake(cpu):
        b.run_rtlab_latency(1, INTERVAL_US, PRIORITY, cpu=cpu)  # warm-up: the first is slow
        for i in range(RUNS):  # alternate, and swap who goes first, so drift hits both
            for name in sorted(tools, reverse=bool(i % 2)):
                runs[name].append(tools[name](SECONDS, INTERVAL_US, PRIORITY, cpu=cpu))

    expected = SECONDS * 1_000_000 // INTERVAL_US
    for rs in runs.values():
        # both ran and reported (almost) every sample they took; a loaded host (the other
        # pytest worker) makes either miss periods, so the count of loops is bounded loosely
        for r in rs:
            assert 0.5 * expected <= r.loops <= expected + 2
            assert r.latency_ns.size >= 0.9 * r.loops
            assert r.latency_ns.min() >= 0

    med = {t: np.array([r.median for r in rs]) for t, rs in runs.items()}
    pooled_sd = float(
        np.sqrt((med["cyclictest"].var(ddof=1) + med["rtlab-latency"].var(ddof=1)) / 2)
    )
    std_err = pooled_sd * np.sqrt(2 / RUNS)
    diff = abs(float(med["cyclictest"].mean() - med["rtlab-latency"].mean()))
    level = float(max(m.mean() for m in med.values()))
    tolerance = max(4 * std_err, 0.2 * level)
    report = (
        f"run medians (ns): { {t: m.round().tolist() for t, m in med.items()} }; "
        f"diff of means {diff:.0f} ns; run-to-run sd {pooled_sd:.0f} ns; "
        f"standard error {std_err:.0f} ns; tolerance {tolerance:.0f} ns"
    )
    print(report)
    assert diff <= tolerance, report
