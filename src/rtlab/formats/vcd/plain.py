"""Plain VCD bodies (scanner.py's rule: 1-bit changes with one-byte ids, times that
never go backwards, no comment or $dumpoff) read by the compiled scanner
(rtlab_native.VcdEdges) block by block into edges: the fast path of the VCD reader,
in memory bounded by a block, whatever the file's size.

A body of up to WHOLE_MAX bytes is scanned in one pass, its edges kept. A larger one
is scanned twice: a first pass keeps no edge and finds whether the body is plain, each
channel's initial level, counts and the window (the stream's header is whole before
its first chunk); the second hands out the edges block by block. A body that is not
plain returns None before any edge is handed out: the reader then reads the file whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats.textutil import line_blocks
from rtlab.formats.vcd import scanner
from rtlab.formats.vcd.channels import add_channels, declared_order, ticks_of, timescale_s
from rtlab.formats.vcd.roundtrip import Rtlab, apply_rtlab
from rtlab.model import UNKNOWN_LEVEL, Capture, EdgeStream

try:
    from rtlab_native import VcdEdges
except ImportError:  # pragma: no cover - depends on the install
    VcdEdges = None

WHOLE_MAX = 64 << 20
BLOCK = 16 << 20


def _blocks(path: Path, at: int, size: int) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        fh.seek(at)
        for block, _, _ in line_blocks(fh, size, None):
            yield block


def plain_stream(
    path: Path, size: int, head: bytes, channels: list[str] | None
) -> EdgeStream | None:
    """The capture of a plain VCD as a stream (see the module doc), or None."""
    found = scanner.split_header(head) if VcdEdges is not None else None
    if found is None:
        return None
    (timescale, variables, skipped, declared), at = found
    plan = scanner.one_byte_slots(variables, declared) if variables else None
    if plan is None:
        return None
    slots, n_out, out_of = plan
    whole = size - at <= WHOLE_MAX
    first = VcdEdges(slots, n_out, whole)
    for block in _blocks(path, at, WHOLE_MAX if whole else BLOCK):
        if not first.feed(block):
            return None
    if not first.finish():
        return None
    figures = first.figures()
    starts = [f[3] for f in figures if f[3] >= 0]
    t_start = min(starts) if starts else 0
    window = (timescale_s(path, timescale), t_start, max(t_start, first.time()))
    sigs = [(full, short, k) for (full, short, _), k in zip(variables, out_of, strict=True)]
    declared = declared_order(head)
    rt = apply_rtlab(path, head, window[0], declared)
    if rt is not None:  # our own file: exact tick, window, channel names and order
        window = (rt.tick, rt.t_start, rt.t_end)
        order = {n: k for k, n in enumerate(declared)}
        sigs.sort(key=lambda s: order.get(s[0], len(order)))
    cap = Capture(
        tick_s=window[0],
        t_start=window[1],
        t_end=window[2],
        metadata={"vcd_format": "VCD", "aliases": {}, "xz_changes": {}, "skipped_vars": skipped},
    )

    taken: dict[int, np.ndarray] = {}  # variables may share an id, so an output

    def edges_of(k: int) -> tuple[np.ndarray, int, None, int, int]:
        level, xz, overridden = figures[k][:3]
        if k not in taken:
            taken[k] = np.frombuffer(first.take(k), np.int64) if whole else np.zeros(0, np.int64)
        edges = taken[k]
        return edges, UNKNOWN_LEVEL if level < 0 else level, None, xz, overridden

    added = add_channels(path, cap, sigs, channels, rt, edges_of)
    if whole:
        return EdgeStream.from_capture(cap)
    counts = {name: figures[k][5] for name, k in added}
    return EdgeStream(cap, counts, _chunks(path, at, slots, n_out, added, rt))


def _chunks(
    path: Path, at: int, slots: list[int], n_out: int, added: list[tuple[str, int]],
    rt: Rtlab | None,
) -> Iterator[tuple[str, np.ndarray]]:  # fmt: skip
    """The second pass: each channel's edges block by block."""
    scan = VcdEdges(slots, n_out, True)

    def taken() -> Iterator[tuple[str, np.ndarray]]:
        found = {k: np.frombuffer(scan.take(k), dtype=np.int64) for k in {k for _, k in added}}
        for name, k in added:
            edges = found[k]
            if edges.size:
                if rt is not None:
                    edges = ticks_of(path, name, edges, rt)
                yield name, edges

    for block in _blocks(path, at, BLOCK):
        if not scan.feed(block):
            raise FormatError(path, "the file changed while it was read")
        yield from taken()
    scan.finish()
    yield from taken()
