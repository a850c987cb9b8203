"""Cost per GPIO write of each language's toggle workload, relative to C, in the QEMU
arm64 guest (EMULATED: TCG on a shared host; a ratio, never a board figure).

    .venv/bin/python bench/gpio_guest_cost.py [--writes 20000] [--reps 5]

One boot of the guest (workloads/linux/guest): each implementation toggles PL061 line 0 as
fast as it can (`-w fast -n WRITES`), the repetitions interleaved (C, Rust, C, Rust...)
so a drift of the host spreads over both. Cost per write = elapsed_ns / (writes - 1),
from the workload's own counters (CLOCK_MONOTONIC of the guest, i.e. QEMU's virtual
clock). Under TCG a write is dominated by the emulated syscall path and the PL061 MMIO
exits, so the ratio says how much user-space work a language adds around the ioctl, not
what a board would show: docs/gpio-workloads.md gives the published board figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rtlab.analysis.stats import median  # noqa: E402
from rtlab.lab import gpio_guest as gg  # noqa: E402
from rtlab.protocol import parse  # noqa: E402

PROGRAMS = {"c": "rtlab-toggle", "rust": "rtlab-toggle-rs", "kotlin": "rtlab-toggle-kt"}


def script(writes: int, reps: int) -> str:
    lines = ["#!/bin/sh", "E='--meta emulated=qemu-tcg'"]
    for r in range(reps):
        for lang, prog in PROGRAMS.items():
            lines.append(
                f'[ -x /rtlab/{prog} ] && {{ echo "@@sec {lang}_{r}"; '
                f'{prog} -l 0 -w fast -n {writes} -q $E; echo "@@rc {lang}_{r}=$?"; }}'
            )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writes", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    missing = gg.missing_tools()
    if missing:
        print(f"skipped: {', '.join(missing)} not installed (deps/apt.txt)")
        return 0
    run = gg.boot_guest(script(a.writes, a.reps), timeout_s=a.timeout, name="cost")
    if run.timed_out or run.exit_status != 0:
        print(run.log[-3000:], file=sys.stderr)
        return 1
    costs: dict[str, list[float]] = {}
    kernel = "?"
    for lang in PROGRAMS:
        for r in range(a.reps):
            name = f"{lang}_{r}"
            if name not in run.sections:
                continue
            (p,) = parse(run.section(name))
            assert p.status == "ok" and p.meta.get("emulated") == "qemu-tcg", p.problems
            kernel = p.meta.get("kernel", kernel)
            n, el = p.counters["writes"][0], p.counters["elapsed_ns"][0]
            costs.setdefault(lang, []).append(el / (n - 1))
    if "c" not in costs:
        print("no C results", file=sys.stderr)
        return 1
    base = median(costs["c"])
    print(
        f"EMULATED (qemu-system-aarch64 -M virt TCG, kernel {kernel}, PL061): cost per write, "
        f"{a.writes} writes x {a.reps} runs, boot+runs {run.seconds:.1f} s"
    )
    print(f"{'language':<10}{'median ns/write':>18}{'min':>10}{'max':>10}{'ratio to C':>12}")
    for lang, v in costs.items():
        med = median(v)
        print(f"{lang:<10}{med:>18.0f}{min(v):>10.0f}{max(v):>10.0f}{med / base:>12.3f}")
    if "rust" not in costs:
        print("rust: not in the guest (rustup target aarch64-unknown-linux-musl missing)")
    print("Not a board figure. Published on a real board (Orange Pi Zero 3, libgpiod, RP2040")
    print("instrument): C 2199 ns mean period, Kotlin/Native 2393 ns (ratio 1.088).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
