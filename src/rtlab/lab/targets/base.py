"""Where workloads run: the Target protocol (TargetBase: its optional parts declared with
their defaults) and the registry of target kinds; the process helpers the kinds share
are rtlab.lab.process's (re-exported here).

A target runs an argv to completion (`run`), starts a background argv (`start`, for
load generators), names the path of a workload program (`program`) and describes its
environment (`fingerprint`). Each kind is one module (`local`, `ssh`, `qemu`,
`qemu_gpio`, `serial`, `labgrid`) that defines `TARGET_KIND`; adding one is a new
module plus one line in `TARGETS`' table, imported the first time a spec names that
kind. Target modules do not import each other.

No shell strings are built from spec values: local argvs go to exec as lists; over ssh
each argument is quoted with shlex.quote, because ssh hands the remote side one command
line that its login shell splits again.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rtlab.errors import ConfigError, RtlabError
from rtlab.lab.process import Background, Completed, Group, run_process
from rtlab.registry import Registry

__all__ = [
    "Background",
    "Completed",
    "Group",
    "Target",
    "TargetBase",
    "TargetBusy",
    "TargetKind",
    "check_programs",
    "check_target",
    "make_target",
    "run_process",
    "target_identity",
    "target_kind",
    "target_variants",
]


class Target(Protocol):
    """What the runner uses of a target: every part declared, none probed. The optional
    parts (place, place_instrument, abort, close) have TargetBase's defaults."""

    kind: str

    @property
    def place(self) -> str | None:
        """The labgrid place it holds (a run records it); None elsewhere."""
        ...

    def describe(self) -> dict[str, Any]: ...
    def program(self, name: str) -> str: ...
    def run(self, argv: Sequence[str], timeout: float) -> Completed: ...
    def start(self, argv: Sequence[str]) -> Background: ...
    def fingerprint(self) -> dict[str, Any]: ...
    def place_instrument(self, spec: Any) -> Any: ...
    def abort(self) -> None: ...
    def close(self) -> None: ...


class TargetBase:
    """Target's optional parts with what a target without them does; every kind
    subclasses it and overrides what it has."""

    kind = ""
    place: str | None = None

    def place_instrument(self, spec: Any) -> Any:
        """The [instrument] with this target's own device filled in where the spec asks
        for it (`driver`/`port = "labgrid"`: a labgrid place's); a target that holds no
        instrument refuses such a spec in one line."""
        if spec.from_target == "labgrid":
            raise RtlabError(
                f'[instrument] {spec.kind}: "labgrid" names the device of a labgrid place; '
                f"the target is {self.kind}"
            )
        return spec

    def abort(self) -> None:
        """Stop the run in progress (another thread asks: Ctrl-C in a parallel run);
        nothing to do where a run stops with its process group."""

    def close(self) -> None:
        """Release what the target holds (a labgrid place); nothing by default."""


@dataclass(frozen=True)
class TargetKind:
    name: str
    keys: tuple[str, ...]
    check: Callable[[Mapping[str, Any]], None]
    make: Callable[[Mapping[str, Any]], Target]
    # A kind that cannot apply every load condition refuses one at spec load: it gets
    # the condition's definition() and raises ConfigError(condition key, message).
    check_condition: Callable[[Mapping[str, Any]], None] | None = None
    # A kind whose table names several boards at once (labgrid tags) gives one table per
    # board; the runner's scheduler spreads the cells over them (rtlab.lab.scheduler).
    expand: Callable[[Mapping[str, Any]], list[dict[str, Any]]] | None = None
    # What a run depends on that the table does not say (an RTOS checkout's sources, the
    # compiler): part of every cell key, so a change makes new cells (rtlab.lab.spec).
    identity: Callable[[Mapping[str, Any]], dict[str, str]] | None = None
    # Keys that may hold a list: each value is one variant of the target (a guest kernel),
    # and the spec's cells run on every variant (target_variants; label `[kernel=rt]`).
    axes: tuple[str, ...] = ()


