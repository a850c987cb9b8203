"""Ship the C workload sources the local runner builds as package data (rtlab/_workloads).

The repository keeps one copy, in workloads/; the sdist carries them there too
(MANIFEST.in names them), and the wheel gets a copy inside the package, which
rtlab.lab.c_targets builds into the user's cache directory on first use. Everything else is
in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def workload_files() -> list[str]:
    """The workloads/ files MANIFEST.in puts in the sdist: one list for both."""
    out: list[str] = []
    for line in (HERE / "MANIFEST.in").read_text().splitlines():
        words = line.split()
        if len(words) != 2 or words[0] not in ("graft", "include"):
            continue
        p = HERE / words[1]
        files = [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.is_file())
        out += [str(f.relative_to(HERE)) for f in files if "__pycache__" not in f.parts]
    return out


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install builds from the checkout's workloads/
            return
        dest = Path(self.build_lib) / "rtlab" / "_workloads"
        for rel in workload_files():
            target = dest / Path(rel).relative_to("workloads")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(HERE / rel, target)


setup(cmdclass={"build_py": BuildPy})
