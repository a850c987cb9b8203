"""Two real processes running one build script at the same moment (two pytest-xdist
workers, two `rtlab run`s): both must succeed and write the same initramfs members.
Used for the guest build scripts that share a stage under build/."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from rtlab.lab import gpio_guest as gg


def assert_builds_at_once_agree(
    argv: Callable[[Path], Sequence[str]], tmp: Path, *, rounds: int = 3
) -> dict[str, tuple[int, bytes]]:
    """`rounds` times, start `argv(out)` twice at once with two outputs; assert each
    exits 0 (else its stderr's tail) and both archives hold the same members (names,
    modes, contents; mtimes differ between builds). Returns the last round's members."""
    members: dict[str, tuple[int, bytes]] = {}
    for r in range(rounds):
        outs = [tmp / f"{r}-{n}.cpio.gz" for n in "ab"]
        procs = [
            subprocess.Popen(argv(o), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for o in outs
        ]
        errs = [p.communicate(timeout=600)[1] for p in procs]
        for p, err in zip(procs, errs, strict=True):
            assert p.returncode == 0, f"round {r}: {err[-3000:]}"
        members, other = (gg.cpio_members(o) for o in outs)
        assert members == other, f"round {r}: {sorted(members.keys() ^ other.keys())}"
    return members
