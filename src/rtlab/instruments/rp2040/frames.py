"""Decoding the RP2040 capture module's frames into a Capture (the serial side: driver.py).

Each channel's device records are numbered n = 0, 1, ... (one per edge, the level
toggles on each); their times are PIO sample indices k (one sample = 2 system clocks,
16 ns at 125 MHz). Records the device could not deliver (ring overflow, a PIO FIFO
stall, frames lost on the link) leave holes in n; every hole becomes a gap in the
capture from just after the last known edge to the next known one, so nothing is lost
silently and no interval spans missing data.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from rtlab.errors import RtlabError
from rtlab.instruments.rp2040 import wire as p
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
        self.phases = 1  # state machines per channel (2: 8 ns interleaved sampling)

    @property
    def stopped(self) -> bool:
        return self.end_k is not None

    def handle(self, f: p.Frame) -> Status | None:
        pl = f.payload
        try:
            if f.type == p.F_STARTED:
                base, nch, clk, cyc, ring, st_gpio, st_period, lo, hi = struct.unpack_from(
                    "<BBIBIBIII", pl
                )
                self.started = {
                    "base_pin": base,
                    "channels": nch,
                    "clk_hz": clk,
                    "sample_cycles": cyc,
                    "ring_words": ring,
                    "selftest_gpio": None if st_gpio == 0xFF else st_gpio,
                    "selftest_period_cycles": st_period,
                    "start_us": lo | (hi << 32),
                }
                self.phases = pl[24] if len(pl) > 24 else 1
                self.chans = [_Chan(base + i // self.phases) for i in range(nch * self.phases)]
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
        ph = self.phases
        # One tick = sample_cycles / phases clocks: 16 ns, or 8 ns with two phases.
        tick = Fraction(self.started["sample_cycles"], self.started["clk_hz"] * ph)
        end = self.end_k * ph + ph - 1
        streams = []
        gaps: list[tuple[int, int]] = []
        for s_idx, ch in enumerate(self.chans):
            n = np.asarray(ch.n, dtype=np.int64)
            t = np.asarray(ch.k, dtype=np.int64) * ph + s_idx % ph
            order = np.argsort(n, kind="stable")
            n, t = n[order], t[order]
            total = ch.total if ch.total is not None else (int(n[-1]) + 1 if n.size else 0)
            keep = n < total
            n, t = n[keep], t[keep]
            if n.size > 1 and np.any(np.diff(n) <= 0):
                raise DeviceError(f"GP{ch.pin}: duplicate record numbers in the stream")
            gaps += _stream_gaps(n, t, total, end)
            if ch.stall_from is not None:
                # The state machine's clock froze: nothing after its last good record.
                last = t[n < ch.stall_from]
                gaps.append((int(last[-1]) + 1 if last.size else 0, end + 1))
            streams.append((n, t, total))
        nch = len(self.chans) // ph
        merged = []
        if ph == 2:  # merge each pin's two phases first: aliasing runs may add gaps
            for i in range(nch):
                edges, initial, extra = _merge_phases(streams[2 * i], streams[2 * i + 1], end)
                merged.append((edges, initial))
                gaps += extra
        gap_arr = _merge(gaps)
        labels = names or [f"GP{self.chans[i * ph].pin}" for i in range(nch)]
        cap = Capture(
            tick_s=tick,
            gaps=gap_arr,
            t_start=0,
            t_end=end,
            resolution_s=tick,
            metadata=self._metadata(labels),
        )
        dropped = 0
        for i in range(nch):
            if ph == 1:
                n, t, total = streams[i]
                initial = 1 if n.size and n[0] == 0 and t[0] == 0 else 0  # high at sample 0
                edges = t[1:] if initial else t
                levels = _gap_levels(n, t, total, gap_arr)
            else:
                edges, initial = merged[i]
                levels = _phase_gap_levels(streams[2 * i], streams[2 * i + 1], gap_arr, end)
            inside = _inside(edges, gap_arr)
            dropped += int(inside.sum())
            cap.add(Channel(labels[i], edges[~inside], initial_level=initial, gap_levels=levels))
        cap.metadata["edges_dropped_in_gaps"] = dropped
        cap.validate()
        return cap

    def _metadata(self, labels: list[str]) -> dict[str, Any]:
        s = self.started or {}
        ph = self.phases
        lost = {
            n: sum(b - a for c in self.chans[i * ph : (i + 1) * ph] for a, b in c.lost)
            for i, n in enumerate(labels)
        }
        return {
            "instrument": INSTRUMENT,
            "firmware": self.info.fw_version,
            "clk_hz": s.get("clk_hz"),
            "sample_cycles": s.get("sample_cycles"),
            "pins": [c.pin for c in self.chans[::ph]],
            "ring_words": s.get("ring_words"),
            "selftest_gpio": s.get("selftest_gpio"),
            "selftest_period_cycles": s.get("selftest_period_cycles"),
            "records_lost": lost,
            "stalled": [
                n
                for i, n in enumerate(labels)
                if any(c.stall_from is not None for c in self.chans[i * ph : (i + 1) * ph])
            ],
            "phases": ph,
            "cpu_cycles": self.cpu_cycles,
            "encode_cycles": self.encode_cycles,
        }


def _stream_gaps(n: np.ndarray, t: np.ndarray, total: int, end: int) -> list[tuple[int, int]]:
    """Every hole in the record numbers 0..total-1: a gap from the last known edge to the
    next known one."""
    out = []
    expect = np.concatenate(([0], n + 1))
    have_next = np.concatenate((n, [total]))
    for a, b in zip(expect, have_next, strict=True):
        if b > a:
            lo = int(t[np.searchsorted(n, a) - 1]) + 1 if a > 0 else 0
            hi = int(t[np.searchsorted(n, b)]) if b < total else end
            out.append((lo, hi))
    return out


def _level_at(n: np.ndarray, t: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A stream's level at times `at`: the parity of the records up to then (lost ones
    included, their numbers are known); the state machines start low."""
    i = np.searchsorted(t, at, side="right") - 1
    lev = np.zeros(at.shape, dtype=np.int64)
    ok = i >= 0
    lev[ok] = (n[i[ok]] + 1) & 1
    return lev