class TargetBusy(RtlabError):
    """The board is held by someone else (a labgrid place): wait, or try later."""


TARGETS: Registry[TargetKind] = Registry(
    "target kind",
    {
        "local": "rtlab.lab.targets.local",
        "ssh": "rtlab.lab.targets.ssh",
        "qemu": "rtlab.lab.targets.qemu",
        "qemu_gpio": "rtlab.lab.targets.qemu_gpio",
        "labgrid": "rtlab.lab.targets.labgrid",
        "serial": "rtlab.lab.targets.serial",
    },
    attr="TARGET_KIND",
)


def target_kind(name: str) -> TargetKind:
    return TARGETS.get(name)


def check_target(t: Mapping[str, Any]) -> None:
    kind = target_kind(str(t.get("kind", "local")))
    for key in t:
        if key not in ("kind", *kind.keys):
            raise ConfigError(
                key,
                f"unknown key for a {kind.name} target; known: {', '.join(('kind', *kind.keys))}",
            )
    kind.check(t)


VARIANTS = "variants"


def _extra_variants(t: Mapping[str, Any], kind: TargetKind) -> list[dict[str, Any]]:
    v = t.get(VARIANTS)
    if v is None:
        return []
    if VARIANTS not in kind.keys:
        raise ConfigError(VARIANTS, f"a {kind.name} target has no variants")
    ok = isinstance(v, list) and v and all(isinstance(x, dict) and x for x in v)
    if not ok or len({repr(sorted(x.items())) for x in v}) < len(v):
        raise ConfigError(VARIANTS, "variants: a list of distinct tables of axis keys")
    for x in v:
        for k, val in x.items():
            if k not in kind.axes or isinstance(val, list):
                axes = ", ".join(a for a in kind.axes)
                raise ConfigError(VARIANTS, f"variants: {k} = {val!r}: one value of one of {axes}")
    return [dict(x) for x in v]


def target_variants(t: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(the target table of one variant, its axis values) for every combination of the
    kind's axis keys given as lists; one ({...}, {}) when none is. Only the kind's axes
    may be lists; the variants are checked like any target. `variants = [{k = v, …}, …]`
    (axis keys only) adds, after each combination, that combination with each table's
    settings: one setting changed at a time, not every product of them (a model's
    uncertainties, each against the page's own setting)."""
    kind = target_kind(str(t.get("kind", "local")))
    extra = _extra_variants(t, kind)
    t = {k: v for k, v in t.items() if k != VARIANTS}
    lists = {k: v for k, v in t.items() if k in kind.axes and isinstance(v, list)}
    for k, v in lists.items():
        if not v or len(set(map(repr, v))) < len(v):
            raise ConfigError(k, f"{k}: a list of distinct values, one per variant of the target")
    if lists and kind.expand is not None:
        raise ConfigError(next(iter(lists)), "a list here cannot go with several boards (tags)")
    out = []
    for combo in itertools.product(*lists.values()):
        axis = dict(zip(lists, combo, strict=True))
        out.append(({**t, **axis}, axis))
        for settings in extra:
            out.append(({**t, **axis, **settings}, {**axis, **settings}))
    return out


def target_identity(t: Mapping[str, Any]) -> dict[str, str]:
    kind = target_kind(str(t.get("kind", "local")))
    return kind.identity(t) if kind.identity else {}


def make_target(t: Mapping[str, Any]) -> Target:
    check_target(t)
    return target_kind(str(t.get("kind", "local"))).make(t)


def check_programs(t: Mapping[str, Any]) -> None:
    """`programs = {name = "path"}`: where a target finds a workload's program."""
    progs = t.get("programs", {})
    if not isinstance(progs, dict) or not all(isinstance(v, str) for v in progs.values()):
        raise ConfigError("programs", 'expected a table: program name = "path"')
