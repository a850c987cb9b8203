"""The qemu target's `cycles` key: refused where the plugin has no timing data, off
icount shift 0, or when not a boolean, each with one message naming the key."""

from __future__ import annotations

import pytest

from rtlab.errors import ConfigError
from rtlab.lab.targets.base import check_target


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ({"machine": "mps2-an521", "cycles": True}, "no timing data for mps2-an521"),
        ({"machine": "mps2-an385", "cycles": True, "icount_shift": 3}, "icount_shift = 0"),
        ({"machine": "mps2-an385", "cycles": "yes"}, "expected true or false"),
    ],
)
def test_cycles_key_refuses_what_it_cannot_model(target: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigError, match=says) as e:
        check_target({"kind": "qemu", "elf": "x.elf", **target})
    assert e.value.key == "cycles"


def test_cycles_key_accepts_every_study_core() -> None:
    for machine in ("microbit", "mps2-an385", "mps2-an386", "mps2-an500"):
        check_target({"kind": "qemu", "machine": machine, "elf": "x.elf", "cycles": True})
