"""How long the whole RTOS comparison takes, against the goal of 10 minutes on
2 cores from a warm cache of sources (the kernels checked out; builds as they are).

Runs `rtlab study rtos` (examples/rtos-compare.toml, every RTOS brought) into a throwaway
store three times: the study itself; the same again, which must build and run nothing
(the store's cell keys carry the kernels' sources, rtbench's and the compiler); and,
with --repeat, once more into a second store, whose stored samples must equal the
first's bit for bit (QEMU icount).

    python bench/rtos_study_time.py [--repeat] [--clean-builds] [-- study options…]

--clean-builds removes rtlab's RTOS build directories first (build/rtbench-qemu*,
build/rtbench-zephyr, build/nuttx): the cold-build time. Options after `--` go to
`rtlab study rtos` (e.g. `-- --rtos freertos,zephyr --machine mps2-an385`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN_LINE = re.compile(r"^\S+ \S+@\S+ #\d+ ", re.M)  # the runner's line per run

REPO = Path(__file__).resolve().parents[1]
RTLAB = Path(sys.executable).parent / "rtlab"
GOAL_S = 600.0
BUILD_DIRS = (
    "rtbench-qemu",
    "rtbench-qemu-freertos",
    "rtbench-qemu-ucos3",
    "rtbench-zephyr",
    "nuttx",
)


def _study(store: Path, extra: list[str]) -> tuple[float, str]:
    t0 = time.monotonic()
    done = subprocess.run(
        [
            str(RTLAB),
            "study",
            "rtos",
            "--store",
            str(store),
            "-o",
            str(store.with_suffix(".html")),
            *extra,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    took = time.monotonic() - t0
    if done.returncode != 0:
        sys.exit(f"rtlab study rtos failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return took, done.stderr


def _samples(path: Path) -> list[tuple[str, list[tuple[str, int]]]]:
    from rtlab.results import Store
    from rtlab.results.query import every_sample

    with Store(path, read_only=True) as st:
        return every_sample(st)


def time_study(tmp: Path, extra: list[str], own: list[str]) -> int:
    """Run the study into a fresh store in `tmp`, then again (nothing may rerun), and
    with --repeat into a second store whose samples must equal the first's; print the
    times against GOAL_S. 1 when --repeat finds different samples, else 0."""
    a = Path(tmp) / "a" / "s.duckdb"
    first, log = _study(a, extra)
    ran = len(RUN_LINE.findall(log))
    skipped = [line for line in log.splitlines() if line.startswith("skipped:")]
    second, log2 = _study(a, extra)
    print(f"runs: {ran}" + (f"; {len(skipped)} skipped lines" if skipped else ""))
    for line in skipped:
        print(f"  {line}")
    print(f"study, first run : {first:7.1f} s  = {first / GOAL_S:.2f} × the 600 s goal")
    again = len(RUN_LINE.findall(log2))
    print(f"study, second run: {second:7.1f} s  (runs again: {again}, must be 0)")
    if "--repeat" in own:
        b = Path(tmp) / "b" / "s.duckdb"
        third, _ = _study(b, extra)
        same = _samples(a) == _samples(b)
        print(f"study, fresh store: {third:6.1f} s  stored samples identical: {same}")
        if not same:
            return 1
    print(f"(2 cores; 1-min load at the end: {Path('/proc/loadavg').read_text().split()[0]})")
    return 0


def main(argv: list[str]) -> int:
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    from rtlab.lab.rtos_matrix import columns

    cols, skipped = columns()
    if not cols:
        print("skipped: no RTOS brought (README: bring your own kernels): " + "; ".join(skipped))
        return 0
    if "--clean-builds" in own:
        for d in BUILD_DIRS:
            shutil.rmtree(REPO / "build" / d, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="rtos-study-") as tmp:
        return time_study(Path(tmp), extra, own)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
