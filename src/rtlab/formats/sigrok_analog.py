"""The analog channels of a sigrok session as logic ones: `-O threshold=1.65` (and
`-O hysteresis=0.2`), as PulseView and Logic 2 threshold an analog trace.

A session holds each analog channel `analogK=NAME` (metadata) in members
`analog-1-K-1`, `analog-1-K-2`, … of little-endian float32 samples, one per sample of
the session. The level is 1 at or above the threshold and 0 below it; with a
hysteresis h it becomes 1 only at or above threshold + h/2 and 0 only at or below
threshold - h/2 (a Schmitt trigger: in between it keeps its level; the first sample's
level is the side of the threshold it is on). An edge's time is the index of the first
sample at the new level, as for the logic channels.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats import sigrok_zip as sr_zip
from rtlab.model import Capture, Channel


def analog_probes(keys: dict[str, str]) -> list[tuple[int, str]]:
    """(K, name) of each `analogK=NAME` key, in K order."""
    out = []
    for key, value in keys.items():
        num = key[len("analog") :]
        if key.startswith("analog") and num.isdigit():
            out.append((int(num), value.strip()))
    return sorted(out)


def members(zf: zipfile.ZipFile, k: int) -> list[str]:
    prefix = f"analog-1-{k}-"
    found = []
    for name in zf.namelist():
        num = name[len(prefix) :]
        if name.startswith(prefix) and num.isdigit():
            found.append((int(num), name))
    return [n for _, n in sorted(found)]


class Thresholder:
    """Samples in, edges (sample indices) out, chunk after chunk."""

    def __init__(self, threshold: float, hysteresis: float = 0.0) -> None:
        if hysteresis < 0:
            raise ValueError(f"hysteresis must be ≥ 0, not {hysteresis}")
        self.hi = threshold + hysteresis / 2
        self.lo = threshold - hysteresis / 2
        self.threshold = threshold
        self.level: int | None = None
        self.n = 0

    def feed(self, v: np.ndarray) -> np.ndarray:
        if v.size == 0:
            return np.zeros(0, np.int64)
        if self.level is None:
            self.level = int(v[0] >= self.threshold)
        up, down = v >= self.hi, v <= self.lo
        decided = up | down
        # the last decided sample at or before each sample; before any: the carried level
        idx = np.where(decided, np.arange(v.size), -1)
        np.maximum.accumulate(idx, out=idx)
        lv = np.where(idx >= 0, up[np.maximum(idx, 0)], bool(self.level)).astype(np.int8)
        prev = np.concatenate(([self.level], lv[:-1]))
        edges = np.flatnonzero(lv != prev).astype(np.int64) + self.n
        self.level = int(lv[-1])
        self.n += v.size
        return edges


def first_level(zf: zipfile.ZipFile, path: Path, k: int, threshold: float) -> int:
    names = members(zf, k)
    if not names:
        raise FormatError(path, f"no samples of analog channel {k} (member analog-1-{k}-1)")
    head = sr_zip.read_member(zf, path, names[0], 1 << 30)[:4]
    if len(head) < 4:
        raise FormatError(path, "an analog member holds no whole sample", member=names[0])
    return int(np.frombuffer(head, "<f4")[0] >= threshold)


def analog_edges(
    zf: zipfile.ZipFile, path: Path, k: int, threshold: float, hysteresis: float
) -> Iterator[np.ndarray]:
    """The edges of analog channel k, member by member."""
    th = Thresholder(threshold, hysteresis)
    rest = b""
    for name in members(zf, k):
        for block in sr_zip.streamed(zf, path, name):
            data = rest + block
            cut = len(data) - len(data) % 4
            rest = data[cut:]
            e = th.feed(np.frombuffer(data[:cut], "<f4"))
            if e.size:
                yield e


def add_analog(
    zf: zipfile.ZipFile,
    p: Path,
    keys: dict[str, str],
    threshold: Any,
    hysteresis: Any,
    channels: list[str] | None,
    header: Capture,
) -> list[tuple[str, Iterator[np.ndarray]]]:
    """With -O threshold=: each analog channel as a logic one, added to the header; its
    edges (to be handed out after the logic channels') as iterators."""
    if threshold is None:
        raise FormatError(p, "hysteresis= needs threshold= (-O threshold=1.65)")
    try:
        thr, hyst = float(threshold), float(hysteresis or 0)
    except ValueError:
        raise FormatError(p, f"threshold and hysteresis are volts: {threshold!r}") from None
    out = []
    for k, name in analog_probes(keys):
        if channels and name not in channels:
            continue
        level = first_level(zf, p, k, thr)
        header.add(Channel(name, np.zeros(0, np.int64), initial_level=level))
        out.append((name, analog_edges(zf, p, k, thr, hyst)))
    header.metadata["threshold"] = {"volts": thr, "hysteresis": hyst}
    return out
