"""The spec's `[instrument]` around each run: arm before the workload, stop after it.

    inst = make_instrument(spec.instrument)
    armed = inst.arm(expected_s, scratch=store.captures_dir, run_id=run_id)
    ...                                   # the workload
    cap, notes = armed.stop()             # a Capture, and warnings about it
    armed.abort()                         # Ctrl-C or an error: stop it, leave nothing

Every failure is an InstrumentFailure whose message names the instrument (and carries
sigrok-cli's last stderr lines), so the run's message says which instrument failed.
`sigrok` runs the real sigrok-cli (rtlab.instruments.sigrok.capture); `rp2040` drives the
rtlab capture module through its host driver and CaptureSession.
"""

from __future__ import annotations

import contextlib
import math
import time
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rtlab.errors import RtlabError
from rtlab.lab.instrument_spec import InstrumentSpec, RP2040Spec, SigrokSpec
from rtlab.model import Capture

if TYPE_CHECKING:
    from rtlab.instruments.sigrok.capture import SigrokRun


class InstrumentFailure(RtlabError):
    """The instrument did not start, died, or gave no usable capture."""


class Armed(Protocol):
    def stop(self) -> tuple[Capture, list[str]]: ...
    def abort(self) -> None: ...


class Instrument(Protocol):
    spec: InstrumentSpec
    name: str

    def describe(self) -> dict[str, Any]: ...
    def arm(self, expected_s: float, *, scratch: Path, run_id: str) -> Armed: ...


# ------------------------------------------------------------------ sigrok


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


# ------------------------------------------------------------------ rp2040


class RP2040Instrument:
    def __init__(self, spec: RP2040Spec) -> None:
        self.spec = spec
        self.name = f"rp2040 module on {spec.port}"
        self.firmware: str | None = None

    def describe(self) -> dict[str, Any]:
        return {**self.spec.definition(), "firmware": self.firmware}

    def arm(self, expected_s: float, *, scratch: Path, run_id: str) -> Armed:
        import serial

        from rtlab.instruments.rp2040.driver import RP2040Module, selftest_params
        from rtlab.instruments.rp2040.session import CaptureSession
        from rtlab.instruments.rp2040.wire import START_FINE

        s = self.spec
        try:
            port = serial.Serial(s.port, baudrate=s.baud, timeout=0.05)
        except (serial.SerialException, OSError) as e:
            raise InstrumentFailure(f"instrument {self.name} failed to start: {e}") from None
        session = None
        try:
            mod = RP2040Module(port, timeout_s=s.timeout_s)
            info = mod.hello()
            self.firmware = info.fw_version
            selftest = None
            if s.selftest_pin is not None and s.selftest_period_s is not None:
                cycles = Fraction(s.selftest_period_s) * info.clk_hz
                if cycles.denominator != 1:
                    raise RtlabError(
                        f"self-test period {s.selftest_period_s} s is not a whole number "
                        f"of {info.clk_hz} Hz cycles"
                    )
                selftest = (s.selftest_pin, *selftest_params(int(cycles)))
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
                raise InstrumentFailure(f"instrument {self.name} failed to start: {e}") from None
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
            raise InstrumentFailure(f"instrument {self.inst.name}: {e}") from None
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


def make_instrument(spec: InstrumentSpec) -> Instrument:
    if isinstance(spec, SigrokSpec):
        return SigrokInstrument(spec)
    return RP2040Instrument(spec)
