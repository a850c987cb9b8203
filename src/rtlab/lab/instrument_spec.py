"""The `[instrument]` table of an experiment spec: which instrument times the pin.

    [instrument]
    kind = "sigrok"            # or "rp2040"
    driver = "fx2lafw"
    samplerate = "24m"
    channels = ["D0", "D1"]
    pin = "D0"                 # the pin under test (default: the first channel)

Checked here, once, with the key of every mistake (InstrumentError.key) so the spec
error names its line; `rtlab.lab.instrument` drives the instrument around each run.
No value becomes part of a shell string: sigrok-cli gets an argv list, and the values
that land inside one of its arguments (driver, conn, channel names, config pairs) may
not contain the separators sigrok-cli splits them on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rtlab.formats.sigrok import parse_size
from rtlab.model import parse_duration

COMMON_KEYS = ("kind", "pin", "response")
SIGROK_KEYS = (
    "driver",
    "conn",
    "samplerate",
    "channels",
    "config",
    "channel_group",
    "margin_s",
    "start_timeout_s",
)
RP2040_KEYS = (
    "port",
    "channels",
    "names",
    "resolution",
    "baud",
    "timeout_s",
    "selftest_pin",
    "selftest_period",
)
KINDS = {"sigrok": SIGROK_KEYS, "rp2040": RP2040_KEYS}
# sigrok-cli sets these itself from the run (capture length) or they would defeat it.
RESERVED_CONFIG = ("samplerate", "limit_samples", "limit_time", "limit_frames", "continuous")

_DRIVER = re.compile(r"[a-z0-9][a-z0-9_-]*")
_CHANNEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")  # no , : = (sigrok-cli separators)
_CONFIG = re.compile(r"([a-z_][a-z0-9_]*)=([^:]+)")


class InstrumentError(ValueError):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class SigrokSpec:
    driver: str
    channels: tuple[str, ...]
    pin: str
    response: str | None = None
    conn: str | None = None
    samplerate_hz: int | None = None  # None: the device's current rate
    config: tuple[str, ...] = ()
    channel_group: str | None = None
    margin_s: float = 2.0
    start_timeout_s: float = 10.0
    kind: str = "sigrok"

    def definition(self) -> dict[str, Any]:
        """What defines the measurement (the cell hash, the run's params)."""
        return {
            "kind": self.kind,
            "driver": self.driver,
            "conn": self.conn,
            "samplerate_hz": self.samplerate_hz,
            "channels": list(self.channels),
            "config": list(self.config),
            "channel_group": self.channel_group,
            "pin": self.pin,
            "response": self.response,
        }


@dataclass(frozen=True)
class RP2040Spec:
    port: str
    gpios: tuple[int, ...]
    channels: tuple[str, ...]  # capture channel names, one per GPIO
    pin: str
    response: str | None = None
    resolution_ns: int = 16
    baud: int = 921600
    timeout_s: float = 5.0
    selftest_pin: int | None = None
    selftest_period_s: Fraction | None = None
    kind: str = "rp2040"

    def definition(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "port": self.port,
            "gpios": list(self.gpios),
            "channels": list(self.channels),
            "resolution_ns": self.resolution_ns,
            "selftest_pin": self.selftest_pin,
            "selftest_period_s": None
            if self.selftest_period_s is None
            else str(self.selftest_period_s),
            "pin": self.pin,
            "response": self.response,
        }


InstrumentSpec = SigrokSpec | RP2040Spec


def parse_samplerate(value: object) -> int:
    """24000000, "24m", "24 MHz", "200k", "1.5 MHz" → Hz (a whole number)."""
    if isinstance(value, int) and not isinstance(value, bool):
        hz = Fraction(value)
    else:
        try:
            hz = parse_size(value) if isinstance(value, str) else None
        except ValueError:
            hz = None
        if hz is None:
            raise InstrumentError(
                "samplerate", f'samplerate {value!r}: expected Hz or "24m", "24 MHz", "200k"'
            )
    if hz <= 0 or hz.denominator != 1:
        raise InstrumentError("samplerate", f"samplerate {value!r}: not a whole positive Hz")
    return int(hz)


def _str(t: Mapping[str, Any], key: str, pattern: re.Pattern[str] | None, what: str) -> str | None:
    v = t.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or not v or (pattern is not None and not pattern.fullmatch(v)):
        raise InstrumentError(key, f"{key} = {v!r}: expected {what}")
    return v


def _seconds(t: Mapping[str, Any], key: str, default: float, lo: float, hi: float) -> float:
    v = t.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
        raise InstrumentError(key, f"expected seconds {lo:g}..{hi:g}, got {v!r}")
    return float(v)


def _pins(t: Mapping[str, Any], channels: tuple[str, ...]) -> tuple[str, str | None]:
    pin = t.get("pin", channels[0])
    if pin not in channels:
        raise InstrumentError(
            "pin", f"pin {pin!r} is not a capture channel ({', '.join(channels)})"
        )
    response = t.get("response")
    if response is not None and (response not in channels or response == pin):
        raise InstrumentError(
            "response",
            f"response {response!r}: expected another capture channel than the pin "
            f"({', '.join(c for c in channels if c != pin)})",
        )
    return str(pin), response


def _sigrok(t: Mapping[str, Any]) -> SigrokSpec:
    driver = _str(t, "driver", _DRIVER, 'a sigrok driver name ("fx2lafw", "demo")')
    if driver is None:
        raise InstrumentError("driver", 'a sigrok instrument needs driver = "fx2lafw" (or …)')
    conn = _str(
        t, "conn", re.compile(r"[^:\s]+"), 'a connection without ":" ("1.5", "/dev/ttyUSB0")'
    )
    rate = parse_samplerate(t["samplerate"]) if "samplerate" in t else None
    chans = t.get("channels")
    if (
        not isinstance(chans, list)
        or not chans
        or not all(isinstance(c, str) and _CHANNEL.fullmatch(c) for c in chans)
    ):
        raise InstrumentError(
            "channels", 'expected a list of channel names, e.g. channels = ["D0", "D1"]'
        )
    if len(set(chans)) != len(chans):
        raise InstrumentError("channels", "a channel is listed twice")
    config = t.get("config", [])
    if not isinstance(config, list):
        raise InstrumentError("config", 'expected a list of "KEY=VALUE" device options')
    for item in config:
        m = _CONFIG.fullmatch(item) if isinstance(item, str) else None
        if m is None:
            raise InstrumentError(
                "config", f'{item!r}: expected "KEY=VALUE" (no ":"), e.g. "pattern=incremental"'
            )
        if m.group(1) in RESERVED_CONFIG:
            what = "the samplerate key" if m.group(1) == "samplerate" else "the runner"
            raise InstrumentError("config", f"{m.group(1)} is set by {what}, not in config")
    group = _str(t, "channel_group", _CHANNEL, 'a channel group name ("Logic")')
    pin, response = _pins(t, tuple(chans))
    return SigrokSpec(
        driver=driver,
        channels=tuple(chans),
        pin=pin,
        response=response,
        conn=conn,
        samplerate_hz=rate,
        config=tuple(config),
        channel_group=group,
        margin_s=_seconds(t, "margin_s", 2.0, 0, 3600),
        start_timeout_s=_seconds(t, "start_timeout_s", 10.0, 0.1, 600),
    )


def _gpios(v: object) -> tuple[int, ...]:
    """2, [2, 3], "2-5" or "2,3,4" → consecutive GPIO numbers of the module."""
    try:
        if isinstance(v, int) and not isinstance(v, bool):
            pins = [v]
        elif isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            pins = list(v)
        elif isinstance(v, str) and "-" in v:
            lo, hi = (int(x) for x in v.split("-", 1))
            pins = list(range(lo, hi + 1))
        elif isinstance(v, str):
            pins = [int(x) for x in v.split(",")]
        else:
            pins = []
    except ValueError:
        pins = []
    if not pins or pins != list(range(pins[0], pins[0] + len(pins))):
        raise InstrumentError(
            "channels", f'channels = {v!r}: expected consecutive GPIOs, e.g. 2, "2-5" or [2, 3]'
        )
    if pins[0] < 2 or pins[-1] > 28 or len(pins) > 8:
        raise InstrumentError("channels", "at most 8 GPIOs within 2..28 (GP0/GP1 are the UART)")
    return tuple(pins)


def _rp2040(t: Mapping[str, Any]) -> RP2040Spec:
    port = _str(t, "port", None, 'the serial port, e.g. "/dev/ttyACM0"')
    if port is None:
        raise InstrumentError("port", 'an rp2040 instrument needs port = "/dev/ttyACM0"')
    gpios = _gpios(t.get("channels", 2))
    names = t.get("names", [f"GP{g}" for g in gpios])
    if (
        not isinstance(names, list)
        or len(names) != len(gpios)
        or not all(isinstance(n, str) and _CHANNEL.fullmatch(n) for n in names)
        or len(set(names)) != len(names)
    ):
        raise InstrumentError(
            "names", f"expected {len(gpios)} distinct channel names, one per GPIO"
        )
    res = t.get("resolution", "16ns")
    if not isinstance(res, str) or res.replace(" ", "") not in ("16ns", "8ns"):
        raise InstrumentError("resolution", f'resolution {res!r}: expected "16ns" or "8ns"')
    res_ns = int(res.replace(" ", "")[:-2])
    if res_ns == 8 and len(gpios) > 4:
        raise InstrumentError(
            "resolution", "8 ns uses two state machines per pin: 4 channels at most"
        )
    baud = t.get("baud", 921600)
    if isinstance(baud, bool) or not isinstance(baud, int) or baud <= 0:
        raise InstrumentError("baud", "expected a positive integer baud rate")
    st_pin = t.get("selftest_pin")
    if st_pin is not None and (
        isinstance(st_pin, bool) or not isinstance(st_pin, int) or not 2 <= st_pin <= 28
    ):
        raise InstrumentError("selftest_pin", "expected a GPIO number 2..28")
    st_period: Fraction | None = None
    if "selftest_period" in t:
        if st_pin is None:
            raise InstrumentError("selftest_period", "selftest_period needs selftest_pin")
        try:
            st_period = parse_duration(str(t["selftest_period"]))
        except ValueError as e:
            raise InstrumentError("selftest_period", str(e)) from None
    elif st_pin is not None:
        st_period = Fraction(1, 10_000)  # the CLI's default, 100 us
    pin, response = _pins(t, tuple(names))
    return RP2040Spec(
        port=port,
        gpios=gpios,
        channels=tuple(names),
        pin=pin,
        response=response,
        resolution_ns=res_ns,
        baud=baud,
        timeout_s=_seconds(t, "timeout_s", 5.0, 0.1, 600),
        selftest_pin=st_pin,
        selftest_period_s=st_period,
    )


def instrument_from_table(t: Mapping[str, Any]) -> InstrumentSpec:
    """Check an `[instrument]` table; InstrumentError names the key of a mistake."""
    kind = t.get("kind")
    if kind not in KINDS:
        raise InstrumentError(
            "kind", f"instrument kind {kind!r}: expected one of {', '.join(KINDS)}"
        )
    known = (*COMMON_KEYS, *KINDS[kind])
    for key in t:
        if key not in known:
            raise InstrumentError(
                key, f"unknown key for a {kind} instrument; known: {', '.join(known)}"
            )
    return _sigrok(t) if kind == "sigrok" else _rp2040(t)
