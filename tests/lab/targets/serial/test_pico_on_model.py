"""Every one-core Pico image on the RP2040 cycle model (rtlab's, models/rp2040), through
the serial target's `rp2040_model` flasher as a spec runs it: every rtbench scenario
(primitives, irq with its troublemaker pass, Thread-Metric, scalability, contention; the
heap counters in each) ends `rtbench: done errors=0`, twice, with the same stored samples
(the model is deterministic). Each RTOS skips with one line naming what to set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import one_core_configs
from rtlab.lab.runner import run_spec
from rtlab.lab.spec import parse_spec
from rtlab.results import Store
from tests.lab.targets.labgrid.test_mps2_places import _stored
from tests.lab.targets.serial.test_pico import _nuttx, _sdk
from tests.lab.targets.serial.test_pico_one_core import _freertos
from tests.needs import brought

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

TESTED = "; README: bring your own kernels"
# Each RTOS's first configuration in `make test-kernels`, the others in `make test-boards`
# (each a minute or two of the model).
IMAGES = [
    pytest.param(r, c, marks=() if i == 0 else pytest.mark.boards)
    for r in ("freertos", "ucos3", "nuttx", "zephyr")
    for i, c in enumerate(one_core_configs(RTOSES.get(r), "pico"))
]


def _brought(rtos: str) -> None:
    if rtos == "freertos":
        _freertos()
    elif rtos == "nuttx":
        _nuttx()
    elif rtos == "ucos3":
        brought(
            "UCOS3_PATH", "a folder holding uC-OS3, uC-CPU and uC-LIB", "weston-embedded" + TESTED
        )
        _sdk()
    else:
        brought("ZEPHYR_BASE", "a Zephyr tree", "tested: 3.4.99" + TESTED)
        brought("ZEPHYR_MODULES", "cmsis;hal_rpi_pico checkouts", "docs/boards.md" + TESTED)


# The target of a spec running the Pico's images on the model ({rtos}: str.format's)
ON_MODEL = """[target]
kind = "serial"
board = "pico"
flasher = "rp2040_model"
builtin_args = true
rtos = "{rtos}"
"""
SPEC = (
    'name = "pico-on-model-{rtos}-{config}"\nrepetitions = 2\n'
    + ON_MODEL
    + 'answer_s = 300\nrtos_config = "{config}"\n'
) + """\
[[workload]]
kind = "rtbench"
name = "{rtos}-{config}"
scenarios = ["all"]
iterations = 20
window_ms = 20
period_us = 1000
timeout_s = 600
"""


def run_twice_identical(text: str, tmp_path: Path) -> tuple[Any, Any, Any]:
    """The spec `text` (two repetitions of one cell) run on the model: both runs ok,
    and the second stored the same samples and counters as the first (the model is
    deterministic). Returns the first run's (meta, samples, counters) as _stored has
    them."""
    spec = parse_spec(text, tmp_path / "spec.toml")
    with Store(tmp_path / "rtlab.duckdb") as st:
        out = run_spec(spec, st)
        assert [r.status for r in out.runs] == ["ok", "ok"], [r.message for r in out.runs]
        stored = _stored(st, spec.name)
    (m1, s1, c1), (_, s2, c2) = stored.values()
    assert s1 == s2 and c1 == c2, "two runs on the model stored different samples"
    return m1, s1, c1


@pytest.mark.parametrize(("rtos", "config"), IMAGES)
def test_every_scenario_runs_twice_identical(rtos: str, config: str, tmp_path: Path) -> None:
    _brought(rtos)
    m1, s1, c1 = run_twice_identical(SPEC.format(rtos=rtos, config=config), tmp_path)
    # the meta per scenario invocation (`primitives@1/board`, ...)
    for key in ("timebase", "board", "rtos", "cores"):
        assert {v for k, v in m1.items() if k.endswith(f"/{key}")} == {
            {"timebase": "rp2040_model", "board": "pico", "rtos": rtos, "cores": "1"}[key]
        }, key
    names = " ".join(s1)
    for path in ("sem_give", "isr_task", "isr_task_tm"):  # primitives, irq, troublemaker
        assert path in names, names
    counters = dict(c1)
    for what in ("primitives@1/heap_peak", "threadmetric@1/t1", "scalability@1/p1",
                 "contention@1/contention_0"):  # fmt: skip
        assert what in counters, sorted(counters)
    assert counters["irq@1/isr_lost"] == counters["irq@1/isr_lost_tm"] == 0
    # the XIP cache model: the first call after rtb_cache_cold's flush takes the misses
    # (cold > warm on the semaphore and irq paths, whatever the RTOS)
    cold = {k.rsplit("/", 1)[-1].removesuffix(".cold"): v for k, v in c1 if k.endswith(".cold")}
    for path in ("sem_give", "isr_task"):
        warm = sorted(next(v for k, v in s1.items() if k.rsplit("/", 1)[-1] == path))
        assert cold[path] > warm[len(warm) // 2], (path, cold[path], warm)
