"""What the QEMU cycles plugin costs (the goal: at most 3x a plain icount run of
the same image; the cycles study within 15 minutes on 2 cores with the images built).

1. One rtbench image (FreeRTOS on mps2-an385, primitives with markers, the study's
   options) run by QEMU at icount shift 0, plain and through the plugin, each best of
   --repeat runs: the ratio of host wall times (the plugin's cost per emulated
   instruction: a callback per translation block, and per memory access where one is needed).
2. With --study: `rtlab study rtos examples/rtos-cycles.toml --rtos freertos,ucos3` into
   a throwaway store, its wall time (images already built: run it once before to build).

    python bench/cycles_cost.py [--repeat 3] [--study]

Needs FREERTOS_KERNEL_PATH (and UCOS3_PATH for the study) and `make setup`'s plugin.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RTLAB = Path(sys.executable).parent / "rtlab"
RATIO_GOAL = 3.0
STUDY_GOAL_S = 900.0
ARGS = "--scenarios primitives,irq --iterations 200 --window-ms 100 --period-us 1000 --markers"


def _best(run: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.monotonic()
        run()  # type: ignore[operator]
        times.append(time.monotonic() - t0)
    return min(times)


def plugin_ratio(repeat: int) -> int:
    from rtlab.lab.boards.cmake_layer import build_mps2
    from rtlab.lab.qemu import cycles as qc
    from rtlab.lab.qemu.machine import run_qemu

    kernel = os.environ.get("FREERTOS_KERNEL_PATH")
    if not kernel:
        sys.exit("set FREERTOS_KERNEL_PATH to a FreeRTOS-Kernel checkout")
    elf = build_mps2({"FREERTOS_KERNEL_PATH": kernel}) / "rtbench-freertos-an385.elf"
    m = qc.machine("mps2-an385")
    with tempfile.TemporaryDirectory(prefix="rtlab-cycles-bench-") as tmp:
        plugin, _ = qc.plugin_args(elf, m, Path(tmp))

        def plain() -> None:
            assert run_qemu(elf, m.name, 0, 600, append=ARGS).exit_status == 0

        def cycles() -> None:
            assert run_qemu(elf, m.name, 0, 600, extra=plugin, append=ARGS).exit_status == 0

        t_plain = _best(plain, repeat)
        t_cycles = _best(cycles, repeat)
    ratio = t_cycles / t_plain
    verdict = "met" if ratio <= RATIO_GOAL else "MISSED"
    print(f"image: {elf.name} on {m.name}, rtbench {ARGS}")
    print(f"plain icount run: {t_plain:.2f} s, through the cycles plugin: {t_cycles:.2f} s "
          f"(best of {repeat})")  # fmt: skip
    print(f"plugin cost ratio: {ratio:.2f}x (target: at most {RATIO_GOAL:g}x: {verdict})")
    return 0


def study_time() -> int:
    with tempfile.TemporaryDirectory(prefix="rtlab-cycles-study-") as tmp:
        store = Path(tmp) / "s.duckdb"
        html = str(store.with_suffix(".html"))
        argv = [str(RTLAB), "study", "rtos", "examples/rtos-cycles.toml", "--rtos",
                "freertos,ucos3", "--store", str(store), "-o", html]  # fmt: skip
        t0 = time.monotonic()
        done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
        took = time.monotonic() - t0
    if done.returncode != 0:
        sys.exit(f"rtlab study rtos failed ({done.returncode}):\n{done.stderr[-3000:]}")
    verdict = "met" if took <= STUDY_GOAL_S else "MISSED"
    print(f"cycles study (FreeRTOS, µC/OS-III × 4 cores, images built): {took:.0f} s on "
          f"{os.cpu_count()} CPUs (target: at most {STUDY_GOAL_S:.0f} s: {verdict})")  # fmt: skip
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--study", action="store_true", help="also time the cycles study")
    a = ap.parse_args()
    rc = plugin_ratio(a.repeat)
    if a.study:
        rc |= study_time()
    return rc


if __name__ == "__main__":
    sys.exit(main())
