"""Places on a labgrid coordinator, through labgrid's own client (`labgrid-client`).

The client is what a lab's users already type, so rtlab holds a place exactly as they
do (same `host/user` identity, LG_HOSTNAME / LG_USERNAME respected) and `labgrid-client
who` shows rtlab's holds. Its error text is the coordinator's: "Place X is already
acquired by host/user" is read for the holder's name.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from rtlab.errors import RtlabError
from rtlab.lab.targets.base import TargetBusy

DEFAULT_COORDINATOR = "127.0.0.1:20408"  # labgrid-client's own default
_HELD = re.compile(r"already acquired by (\S+?)\.?(?:\s|$)")


class LabgridError(RtlabError):
    """The coordinator cannot be reached, or refuses what rtlab asks."""


class PlaceBusy(LabgridError, TargetBusy):
    """The place is held by someone else."""

    def __init__(self, place: str, holder: str) -> None:
        super().__init__(
            f"labgrid place {place} is held by {holder}; `rtlab run --wait` waits for it, "
            f"or ask {holder} to release it (labgrid-client -p {place} release)"
        )
        self.place = place
        self.holder = holder


def coordinator_address(given: str | None = None) -> str:
    """The spec's address, else LG_COORDINATOR, else labgrid's default (as its client)."""
    return given or os.environ.get("LG_COORDINATOR") or DEFAULT_COORDINATOR


def identity() -> str:
    """host/user as the coordinator records a holder (labgrid-client's own rule)."""
    import getpass
    import socket

    host = os.environ.get("LG_HOSTNAME", socket.gethostname())
    return f"{host}/{os.environ.get('LG_USERNAME', getpass.getuser())}"


def client_argv(coordinator: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "labgrid.remote.client", "-x", coordinator, *args]


def _client(coordinator: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            client_argv(coordinator, *args),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise LabgridError(
            f"labgrid coordinator {coordinator} did not answer within {timeout:.0f} s"
        ) from None


def _why(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [ln.strip() for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
    return (lines or [f"exit status {proc.returncode}"])[-1].removeprefix("labgrid-client: ")


def acquire(coordinator: str, place: str) -> None:
    """Take the place, or raise PlaceBusy naming its holder."""
    proc = _client(coordinator, "-p", place, "acquire")
    if proc.returncode == 0:
        return
    why = _why(proc)
    held = _HELD.search(why)
    if held:
        raise PlaceBusy(place, held.group(1))
    raise LabgridError(f"labgrid place {place} on {coordinator}: {why}")


def release(coordinator: str, place: str) -> None:
    proc = _client(coordinator, "-p", place, "release")
    if proc.returncode != 0:
        raise LabgridError(f"labgrid place {place}: cannot release ({_why(proc)})")


def place_resources(coordinator: str, place: str) -> list[dict[str, Any]]:
    """The resources of a place rtlab holds, as an environment's `resources` list: what
    `labgrid-client -p PLACE env` prints (each exporter's address of it, its name and
    settings), so a role's drivers bind to them with no client session in rtlab."""
    import yaml  # labgrid's own dependency: its environment files are YAML

    proc = _client(coordinator, "-p", place, "env")
    if proc.returncode != 0:
        raise LabgridError(f"labgrid place {place} on {coordinator}: {_why(proc)}")
    try:
        found = yaml.safe_load(proc.stdout)["targets"][place].get("resources") or []
    except (yaml.YAMLError, KeyError, TypeError, AttributeError):
        found = None
    if not isinstance(found, list):
        raise LabgridError(
            f"labgrid place {place}: `labgrid-client env` printed no resources list"
        )
    return found


def lab_places(coordinator: str) -> dict[str, tuple[dict[str, str], str | None]]:
    """Every place: its tags and its holder (host/user, None when free)."""
    proc = _client(coordinator, "-v", "places")
    if proc.returncode != 0:
        raise LabgridError(f"labgrid coordinator {coordinator}: {_why(proc)}")
    out: dict[str, tuple[dict[str, str], str | None]] = {}
    for block in re.split(r"^Place '", proc.stdout, flags=re.M)[1:]:
        name = block.split("'", 1)[0]
        tags_line = re.search(r"^\s*tags:[ \t]*(.*)$", block, re.M)
        tags = {}
        for item in tags_line.group(1).split(",") if tags_line else []:
            if "=" in item:
                k, v = item.strip().split("=", 1)
                tags[k] = v
        held = re.search(r"^\s*acquired:\s*(\S+)", block, re.M)
        out[name] = (tags, held.group(1) if held and held.group(1) != "None" else None)
    return out


def holder(coordinator: str, place: str) -> str | None:
    """Who holds the place (host/user), None when nobody does."""
    known = lab_places(coordinator)
    if place not in known:
        raise LabgridError(f"labgrid coordinator {coordinator} has no place {place!r}")
    return known[place][1]


def places_tagged(coordinator: str, tags: Mapping[str, str]) -> list[str]:
    """The places whose tags include every one given, by name."""
    return sorted(
        name
        for name, (have, _) in lab_places(coordinator).items()
        if all(have.get(k) == str(v) for k, v in tags.items())
    )
