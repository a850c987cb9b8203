"""No two modules of different jobs share a file name, or names that differ only by an
-er or -ing (`reader.py`, `reading.py`), so a traceback, an import line or a search
names one room. A name may recur only where it is a convention:

- a package family's own files (every such package has one): `__init__`, `base`, `kind`,
  `errors`;
- the folders whose modules are each named for what they serve, a registry's kind or a
  subject seen from its layer: a study, its report section, its workload and its
  statistic (`studies/gpio.py`, `report/sections/gpio.py`, `lab/workloads/gpio.py`), a
  target kind and a flasher kind (`lab/targets/qemu.py`, `.../flashers/qemu.py`), an
  instrument's or an RTOS port's own package (`instruments/<name>/capture.py`,
  `lab/rtos/<rtos>/port.py`), a CLI command (`cli/capture.py`).

Any other name found twice fails here with the paths that share it."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import PurePosixPath

from tests.paths import REPO_ROOT

SRC = REPO_ROOT / "src" / "rtlab"
CONVENTIONAL = {"__init__.py", "base.py", "kind.py", "errors.py"}
NAMED_FOR_WHAT_THEY_SERVE = (
    "studies",
    "report/sections",
    "lab/workloads",
    "analysis",
    "lab/targets",
    "lab/serialboard/flashers",
    "instruments/*",
    "lab/rtos/*",
    "cli",
)


def _in_family(path: PurePosixPath) -> bool:
    return any(
        path.parent.match(folder) and len(path.parent.parts) == len(PurePosixPath(folder).parts)
        for folder in NAMED_FOR_WHAT_THEY_SERVE
    )


def _stem(name: str) -> str:
    """A file name without `.py` and a trailing -er or -ing: the name a look-alike shares."""
    return re.sub(r"(er|ing)$", "", name.removesuffix(".py"))


def look_alikes(paths: list[PurePosixPath]) -> dict[str, list[str]]:
    """Names (as their stem) used twice or more outside the conventions above, with the
    paths that use them."""
    by_stem: dict[str, list[PurePosixPath]] = defaultdict(list)
    for p in paths:
        by_stem[_stem(p.name)].append(p)
    return {
        stem: sorted(str(p) for p in found)
        for stem, found in sorted(by_stem.items())
        if len(found) > 1
        and not all(p.name in CONVENTIONAL for p in found)
        and not all(map(_in_family, found))
    }


def test_no_two_modules_share_a_name_outside_the_conventions() -> None:
    paths = [PurePosixPath(p.relative_to(SRC).as_posix()) for p in SRC.rglob("*.py")]
    assert look_alikes(paths) == {}


def test_a_new_look_alike_is_found_and_a_convention_is_not() -> None:
    paths = [PurePosixPath(p) for p in (
        "ticks.py", "studies/ticks.py",  # two jobs, one name
        "protocol/reader.py", "lab/serialboard/reading.py",  # one name, two endings
        "studies/gpio.py", "report/sections/gpio.py", "lab/workloads/gpio.py",  # one subject
        "instruments/a/capture.py", "instruments/b/capture.py", "cli/capture.py",
        "lab/targets/base.py", "lab/workloads/base.py", "base.py",
        "lab/rtos/a/port.py", "lab/rtos/b/port.py",
    )]  # fmt: skip
    assert look_alikes(paths) == {
        "read": ["lab/serialboard/reading.py", "protocol/reader.py"],
        "ticks": ["studies/ticks.py", "ticks.py"],
    }
