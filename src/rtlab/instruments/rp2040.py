"""Host driver of the rtlab RP2040 capture module: protocol frames → Capture.

Each channel's device records are numbered n = 0, 1, ... (one per edge, the level
toggles on each); their times are PIO sample indices k (one sample = 2 system clocks,
16 ns at 125 MHz). Records the device could not deliver (ring overflow, a PIO FIFO
stall, frames lost on the link) leave holes in n; every hole becomes a gap in the
capture from just after the last known edge to the next known one, so nothing is lost
silently and no interval spans missing data.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from rtlab.errors import RtlabError
from rtlab.instruments import rp2040_proto as p
from rtlab.model import UNKNOWN_LEVEL, Capture, Channel

INSTRUMENT = "rtlab-rp2040"


class DeviceError(RtlabError):
    """The module answered with an error or broke the protocol."""


@dataclass(frozen=True)
class DeviceInfo:
    proto: int
    fw_version: str
    clk_hz: int
    sample_cycles: int
    max_channels: int
    ring_pool_words: int
    sync_gpio: int

    @property
    def tick_s(self) -> Fraction:
        return Fraction(self.sample_cycles, self.clk_hz)


def parse_hello(payload: bytes) -> DeviceInfo:
    if len(payload) < 18 or payload[:4] != b"RTLC":
        raise DeviceError("not an rtlab capture module (bad HELLO)")
    proto, major, minor = payload[4], payload[5], payload[6]
    if proto != p.PROTO_VERSION:
        raise DeviceError(f"module speaks protocol {proto}, this driver {p.PROTO_VERSION}")
    clk, cyc, maxch, pool, sync = struct.unpack_from("<IBBIB", payload, 7)
    return DeviceInfo(proto, f"{major}.{minor}", clk, cyc, maxch, pool, sync)


@dataclass
class Status:
    """A live STATUS frame: device time, totals, buffer fill."""

    k: int
    edges: int
    lost: int
    ring_fill_pct: int
    out_fill_pct: int
    cpu_cycles: int  # system clocks spent in the capture poll (SysTick)
    encode_cycles: int  # of which copying and encoding edges


@dataclass
class _Chan:
    pin: int
    n: list[int] = field(default_factory=list)  # record indices received, in order
    k: list[int] = field(default_factory=list)  # their sample indices
    lost: list[tuple[int, int]] = field(default_factory=list)  # [from, to) reported
    total: int | None = None  # records the device produced (STOPPED)
    stall_from: int | None = None


class CaptureDecoder:
    """Consumes frames of one capture (STARTED … STOPPED) and builds the Capture."""

    def __init__(self, info: DeviceInfo) -> None:
        self.info = info
        self.chans: list[_Chan] = []
        self.started: dict[str, Any] | None = None
        self.end_k: int | None = None
        self.cpu_cycles = 0
        self.encode_cycles = 0
        self.last_status: Status | None = None
        self.errors: list[str] = []

    @property
    def stopped(self) -> bool:
        return self.end_k is not None

    def handle(self, f: p.Frame) -> Status | None:
        pl = f.payload
        try:
            if f.type == p.F_STARTED:
                base, nch, clk, cyc, ring, st_gpio, st_period, lo, hi = struct.unpack_from(
                    "<BBIBIBIII", pl)
                self.started = {"base_pin": base, "channels": nch, "clk_hz": clk,
                                "sample_cycles": cyc, "ring_words": ring,
                                "selftest_gpio": None if st_gpio == 0xFF else st_gpio,
                                "selftest_period_cycles": st_period,
                                "start_us": lo | (hi << 32)}
                self.chans = [_Chan(base + i) for i in range(nch)]
            elif f.type == p.F_EDGES:
                self._edges(pl)
            elif f.type == p.F_OVERFLOW:
                ch = self._chan(pl[0])
                n0, pos = p.read_varint(pl, 1)
                count, _ = p.read_varint(pl, pos)
                ch.lost.append((n0, n0 + count))
            elif f.type == p.F_STALL:
                mask, pos = pl[0], 1
                for i in range(len(self.chans)):
                    if mask & (1 << i):
                        self.chans[i].stall_from, pos = p.read_varint(pl, pos)
            elif f.type == p.F_STATUS:
                k, pos = p.read_varint(pl, 0)
                edges, pos = p.read_varint(pl, pos)
                lost, pos = p.read_varint(pl, pos)
                ring, out = pl[pos], pl[pos + 1]
                cyc, pos = p.read_varint(pl, pos + 2)
                enc, _ = p.read_varint(pl, pos)
                self.last_status = Status(k, edges, lost, ring, out, cyc, enc)
                return self.last_status
            elif f.type == p.F_STOPPED:
                end_k, pos = p.read_varint(pl, 0)
                self.cpu_cycles, pos = p.read_varint(pl, pos)
                self.encode_cycles, pos = p.read_varint(pl, pos)
                for ch in self.chans:
                    ch.total, pos = p.read_varint(pl, pos)
                self.end_k = end_k
            elif f.type == p.F_ERROR:
                code = pl[0] if pl else 0
                raise DeviceError(f"module error {code}: {p.DEVICE_ERRORS.get(code, '?')}")
        except (struct.error, ValueError, IndexError) as exc:
            raise DeviceError(f"malformed {f.name} frame at byte {f.offset}: {exc}") from None
        return None

    def _chan(self, i: int) -> _Chan:
        if i >= len(self.chans):
            raise ValueError(f"channel {i} was not started")
        return self.chans[i]

    def _edges(self, pl: bytes) -> None:
        ch = self._chan(pl[0])
        n, pos = p.read_varint(pl, 1)
        k = 0
        while pos < len(pl):
            delta, pos = p.read_varint(pl, pos)
            k += delta  # the first value is absolute (delta from 0)
            ch.n.append(n)
            ch.k.append(k)
            n += 1

    # -- building the capture ---------------------------------------------------------
    def capture(self, names: list[str] | None = None) -> Capture:
        if self.started is None or self.end_k is None:
            raise DeviceError("capture incomplete: no STARTED/STOPPED frame received")
        tick = Fraction(self.started["sample_cycles"], self.started["clk_hz"])
        end = self.end_k
        per_ch = []
        gaps: list[tuple[int, int]] = []
        for ch in self.chans:
            n = np.asarray(ch.n, dtype=np.int64)
            k = np.asarray(ch.k, dtype=np.int64)
            order = np.argsort(n, kind="stable")
            n, k = n[order], k[order]
            total = ch.total if ch.total is not None else (int(n[-1]) + 1 if n.size else 0)
            keep = n < total
            n, k = n[keep], k[keep]
            if n.size > 1 and np.any(np.diff(n) <= 0):
                raise DeviceError(f"GP{ch.pin}: duplicate record numbers in the stream")
            # Every hole in 0..total-1 is missing data: gap from the last known edge.
            expect = np.concatenate(([0], n + 1))
            have_next = np.concatenate((n, [total]))
            for a, b in zip(expect, have_next, strict=True):
                if b > a:
                    lo = int(k[np.searchsorted(n, a) - 1]) + 1 if a > 0 else 0
                    hi = int(k[np.searchsorted(n, b)]) if b < total else end
                    gaps.append((lo, hi))
            if ch.stall_from is not None:
                # The state machine's clock froze: nothing after its last good record.
                last = k[n < ch.stall_from]
                gaps.append((int(last[-1]) + 1 if last.size else 0, end + 1))
            per_ch.append((ch, n, k, total))
        gap_arr = _merge(gaps)
        labels = names or [f"GP{c.pin}" for c in self.chans]
        cap = Capture(tick_s=tick, gaps=gap_arr, t_start=0, t_end=end, resolution_s=tick,
                      metadata=self._metadata(labels))
        dropped = 0
        for i, (_ch, n, k, total) in enumerate(per_ch):
            inside = _inside(k, gap_arr)
            dropped += int(inside.sum())
            initial = 0
            is_edge = ~inside
            if n.size and n[0] == 0 and k[0] == 0:
                initial = 1  # high at the first sample: a level, not an edge
                is_edge[0] = False
            levels = _gap_levels(n, k, total, gap_arr)
            cap.add(Channel(labels[i], k[is_edge], initial_level=initial, gap_levels=levels))
        cap.metadata["edges_dropped_in_gaps"] = dropped
        cap.validate()
        return cap

    def _metadata(self, labels: list[str]) -> dict[str, Any]:
        s = self.started or {}
        lost = {n: sum(b - a for a, b in c.lost) for n, c in zip(labels, self.chans, strict=True)}
        return {
            "instrument": INSTRUMENT,
            "firmware": self.info.fw_version,
            "clk_hz": s.get("clk_hz"),
            "sample_cycles": s.get("sample_cycles"),
            "pins": [c.pin for c in self.chans],
            "ring_words": s.get("ring_words"),
            "selftest_gpio": s.get("selftest_gpio"),
            "selftest_period_cycles": s.get("selftest_period_cycles"),
            "records_lost": lost,
            "stalled": [n for n, c in zip(labels, self.chans, strict=True)
                        if c.stall_from is not None],
            "cpu_cycles": self.cpu_cycles,
            "encode_cycles": self.encode_cycles,
        }


def _merge(gaps: list[tuple[int, int]]) -> np.ndarray:
    out: list[list[int]] = []
    for lo, hi in sorted(g for g in gaps if g[1] > g[0]):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return np.asarray(out, dtype=np.int64).reshape(-1, 2)


def _inside(k: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    if not gaps.size or not k.size:
        return np.zeros(k.shape, dtype=bool)
    i = np.searchsorted(gaps[:, 0], k, side="right") - 1
    ok = i >= 0
    res = np.zeros(k.shape, dtype=bool)
    res[ok] = k[ok] < gaps[i[ok], 1]
    return res


def _gap_levels(n: np.ndarray, k: np.ndarray, total: int, gaps: np.ndarray) -> np.ndarray:
    """Level at each gap's end: the parity of the records before it, when known."""
    levels = np.full(len(gaps), UNKNOWN_LEVEL, dtype=np.int64)
    for g, (_, hi) in enumerate(gaps):
        j = int(np.searchsorted(k, hi, side="left"))  # known records before hi: j
        if j < len(n) and int(k[j]) == hi:
            levels[g] = int(n[j]) & 1  # every record before n[j], lost or not, is < hi
            continue
        m = int(n[j - 1]) + 1 if j > 0 else 0  # index of the next record after them
        if (j < len(n) and int(n[j]) == m) or m == total:
            levels[g] = m & 1
    return levels


