"""The `labgrid` target kind: a workload runs on a place of a labgrid lab.

    [target]
    kind = "labgrid"
    env = "lab/rtlab-env.yaml"          # the lab's labgrid environment (how a role is reached)
    role = "main"                       # the role (target) in it; default main
    place = "orangepi-1"                # one place, or:
    # tags = {board = "mps2-an385"}     # every place with these tags: cells run in parallel
    # coordinator = "lab:20408"         # default LG_COORDINATOR, as labgrid-client
    # elf = "firmware.elf"              # an MCU's (or emulated board's) image for rtbench
    # board = "nucleo-f411re"           # a serial board's description (role: SerialDriver)
    # flasher = "qemu"                  # an emulated serial board (else the role's OpenOCD)
    # programs = {rtlab-latency = "/usr/local/bin/rtlab-latency"}

Making the target acquires the place (rtlab.lab.targets.labgrid.lease; PlaceBusy names who holds
it) and opens its board through the role's labgrid driver (rtlab.lab.targets.labgrid.place_boards);
`close()` releases it. With `tags`, `expand` gives one target table per matching place
and the runner's scheduler spreads the cells over them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rtlab.errors import ConfigError
from rtlab.lab.serialboard.options import KEYS as READING_KEYS
from rtlab.lab.serialboard.options import check_reading
from rtlab.lab.targets.base import Background, Completed, TargetBase, TargetKind, check_programs
from rtlab.lab.targets.labgrid import places
from rtlab.lab.targets.labgrid.board_base import Board
from rtlab.lab.targets.labgrid.instruments import place_instrument
from rtlab.lab.targets.labgrid.lease import Lease
from rtlab.lab.targets.labgrid.place_boards import open_board

KEYS = ("env", "role", "place", "tags", "coordinator", "elf", "programs")
# a serial board's (role with SerialDriver): rtlab.lab.targets.labgrid.serial_board
SERIAL_KEYS = ("board", "flasher", "icount_shift", *READING_KEYS)


def _check(t: Mapping[str, Any]) -> None:
    check_programs(t)
    if not isinstance(t.get("env"), str) or not t["env"]:
        raise ConfigError("env", 'a labgrid target needs env = "the labgrid environment YAML"')
    for key in ("role", "place", "coordinator", "elf"):
        if key in t and (not isinstance(t[key], str) or not t[key]):
            raise ConfigError(key, f"{key}: expected a non-empty string")
    if ("place" in t) == ("tags" in t):
        raise ConfigError("place", 'give place = "name" or tags = {key = "value"}, not both')
    for key in ("board", "flasher"):
        if key in t and (not isinstance(t[key], str) or not t[key]):
            raise ConfigError(key, f"{key}: expected a non-empty string")
    check_reading(t)
    tags = t.get("tags", {"": ""})
    if not isinstance(tags, dict) or not tags or not all(isinstance(v, str) for v in tags.values()):
        raise ConfigError("tags", 'expected a table of place tags, e.g. {board = "mps2"}')


def expand(t: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One target table per place: the spec's place, or every place with its tags."""
    if "place" in t:
        return [dict(t)]
    coordinator = places.coordinator_address(t.get("coordinator"))
    found = places.places_tagged(coordinator, t["tags"])
    if not found:
        tags = ", ".join(f"{k}={v}" for k, v in t["tags"].items())
        raise places.LabgridError(f"labgrid coordinator {coordinator}: no place has tags {tags}")
    rest = {k: v for k, v in t.items() if k != "tags"}
    return [{**rest, "place": p, "coordinator": coordinator} for p in found]


class LabgridTarget(TargetBase):
    kind = "labgrid"
    place: str  # always one: the place it holds

    def __init__(self, t: Mapping[str, Any]) -> None:
        self.coordinator = places.coordinator_address(t.get("coordinator"))
        self.place = str(t["place"])
        self.role = str(t.get("role", "main"))
        self.elf = t.get("elf")
        self.programs = dict(t.get("programs", {}))
        self.lease = Lease(self.coordinator, self.place)
        try:
            self.board: Board = open_board(
                str(t["env"]), self.role, self.place, self.coordinator, t
            )
        except BaseException:
            self.lease.close()
            raise

    def describe(self) -> dict[str, Any]:
        # the place is not part of a run's definition: cells of one matrix run on any of them
        return {"kind": "labgrid", "place": self.place, **self.board.describe()}

    def program(self, name: str) -> str:
        return self.board.program(name, self.programs, self.elf)

    def run(self, argv: Sequence[str], timeout: float) -> Completed:
        return self.board.run(argv, timeout)

    def start(self, argv: Sequence[str]) -> Background:
        return self.board.start(argv)

    def fingerprint(self) -> dict[str, Any]:
        return {**self.board.fingerprint(), "labgrid_place": self.place}

    def place_instrument(self, spec: Any) -> Any:
        """The [instrument] with the place's own device where it asks for it."""
        return place_instrument(self.board.target, spec, self.place)

    def abort(self) -> None:
        self.board.abort()

    def close(self) -> None:
        try:
            self.board.close()
        finally:
            self.lease.close()


TARGET_KIND = TargetKind("labgrid", (*KEYS, *SERIAL_KEYS), _check, LabgridTarget, expand=expand)
