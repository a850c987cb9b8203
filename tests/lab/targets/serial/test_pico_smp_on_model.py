"""The Pico's SMP images on the two-core RP2040 cycle model: FreeRTOS SMP
(configNUMBER_OF_CORES 2) and NuttX's raspberrypi-pico in SMP, through the serial
target's `rp2040_model` flasher as examples/rp2040-model-smp.toml runs them: every
multi-core scenario (Thread-Metric, scalability, contention) on 1 and 2 cores ends
`rtbench: done errors=0`, twice, with the same stored samples and counters (the model is
deterministic), and the 2-core runs are figures, not withheld. Each RTOS skips with one
line naming what to set."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lab.targets.serial.test_pico import _freertos, _nuttx
from tests.lab.targets.serial.test_pico_on_model import ON_MODEL, run_twice_identical

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

SPEC = (
    'name = "pico-smp-on-model-{rtos}"\nrepetitions = 2\n' + ON_MODEL + "answer_s = 600\n"
) + """\
[[workload]]
kind = "rtbench"
name = "{rtos}-smp"
scenarios = ["threadmetric", "scalability", "contention"]
cores = [1, 2]
levels = [0, 30, 70]
tests = [1, 2, 8]
window_ms = 20
timeout_s = 1200
"""


@pytest.mark.parametrize("rtos", ["freertos", "nuttx"])
def test_smp_scenarios_run_twice_identical(rtos: str, tmp_path: Path) -> None:
    _freertos() if rtos == "freertos" else _nuttx()
    m1, _, c1 = run_twice_identical(SPEC.format(rtos=rtos), tmp_path)
    assert {v for k, v in m1.items() if k.endswith("/timing_mode")} == {"rp2040-model"}
    assert not [k for k in m1 if k.endswith("/withheld")], "2-core runs withheld"
    counters = dict(c1)
    for what in ("threadmetric@2/t1", "threadmetric@2/t8", "scalability@2/p1",
                 "contention@2/contention_70", "threadmetric@1/t1"):  # fmt: skip
        assert counters.get(what, 0) > 0, (what, sorted(counters))
