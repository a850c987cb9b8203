"""The `rp2040` instrument kind: the rtlab capture module (firmware/rp2040) through its
host driver and CaptureSession (rtlab.instruments.rp2040)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from rtlab.errors import ConfigError, RtlabError
from rtlab.instruments import kinds
from rtlab.instruments.rp2040.selftest import DEFAULT_PERIOD_S
from rtlab.model import Capture, parse_duration

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
    margin_s: ClassVar[float] = 0.0  # stopped when the workload ends

    @property
    def from_target(self) -> str:
        return self.port if self.port in ("labgrid", "place") else ""

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
        raise ConfigError(
            "channels", f'channels = {v!r}: expected consecutive GPIOs, e.g. 2, "2-5" or [2, 3]'
        )
    if pins[0] < 2 or pins[-1] > 28 or len(pins) > 8:
        raise ConfigError("channels", "at most 8 GPIOs within 2..28 (GP0/GP1 are the UART)")
    return tuple(pins)


def _rp2040(t: Mapping[str, Any]) -> RP2040Spec:
    port = kinds.string(t, "port", None, 'the serial port, e.g. "/dev/ttyACM0"')
    if port is None:
        raise ConfigError("port", 'an rp2040 instrument needs port = "/dev/ttyACM0"')
    gpios = _gpios(t.get("channels", 2))
    names = t.get("names", [f"GP{g}" for g in gpios])
    if (
        not isinstance(names, list)
        or len(names) != len(gpios)
        or not all(isinstance(n, str) and kinds.CHANNEL.fullmatch(n) for n in names)
        or len(set(names)) != len(names)
    ):
        raise ConfigError("names", f"expected {len(gpios)} distinct channel names, one per GPIO")
    res = t.get("resolution", "16ns")
    if not isinstance(res, str) or res.replace(" ", "") not in ("16ns", "8ns"):
        raise ConfigError("resolution", f'resolution {res!r}: expected "16ns" or "8ns"')
    res_ns = int(res.replace(" ", "")[:-2])
    if res_ns == 8 and len(gpios) > 4:
        raise ConfigError("resolution", "8 ns uses two state machines per pin: 4 channels at most")
    baud = t.get("baud", 921600)
    if isinstance(baud, bool) or not isinstance(baud, int) or baud <= 0:
        raise ConfigError("baud", "expected a positive integer baud rate")
    st_pin = t.get("selftest_pin")
    if st_pin is not None and (
        isinstance(st_pin, bool) or not isinstance(st_pin, int) or not 2 <= st_pin <= 28
    ):
        raise ConfigError("selftest_pin", "expected a GPIO number 2..28")
    st_period: Fraction | None = None
    if "selftest_period" in t:
        if st_pin is None:
            raise ConfigError("selftest_period", "selftest_period needs selftest_pin")
        try:
            st_period = parse_duration(str(t["selftest_period"]))
        except ValueError as e:
            raise ConfigError("selftest_period", str(e)) from None
    elif st_pin is not None:
        st_period = DEFAULT_PERIOD_S  # the CLI's default, 100 us
    return RP2040Spec(
        port=port,
        gpios=gpios,
        channels=tuple(names),
        **kinds.pins(t, tuple(names)),
        resolution_ns=res_ns,
        baud=baud,
        timeout_s=kinds.seconds(t, "timeout_s", 5.0, 0.1, 600),
        selftest_pin=st_pin,
        selftest_period_s=st_period,
    )


class RP2040Instrument:
    def __init__(self, spec: RP2040Spec) -> None:
        self.spec = spec
        self.name = f"rp2040 module on {spec.port}"
        self.firmware: str | None = None

    def bind(self, target: Any) -> None:
        pass  # any target: the module is wired to its pins

    def describe(self) -> dict[str, Any]:
        return {**self.spec.definition(), "firmware": self.firmware}

    def arm(self, expected_s: float, *, scratch: Path, run_id: str) -> kinds.Armed:
        import serial

        from rtlab.instruments.rp2040.driver import RP2040Module
        from rtlab.instruments.rp2040.selftest import selftest as selftest_wave
        from rtlab.instruments.rp2040.session import CaptureSession
        from rtlab.instruments.rp2040.wire import START_FINE

        s = self.spec
        try:
            port = serial.serial_for_url(s.port, baudrate=s.baud, timeout=0.05)
        except (serial.SerialException, OSError) as e:
            raise kinds.InstrumentFailure(f"instrument {self.name} failed to start: {e}") from None
        session = None
        try:
            mod = RP2040Module(port, timeout_s=s.timeout_s)
            info = mod.hello()
            self.firmware = info.fw_version
            selftest = None
            if s.selftest_pin is not None and s.selftest_period_s is not None:
                selftest = selftest_wave(s.selftest_pin, s.selftest_period_s, info.clk_hz)
            session = CaptureSession(
                mod,
                s.gpios[0],
                len(s.gpios),
                selftest=selftest,
                names=list(s.channels),
                flags=START_FINE if s.resolution_ns == 8 else 0,
            )
            session.start()
        except BaseException as e:
            if session is not None:  # started or half-started: stop it, end its reader
                _ArmedRP2040(self, port, mod, session).abort()
            port.close()
            if isinstance(e, RtlabError | serial.SerialException | OSError):
                raise kinds.InstrumentFailure(
                    f"instrument {self.name} failed to start: {e}"
                ) from None
            raise
        return _ArmedRP2040(self, port, mod, session)


class _ArmedRP2040:
    def __init__(self, inst: RP2040Instrument, port: Any, mod: Any, session: Any) -> None:
        self.inst, self.port, self.mod, self.session = inst, port, mod, session
        self.stopped = False

    def stop(self) -> tuple[Capture, list[str]]:
        import serial

        try:
            cap = self.session.stop()  # STOP, then the drained records up to STOPPED
            self.stopped = True
        except (RtlabError, serial.SerialException, OSError) as e:
            raise kinds.InstrumentFailure(f"instrument {self.inst.name}: {e}") from None
        finally:
            self.abort()
        r = self.mod.reader
        cap.metadata["link"] = {
            "crc_errors": r.crc_errors,
            "bad_bytes": r.bad_bytes,
            "seq_gaps": r.seq_gaps,
        }
        lost = sum(cap.metadata.get("records_lost", {}).values())
        notes = [f"instrument {self.inst.name}: {lost} edge records lost (gaps)"] if lost else []
        return cap, notes

    def abort(self) -> None:
        from rtlab.instruments.rp2040 import wire as p

        if self.port.is_open:
            if not self.stopped:
                with contextlib.suppress(Exception):  # best effort: the next hello stops it
                    self.port.write(p.encode_frame(p.C_STOP))
            self.session.__exit__(None, None, None)  # ends the reader thread
            self.port.close()


INSTRUMENT_KIND = kinds.InstrumentKind("rp2040", RP2040_KEYS, _rp2040, RP2040Instrument)
