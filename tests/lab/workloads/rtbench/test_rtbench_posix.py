"""rtbench on the POSIX port: every scenario briefly, parsed by the host parser, checked
for form (complete runs, declared series, counters) and plausibility (orderings that
hold on any preemptive system, not absolute figures of this machine)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from rtlab.protocol import Run, parse
from tests.lab.workloads.rtbench.conftest import QUICK, by_scenario, run_posix

PRIMITIVE_SERIES = (
    "overhead",
    "gpio_set",
    "gpio_clear",
    "sem_give",
    "sem_take",
    "queue_send",
    "queue_recv",
    "preempt_sem",
    "return_sem",
    "preempt_queue",
    "return_queue",
)
IRQ_SERIES = ("isr_handler", "isr_task", "isr_handler_tm", "isr_task_tm")
ITERATIONS = int(QUICK[QUICK.index("--iterations") + 1])
CORES = len(os.sched_getaffinity(0))


def one(runs: list[Run], scenario: str) -> Run:
    found = by_scenario(runs, scenario)
    assert len(found) == 1, f"{scenario}: {len(found)} runs"
    return found[0]


def test_build_uses_werror(rtbench_build) -> None:
    commands = json.loads((rtbench_build / "compile_commands.json").read_text())
    assert commands
    for c in commands:
        assert all(f in c["command"] for f in ("-Wall", "-Wextra", "-Werror", "-std=c11"))


def test_every_run_complete(suite_runs: list[Run]) -> None:
    scenarios = [r.meta.get("scenario") for r in suite_runs]
    expected_tm = 2 if CORES >= 2 else 1
    assert scenarios.count("primitives") == 1
    assert scenarios.count("irq") == 1
    assert scenarios.count("threadmetric") == expected_tm
    assert scenarios.count("scalability") == expected_tm
    assert scenarios.count("contention") == 1
    for r in suite_runs:
        assert r.workload == "rtbench"
        assert r.complete and r.status == "ok", (r.meta, r.problems)
        assert int(r.meta["clock_hz"]) > 0
        assert r.meta["port"] == "posix"


def test_primitive_series(suite_runs: list[Run]) -> None:
    r = one(suite_runs, "primitives")
    for name in PRIMITIVE_SERIES:
        s = r.series[name]
        assert s.unit == "ticks" and s.tick_s is not None
        assert len(s.values) == ITERATIONS - 1  # the cold sample is reported apart
        assert f"{name}.cold" in r.counters
    assert r.counters["overhead_floor"][0] >= 0
    # a process reaches no cache of the host's: its cold sample is the first call's
    assert r.meta["cold"] == "first_call"


def test_primitive_orderings(suite_runs: list[Run]) -> None:
    r = one(suite_runs, "primitives")
    med = {n: float(np.median(r.series[n].values)) for n in PRIMITIVE_SERIES}
    give = float(np.mean(r.series["sem_give"].values))
    assert give > 0
    assert med["preempt_sem"] > med["sem_give"]
    assert med["preempt_queue"] > med["queue_send"]
    assert min(med["return_sem"], med["return_queue"]) > 0
    # a context switch costs more than an uncontended give
    assert med["preempt_sem"] > 2 * max(med["sem_give"], 1)


def test_irq_latencies(suite_runs: list[Run]) -> None:
    r = one(suite_runs, "irq")
    for name in IRQ_SERIES:
        assert len(r.series[name].values) == ITERATIONS - 1
    assert r.counters["isr_lost"][0] == 0
    for sfx in ("", "_tm"):
        handler = r.series[f"isr_handler{sfx}"].values
        task = r.series[f"isr_task{sfx}"].values
        assert handler.min() > 0
        assert np.all(task >= handler)  # the actor runs after the handler, every time


def test_threadmetric_counts(suite_runs: list[Run]) -> None:
    for r in by_scenario(suite_runs, "threadmetric"):
        cores = int(r.meta["cores"])
        for t in range(1, 9):
            count, unit = r.counters[f"t{t}"]
            assert unit == "count" and count > 0, (cores, t)
            assert r.counters[f"t{t}.elapsed_us"][0] >= 40_000
            assert f"t{t}.heap_peak" in r.counters
        assert len(r.series["t2.per_thread"].values) == 5 * cores
        assert len(r.series["t3.per_thread"].values) == 5 * cores
        assert r.series["t1.per_thread"].values.sum() == r.counters["t1"][0]
        # T1 does no kernel call: it must outrun the yield-bound T2
        assert r.counters["t1"][0] > r.counters["t2"][0]


def test_scalability_counts(suite_runs: list[Run]) -> None:
    for r in by_scenario(suite_runs, "scalability"):
        cores = int(r.meta["cores"])
        for p in ("p1", "p23", "p4", "p5", "p6"):
            assert r.counters[p][0] > 0
            assert len(r.series[f"{p}.per_thread"].values) == cores


def contention_counts(r: Run) -> dict[int, int]:
    levels = [int(x) for x in r.meta["levels"].split(",")]
    return {lv: r.counters[f"contention_{lv}"][0] for lv in levels}


def test_contention_degrades(suite_runs: list[Run], rtbench_build) -> None:
    counts = contention_counts(one(suite_runs, "contention"))
    assert list(counts) == [0, 10, 20, 30, 40, 50, 60, 70]
    assert all(c > 0 for c in counts.values())
    # Other engineers' real-time jobs can steal a 50 ms window: a disturbed 0 % window
    # gets two more chances before the ordering counts as broken.
    tries = [counts]
    for _ in range(2):
        if tries[-1][70] <= tries[-1][0] * 1.1:
            break
        proc = run_posix(rtbench_build, *QUICK, "--scenarios", "contention")
        tries.append(contention_counts(parse(proc.stdout, source="retry")[0]))
    assert tries[-1][70] <= tries[-1][0] * 1.1, tries


def test_heap_is_reported_and_released(suite_runs: list[Run]) -> None:
    for r in suite_runs:
        assert r.counters["heap_peak"][0] > 0
        assert r.counters["heap_used_end"] == (0, "bytes"), r.meta["scenario"]


def test_truncated_output_is_flagged(suite_output: str) -> None:
    lines = suite_output.splitlines()
    ends = [i for i, ln in enumerate(lines) if ln.startswith("@rtl1 end ")]
    for cut_at in (ends[2], ends[2] - 5):  # without its end record; mid-series
        cut = parse("\n".join(lines[:cut_at]), source="cut")
        assert len(cut) == 3
        assert not cut[-1].complete
        assert cut[-1].status == "truncated"
        assert all(r.complete for r in cut[:-1])
    # a wrong record count is caught too
    lines[ends[0]] = lines[ends[0]].split(" *")[0].replace("records=", "records=1")
    assert not parse("\n".join(lines), source="count")[0].complete


def test_lost_chunk_and_corrupt_line_are_flagged(suite_output: str) -> None:
    lines = suite_output.splitlines()
    chunk = next(i for i, ln in enumerate(lines) if ln.startswith("@rtl1 sd sem_give 1 "))
    dropped = parse("\n".join(lines[:chunk] + lines[chunk + 1 :]), source="drop")
    prim = one(dropped, "primitives")
    assert not prim.complete and prim.problems
    flipped = list(lines)
    flipped[chunk] = flipped[chunk].replace(" 1 ", " 1 9", 1)  # content changed, CRC kept
    prim = one(parse("\n".join(flipped), source="crc"), "primitives")
    assert not prim.complete and prim.problems


@pytest.mark.parametrize("crc", [False, True])
def test_selftest_emitter(rtbench_build, crc: bool) -> None:
    import subprocess

    args = [str(rtbench_build / "rtbench-selftest")] + (["--crc"] if crc else [])
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    (run,) = parse(proc.stdout, source="selftest")
    assert run.complete, run.problems
    assert all(ln.endswith("*", 0, len(ln) - 8) for ln in proc.stdout.splitlines()) == crc
    expect = np.array([-i * 1000 if i % 3 == 0 else i * 7 for i in range(200)], dtype=np.int64)
    expect[1] = np.iinfo(np.int64).max
    expect[2] = np.iinfo(np.int64).min
    np.testing.assert_array_equal(run.series["v"].values, expect)
    assert run.meta["text"] == "a b=c*d%e"
    assert run.warnings == [("selftest", "a message with spaces")]


def test_options(rtbench_build) -> None:
    assert run_posix(rtbench_build, "--help").returncode == 0
    assert run_posix(rtbench_build, "--bogus").returncode == 2
    assert run_posix(rtbench_build, "--iterations", "x").returncode == 2
    assert run_posix(rtbench_build, "--scenarios", "nope").returncode == 2
    assert run_posix(rtbench_build, "--tests", "9").returncode == 2
    assert run_posix(rtbench_build, "--clock", "sundial").returncode == 2
    proc = run_posix(
        rtbench_build,
        "--scenarios",
        "threadmetric",
        "--tests",
        "1,7",
        "--cores",
        "1",
        "--window-ms",
        "20",
    )
    assert proc.returncode == 0
    (r,) = parse(proc.stdout, source="subset")
    assert r.complete
    assert {k for k in r.counters if k.count(".") == 0} == {
        "t1",
        "t7",
        "heap_peak",
        "heap_used_end",
    }


def test_cpu_counter_clock(rtbench_build) -> None:
    proc = run_posix(
        rtbench_build, "--clock", "tsc", "--scenarios", "primitives", "--iterations", "100"
    )
    if proc.returncode == 2:
        pytest.skip("no CPU counter on this architecture")
    (r,) = parse(proc.stdout, source="tsc")
    assert r.complete and r.meta["clock"] == "cpu_counter"
    assert int(r.meta["clock_hz"]) == int(r.meta["cpu_hz"]) > 10**6
    med = {n: np.median(r.series[n].values) for n in ("sem_give", "preempt_sem")}
    assert med["preempt_sem"] > med["sem_give"]


@pytest.mark.skipif(CORES < 2, reason="needs two cores")
def test_shared_objects_across_cores(rtbench_build) -> None:
    proc = run_posix(
        rtbench_build,
        "--scenarios",
        "threadmetric",
        "--tests",
        "6,7",
        "--shared",
        "--cores",
        "2",
        "--window-ms",
        "20",
    )
    assert proc.returncode == 0, proc.stderr
    (r,) = parse(proc.stdout, source="shared")
    assert r.complete and r.meta["shared"] == "1"
    assert r.counters["t6"][0] > 0 and r.counters["t7"][0] > 0
    assert len(r.series["t7.per_thread"].values) == 2
