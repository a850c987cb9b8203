"""The two timing modes of a multi-core QEMU guest, and what each can measure.

- **icount** (`icount_shift` 0..10): deterministic. QEMU then runs the vCPUs in turns
  on one host thread and switches at the next timer event, so a wake-up from one core to
  another measures that turn (about a tick), not the kernel, and N cores share one
  instruction clock (N-core throughput is one core's, split). Same-core figures stay
  valid. rtbench runs on one core (`--cores 1`); the cross-core scenarios' N-core runs
  are stored as runs without figures, `meta withheld=unsupported_on_icount` and a `warn`
  with the reason — never as numbers.
- **parallel TCG** (`icount_shift = -1` on a machine with more than one core): one host
  thread per vCPU, real host time. Scaling and contention are meaningful only as ratios,
  with repetitions, and only while the host has an idle core per guest core: every run
  records the host's CPUs and its 1-minute load when it started (`host_cpus`,
  `host_load1`) so the report can flag the runs that broke that rule.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from rtlab.protocol import Run
from rtlab.protocol.withhold import withhold, without_figures

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


def icount_firmware_args(cores: int, shift: int | None) -> list[str]:
    """Under icount a multi-core guest runs rtbench on one core (`--cores 1`, last so it
    wins): its N-core cross-core runs could give no figure, and QEMU's turn-taking
    starves one vCPU often enough that FreeRTOS SMP hung in them (docs/multicore.md)."""
    return ["--cores", "1"] if shift is not None and cores > 1 else []


def _not_run(one_core_run: Run, cores: int) -> Run:
    """The N-core twin of a one-core run: its meta (on `cores` cores) and warnings, no
    figures; withheld by the caller."""
    warnings = [w for w in one_core_run.warnings if w[0] != "one_core"]  # the run's own
    twin = without_figures(one_core_run, {**one_core_run.meta, "cores": str(cores)}, warnings)
    return dataclasses.replace(twin, status="ok", complete=True, problems=[], message=None)


def withhold_cross_core(runs: list[Run], cores: int, shift: int | None) -> list[Run]:
    """Under icount on a multi-core machine, the cross-core scenarios' runs on more than
    one core keep their meta and a warning `unsupported_on_icount`, no figures."""
    if shift is None or cores <= 1:
        return runs

    def decide(meta: Mapping[str, str]) -> str | None:
        scenario = meta.get("scenario", "")
        n = meta.get("cores", "1")
        if scenario in CROSS_CORE_SCENARIOS and n.isdigit() and int(n) > 1:
            return _WHY.format(cores=cores, scenario=scenario, n=n)
        return None

    runs = withhold(runs, decide, UNSUPPORTED_ON_ICOUNT)
    # The runs `--cores 1` kept from happening: said, with the reason, not left out.
    ran = {r.meta.get("scenario") for r in runs if r.meta.get("cores", "1") != "1"}
    twins = [
        _not_run(r, cores)
        for r in runs
        if r.meta.get("cores") == "1"
        and r.meta.get("scenario") in CROSS_CORE_SCENARIOS
        and r.meta.get("scenario") not in ran
    ]
    return [*runs, *withhold(twins, decide, UNSUPPORTED_ON_ICOUNT)]
