"""The two timing modes of a multi-core QEMU guest, and what each can measure.

- **icount** (`icount_shift` 0..10): deterministic. QEMU then runs the vCPUs in turns
  on one host thread and switches at the next timer event, so a wake-up from one core to
  another measures that turn (about a tick), not the kernel, and N cores share one
  instruction clock (N-core throughput is one core's, split). Same-core figures stay
  valid; the cross-core scenarios run on more than one core are withheld as
  `unsupported_on_icount`, never stored as numbers.
- **parallel TCG** (`icount_shift = -1` on a machine with more than one core): one host
  thread per vCPU, real host time. Scaling and contention are meaningful only as ratios,
  with repetitions, and only while the host has an idle core per guest core: every run
  records the host's CPUs and its 1-minute load when it started (`host_cpus`,
  `host_load1`) so the report can flag the runs that broke that rule.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from rtlab.protocol.withhold import withhold_runs

# Scenarios whose N-core figures need the cores to run at the same time.
CROSS_CORE_SCENARIOS = ("threadmetric", "scalability", "contention")
UNSUPPORTED_ON_ICOUNT = "unsupported_on_icount"
_WHY = (
    "QEMU icount runs the {cores} vCPUs in turns, switching at the next timer event: "
    "a {scenario} figure on {n} cores would measure those turns, not the kernel "
    "(icount_shift = -1 runs the cores in parallel, host time)"
)


def timing_mode(cores: int, shift: int | None) -> str:
    if shift is not None:
        return "icount"
    return "parallel-tcg" if cores > 1 else "host"


def parallel_args(cores: int, shift: int | None) -> list[str]:
    """One host thread per vCPU when the guest has several and icount is off."""
    return ["-accel", "tcg,thread=multi"] if timing_mode(cores, shift) == "parallel-tcg" else []


def host_idle_labels() -> dict[str, object]:
    """The host's CPUs and its load as the run starts (before QEMU adds its own)."""
    return {"host_cpus": os.cpu_count() or 0, "host_load1": f"{os.getloadavg()[0]:.2f}"}


def timing_labels(cores: int, shift: int | None) -> dict[str, object]:
    """The meta a multi-core guest's runs carry: the mode, the guest's cores, and in
    parallel TCG the host's CPUs and load (nothing for a one-core machine)."""
    if cores <= 1:
        return {}
    labels: dict[str, object] = {"timing_mode": timing_mode(cores, shift), "qemu_cores": cores}
    if shift is None:
        labels.update(host_idle_labels())
    return labels


def withhold_cross_core(text: str, cores: int, shift: int | None) -> str:
    """Under icount on a multi-core machine, the cross-core scenarios' runs on more than
    one core keep their meta and a `warn code=unsupported_on_icount`, no figures."""
    if shift is None or cores <= 1:
        return text

    def decide(meta: Mapping[str, str]) -> str | None:
        scenario = meta.get("scenario", "")
        n = meta.get("cores", "1")
        if scenario in CROSS_CORE_SCENARIOS and n.isdigit() and int(n) > 1:
            return _WHY.format(cores=cores, scenario=scenario, n=n)
        return None

    return withhold_runs(text, decide, UNSUPPORTED_ON_ICOUNT)
