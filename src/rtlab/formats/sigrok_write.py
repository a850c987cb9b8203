"""Writing a sigrok session file (`.sr`) that PulseView and sigrok-cli open: the zip of
`version` (2), a `metadata` INI and the logic samples in members `logic-1-1`,
`logic-1-2`, … of at most 4 MiB each, as libsigrok writes them.

A session is a grid of samples: one sample per tick, so the tick must be a whole number
of Hz apart (samplerate = 1/tick, an integer; a capture of 10 ns ticks is a 100 MHz
session). Sample 0 is the capture's first tick (t_start, or its first edge); the last
sample is at t_end - 1 (or the last edge). Each channel's level at sample i is the level
after its last edge at or before i; an edge at tick t is the first sample of its new
level, as rtlab's reader reads it back. Gaps cannot be said in a session (sigrok has
none): a capture with gaps is refused. Levels unknown before the first edge are written
as 0.
"""

from __future__ import annotations

import zipfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import RtlabError
from rtlab.fsutil import atomic_path
from rtlab.model import UNKNOWN_LEVEL, Capture

MEMBER_BYTES = 4 << 20  # libsigrok's chunk size
MAX_SAMPLES = 1 << 34  # 16 Gi samples: beyond that the session would not fit anywhere
MAX_CHANNELS = 512


def samplerate_text(hz: int) -> str:
    """The samplerate as libsigrok writes it: '1 MHz', '200 kHz', '6250 kHz'."""
    for scale, unit in ((10**9, "GHz"), (10**6, "MHz"), (10**3, "kHz")):
        if hz >= scale and hz % scale == 0:
            return f"{hz // scale} {unit}"
    for scale, unit in ((10**6, "MHz"), (10**3, "kHz")):
        if hz >= scale and hz % (scale // 1000) == 0:
            return f"{hz / scale:g} {unit}"
    return f"{hz} Hz"


def write(cap: Capture, path: Path, **_: Any) -> None:
    rate = 1 / Fraction(cap.tick_s)
    if rate.denominator != 1:
        raise RtlabError(
            f"{path}: a sigrok session needs a whole-Hz sample rate; the tick "
            f"{float(cap.tick_s * 10**9):g} ns is {float(rate):g} Hz (convert with --tick 1ns)"
        )
    if len(cap.gaps):
        raise RtlabError(f"{path}: a sigrok session cannot hold gaps ({len(cap.gaps)} here)")
    chans = list(cap)
    if not chans:
        raise RtlabError(f"{path}: the capture has no channels")
    if len(chans) > MAX_CHANNELS:
        raise RtlabError(f"{path}: at most {MAX_CHANNELS} channels in a session")
    lo, hi = cap.window()
    last = max((int(c.edges[-1]) for c in chans if len(c)), default=lo)
    end = max(hi, last + 1)
    n = end - lo
    if n > MAX_SAMPLES:
        raise RtlabError(f"{path}: {n} samples is more than a session can hold here")
    unitsize = (len(chans) + 7) // 8
    meta = [
        "[global]",
        "sigrok version=0.5.2",
        "",
        "[device 1]",
        "capturefile=logic-1",
        f"total probes={len(chans)}",
        f"samplerate={samplerate_text(int(rate))}",
        "total analog=0",
        *(f"probe{i + 1}={c.name}" for i, c in enumerate(chans)),
        f"unitsize={unitsize}",
        "",
    ]
    per_member = max(1, MEMBER_BYTES // unitsize)
    with atomic_path(path) as tmp, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("version", "2")
        zf.writestr("metadata", "\n".join(meta))
        for k, a in enumerate(range(0, n, per_member), 1):
            b = min(a + per_member, n)
            zf.writestr(f"logic-1-{k}", _samples(chans, lo + a, lo + b, unitsize).tobytes())


def _samples(chans: list[Any], a: int, b: int, unitsize: int) -> np.ndarray:
    """The samples of ticks [a, b): one row of `unitsize` bytes per sample."""
    out = np.zeros((b - a, unitsize), dtype=np.uint8)
    ticks = np.arange(a, b, dtype=np.int64)
    for i, ch in enumerate(chans):
        start = 0 if ch.initial_level == UNKNOWN_LEVEL else int(ch.initial_level)
        flips = np.searchsorted(ch.edges, ticks, side="right")  # edges at or before each
        level = ((flips & 1) ^ start).astype(np.uint8)
        out[:, i // 8] |= level << (i % 8)
    return out
