"""rtbench on Zephyr in QEMU mps2: every scenario runs in both documented configurations,
two runs are byte-identical, results parse and are plausible, the run records the
Kconfig that matters. Skipped (one line) without ZEPHYR_BASE: the kernel is the user's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import RtosBuildError, merged_paths
from rtlab.lab.rtos.zephyr import RTOS as ZEPHYR
from rtlab.lab.targets import qemu as tq
from rtlab.protocol import Run
from rtlab.results import Store, multirun
from rtlab.studies import rtbench
from rtlab.studies.latency_measure import cross_check
from tests.conftest import rtlab
from tests.needs import port_brought

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

TOOLS = ("cmake", "arm-none-eabi-gcc", "dtc", tq.QEMU)  # what the build and QEMU need


@pytest.fixture(scope="module")
def elves() -> dict[str, Path]:
    """Both configurations for mps2-an385 (built once, cached under build/)."""
    paths = port_brought(ZEPHYR, *TOOLS)
    return {c: ZEPHYR.build("mps2-an385", c, paths) for c in ZEPHYR.configs}


def test_lean_runs_and_switches_cheaper(elves: dict[str, Path]) -> None:
    """lean (no time slicing, -O2) passes too, and its preemption costs less."""
    quick = "--scenarios primitives,irq --iterations 100"
    means = {}
    for config, elf in elves.items():
        res = tq.run_qemu(elf, append=quick, timeout_s=60)
        assert res.exit_status == 0 and all(r.status == "ok" for r in res.runs), res.output[-800:]
        prim = rtbench.scenario_runs(res.runs, "primitives")[0]
        means[config] = float(np.mean(prim.series["preempt_sem"].values))
    assert means["lean"] < means["default"], means


def test_describe_records_kconfig(elves: dict[str, Path]) -> None:
    d = {c: ZEPHYR.describe(c, merged_paths()) for c in ZEPHYR.configs}
    assert d["default"]["rtos_version"] == "3.4.99"
    assert d["default"]["kconfig"]["CONFIG_TIMESLICING"] == "y"
    assert d["lean"]["kconfig"]["CONFIG_TIMESLICING"] == "n"
    assert (d["default"]["kconfig"]["optimization"], d["lean"]["kconfig"]["optimization"]) == (
        "-Os",
        "-O2",
    )
    assert d["lean"]["kconfig"]["libc"] == "minimal"


def test_bad_configuration_is_one_clear_line() -> None:
    paths = {"ZEPHYR_BASE": "/nonexistent"}
    with pytest.raises(RtosBuildError, match="configuration 'fast' on mps2-an385: expected one of"):
        ZEPHYR.build("mps2-an385", "fast", paths)
    # the QEMU machines, then Zephyr's own serial-target boards (zephyr.boards)
    with pytest.raises(
        RtosBuildError, match=r"runs on mps2-an385, mps2-an386, virt-a53, pico, nucl.* here, not"
    ):
        ZEPHYR.build("mps2-an500", "lean", paths)
    why = ZEPHYR.missing(paths)
    assert why is not None and "not a Zephyr tree" in why and "\n" not in why
    assert "ZEPHYR_BASE" in (ZEPHYR.missing({}) or "")
    assert RTOSES.get("zephyr") is ZEPHYR


def test_qemu_target_names_what_to_set_for_latency_measure() -> None:
    """Without the kernel, the qemu target's build of Zephyr's latency_measure fails with
    the one line the README's table gives, not a missing-file error later."""
    target = tq.QemuTarget({"rtos": "zephyr", "rtos_paths": {"ZEPHYR_BASE": "/nonexistent"}})
    with pytest.raises(tq.QemuError, match=r"zephyr-latency-measure on Zephyr: .*not a Zephyr"):
        target.program("zephyr-latency-measure")
    assert target.program("something-else") == "something-else"


def test_rtlab_run_zephyr_spec_with_cross_check(elves: dict[str, Path], tmp_path: Path) -> None:
    """rtbench and Zephyr's own latency_measure through `rtlab run` on one target; the
    store holds both, the Kconfig of each, and the cross-check pairs them."""
    spec = tmp_path / "z.toml"
    spec.write_text(
        'name = "z"\nrepetitions = 1\n[target]\nkind = "qemu"\nmachine = "mps2-an385"\n'
        'rtos = "zephyr"\nrtos_config = "lean"\n[[workload]]\nkind = "rtbench"\n'
        'scenarios = ["primitives", "irq"]\niterations = 50\nwindow_ms = 20\n'
        '[[workload]]\nkind = "latency_measure"\n'
    )
    store_path = tmp_path / "s.duckdb"
    proc = rtlab("run", str(spec), "--store", str(store_path), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with Store(store_path, read_only=True) as store:
        runs = {r["workload"]: r for r in store.runs()}
        assert {r["status"] for r in runs.values()} == {"ok"}
        target = runs["latency_measure"]["target"]
        assert target["rtos_config"] == "lean" and target["kconfig"]["CONFIG_TIMESLICING"] == "n"
        assert target["kconfig_latency_measure"]["CONFIG_TICKLESS_KERNEL"] == "n"
        lm = Run(workload="latency_measure", version="1")
        for name, value, unit in store.sql(
            "SELECT name, value, unit FROM counters WHERE run_id=?",
            [runs["latency_measure"]["run_id"]],
        ):
            lm.counters[name] = (int(value), unit)
        rows = cross_check(lm, multirun.split(store, runs["rtbench"]["run_id"]))
    assert all(r.lm_ns is not None and r.rtbench_mean_ns for r in rows), rows
    # Same kernel, same machine, same clock rate: within a factor of 2.5 either way
    # (the definitions differ: see studies/latency_measure.PAIRS).
    assert all(0.4 < (r.ratio or 0) < 2.5 for r in rows), [(r.label, r.ratio) for r in rows]
