"""rtbench on every RTOS × one-core QEMU machine it builds for (the machine files' `rtos`,
rtlab.catalog.machines): the whole suite twice in the port's default configuration;
every scenario ok, the two outputs byte-identical, the figures plausible; a bad option
is exit status 2; `rtlab run` of a spec naming the RTOS stores its runs. One
parametrized module instead of a copy per RTOS: a new RTOS or machine is a new case.
Each case skips (one line) when its kernel is not brought; what only one RTOS does
(configurations, its own cross-checks) stays in test_<rtos>.py. Multi-core machines
have their own tests (test_smp_an521.py, qemu_smp/)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from rtlab.catalog.machines import MACHINES
from rtlab.lab.rtos import RTOSES
from rtlab.lab.rtos.base import configs_on
from rtlab.lab.targets import qemu as tq
from rtlab.studies import rtbench
from tests.conftest import rtlab
from tests.lab.targets.qemu_mps2.conftest import (
    QUICK,
    assert_irq_plausible,
    assert_throughput_plausible,
)
from tests.needs import port_brought
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.kernel  # needs what the user brings (README: bring your own kernels)

SCENARIOS = ["primitives", "irq", "threadmetric", "scalability", "contention"]
Pair = tuple[tq.QemuResult, tq.QemuResult]


@dataclass(frozen=True)
class Expect:
    """What each RTOS's runs say of themselves (its port's meta and warnings)."""

    port: str  # meta port
    version: str  # the start of meta rtos_version ("" : not checked)
    warnings: frozenset[str]  # codes every run carries
    task_below_ticks: int = 100  # irq: the woken task within this many counter ticks
    kernel_files: tuple[str, ...] = ()  # files of the kernel that must never be committed
    # contention: the target and the stress thread share one level and take turns (time
    # slicing: FreeRTOS; NuttX's SCHED_RR); Zephyr's and µC/OS-III's runs do not
    contention: bool = False


EXPECT = {
    "freertos": Expect(
        "freertos", "V", frozenset({"icount_model"}), 100, ("tasks.c", "queue.c"), True
    ),
    "ucos3": Expect(
        "ucos3",
        "V3.08.02",
        frozenset({"icount_model", "queue_by_pointer", "heap_partition", "no_getters"}),
        100,
        ("os_core.c", "os_cpu_a.S", "cpu_core.c"),
    ),
    # signal + thread switch: < 10000 instructions
    "nuttx": Expect(
        "posix",
        "",
        frozenset({"icount_model", "nuttx_clock", "swi_is_thread"}),
        250,
        ("nx_start.c", "Application.mk"),
        True,
    ),
    "zephyr": Expect(
        "zephyr", "3.4.99", frozenset({"icount_model"}), 100, ("Kconfig.zephyr", "sched.c")
    ),
}


def expect(rtos: str) -> Expect:
    """Its row of EXPECT; an RTOS without one (a new port) is held to what every port
    says: its own name as meta port, nothing more."""
    return EXPECT.get(rtos, Expect(rtos, "", frozenset()))


# The M3 and M4 boards run in `make test-kernels`; the family's other cores (the M7, the
# M33, the M0: another build each) in `make test-boards`.
FIRST = ("mps2-an385", "mps2-an386")
CASES = [
    pytest.param(
        (rtos, m),
        marks=[pytest.mark.xdist_group(rtos)] + ([] if m in FIRST else [pytest.mark.boards]),
        id=f"{rtos}-{m}",
    )
    for rtos, port in RTOSES.items()
    for m in port.machines
    if MACHINES.get(m).cores == 1
]


def _elf(rtos: str, machine: str) -> Path:
    port = RTOSES.get(rtos)
    paths = port_brought(port, "cmake", "make", "arm-none-eabi-gcc", tq.QEMU)
    return port.build(machine, configs_on(port, machine)[0], paths)


@pytest.fixture(scope="module", params=CASES)
def case(request: pytest.FixtureRequest) -> tuple[str, str, Path, Pair]:
    """(rtos, machine, its ELF, the whole suite run twice on it)."""
    rtos, machine = request.param
    elf = _elf(rtos, machine)
    runs = [tq.run_qemu(elf, machine, append=QUICK, timeout_s=180) for _ in "ab"]
    return rtos, machine, elf, (runs[0], runs[1])


def test_every_scenario_runs(case: tuple[str, str, Path, Pair]) -> None:
    rtos, machine, _, (res, _) = case
    want, m = expect(rtos), MACHINES.get(machine)
    assert res.exit_status == 0 and not res.timed_out, res.output[-2000:]
    assert [r.meta["scenario"] for r in res.runs] == SCENARIOS
    for r in res.runs:
        assert r.complete and r.status == "ok", (r.meta["scenario"], r.problems, r.message)
        assert r.meta["port"] == want.port and r.meta["rtos_version"].startswith(want.version)
        assert r.meta["board"] == machine and r.meta["timebase"] == "icount"
        assert r.meta["clock"] == f"{m.get('counter')}_icount"  # the machine file's counter
        assert r.meta["preemptive"] == "1"
        assert want.warnings <= {c for c, _ in r.warnings}, r.warnings
        assert r.counters["heap_used_end"][0] == 0  # every thread and object freed


def test_two_runs_identical(case: tuple[str, str, Path, Pair]) -> None:
    a, b = case[3]
    assert a.output == b.output  # the whole text: every sample and every count


def test_figures_plausible(case: tuple[str, str, Path, Pair]) -> None:
    """Kernel paths cost more than a GPIO write and a preemption more than a give; no
    interrupt lost, the handler before its task; Thread-Metric and every scalability
    pattern counted in 20 ms windows; where the RTOS takes turns on one level, both
    contention levels progress."""
    rtos, _, _, (res, _) = case
    run = rtbench.scenario_runs(res.runs, "primitives")[0]
    mean = {k: float(np.mean(s.values)) for k, s in run.series.items()}
    assert 0 < mean["sem_give"] < mean["preempt_sem"] and mean["sem_take"] > 0
    assert mean["preempt_queue"] > mean["queue_send"] > mean["gpio_set"]
    assert_irq_plausible(res.runs, expect(rtos).task_below_ticks)
    assert_throughput_plausible(res.runs)
    if expect(rtos).contention:
        cont = rtbench.scenario_runs(res.runs, "contention")[0]
        assert cont.counters["contention_0"][0] > 0 and cont.counters["contention_70"][0] > 0


def test_bad_option_exit_status(case: tuple[str, str, Path, Pair]) -> None:
    _, machine, elf, _ = case
    res = tq.run_qemu(elf, machine, append="--bogus 1", timeout_s=60)
    assert res.exit_status == 2 and "--bogus" in res.output and not res.runs


@pytest.mark.parametrize(
    "rtos", [pytest.param(r, marks=pytest.mark.xdist_group(r)) for r in ("freertos", "nuttx")]
)
def test_rtlab_run_qemu_spec(rtos: str, tmp_path: Path) -> None:
    """`rtlab run` builds the RTOS's rtbench for the spec's machine and stores each run."""
    machine = RTOSES.get(rtos).machines[-1]
    _elf(rtos, machine)  # built (or skipped) before the CLI runs
    spec = tmp_path / "q.toml"
    spec.write_text(
        f'name = "q"\nrepetitions = 2\n[target]\nkind = "qemu"\nrtos = "{rtos}"\n'
        f'machine = "{machine}"\n[[workload]]\nkind = "rtbench"\n'
        'scenarios = ["primitives"]\niterations = 50\nwindow_ms = 20\n'
    )
    proc = rtlab("run", str(spec), "--store", str(tmp_path / "s.duckdb"), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("ok ") + proc.stderr.count("ok ") >= 2


@pytest.mark.parametrize("rtos", list(EXPECT))
def test_kernel_is_brought_not_committed(rtos: str) -> None:
    """No file of the kernel nor a built image is in the repository, and the checkout
    the variables name lies outside it."""
    tracked = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-files"], capture_output=True, text=True, check=False
    ).stdout.split()
    assert not [p for p in tracked if p.endswith((*expect(rtos).kernel_files, ".elf"))]
    port = RTOSES.get(rtos)
    for var in port.variables:
        for tree in port_paths(var):
            assert not Path(tree).resolve().is_relative_to(REPO_ROOT), (var, tree)


def port_paths(var: str) -> list[str]:
    """The trees a variable names (ZEPHYR_MODULES: several, ;-separated)."""
    import os

    return [t for t in os.environ.get(var, "").split(";") if t]
