"""The `local` target kind: workloads run on this machine, their programs built on
first use (rtlab.lab.c_targets) unless `programs = {name = "path"}` names them."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.lab.fingerprint import fingerprint
from rtlab.lab.targets import base


class LocalTarget(base.TargetBase):
    kind = "local"

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.programs = dict(t.get("programs", {}))

    def describe(self) -> dict[str, Any]:
        return {"kind": "local", "host": os.uname().nodename}

    def program(self, name: str) -> str:
        if name in self.programs:
            return str(self.programs[name])
        from rtlab.lab.c_targets import build_program

        return str(build_program(name))

    def run(self, argv: Sequence[str], timeout: float) -> base.Completed:
        return base.run_process(argv, timeout)

    def start(self, argv: Sequence[str]) -> base.Background:
        return base.Group(argv)

    def fingerprint(self) -> dict[str, Any]:
        return fingerprint()


TARGET_KIND = base.TargetKind("local", ("programs",), base.check_programs, LocalTarget)