MAX_ALIAS_RUN = 1 << 16  # clocks of even/odd disagreement expanded into edges


def _merge_phases(
    even: tuple, odd: tuple, end: int
) -> tuple[np.ndarray, int, list[tuple[int, int]]]:
    """8 ns mode: the even stream samples the pin at even clocks, the odd one at odd
    clocks, so together they give its level at every clock; the edges are where that
    level changes. While the two disagree (a pulse train at clk/2 that one machine sees
    high and the other low) the level alternates every clock: every clock is an edge.
    Longer disagreements than MAX_ALIAS_RUN clocks are returned as gaps instead."""
    (na, ta, _), (nb, tb, _) = even, odd

    def level(at: np.ndarray) -> np.ndarray:
        return np.where(at % 2 == 0, _level_at(na, ta, at), _level_at(nb, tb, at))

    cand = np.unique(np.concatenate((ta, ta + 1, tb, tb + 1)))
    cand = cand[(cand >= 1) & (cand <= end)]
    parts = [cand[level(cand) != level(cand - 1)]]
    bounds = np.unique(np.concatenate((ta, tb, [end + 1])))
    bounds = bounds[bounds <= end + 1]
    starts, stops = bounds[:-1], bounds[1:]
    differ = _level_at(na, ta, starts) != _level_at(nb, tb, starts)
    gaps: list[tuple[int, int]] = []
    for u, v in zip(starts[differ], stops[differ], strict=True):
        if v - u > MAX_ALIAS_RUN:
            gaps.append((int(u) + 1, int(v)))
        elif v - u > 2:
            parts.append(np.arange(u + 2, v, dtype=np.int64))
    edges = np.unique(np.concatenate(parts))
    initial = int(level(np.zeros(1, dtype=np.int64))[0])
    return edges, initial, gaps


def _phase_gap_levels(even: tuple, odd: tuple, gaps: np.ndarray, end: int) -> np.ndarray:
    """Level at each gap's end from the merged streams (unknown past the capture's end)."""
    (na, ta, _), (nb, tb, _) = even, odd
    his = gaps[:, 1] if gaps.size else np.zeros(0, dtype=np.int64)
    lev = np.where(his % 2 == 0, _level_at(na, ta, his), _level_at(nb, tb, his))
    return np.where(his <= end, lev, UNKNOWN_LEVEL).astype(np.int64)


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
