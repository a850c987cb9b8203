"""rtlab.studies.rtbench: study-style tables from parsed rtbench runs."""

from __future__ import annotations

import pytest

from rtlab.lab.workloads import rtbench as workload
from rtlab.protocol import Run, parse
from rtlab.studies import rtbench


def run_text(scenario: str, body: list[str], cores: int = 1, meta: str = "") -> str:
    lines = [
        "@rtl1 hello workload=rtbench version=0.1.0",
        f"@rtl1 meta scenario={scenario} cores={cores} {meta}".rstrip(),
        *body,
    ]
    lines.append(f"@rtl1 end records={len(lines)} status=ok")
    return "\n".join(lines) + "\n"


def series(name: str, values: list[int], unit: str = "ns") -> list[str]:
    return [f"@rtl1 series {name} unit={unit}", f"@rtl1 s {name} 0 {','.join(map(str, values))}"]


def tput(name: str, count: int, elapsed_us: int = 1_000_000) -> list[str]:
    return [
        f"@rtl1 c {name} {count} unit=count",
        f"@rtl1 c {name}.elapsed_us {elapsed_us} unit=us",
    ]


def test_primitive_table_matches_study_units() -> None:
    # The STM32 study's Table 1 at 8 MHz: 1.625 us = 13 cycles, 21.5 us = 172 cycles.
    body = [
        *series("gpio_set", [1625, 1625, 1625]),
        "@rtl1 c gpio_set.cold 3000 unit=ticks",
        *series("sem_give", [21500, 21000, 22000]),
    ]
    (run,) = parse(run_text("primitives", body))
    rows = {r.name: r for r in rtbench.primitive_table(run, cpu_hz=8e6)}
    assert rows["gpio_set"].median_us == pytest.approx(1.625)
    assert rows["gpio_set"].median_cycles == pytest.approx(13)
    assert rows["gpio_set"].cold_us == pytest.approx(3.0)
    assert rows["sem_give"].median_cycles == pytest.approx(172)
    assert rows["sem_give"].min_us == pytest.approx(21.0)
    assert list(rows) == ["gpio_set", "sem_give"]  # study order, absent ones skipped


def test_ticks_convert_with_tick_hz_and_run_clock() -> None:
    body = [*series("sem_take", [25, 25], unit="ticks tick_hz=25000000")]
    (run,) = parse(run_text("primitives", body, meta="cpu_hz=25000000"))
    (row,) = rtbench.primitive_table(run)
    assert row.median_us == pytest.approx(1.0)
    assert row.median_cycles == pytest.approx(25)
    (run,) = parse(run_text("primitives", body))
    assert rtbench.primitive_table(run)[0].median_cycles is None


def test_scalability_normalized_to_single_core() -> None:
    text = run_text("scalability", tput("p1", 1000) + tput("p4", 400), cores=1)
    text += run_text("scalability", tput("p1", 1500) + tput("p4", 800, 2_000_000), cores=2)
    runs = parse(text)
    per_core = rtbench.scalability(runs)
    assert per_core["p1"] == {1: 100.0, 2: 75.0}
    assert per_core["p4"][2] == pytest.approx(50.0)  # rate, not raw count
    assert rtbench.scalability(runs, basis="total")["p1"][2] == pytest.approx(150.0)
    with pytest.raises(workload.RtbenchError):
        rtbench.scalability(parse(run_text("scalability", tput("p1", 5), cores=2)))


def test_contention_normalized_to_level_zero() -> None:
    body = tput("contention_0", 1000) + tput("contention_10", 500) + tput("contention_70", 100)
    (run,) = parse(run_text("contention", body, cores=2, meta="levels=0,10,70"))
    assert rtbench.contention(run) == {0: 100.0, 10: 50.0, 70: 10.0}
    (bad,) = parse(run_text("irq", []))
    with pytest.raises(workload.RtbenchError):
        rtbench.contention(bad)


def test_threadmetric_and_heap() -> None:
    body = [
        *tput("t1", 100),
        *series("t1.per_thread", [60, 40], unit="count"),
        "@rtl1 c t1.heap_peak 4096 unit=bytes",
        "@rtl1 c heap_peak 8192 unit=bytes",
    ]
    runs = parse(run_text("threadmetric", body, cores=2))
    tm = rtbench.threadmetric_counts(runs)
    assert tm[2]["t1"].count == 100 and tm[2]["t1"].per_thread == (60, 40)
    assert tm[2]["t1"].per_second == pytest.approx(100.0)
    assert rtbench.heap_peaks(runs) == {"threadmetric@2": 8192, "threadmetric@2/t1": 4096}
    with pytest.raises(workload.RtbenchError):
        rtbench.threadmetric_counts(parse(run_text("irq", [])))


