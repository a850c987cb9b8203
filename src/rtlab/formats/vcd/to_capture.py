"""Reading VCD and FST: the numpy scanner for plain VCD, pywellen (forked) for the rest,
then channels, the window and, for rtlab's own files, the exact tick (see __init__)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from rtlab.errors import FormatError
from rtlab.formats.vcd import scanner as vcd_scan
from rtlab.formats.vcd.channels import add_channels, declared_order, timescale_s
from rtlab.formats.vcd.plain import plain_stream
from rtlab.formats.vcd.roundtrip import apply_rtlab, from_units
from rtlab.formats.vcd.timeline import check_timescale, timeline
from rtlab.model import UNKNOWN_LEVEL, Capture, EdgeStream

_HEADER_BYTES = 1 << 20


def _header(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(_HEADER_BYTES)


_FST_BLOCKS = {
    0: "header",
    1: "value changes",
    2: "blackout",
    3: "geometry",
    4: "hierarchy",
    5: "value changes",
    6: "hierarchy",
    7: "hierarchy",
    8: "value changes",
    255: "skip",
}


_I64_MAX = 2**63 - 1
_SCAN_MAX_BYTES = 128 << 20  # the scanner's arrays take about 10x the file in memory


def _scan(path: Path) -> dict[str, Any] | None:
    """The numpy fast path; None sends the file to pywellen."""
    try:
        return vcd_scan.scan(path.read_bytes())
    except Exception:  # whatever trips the scanner, pywellen is the authority
        return None


def _check_fst_blocks(path: Path, size: int) -> list[tuple[int, int]]:
    """FST is a chain of blocks (type byte, big-endian u64 length): they must tile the
    file exactly, or it is truncated or corrupt (the Rust parser may not notice).
    Returns the $dumpoff pauses of the blackout block; checks the header's times."""
    pos = 0
    pauses: list[tuple[int, int]] = []
    with open(path, "rb") as fh:
        while pos < size:
            fh.seek(pos)
            head = fh.read(9)
            if len(head) < 9:
                raise FormatError(path, "truncated: expected an FST block header", offset=pos)
            kind, length = head[0], int.from_bytes(head[1:9], "big")
            if kind not in _FST_BLOCKS:
                raise FormatError(path, f"unknown FST block type {kind}", offset=pos)
            if length < 8 or pos + 1 + length > size:
                raise FormatError(
                    path,
                    f"FST {_FST_BLOCKS[kind]} block of {length} bytes "
                    "runs past the end of the file: truncated",
                    offset=pos,
                )
            if kind == 0:
                _fst_header_times(path, fh.read(16), pos + 9)
            elif kind == 2:
                pauses = _fst_blackouts(path, fh.read(length - 8), pos + 9)
            pos += 1 + length
    return pauses


def _fst_header_times(path: Path, data: bytes, at: int) -> None:
    start, end = int.from_bytes(data[:8], "big"), int.from_bytes(data[8:16], "big")
    if end > _I64_MAX:
        raise FormatError(path, f"FST end time {end} does not fit in 64 bits", offset=at + 8)
    if start > end:
        raise FormatError(path, f"FST start time {start} after its end time {end}", offset=at)


