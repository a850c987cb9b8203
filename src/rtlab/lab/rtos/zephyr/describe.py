"""What a run records of a Zephyr build: the tree's version (its VERSION file) and the
Kconfig that shapes a figure, read back from the build's .config."""

from __future__ import annotations

from pathlib import Path


def version(base: Path) -> str:
    """ "3.4.99" from the tree's VERSION file ("" when unreadable)."""
    try:
        text = (base / "VERSION").read_text(errors="replace")
    except OSError:
        return ""
    v = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        v[key.strip()] = value.strip()
    parts = [v.get(k, "") for k in ("VERSION_MAJOR", "VERSION_MINOR", "PATCHLEVEL")]
    return ".".join(parts) + (f"-{v['EXTRAVERSION']}" if v.get("EXTRAVERSION") else "")


# The settings that change a figure: scheduling, checks in kernel calls, code generation,
# memory protection on the switch path, the C library.
_MATTERS = (
    "TIMESLICING",
    "TIMESLICE_SIZE",
    "SYS_CLOCK_TICKS_PER_SEC",
    "TICKLESS_KERNEL",
    "NUM_PREEMPT_PRIORITIES",
    "ASSERT",
    "FORCE_NO_ASSERT",
    # every spin lock and unlock checks its owner (CONFIG_ASSERT=y selects it, even with
    # FORCE_NO_ASSERT): a semaphore give or take pays it (docs/rtos/zephyr.md)
    "SPIN_VALIDATE",
    "ARM_MPU",
    "HW_STACK_PROTECTION",
    "USERSPACE",
    "FPU",
    "FPU_SHARING",
    "THREAD_STACK_INFO",
    "SMP",
    "MP_MAX_NUM_CPUS",
)
_CHOICES = {
    "optimization": {"SIZE_OPTIMIZATIONS": "-Os", "SPEED_OPTIMIZATIONS": "-O2",
                     "DEBUG_OPTIMIZATIONS": "-Og", "NO_OPTIMIZATIONS": "-O0"},
    "libc": {"MINIMAL_LIBC": "minimal", "NEWLIB_LIBC": "newlib", "PICOLIBC": "picolibc",
             "EXTERNAL_LIBC": "external"},
    "scheduler": {"SCHED_DUMB": "dumb", "SCHED_SCALABLE": "scalable",
                  "SCHED_MULTIQ": "multiq"},
}  # fmt: skip


def kconfig_that_matters(dot_config: Path) -> dict[str, str]:
    """CONFIG_X = value for each setting above ("n" when unset), and the optimization
    level, libc and scheduler the choices resolved to; {} without a .config."""
    try:
        text = dot_config.read_text(errors="replace")
    except OSError:
        return {}
    values: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("CONFIG_") and "=" in line:
            key, _, value = line.partition("=")
            values[key.removeprefix("CONFIG_")] = value.strip('"')
    found = {f"CONFIG_{k}": values.get(k, "n") for k in _MATTERS}
    for what, options in _CHOICES.items():
        found[what] = next((v for k, v in options.items() if values.get(k) == "y"), "")
    return found
