"""One build of a kind at a time across processes (pytest-xdist's workers, make test
beside make test-kernels in one checkout): a lock file under build/locks/.

- packaging the checkout: setuptools builds in the tree it packs (an sdist's
  `rtlab-<version>/` staging folder, `build/lib`, `src/rtlab.egg-info`), so two at once
  (test_install.py beside test_lean_install.py) delete each other's files mid-build;
- a Makefile tree (the RP2040 bare-metal images, the capture firmware): two makes at once
  link and objcopy the same files (an empty rp2040-smoke.elf read by the other's objcopy).
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@contextmanager
def one_at_a_time(name: str) -> Iterator[None]:
    lock = REPO / "build" / "locks" / f"{name}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # released when f closes, also if the test dies
        yield


def packaging_the_checkout() -> AbstractContextManager[None]:
    return one_at_a_time("packaging")


def make_one_at_a_time(directory: Path) -> None:
    """`make -s -C directory` under the tree's lock; a failure raises with make's output."""
    name = "make-" + str(directory.relative_to(REPO)).replace("/", "-")
    with one_at_a_time(name):
        res = subprocess.run(
            ["make", "-s", "-C", str(directory), f"PYTHON={sys.executable}"],
            capture_output=True,
            text=True,
        )
    if res.returncode != 0:
        raise RuntimeError(f"make -C {directory} failed:\n{res.stdout}\n{res.stderr}")
