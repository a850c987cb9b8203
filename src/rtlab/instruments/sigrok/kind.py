"""The `sigrok` instrument kind: any logic analyzer sigrok-cli drives
(rtlab.instruments.sigrok.capture), from an [instrument] table of kind "sigrok"."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtlab.errors import ConfigError
from rtlab.instruments.kinds import (
    CHANNEL,
    Armed,
    InstrumentFailure,
    InstrumentKind,
    pins,
    seconds,
    string,
)
from rtlab.model import Capture
from rtlab.ticks import parse_frequency, parse_size

if TYPE_CHECKING:
    from rtlab.instruments.sigrok.capture import SigrokRun

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
# sigrok-cli sets these itself from the run (capture length) or they would defeat it.
RESERVED_CONFIG = ("samplerate", "limit_samples", "limit_time", "limit_frames", "continuous")

_DRIVER = re.compile(r"[a-z0-9][a-z0-9_-]*")
_CONFIG = re.compile(r"([a-z_][a-z0-9_]*)=([^:]+)")


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

    @property
    def from_target(self) -> str:
        return "labgrid" if self.driver == "labgrid" else ""

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


def parse_samplerate(value: object) -> int:
    """24000000, "24m", "24 MHz", "200k", "1.5 MHz" → Hz (a whole number). With a unit
    it is read as every rtlab frequency ("16mHz" is millihertz, "16mhz" ambiguous);
    sigrok-cli's bare shorthand ("24m", "200k") keeps its meaning."""
    hz: Fraction | None
    if isinstance(value, int) and not isinstance(value, bool):
        hz = Fraction(value)
    else:
        try:
            if isinstance(value, str) and value.strip().lower().endswith("hz"):
                hz = parse_frequency(value)
            else:
                hz = parse_size(value) if isinstance(value, str) else None
        except ValueError as exc:
            if "ambiguous" in str(exc):
                raise ConfigError("samplerate", str(exc)) from None
            hz = None
        if hz is None:
            raise ConfigError(
                "samplerate", f'samplerate {value!r}: expected Hz or "24m", "24 MHz", "200k"'
            )
    if hz <= 0 or hz.denominator != 1:
        raise ConfigError("samplerate", f"samplerate {value!r}: not a whole positive Hz")
    return int(hz)


def _sigrok(t: Mapping[str, Any]) -> SigrokSpec:
    driver = string(t, "driver", _DRIVER, 'a sigrok driver name ("fx2lafw", "demo")')
    if driver is None:
        raise ConfigError("driver", 'a sigrok instrument needs driver = "fx2lafw" (or …)')
    conn = string(
        t, "conn", re.compile(r"[^:\s]+"), 'a connection without ":" ("1.5", "/dev/ttyUSB0")'
    )
    rate = parse_samplerate(t["samplerate"]) if "samplerate" in t else None
    chans = t.get("channels")
    if (
        not isinstance(chans, list)
        or not chans
        or not all(isinstance(c, str) and CHANNEL.fullmatch(c) for c in chans)
    ):
        raise ConfigError(
            "channels", 'expected a list of channel names, e.g. channels = ["D0", "D1"]'
        )
    if len(set(chans)) != len(chans):
        raise ConfigError("channels", "a channel is listed twice")
    config = t.get("config", [])
    if not isinstance(config, list):
        raise ConfigError("config", 'expected a list of "KEY=VALUE" device options')
    for item in config:
        m = _CONFIG.fullmatch(item) if isinstance(item, str) else None
        if m is None:
            raise ConfigError(
                "config", f'{item!r}: expected "KEY=VALUE" (no ":"), e.g. "pattern=incremental"'
            )
        if m.group(1) in RESERVED_CONFIG:
            what = "the samplerate key" if m.group(1) == "samplerate" else "the runner"
            raise ConfigError("config", f"{m.group(1)} is set by {what}, not in config")
    group = string(t, "channel_group", CHANNEL, 'a channel group name ("Logic")')
    return SigrokSpec(
        driver=driver,
        channels=tuple(chans),
        **pins(t, tuple(chans)),
        conn=conn,
        samplerate_hz=rate,
        config=tuple(config),
        channel_group=group,
        margin_s=seconds(t, "margin_s", 2.0, 0, 3600),
        start_timeout_s=seconds(t, "start_timeout_s", 10.0, 0.1, 600),
    )


