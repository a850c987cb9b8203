"""The GPIO guest's tests need QEMU, the cross compilers (deps/apt.txt) and Debian's arm64
kernel (deps/setup.d/gpio-guest.sh): a missing package fails them; only a kernel that
could not be fetched (no network to the Debian archive) skips them, with the reason."""

from __future__ import annotations

import subprocess

import pytest

from rtlab.lab import gpio_guest as gg
from rtlab.lab.build import REPO_ROOT


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
