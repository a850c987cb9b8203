"""The `pl061-trace` instrument kind: the emulated guest's GPIO edges, timestamped on the
host by QEMU's own `pl061_set_output` trace event — the independent view of a pin that
the emulated target has instead of a logic analyzer (docs/user-vs-kernel.md).

    [instrument]
    kind = "pl061-trace"
    channels = ["L0"]          # PL061 output lines L0..L7 (the rtlab-hrtimer workload's
    pin = "L0"                 # `gpio` = the chip's base + line)

QEMU's log backend writes `PID@SECONDS.MICROSECONDS:pl061_set_output DEV setting output
N to V` for every output write: host time with 1 µs resolution. It is the guest's time
only without icount (under icount the guest's clock follows its instruction count, not
the host's), so the kind is refused at spec load on a target with `icount_shift`, and on
any target but `qemu_gpio`. Only level changes are edges; the level before the first
edge and after the last one are partial (the capture's window is first to last edge).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from rtlab.errors import ConfigError
from rtlab.instruments.kinds import Armed, InstrumentFailure, InstrumentKind, pins
from rtlab.model import Capture, Channel

KEYS = ("channels",)
LINE = re.compile(r"L[0-7]")
TRACE = re.compile(r"^\d+@(\d+)\.(\d{6}):pl061_set_output \S+ setting output (\d) to ([01])$", re.M)
TICK_S = Fraction(1, 1_000_000)  # the log backend's timestamps: microseconds


@dataclass(frozen=True)
class PL061Spec:
    channels: tuple[str, ...]
    pin: str
    response: str | None = None
    kind: str = "pl061-trace"
    margin_s: ClassVar[float] = 0.0  # stopped when the workload ends
    from_target: ClassVar[str] = ""  # the guest's trace is always the target's own

    def definition(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "channels": list(self.channels),
            "pin": self.pin,
            "response": self.response,
        }


def _parse(t: Mapping[str, Any]) -> PL061Spec:
    chans = t.get("channels", ["L0"])
    if (
        not isinstance(chans, list)
        or not chans
        or not all(isinstance(c, str) and LINE.fullmatch(c) for c in chans)
        or len(set(chans)) < len(chans)
    ):
        raise ConfigError("channels", f'channels = {chans!r}: expected PL061 lines, e.g. ["L0"]')
    return PL061Spec(channels=tuple(chans), **pins(t, tuple(chans)))


def check_target(target: Mapping[str, Any]) -> None:
    """At spec load: only the qemu_gpio guest, and only without icount."""
    if target.get("kind") != "qemu_gpio":
        raise ConfigError(
            "kind",
            'kind = "pl061-trace" times the qemu_gpio guest\'s PL061; the target is '
            f"{target.get('kind', 'local')!r}",
        )
    if target.get("icount_shift") is not None:
        raise ConfigError(
            "kind",
            'kind = "pl061-trace" stamps edges with the host\'s clock, which is not the '
            "guest's under icount: remove the target's icount_shift (plain TCG) or the "
            "instrument",
        )


def capture_from_trace(text: str, channels: tuple[str, ...]) -> Capture:
    """The level changes of `channels` in QEMU's trace log, in µs from the first line."""
    rows = [(int(s) * 1_000_000 + int(us), int(n), int(v)) for s, us, n, v in TRACE.findall(text)]
    t0 = rows[0][0] if rows else 0
    level = dict.fromkeys(range(8), 0)  # the PL061 resets its outputs low
    edges: dict[int, list[int]] = {int(c[1]): [] for c in channels}
    for t, n, v in rows:
        if v != level[n]:
            level[n] = v
            if n in edges:
                edges[n].append(t - t0)
    every = sorted(x for e in edges.values() for x in e)
    cap = Capture(
        TICK_S,
        t_start=every[0] if every else 0,
        t_end=every[-1] if every else 0,
        metadata={"source": "qemu -trace pl061_set_output", "trace_lines": len(rows)},
    )
    for c in channels:
        cap.add(Channel(c, np.asarray(edges[int(c[1])], dtype=np.int64), initial_level=0))
    return cap


class PL061Trace:
    """Binds to the qemu_gpio target (make_instrument): the target passes QEMU the trace
    option while a run is armed."""

    name = "pl061-trace"

    def __init__(self, spec: PL061Spec) -> None:
        self.spec = spec
        self.target: Any = None

    def bind(self, target: Any) -> None:
        if target is None or target.kind != "qemu_gpio":
            raise InstrumentFailure("pl061-trace: the target is not the qemu_gpio guest")
        self.target = target

    def describe(self) -> dict[str, Any]:
        return {"source": "qemu -trace pl061_set_output (host clock, 1 µs)"}

    def arm(self, expected_s: float, *, scratch: Path, run_id: str) -> Armed:
        if self.target is None:
            raise InstrumentFailure("pl061-trace: no qemu_gpio target to trace")
        scratch.mkdir(parents=True, exist_ok=True)
        path = scratch / f"{run_id}.pl061.trace"
        self.target.trace_file = path
        return _ArmedTrace(self, path)


class _ArmedTrace:
    def __init__(self, inst: PL061Trace, path: Path) -> None:
        self.inst, self.path = inst, path

    def stop(self) -> tuple[Capture, list[str]]:
        self.inst.target.trace_file = None
        try:
            text = self.path.read_text(errors="replace")
        except OSError as e:
            raise InstrumentFailure(f"pl061-trace: QEMU wrote no trace ({e.strerror})") from None
        finally:
            self.path.unlink(missing_ok=True)
        return capture_from_trace(text, self.inst.spec.channels), []

    def abort(self) -> None:
        self.inst.target.trace_file = None
        with contextlib.suppress(OSError):
            self.path.unlink()


INSTRUMENT_KIND = InstrumentKind("pl061-trace", KEYS, _parse, PL061Trace, check_target)
