"""One packaging build of the checkout at a time. setuptools builds in the tree it packs
(an sdist's `rtlab-<version>/` staging folder, `build/lib`, `src/rtlab.egg-info`), so two
at once (pytest-xdist workers: test_install.py beside test_lean_install.py) delete each
other's files mid-build. A lock file in build/ serialises them across processes."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@contextmanager
def packaging_the_checkout() -> Iterator[None]:
    lock = REPO / "build" / ".packaging.lock"
    lock.parent.mkdir(exist_ok=True)
    with lock.open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # released when f closes, also if the test dies
        yield
