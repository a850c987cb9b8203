"""What both VCD reading paths share (to_capture.py for whole files, plain.py for plain
bodies block by block): the timescale, the declared order, and the channels made from
the signals (names, selection, aliases, the counts in the metadata)."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats.vcd.roundtrip import ROOT, Rtlab, from_units
from rtlab.model import Capture, Channel


def ticks_of(path: Path, name: str, units: np.ndarray, rt: Rtlab) -> np.ndarray:
    """Times of an rtlab file (timescale units after its `#0`) as ticks, checked."""
    edges = from_units(path, name, units, rt.ratio)
    if edges.size and int(edges[-1]) + rt.t_zero > 2**63 - 1:
        raise FormatError(path, f"{name}: a change lies beyond 2^63 - 1 ticks")
    return edges + rt.t_zero


def timescale_s(path: Path, ts: tuple[int, int] | None) -> Fraction:
    if ts is None:
        return Fraction(1, 10**9)  # wellen's default when the file names none
    factor, exp = ts
    if factor <= 0:
        raise FormatError(path, f"timescale factor {factor} is not positive")
    return Fraction(factor) * Fraction(10) ** exp


def add_channels(
    p: Path,
    cap: Capture,
    sigs: list[Any],
    channels: list[str] | None,
    rt: Rtlab | None,
    edges_of: Callable[[Any], tuple[np.ndarray, int, np.ndarray | None, int, int]],
) -> list[tuple[str, Any]]:
    """One channel per signal (full name, short name, key) selected by full or short
    name: edges_of(key) gives its (edges, initial level, levels after the pauses or None,
    x/z changes, changes a later one at the same time overrode). `rt` is set for
    rtlab's own files, whose times are timescale units relative to their `#0` and whose
    names comment restores the names VCD cannot spell. Returns the (channel name, key)
    of the channels added."""
    added: list[tuple[str, Any]] = []
    shortcount: dict[str, int] = {}
    for _, short, _ in sigs:
        shortcount[short] = shortcount.get(short, 0) + 1
    # `data [0]` (as a VCD header spells a bit-select) names channel `data[0]`
    want = {re.sub(r"\s+\[", "[", n) for n in channels} if channels else None
    for full, short, key in sigs:
        name = full
        if rt is not None and full in rt.names:
            name = rt.names[full]
        elif rt is not None and full.startswith(ROOT + "."):
            name = full[len(ROOT) + 1 :]
        if want is not None and name not in want and short not in want:
            continue
        if name in cap.channels:
            raise FormatError(p, f"two 1-bit signals are named {name!r}")
        edges, level, resumed, xz, overridden = edges_of(key)
        if rt is not None:
            edges = ticks_of(p, name, edges, rt)
        cap.add(Channel(name, edges, initial_level=level, gap_levels=resumed))
        added.append((name, key))
        if xz:
            cap.metadata["xz_changes"][name] = xz
        if overridden:
            same = cap.metadata.setdefault("same_time_changes", {})
            same[name] = overridden
        if shortcount[short] == 1 and short != name:
            cap.metadata["aliases"][short] = name
        if name.endswith("]"):  # a bit-select is also found as the header spells it
            for alias in {name, short} if shortcount[short] == 1 else {name}:
                cap.metadata["aliases"][alias.replace("[", " [")] = name
    if want is not None:
        missing = want - set(cap.channels) - set(cap.metadata["aliases"])
        if missing:
            first = sorted(missing)[0]
            same = [full for full, short, _ in sigs if short == first]
            if len(same) > 1:
                raise FormatError(
                    p, f"channel {first!r} is ambiguous: the short name of {', '.join(same)}; "
                    f"give a full name, e.g. -c {same[0]}"
                )
            raise FormatError(p, f"no 1-bit signal named {first!r}")
    return added


def declared_order(head: bytes) -> list[str]:
    """Full names of the variables in the order the header declares them."""
    names, scope = [], []
    for m in re.finditer(rb"\$(scope|upscope|var)\b(.*?)\$end", head, re.S):
        kind, args = m.group(1), m.group(2).split()
        if kind == b"scope" and len(args) >= 2:
            scope.append(args[1].decode("utf-8", "replace"))
        elif kind == b"upscope" and scope:
            scope.pop()
        elif kind == b"var" and len(args) >= 4:
            names.append(".".join([*scope, args[3].decode("utf-8", "replace")]))
    return names
