"""What a test needs, and what happens when it is missing.

- `tool(...)`: a program that `make setup` installs (deps/apt.txt, deps/setup.d). `make
  test` runs setup first, so a missing one is an install step that failed or is missing:
  the test FAILS and says which package, never skips (a skip would hide it, as CI once did).
- `guest_can_boot()`: the arm64 GPIO guest; fails for a missing package, skips only when
  the Debian archive could not deliver the kernel (outside the project).
- `brought(...)`: something the user brings (an RTOS kernel checkout): the test SKIPS with
  one line saying what to set and where to get it. `make test` ends with a summary of these.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rtlab.lab import gpio_guest as gg
from rtlab.lab.c_targets import REPO_ROOT


def tool(name: str, provided_by: str) -> str:
    """The path of `name`, or fail naming what should have installed it."""
    exe = shutil.which(name)
    if exe is None:
        pytest.fail(
            f"{name} is not installed: `make setup` installs it ({provided_by}); "
            "run `make test`, which runs setup first",
            pytrace=False,
        )
    return exe


def missing_tool(provided_by: str, *names: str) -> None:
    """Fail when any of `names` is not on PATH (see `tool`)."""
    for n in names:
        tool(n, provided_by)


def brought(var: str, what: str, where: str) -> str:
    """The value of `var`, or skip: "set VAR to WHAT (WHERE)"."""
    value = os.environ.get(var, "")
    if not value:
        pytest.skip(f"set {var} to {what} ({where})")
    return value


def guest_can_boot() -> None:
    subprocess.run(
        ["bash", str(REPO_ROOT / "deps" / "setup.d" / "gpio-guest.sh")],
        capture_output=True,
        text=True,
    )
    u = gg.availability()
    if u is None:
        return
    if u.fixable:
        pytest.fail(str(u), pytrace=False)
    pytest.skip(str(u))


def kernel_guest_can_boot(flavour: str) -> None:
    """The arm64 guest with Debian's `stock` or `rt` kernel and the rtlab_hrtimer module
    (deps/setup.d/hrtimer-guest.sh); fails or skips as guest_can_boot does."""
    from rtlab.lab import hrtimer_guest as hg

    guest_can_boot()
    subprocess.run(["bash", str(hg.SETUP)], capture_output=True, text=True)
    u = hg.flavour_availability(flavour)
    if u is None:
        return
    if u.fixable:
        pytest.fail(str(u), pytrace=False)
    pytest.skip(str(u))


def port_brought(port: Any, *tools: str) -> dict[str, str]:
    """The merged paths (environment + nothing) for an RTOS port of rtlab.lab.rtos, or
    skip with the port's own line when its first variable is unset; a set but broken
    checkout FAILS with that line (the user brought something that does not work).
    `tools`: the programs its build and run need (deps/apt.txt's, see missing_tool)."""
    from rtlab.lab.rtos.base import merged_paths

    paths = merged_paths()
    why = port.missing(paths)
    if why and not paths.get(port.variables[0]):
        pytest.skip(why)
    if why:
        pytest.fail(why, pytrace=False)
    missing_tool("deps/apt.txt", *tools)
    return paths


def wait_listening(
    port: int, proc: subprocess.Popen[Any], what: str, log: Path, timeout: float
) -> None:
    """Return once something listens on 127.0.0.1:`port`; fail naming `what` with the end
    of its `log` when `proc` exits first or `timeout` seconds pass."""
    import socket
    import time

    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"{what} did not start: {log.read_text()[-500:]}")
        time.sleep(0.05)