def test_tables_from_a_real_run(suite_runs: list[Run]) -> None:
    md = rtbench.markdown(suite_runs)
    for title in (
        "### primitives",
        "### irq",
        "### Thread-Metric",
        "### Scalability",
        "### Contention",
        "### Heap peak",
    ):
        assert title in md
    prim = rtbench.primitive_table(rtbench.scenario_runs(suite_runs, "primitives")[0])
    assert len(prim) == len(rtbench.PRIMITIVES)
    sc = rtbench.scalability(suite_runs)
    assert all(v[1] == pytest.approx(100.0) for v in sc.values())
    ct = rtbench.contention(rtbench.scenario_runs(suite_runs, "contention")[0])
    assert ct[0] == 100.0 and len(ct) == 8


def test_params_and_argv() -> None:
    p = workload.params_from_mapping(
        {
            "scenarios": ["primitives", "contention"],
            "iterations": 300,
            "cores": [1, 2],
            "levels": [0, 70],
            "shared": True,
            "clock": "tsc",
        }
    )
    assert workload.posix_argv(p) == [
        "--scenarios",
        "primitives,contention",
        "--iterations",
        "300",
        "--cores",
        "1,2",
        "--levels",
        "0,70",
        "--clock",
        "tsc",
        "--shared",
    ]
    assert workload.posix_argv(workload.params_from_mapping({})) == ["--scenarios", "all"]
    for bad in (
        {"scenario": "irq"},
        {"scenarios": ["irk"]},
        {"levels": [0, 170]},
        {"iterations": "many"},
        {"shared": 1},
        {"clock": "sundial"},
        {"cores": []},
    ):
        with pytest.raises(workload.RtbenchError):
            workload.params_from_mapping(bad)


def test_run_posix(rtbench_build) -> None:
    p = workload.params_from_mapping({"scenarios": "scalability", "cores": [1], "window_ms": 10})
    (run,) = workload.run_posix(p, exe=rtbench_build / "rtbench-posix", timeout=60)
    assert run.complete and run.counters["p1"][0] > 0


def test_a_starved_target_says_why_contention_is_not_measured() -> None:
    """One core, equal priorities, no time slicing (Zephyr's default): the target runs 0
    times, and the tables say so instead of dividing by zero or failing the report."""
    body = tput("contention_0", 0) + tput("contention_70", 0)
    runs = parse(run_text("contention", body, cores=1, meta="levels=0,70"))
    with pytest.raises(workload.RtbenchError, match="no time slicing"):
        rtbench.contention(runs[0])
    md = rtbench.markdown(runs)
    assert "contention not measured: the target task ran 0 times" in md
    assert "throughput %" not in md


def test_a_target_starved_on_its_own_core_is_not_blamed_on_time_slicing() -> None:
    """Two cores, the stress task on the other: a target that never ran had its core
    taken (on Linux as root, RT throttling: seen in a loaded `make test`), which the
    reason says instead of the one-core explanation."""
    body = tput("contention_0", 0) + tput("contention_70", 14144)
    warn = "@rtl1 warn code=rt_throttling msg=sched_rt_runtime_us%20limits%20SCHED_FIFO"
    runs = parse(run_text("contention", [*body, warn], cores=2, meta="levels=0,70"))
    with pytest.raises(workload.RtbenchError) as exc:
        rtbench.contention(runs[0])
    assert "no time slicing" not in str(exc.value)
    assert "on 2 cores" in str(exc.value) and "RT throttling" in str(exc.value)


def test_cold_column_says_what_was_emptied_before_it() -> None:
    # K4perf's cold (first run from flash) vs warm: the board says what it flushed.
    body = [*series("sem_give", [500, 510, 505]), "@rtl1 c sem_give.cold 2900 unit=ticks"]
    (flushed,) = parse(run_text("primitives", body, meta="cold=xip_cache_flushed"))
    md = rtbench.markdown([flushed])
    assert "| Semaphore give | 0.505 |" in md  # ns-unit samples: µs to 3 places
    assert "cold µs: the first call after the XIP flash cache was flushed." in md
    (plain,) = parse(run_text("primitives", body, meta="cold=first_call"))
    assert "no cache was emptied" in (rtbench.cold_note(plain) or "")
    (old,) = parse(run_text("primitives", body))
    assert rtbench.cold_note(old) is None  # a run from before rtbench said so