def _fst_blackouts(path: Path, data: bytes, at: int) -> list[tuple[int, int]]:
    """The blackout block: a count, then (dumpon flag, time delta) pairs (varints)."""
    pos = 0

    def varint() -> int:
        nonlocal pos
        v = shift = 0
        while True:
            if pos >= len(data) or shift > 63:
                raise FormatError(
                    path, "FST blackout block: bad or truncated varint", offset=at + pos
                )
            b = data[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v

    out: list[tuple[int, int]] = []
    t, off = 0, None
    for _ in range(varint()):
        if pos >= len(data):
            raise FormatError(path, "FST blackout block: truncated", offset=at + pos)
        on = data[pos] != 0
        pos += 1
        t += varint()
        if t > _I64_MAX:
            raise FormatError(
                path, f"FST blackout time {t} does not fit in 64 bits", offset=at + pos
            )
        if not on and off is None:
            off = t
        elif on and off is not None:
            if t > off:
                out.append((off, t))
            off = None
    return out


def _check_complete(path: Path, size: int) -> None:
    """A VCD writer ends its last line; a file cut mid-line is truncated."""
    with open(path, "rb") as fh:
        fh.seek(size - 1)
        if fh.read(1) in b" \t\r\n":
            return
        fh.seek(0)
        lines = 1
        while block := fh.read(1 << 24):
            lines += block.count(b"\n")
    raise FormatError(path, "the file ends in the middle of a line: truncated", line=lines)


def _vcd_end_time(path: Path) -> int | None:
    """The last `#time` of a VCD: the end of the dump, even with no change there."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        fh.seek(max(0, size - 65536))
        tail = fh.read()
    # look-around: `#0\n#999\n` holds two times (a consumed \n would hide the second)
    hits = re.findall(rb"(?:^|(?<=\s))#([0-9]{1,18})(?=\s)", tail + b"\n")
    return int(hits[-1]) if hits else None


def _to_edges(
    times: np.ndarray, lv: np.ndarray, pauses: np.ndarray
) -> tuple[np.ndarray, int, np.ndarray, int, int]:
    """(edge times, initial level, level after each pause, x/z changes, changes that a
    later change at the same time overrode) of one signal's value changes.

    One value per time step: of several changes at one time (`#10 1! 0! 1!`, or `#10`
    written twice) the last wins, as sigrok reads a VCD, so a zero-width pulse is never
    an edge pair and no period is 0. `pauses` are the ($dumpoff, $dumpon) times: changes
    between them are not data, and the value at $dumpon is the level on resuming."""
    if len(pauses):  # the x a $dumpoff writes is no value of its time step
        data = ~(np.isin(times, pauses[:, 0]) & (lv < 0))
        times, lv = times[data], lv[data]
    last = np.ones(times.size, dtype=bool)
    last[:-1] = times[1:] != times[:-1]
    overridden = int(times.size - np.count_nonzero(last))
    times, lv = times[last], lv[last]
    known = lv >= 0
    xz = int(lv.size - np.count_nonzero(known))
    t, v = times[known], lv[known]
    levels = np.full(len(pauses) + 1, UNKNOWN_LEVEL, dtype=np.int64)
    if len(pauses) and t.size:
        seg = np.searchsorted(pauses[:, 0], t, side="left")  # a change at $dumpoff is before
        on = np.where(seg > 0, pauses[np.maximum(seg - 1, 0), 1], -1)
        keep = t >= on
        t, v, seg = t[keep], v[keep], seg[keep]
    else:
        seg = np.zeros(t.size, dtype=np.int64)
    if t.size == 0:
        return np.zeros(0, np.int64), UNKNOWN_LEVEL, levels[1:], xz, overridden
    firsts = np.flatnonzero(np.diff(seg, prepend=-1) != 0)
    levels[seg[firsts]] = v[firsts]
    flip = np.zeros(t.size, dtype=bool)
    flip[1:] = (v[1:] != v[:-1]) & (seg[1:] == seg[:-1])
    return t[flip], int(levels[0]), levels[1:], xz, overridden


def read(
    path: str | Path,
    *,
    channels: list[str] | None = None,
    timeout: float | None = None,
    engine: str = "auto",
    **_: Any,
) -> Capture:
    """Read the 1-bit signals of a VCD or FST file (see the module doc).

    `engine`: "auto" (the numpy scanner for plain VCD up to 128 MB, else pywellen),
    "wellen" (always pywellen) or "scan" (the scanner or an error)."""
    p = Path(path)
    size, head = _open(p)
    stream = _plain(p, size, head, engine, channels)
    if stream is not None:
        return stream.gather()
    res = _parse(p, size, head, engine, timeout)
    pauses = np.array(res.get("pauses", []), dtype=np.int64).reshape(-1, 2)
    sigs = res["signals"]
    if not sigs:
        raise FormatError(
            p, f"no 1-bit signal in this {res['format']} file ({res['skipped']} other variables)"
        )
    is_vcd = res["format"].upper() == "VCD"
    if is_vcd:
        _check_complete(p, size)
    tick = timescale_s(p, res["timescale"])
    declared = declared_order(head) if is_vcd else []
    rt = apply_rtlab(p, head, tick, declared) if is_vcd else None
    t_start, t_end = _window(p, sigs, is_vcd)
    if rt is not None:  # our own file: exact tick, window, channel names and order
        tick, t_start, t_end = rt.tick, rt.t_start, rt.t_end
        order = {n: k for k, n in enumerate(declared)}
        sigs = sorted(sigs, key=lambda s: order.get(s[0], len(order)))
    cap = Capture(
        tick_s=tick,
        t_start=t_start,
        t_end=t_end,
        metadata={
            "vcd_format": res["format"],
            "aliases": {},
            "xz_changes": {},
            "skipped_vars": res["skipped"],
        },
    )

    def edges_of(key: tuple[np.ndarray, np.ndarray]) -> Any:
        edges, level, resumed, xz, overridden = _to_edges(*key, pauses)
        return edges, level, resumed if len(pauses) else None, xz, overridden

    keyed = [(full, short, (times, lv)) for full, short, times, lv in sigs]
    add_channels(p, cap, keyed, channels, rt, edges_of)
    if len(pauses):  # a gap starts after an edge at its $dumpoff time
        gaps = pauses.copy()
        if rt is not None:  # rtlab's own file: timescale units back to ticks
            gaps = from_units(p, "$dumpoff", pauses.ravel(), rt.ratio).reshape(-1, 2)
            gaps += rt.t_zero
        starts = gaps[:, 0].copy()
        hit = np.zeros(len(starts), dtype=bool)
        for ch in cap:  # edges are sorted: a search, not np.isin's hash of them all
            i = np.minimum(np.searchsorted(ch.edges, starts), max(len(ch) - 1, 0))
            hit |= (ch.edges[i] == starts) if len(ch) else False
        gaps[hit, 0] += 1
        cap.gaps = gaps
        cap.metadata["dumpoff_gaps"] = len(gaps)
    return cap


def read_stream(path: str | Path, **options: Any) -> EdgeStream:
    """read() as a stream (the same options): a plain VCD block by block (plain.py,
    memory bounded by a block); FST and other VCD bodies are read whole (pywellen or
    the numpy scanner) and handed out in chunks."""
    p = Path(path)
    stream = _plain(p, *_open(p), options.get("engine", "auto"), options.get("channels"))
    if stream is not None:
        return stream
    return EdgeStream.from_capture(read(p, **options))


def _open(p: Path) -> tuple[int, bytes]:
    try:
        return p.stat().st_size, _header(p)
    except OSError as exc:
        raise FormatError(p, f"cannot open: {exc.strerror or exc}") from None


def _plain(
    p: Path, size: int, head: bytes, engine: str, channels: list[str] | None
) -> EdgeStream | None:
    """The stream of plain.py for a plain VCD (its time line and end checked first)."""
    if engine == "wellen" or size == 0 or not sniff(head, p) or sniff_fst(head, p):
        return None
    check_timescale(p, head)
    _check_complete(p, size)
    return plain_stream(p, size, head, channels)


def _parse(p: Path, size: int, head: bytes, engine: str, timeout: float | None) -> dict[str, Any]:
    """The signals of the file: the numpy scanner if it can, else pywellen (forked)."""
    if size == 0:
        raise FormatError(p, "file is empty, expected a VCD or FST file", offset=0)
    body = head.lstrip()
    if not (
        sniff_fst(head, p)
        or head[:1] == b"\xfe"
        or head.startswith(b"GHDLwave")
        or body.startswith(b"$")
    ):  # what pywellen would say, without the fork
        raise FormatError(
            p,
            "not a VCD or FST file: expected a $command (VCD) or an FST header",
            line=head[: len(head) - len(body)].count(b"\n") + 1,
        )
    res = None
    pauses: list[tuple[int, int]] = []
    if sniff_fst(head, p):
        pauses = _check_fst_blocks(p, size)
    elif body.startswith(b"$"):  # VCD: the time line first, whichever parser reads it
        check_timescale(p, head)
        _check_complete(p, size)  # a cut last time would read as one going backwards
        scannable = engine != "wellen" and size <= _SCAN_MAX_BYTES and sniff(head, p)
        res = _scan(p) if scannable else None
        if res is None or not res.get("plain"):  # a plain body has no pause, no bad time
            pauses = timeline(p)
    if sniff_fst(head, p):
        pass  # pywellen reads FST
    elif res is None and engine != "wellen" and size <= _SCAN_MAX_BYTES and sniff(head, p):
        res = _scan(p)
    if res is None:
        if engine == "scan":
            raise FormatError(p, "not a plain VCD that the numpy scanner reads")
        from rtlab.formats.vcd.wellen import read_isolated  # a fork, DuckDB-free: lazily

        res = read_isolated(p, timeout if timeout is not None else 60 + size / 2e5)
    res["pauses"] = pauses
    return res


def _window(p: Path, sigs: list[Any], is_vcd: bool) -> tuple[int, int]:
    """First change to the last time stamp (a VCD's final `#t` counts)."""
    firsts = [int(t[0]) for _, _, t, _ in sigs if t.size]
    lasts = [int(t[-1]) for _, _, t, _ in sigs if t.size]
    t_start = min(firsts) if firsts else 0
    t_end = max(lasts) if lasts else t_start
    if is_vcd:
        end = _vcd_end_time(p)
        if end is not None and end > t_end:
            t_end = end
    return t_start, t_end


def sniff(head: bytes, path: Path) -> bool:
    text = head.lstrip()
    return text.startswith((b"$date", b"$version", b"$timescale", b"$scope", b"$comment"))


def sniff_fst(head: bytes, path: Path) -> bool:
    # FST starts with a header block: type 0, then its 64-bit length 329
    return head[:9] == b"\x00" + (329).to_bytes(8, "big")
