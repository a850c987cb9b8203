"""The `[instrument]` table of an experiment spec: which instrument times the pin.

    [instrument]
    kind = "sigrok"            # or "rp2040", or "pl061-trace" (the emulated guest's GPIO)
    driver = "fx2lafw"
    samplerate = "24m"
    channels = ["D0", "D1"]
    pin = "D0"                 # the pin under test (default: the first channel)

Checked here, once, with the key of every mistake (ConfigError.key) so the spec error
names its line; `rtlab.lab.instrument_arming` drives the instrument around each run. Each
kind's run-time glue is one module beside its driver defining `INSTRUMENT_KIND` (its
keys, its table parser, its driver), found through the table of `INSTRUMENTS`:
rtlab.instruments.sigrok.kind, rtlab.instruments.rp2040.kind, rtlab.instruments.pl061.
No value becomes part of a shell string: sigrok-cli gets an argv list, and the values
that land inside one of its arguments (driver, conn, channel names, config pairs) may
not contain the separators sigrok-cli splits them on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rtlab.errors import ConfigError, RtlabError
from rtlab.model import Capture
from rtlab.registry import Registry

COMMON_KEYS = ("kind", "pin", "response")


class InstrumentFailure(RtlabError):
    """The instrument did not start, died, or gave no usable capture."""


CHANNEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")  # no , : = (sigrok-cli separators)


class InstrumentSpec(Protocol):
    """A checked [instrument] table (SigrokSpec, RP2040Spec: frozen, so read-only here)."""

    @property
    def kind(self) -> str: ...
    @property
    def channels(self) -> tuple[str, ...]: ...
    @property
    def pin(self) -> str: ...
    @property
    def response(self) -> str | None: ...

    @property
    def margin_s(self) -> float:
        """Seconds the capture outlasts the workload's expected time (sigrok's margin_s;
        0 for an instrument that stops when told): the runner's timeout adds them."""
        ...

    @property
    def from_target(self) -> str:
        """What of the target's own it asks for as its device: "labgrid" (a labgrid
        place's analyzer or capture module: sigrok's driver or rp2040's port), "place"
        (rp2040's port: the capture module wired to the target's board), else ""."""
        ...

    def definition(self) -> dict[str, Any]:
        """What defines the measurement (the cell hash, the run's params)."""
        ...


class Armed(Protocol):
    def stop(self) -> tuple[Capture, list[str]]: ...
    def abort(self) -> None: ...


class Instrument(Protocol):
    @property
    def spec(self) -> InstrumentSpec: ...  # its own kind's (read-only: each narrows it)

    name: str

    def describe(self) -> dict[str, Any]: ...
    def arm(self, expected_s: float, *, scratch: Path, run_id: str) -> Armed: ...
    def bind(self, target: Any) -> None:
        """Made for `target` (None: none): an instrument the target itself provides
        (pl061-trace, the qemu_gpio guest's) binds to it, or refuses another one."""


@dataclass(frozen=True)
class InstrumentKind:
    name: str
    keys: tuple[str, ...]  # besides COMMON_KEYS
    parse: Callable[[Mapping[str, Any]], InstrumentSpec]
    make: Callable[[Any], Instrument]  # the spec parse() returned -> its driver
    # An instrument of one target kind only (pl061-trace: the qemu_gpio guest, no icount):
    # refuses another target table at spec load with ConfigError(key, message).
    check_target: Callable[[Mapping[str, Any]], None] | None = None


INSTRUMENTS: Registry[InstrumentKind] = Registry(
    "instrument kind",
    {
        "sigrok": "rtlab.instruments.sigrok.kind",
        "rp2040": "rtlab.instruments.rp2040.kind",
        "pl061-trace": "rtlab.instruments.pl061",
    },
    attr="INSTRUMENT_KIND",
    unknown=lambda name, known: ConfigError(
        "kind", f"instrument kind {name!r}: expected one of {', '.join(known)}"
    ),
)


def string(
    t: Mapping[str, Any], key: str, pattern: re.Pattern[str] | None, what: str
) -> str | None:
    v = t.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or not v or (pattern is not None and not pattern.fullmatch(v)):
        raise ConfigError(key, f"{key} = {v!r}: expected {what}")
    return v


def seconds(t: Mapping[str, Any], key: str, default: float, lo: float, hi: float) -> float:
    v = t.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
        raise ConfigError(key, f"expected seconds {lo:g}..{hi:g}, got {v!r}")
    return float(v)


def pins(t: Mapping[str, Any], channels: tuple[str, ...]) -> dict[str, Any]:
    """The spec's `pin` (default: the first channel) and `response`, checked."""
    pin = t.get("pin", channels[0])
    if pin not in channels:
        raise ConfigError("pin", f"pin {pin!r} is not a capture channel ({', '.join(channels)})")
    response = t.get("response")
    if response is not None and (response not in channels or response == pin):
        raise ConfigError(
            "response",
            f"response {response!r}: expected another capture channel than the pin "
            f"({', '.join(c for c in channels if c != pin)})",
        )
    return {"pin": str(pin), "response": response}


def instrument_from_table(t: Mapping[str, Any]) -> InstrumentSpec:
    """Check an `[instrument]` table; ConfigError names the key of a mistake."""
    kind = INSTRUMENTS.get(t.get("kind"))
    known = (*COMMON_KEYS, *kind.keys)
    for key in t:
        if key not in known:
            raise ConfigError(
                key, f"unknown key for a {kind.name} instrument; known: {', '.join(known)}"
            )
    return kind.parse(t)