class Port(Protocol):
    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...


class RP2040Module:
    """A connected capture module: handshake, start, stream, stop."""

    def __init__(self, port: Port, *, timeout_s: float = 5.0) -> None:
        self.port = port
        self.reader = p.FrameReader()
        self.timeout_s = timeout_s
        self.info: DeviceInfo | None = None

    def _frames(self, deadline: float):
        while time.monotonic() < deadline:
            data = self.port.read(4096)
            if data:
                yield from self.reader.feed(data)
            else:
                yield None

    def hello(self) -> DeviceInfo:
        """Handshake. A capture a previous host left running is stopped first: its STOP
        is answered by ERROR 11 (nothing ran) or, after draining, by STOPPED."""
        self.port.write(p.encode_frame(p.C_STOP))
        self.port.write(p.encode_frame(p.C_HELLO))
        stop_done = False
        for f in self._frames(time.monotonic() + self.timeout_s):
            if f is None:
                continue
            if f.type == p.F_STOPPED or (f.type == p.F_ERROR and f.payload[:1] == b"\x0b"):
                stop_done = True
            elif f.type == p.F_HELLO:
                self.info = parse_hello(f.payload)
            if stop_done and self.info is not None:
                return self.info
        raise DeviceError(f"no HELLO from the module within {self.timeout_s:g} s")

    def capture(self, base_pin: int, nch: int, duration_s: Fraction, *,
                selftest: tuple[int, int, int] | None = None,
                on_status: Callable[[Status, CaptureDecoder], None] | None = None,
                names: list[str] | None = None, flags: int = 0) -> Capture:
        """Capture `nch` pins from `base_pin` for `duration_s` of device time."""
        info = self.info or self.hello()
        st_gpio, st_div, st_top = selftest if selftest else (None, 1, 1)
        self.port.write(p.cmd_start(base_pin, nch, st_gpio, st_div, st_top, flags))
        dec = CaptureDecoder(info)
        want_k = int(duration_s / info.tick_s)
        stop_sent = False
        deadline = time.monotonic() + self.timeout_s
        for f in self._frames(float("inf")):
            if f is None:
                if time.monotonic() > deadline:
                    raise DeviceError(f"the module went silent for {self.timeout_s:g} s")
                continue
            deadline = time.monotonic() + self.timeout_s
            if f.type == p.F_HELLO:
                continue  # the reply to our hello or a boot banner
            if dec.started is None and (
                f.type not in (p.F_STARTED, p.F_ERROR) or f.payload[:1] == b"\x0b"
            ):
                continue  # leftovers from before our START (incl. the reply to hello's STOP)
            status = dec.handle(f)
            if status is not None:
                if on_status:
                    on_status(status, dec)
                if not stop_sent and status.k >= want_k:
                    self.port.write(p.encode_frame(p.C_STOP))
                    stop_sent = True
            if dec.stopped:
                break
        cap = dec.capture(names)
        cap.metadata["link"] = {"crc_errors": self.reader.crc_errors,
                                "bad_bytes": self.reader.bad_bytes,
                                "seq_gaps": self.reader.seq_gaps}
        return cap


def selftest_params(period_cycles: int) -> tuple[int, int]:
    """(divider 1..255, top) so that divider * (top + 1) == period exactly."""
    for div in range(1, 256):
        if period_cycles % div == 0 and 2 <= period_cycles // div <= 65536:
            return div, period_cycles // div - 1
    raise RtlabError(f"self-test period of {period_cycles} cycles is not div*(top+1) "
                     "with div <= 255 and top < 65536")
