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


def icount_firmware_args(cores: int, shift: int | None) -> list[str]:
    """Under icount a multi-core guest runs rtbench on one core (`--cores 1`, last so it
    wins): its N-core cross-core runs could give no figure, and QEMU's turn-taking
    starves one vCPU often enough that FreeRTOS SMP hung in them (docs/multicore.md)."""
    return ["--cores", "1"] if shift is not None and cores > 1 else []


def _not_run(one_core_run: list[str], cores: int) -> list[str]:
    """The N-core twin of a one-core run's head (hello, meta, warn), withheld."""
    head = []
    for line in one_core_run:
        rtype = line.split(" ", 2)[1] if line.startswith("@rtl1 ") else ""
        if rtype == "meta" and line.split(" *")[0].endswith(" cores=1"):
            line = line.split(" *")[0].removesuffix(" cores=1") + f" cores={cores}"
        if rtype == "warn" and " code=one_core " in line:
            continue  # the one-core run's own finding, not its twin's
        if rtype in ("hello", "meta", "warn"):
            head.append(line.split(" *")[0])  # CRCs: rewritten by withhold_runs
    return [*head, f"@rtl1 end records={len(head)} status=ok"]


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

    text = withhold_runs(text, decide, UNSUPPORTED_ON_ICOUNT)
    # The runs `--cores 1` kept from happening: said, with the reason, not left out.
    extra: list[str] = []
    runs = [(_meta_of(run), run) for run in _runs(text)]
    ran = {m.get("scenario") for m, _ in runs if m.get("cores", "1") != "1"}
    for meta, run in runs:
        scenario = meta.get("scenario")
        if meta.get("cores") == "1" and scenario in CROSS_CORE_SCENARIOS and scenario not in ran:
            extra += _not_run(run, cores)
    if not extra:
        return text
    withheld = withhold_runs("\n".join(extra), decide, UNSUPPORTED_ON_ICOUNT)
    return text.rstrip("\n") + "\n" + withheld + "\n"


def _meta_of(run: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in run:
        if line.startswith("@rtl1 meta "):
            for field in line.split(" *")[0].split()[2:]:
                key, _, value = field.partition("=")
                found[key] = value
    return found


def _runs(text: str) -> list[list[str]]:
    runs: list[list[str]] = []
    for raw in text.split("\n"):
        line = raw.rstrip("\r")
        if line.startswith("@rtl1 hello"):
            runs.append([line])
        elif runs and line.startswith("@rtl1 "):
            runs[-1].append(line)
    return runs