class SigrokInstrument:
    def __init__(self, spec: SigrokSpec) -> None:
        self.spec = spec
        self.name = f"sigrok ({spec.driver})"
        self._versions: dict[str, str | None] | None = None

    def versions(self) -> dict[str, str | None]:
        if self._versions is None:
            from rtlab.instruments.sigrok.capture import version

            self._versions = version()
        return self._versions

    def bind(self, target: Any) -> None:
        pass  # any target: the analyzer watches its pins

    def describe(self) -> dict[str, Any]:
        v = self.versions()
        return {
            **self.spec.definition(),
            "sigrok_cli": v["sigrok_cli"],
            "libsigrok": v["libsigrok"],
        }

    def arm(self, expected_s: float, *, scratch: Path, run_id: str) -> Armed:
        from rtlab.instruments.sigrok.capture import SigrokError, SigrokRun, capture_argv

        if self.versions()["sigrok_cli"] is None:
            raise InstrumentFailure(
                f"instrument {self.name}: sigrok-cli not found or not working "
                "(it is in deps/apt.txt: make setup installs it)"
            )
        s = self.spec
        # The capture must outlast the workload: its expected time plus the margin
        # (process start, ssh connection); sigrok-cli then ends by itself.
        capture_s = expected_s + s.margin_s
        scratch.mkdir(parents=True, exist_ok=True)
        out = scratch / f".{run_id}.sr.part"  # the store drops .*.part files it finds
        argv = capture_argv(
            driver=s.driver,
            conn=s.conn,
            channels=s.channels,
            samplerate_hz=s.samplerate_hz,
            config=s.config,
            channel_group=s.channel_group,
            time_ms=max(1, math.ceil(capture_s * 1000)),
            output=out,
        )
        run = SigrokRun(argv, out, start_timeout_s=s.start_timeout_s)
        try:
            run.start()
        except SigrokError as e:
            raise InstrumentFailure(f"instrument {self.name} failed to start: {e}") from None
        return _ArmedSigrok(self, run, capture_s)


class _ArmedSigrok:
    def __init__(self, inst: SigrokInstrument, run: SigrokRun, capture_s: float) -> None:
        self.inst = inst
        self.run = run
        self.capture_s = capture_s
        self.end_by = time.monotonic() + capture_s  # roughly: samples are not wall time

    def stop(self) -> tuple[Capture, list[str]]:
        from rtlab.instruments.sigrok.capture import SigrokError

        ended_early = not self.run.running()
        # sigrok-cli counts samples, not wall time, and its srzip output rewrites the
        # zip for every packet: a long or fast capture ends late. Allow as long again
        # (at least 10 s) before calling it hung.
        timeout = max(0.0, self.end_by - time.monotonic()) + max(10.0, self.capture_s)
        try:
            cap = self.run.finish(timeout)
        except SigrokError as e:
            raise InstrumentFailure(f"instrument {self.inst.name}: {e}") from None
        finally:
            self.run.abort()  # removes the raw .sr file (the runner keeps the Parquet)
        cap.metadata["instrument"] = "sigrok"
        cap.metadata["sigrok_driver"] = self.inst.spec.driver
        cap.metadata["sigrok_argv"] = self.run.argv[1:-1]  # without the program and file
        notes = []
        if ended_early:  # and cleanly: the tail of the workload was not captured
            notes.append(
                f"instrument {self.inst.name}: the capture ({self.capture_s:.1f} s) ended "
                "before the workload did; raise margin_s"
            )
        return cap, notes

    def abort(self) -> None:
        self.run.abort()


INSTRUMENT_KIND = InstrumentKind("sigrok", SIGROK_KEYS, _sigrok, SigrokInstrument)
